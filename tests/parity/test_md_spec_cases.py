"""The Markdown spec cases, ``cases/markdown_blocks.yaml``: texts written to cover every block kind
and its edge cases (ATX and setext headings, thematic breaks against list items and underlines,
indented and fenced code, the seven HTML block kinds, link reference definitions, quotes with lazy
continuation, nested and ordered lists, GFM tables, ``<Table>``/``<Figure>`` wrappers, front
matter, CRLF and CR, tabs, blank lines of spaces, Unicode).

On each text the fast path (engine ``auto``) gives mistletoe's rows (engine ``mistletoe``) row for
row and the same top-level parse buffer, and the text-unit scans give their references' sentences,
words and line breaks. A case that states its ``rows`` is also a specification: both engines give
exactly those.

Unlike the corpus comparisons these need nothing outside the clone, so this module never skips:
``.ci/run``'s parity step fails when one of its tests is skipped. A disagreement that cannot be
fixed at once is marked ``xfail`` in the case file, never skipped here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from adachunk.detect.markdown import BLOCK_LABELS, ENGINES, parse_block_rows

from .test_md_fast_parity import _buffers, _key
from .test_text_units_fast_parity import assert_parity

CASE_FILE = Path(__file__).parent / "cases" / "markdown_blocks.yaml"
KEYS = {"name", "description", "text", "rows", "xfail"}
MIN_CASES, MIN_STATED = 120, 80

CASES: list[dict] = yaml.safe_load(CASE_FILE.read_text(encoding="utf-8"))


def _params(stated_only: bool = False, strict: bool = True) -> list:
    """One parameter per case (``stated_only``: per case with ``rows``); a case's ``xfail`` marks
    the Markdown comparisons as expected to fail (strict where a fix must show)."""
    out = []
    for case in CASES:
        if stated_only and "rows" not in case:
            continue
        marks = [pytest.mark.xfail(reason=case["xfail"], strict=strict)] if case.get("xfail") else []
        out.append(pytest.param(case, id=case["name"], marks=marks))
    return out


def _as_yaml(text: str, rows: list[tuple]) -> str:
    """``rows`` as the case file writes them (to compare, or to paste once checked by hand)."""
    return "\n".join(f"    - [{s}, {e}, {label}, {level}]  # {text[s:e]!r}" for s, e, label, level in rows)


def test_the_case_file_is_a_specification():
    names = [case.get("name") for case in CASES]
    assert len(CASES) >= MIN_CASES
    assert len(set(names)) == len(names) and all(isinstance(n, str) and n for n in names)
    for case in CASES:
        assert set(case) <= KEYS and isinstance(case.get("text"), str), case.get("name")
    stated = [case for case in CASES if "rows" in case]
    assert len(stated) >= MIN_STATED
    for case in stated:
        for row in case["rows"]:
            assert len(row) == 4 and row[2] in BLOCK_LABELS, (case["name"], row)
    assert {row[2] for case in stated for row in case["rows"]} == set(BLOCK_LABELS)


@pytest.mark.parametrize("case", _params())
def test_fast_path_rows_are_mistletoes(case):
    text = case["text"]
    fast, ref = parse_block_rows(text, "auto"), parse_block_rows(text, "mistletoe")
    assert fast == ref, f"auto:\n{_as_yaml(text, fast)}\nmistletoe:\n{_as_yaml(text, ref)}"


@pytest.mark.parametrize("case", _params(stated_only=True))
def test_both_engines_give_the_stated_rows(case):
    text, want = case["text"], [tuple(row) for row in case["rows"]]
    for engine in ENGINES:
        got = parse_block_rows(text, engine)
        assert got == want, f"{engine}:\n{_as_yaml(text, got)}\nstated:\n{_as_yaml(text, want)}"


# a row disagreement need not show in the top-level buffer: not strict
@pytest.mark.parametrize("case", _params(strict=False))
def test_fast_path_top_level_buffer_is_mistletoes(case):
    fast, ref = _buffers(case["text"])
    assert [_key(e) for e in fast] == [_key(e) for e in ref]


@pytest.mark.parametrize("case", [pytest.param(case, id=case["name"]) for case in CASES])
def test_text_unit_scans_equal_their_references(case):
    assert_parity(case["text"])
