"""The compiled top level of ``markdown.block.v1`` (``engine: auto``) gives mistletoe's blocks.

:mod:`adachunk.detect.markdown._compiled` reads a long text's top level with the loops of
:mod:`adachunk.detect.markdown._block_reader` and hands every other block to the same mistletoe
readers as :mod:`adachunk.detect.markdown._fast`. Here, with that path forced on (compiled, and its
loops run as plain Python, their own twins):

* every span, label and level equal to the ``mistletoe`` engine's on CLAIR (skipped without
  ``../shared``), the examples, the package Markdown the peers bench reads, the unit cases of
  ``test_md_fast_parity`` and generated Markdown and lists;
* the line table equal to ``LineMap`` and to the Python tests its bits stand for;
* every line the kernel calls safe really opens nothing but a paragraph and interrupts none
  (mistletoe's own ``start`` / ``check_interrupts_paragraph`` on it);
* every list, fence and table the kernel reads equal to what mistletoe's reader reads there.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mistletoe.block_tokenizer import FileWrapper

from adachunk._jit import compiled
from adachunk.detect.markdown import _fast as mf
from adachunk.detect.markdown import _block_reader as K
from adachunk.detect.markdown import _line_table as L
from adachunk.detect.markdown import _mistletoe as mm
from adachunk.detect.markdown import _offsets as mo
from adachunk.detect.markdown import _compiled
from adachunk.detect import markdown as md
from adachunk.detect.markdown import parse_blocks

from .test_md_fast_parity import (CASES, CLAIR, EXAMPLES, _clair_texts, _package_markdown,
                                  corpora_texts, lists, markdown)


#: The fast path against its reference: `pytest -m parity` runs every such test (also in the default run).
pytestmark = pytest.mark.parity


@pytest.fixture(params=["jit", "python"])
def compiled_top(request, monkeypatch):
    """Force the compiled top level on every text; ``python`` runs its loops uncompiled."""
    jit = request.param == "jit"
    real = _compiled.LineTable.__init__

    def init(self, text, _jit=True, deep=100, memo=None, made=None):
        real(self, text, jit, deep, memo, made)

    monkeypatch.setattr(_compiled, "wanted", lambda n: True)
    monkeypatch.setattr(_compiled.LineTable, "__init__", init)
    monkeypatch.setattr(_compiled, "_LOOPS", [])  # decided anew, with this fixture's tables
    return request.param


def assert_same_blocks(text: str) -> None:
    fast, ref = parse_blocks(text, "auto"), parse_blocks(text, "mistletoe")
    if fast != ref:
        extra = sorted(set(fast) - set(ref))[:3]
        missing = sorted(set(ref) - set(fast))[:3]
        pytest.fail(f"compiled differs from mistletoe: extra {extra}, missing {missing}")


def test_the_compiled_path_is_taken(compiled_top, monkeypatch):
    used = []
    real = _compiled.LineTable.read_top
    monkeypatch.setattr(_compiled.LineTable, "read_top",
                        lambda self, *a: used.append(1) or real(self, *a))
    assert_same_blocks("# H\n\npara\n\n- a\n- b\n")
    assert used and _compiled.loops() is not None


# ------------------------------------------------------------------------- corpora
@pytest.mark.skipif(not CLAIR.is_dir(), reason="no ../shared/corpus/clair")
def test_clair_blocks_are_mistletoes(monkeypatch):
    monkeypatch.setattr(_compiled, "wanted", lambda n: True)  # compiled (the twins are slow here)
    for text in _clair_texts():
        assert md.parse_block_rows(text, "auto") == md.parse_block_rows(text, "mistletoe")


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_blocks_are_mistletoes(path, compiled_top):
    assert_same_blocks(path.read_text(encoding="utf-8"))


def test_package_markdown_blocks_are_mistletoes(monkeypatch):
    monkeypatch.setattr(_compiled, "wanted", lambda n: True)
    docs = _package_markdown()
    if not docs:
        pytest.skip("no Markdown in site-packages")
    for _name, text in docs:
        assert_same_blocks(text)


# What the compiled reader leaves to mistletoe's readers on the corpora (by token kind):
# everything else it reads itself.
DEFERRED_KINDS = {"Html", "Quote", "List", "Paragraph", "GfmTable", "BlockCode", "CodeFence",
                  "ThematicBreak"}


def test_deferred_kinds_on_the_corpora(monkeypatch):
    monkeypatch.setattr(_compiled, "wanted", lambda n: True)
    seen, real = set(), mf.step

    def step(reader, pos, line=None):
        n = len(reader.buf)
        nxt = real(reader, pos, line)
        seen.update(entry[0].__name__ for entry in reader.buf[n:])
        return nxt

    monkeypatch.setattr(mf, "step", step)
    for text in corpora_texts():
        md.parse_block_rows(text)
    assert seen <= DEFERRED_KINDS, seen - DEFERRED_KINDS


CASES_MORE = {
    "digit lines": "2024 was a year\n1.5 million\n10. ten\n1234567890. long\n\n3) x\n",
    "safe openers": "#tag\n-x\n+y\n*z*\n_a_\n=b\n`c`\n~d\n--e\n**f**\n\nnext\n",
    "digit then list": "intro\n1. a\n2) b\n",
    "ordered interrupts": "para\n2. b\n\npara\n1. a\n",
    "list ends": "- a\n<!-- c -->\n- b\n> q\n- c\n# h\n- d\n\n2024\n",
    "list lazy digits": "- a\n2024\n- b\n\n2025\n",
    "list tab": "- a\n\tcont\n-\tb\n",
    "list nbsp": "-\u00a0a\n1.\u00a0b\n- c\n\u00a0\n",
    "list types": "- a\n+ b\n1. c\n2) d\n3) e\n",
    "wrapper after list": "- a\n<Table>\n| x |\n|---|\n</Table>\n",
    "comment after para": "para\n<!-- c -->\n\ntext\n",
    "bom list": "\ufeff- a\n- b\n",
    "bom digits": "\ufeff2024\ntext\n",
    "mixed setext": "word\n-====\n\nmore\n=-=-\n\nlast\n-=x\n",
    "fences": "```\n# x\n````\n\n~~~py\nx\n~~~~ \n```a`b\n``` x\n```y\n    ```\n",
    "fence unclosed": "para\n\n```\ncode\n\n",
    "fence word close": "```\ncode\n```python\nafter\n",
    "fence tilde info": "~~~ a`b\nx\n   ~~~\n",
    "tables": "| a | b |\n|:-|-:|\n| 1 | 2 |\ntext\n\n|x|\n|-|\n\n| a \\| b |\n|---|\n",
    "table widths": "| a | b |\n|---|\n\n| a |\n--|--\n\n|a|b|\n|---|---|\n| 1\n# h\n",
    "table enders": "| a |\n|---|\n| 1 |\n<!-- c -->\n| b |\n|---|\n> q\n",
    "table one cell": "| a\n---\n|\n|-|\n",
    "table empty cells": "|  |  |\n| - | - |\n|   | x |\n",
    # after a blank line, an item ends at any line less indented than its content that cannot
    # open an item (ListItem.read's interrupt and blank-line branches step back alike)
    "list blank table": "- a\n- b\n\n| x | y |\n|---|---|\n| 1 | 2 |\n",
    "list blank openers": "- a\n\n<div>\nx\n</div>\n\n* b\n\n```\ncode\n```\n\n1. c\n\n~~~\nz\n~~~\n",
    "list blank spaces": "- a\n\n\u00a0 text\n\n- b\n\n \u3000y\n\n10. c\n\n   under\n\n- d\n\n    code\n",
    "list blank pipe item": "- a\n\n- b | c\n\n| d |\n\n1. e\n\n2024 | x\n",
}


@pytest.mark.parametrize("text", list(CASES.values()) + list(CASES_MORE.values()),
                         ids=list(CASES) + list(CASES_MORE))
def test_cases_blocks_are_mistletoes(text, compiled_top):
    assert_same_blocks(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(text=markdown())
def test_generated_markdown_blocks_are_mistletoes(text, compiled_top):
    assert_same_blocks(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(text=lists())
def test_generated_lists_are_mistletoes(text, compiled_top):
    assert_same_blocks(text)


# ------------------------------------------------------------------------- the line table
LINES = st.lists(st.sampled_from([
    "", " ", "   ", "    x", "\t- a", "a", "é", "2024 x", "1. a", "1.", "10) b", "1234567890. c",
    "1.5", "- a", "-a", "--", "---", "- - -", "* * *", "*a*", "+ b", "+b", "_x_", "___", "=x",
    "===", "`x`", "```", "~x", "~~~", "# h", "#h", "####### h", "#", "> q", ">q", "<!-- c -->",
    "<!-- c", "<!-->", "  <!-- x -->", "<div>", "a | b", "|", "\u3000x", "\u00a0", "x\u00a0",
    "\u2028", "\x0b", "\x1c", "\0", "标题", "😀 x", "1.\u00a0b", "-\u00a0c", "\\* x", "[l]: /u",
    "-====", "=-", "=-=x", "-=x", "==-- ", "--==\t", "*_*", "_-_", "+-+",
    # pipes and delimiter rows: a "|" line is safe unless the next line may be a delimiter row
    "x | y", "- a | b", "  a | b", "|---|", "--- | ---", " :-- | --: ", "-|-", "|:-:|", "| a |",
    "a |", "- |---|", "  |---|", "|-x-|", ":--",
]), min_size=1, max_size=12)

# a superset of _mistletoe._is_delimiter_row: "|", "-", ":" and whitespace only, one "-" at least
_DELIMITER_CANDIDATE = re.compile(r"[|\-:\s]*-[|\-:\s]*")


def _kernel(fn, jit: bool):
    """A helper of the block reader, compiled or as plain Python."""
    return compiled(fn, helpers=K.HELPERS) if jit else fn


def _table(text: str, jit: bool) -> _compiled.LineTable:
    return _compiled.LineTable(text, jit=jit, deep=3)


@settings(max_examples=300, deadline=None)
@given(LINES, st.sampled_from(["\n", "\r\n", "\r"]), st.booleans(), st.booleans(), st.booleans())
def test_line_table_is_linemap_and_the_python_tests(lines, eol, tail, bom, jit):
    text = ("\ufeff" if bom else "") + eol.join(lines) + (eol if tail else "")
    table = _table(text, jit)
    lm = mo.LineMap(text)
    starts, ends, blank = table.line_map_fields()
    assert (starts, ends) == (lm.starts, lm.ends)
    assert blank == [lm.is_blank(i) for i in range(len(lm))]
    mlines = mo._replaced_lines(lm)
    for i, line in enumerate(mlines):
        b = int(table.bits[i])
        assert bool(b & L.PLAIN) == mm._plain(line), line
        assert bool(b & L.EMPTY) == (line == "\n"), line
        assert bool(b & L.MBLANK) == (not line.strip()), line
        assert bool(b & L.PIPE) == ("|" in line), line
        after = mlines[i + 1] if i + 1 < len(mlines) else None
        table_next = after is not None and _DELIMITER_CANDIDATE.fullmatch(after.rstrip("\r\n")) is not None
        assert bool(b & L.TABLE) == ("|" in line and table_next), (line, after)
        if after is not None and mm._is_delimiter_row(after):
            assert table_next, after  # the candidates hold every delimiter row
        m = mm._ATX_START.match(line)
        assert int(table.levels[i]) == (len(m.group(1)) if m else 0), line
        comment = bool(mf._HTML_OPEN.match(line)) and line.lstrip(" ").startswith("<!--") \
            and "-->" in line
        assert bool(b & L.COMMENT) == comment, line
        original = text[table.starts[i]:table.ends[i]]
        assert bool(b & L.CLOSE_TAG) == ("</" in original), line
        if mo._after_terminator(mo._WRAP_SCAN, re.IGNORECASE)[2].match(original):
            assert b & L.WRAP_SCAN, line  # a superset: the regex confirms each candidate
        deep = re.compile(mo._DEEP_CANDIDATE % 3).match(original) is not None
        assert bool(b & L.DEEP) == deep, line
        opened = line.lstrip(" ")
        assert bool(b & L.OPEN_COMMENT) == (len(line) - len(opened) <= 3
                                            and opened.startswith("<!--")), line
        if i or not bom:  # the reader leaves a BOM line to mistletoe
            assert bool(b & L.THEMATIC) == bool(mm.bt.ThematicBreak.start(line)), line
            marker = mm.bt.ListItem.parse_marker(line) if mm.ITEM_RE.match(line) else None
            mk = int(table.markers[i])
            if marker is None:
                assert mk == 0, line
            elif mk > 0:  # a marker of the shape the reader takes: one to four spaces, content
                _ind, prepend, leader, content = marker
                assert prepend == mk and content == line[mk:] and content.strip(), line
                assert int(table.leads[i]) == len(line) - len(line.lstrip(" ")) + len(leader)
            else:
                assert mk == -1, line


def _interrupters():
    return [t for t in mm.TOKENS if hasattr(t, "check_interrupts_paragraph")]


def _starts(token_type, line: str, after: str) -> bool:
    """Whether ``token_type`` starts on ``line`` followed by ``after``: its ``start``, and for a
    table its ``read`` too (``start`` is any "|"; the delimiter row on the next line decides)."""
    if not token_type.start(line):
        return False
    if token_type is mm.GfmTable:
        return mm.GfmTable.read(FileWrapper([line, after, "\n"]), check_only=True) is not None
    return True


def _assert_safe(line: str, after: str = "\n") -> None:
    """No block but a paragraph starts on ``line`` (followed by ``after``), and it interrupts
    no paragraph."""
    assert line.strip()
    started = [t.__name__ for t in mm.TOKENS if t is not mm.Paragraph and _starts(t, line, after)]
    assert not started, (line, started)
    fw = FileWrapper(["p\n", line, after, "\n"])
    next(fw)
    hits = [t.__name__ for t in _interrupters() if t.check_interrupts_paragraph(fw)]
    assert not hits, (line, hits)
    assert not mm.Paragraph.is_setext_heading(line), line


@settings(max_examples=400, deadline=None)
@given(LINES, st.booleans())
def test_safe_lines_open_only_paragraphs(lines, jit):
    """SAFE lines, CSAFE lines read from their first character, MSAFE markers' contents."""
    text = "\n".join(lines) + "\n"
    table = _table(text, jit)
    mlines = mo._replaced_lines(mo.LineMap(text))
    with mm.mistletoe_state():
        for i, line in enumerate(mlines):
            b = int(table.bits[i])
            after = mlines[i + 1] if i + 1 < len(mlines) else "\n"
            if b & L.SAFE:
                _assert_safe(line, after)
            # in a list item the next line loses its leading spaces (continuation) or is the
            # raw line (lazy): both must leave the line safe
            if b & L.CSAFE:
                _assert_safe(line.lstrip(" "), after)
                _assert_safe(line.lstrip(" "), after.lstrip(" ") or "\n")
            if b & L.MSAFE:
                _assert_safe(line[int(table.markers[i]):], after)
                _assert_safe(line[int(table.markers[i]):], after.lstrip(" ") or "\n")


def test_kernel_bits_are_the_line_tables():
    for name in ("PLAIN", "EMPTY", "MBLANK", "COMMENT", "LBLANK", "FORCED", "SAFE", "PIPE",
                 "CSAFE", "MSAFE", "THEMATIC", "OPEN_COMMENT", "SPACE", "TABLE"):
        assert getattr(K, name) == getattr(L, name), name
    assert len(_compiled.LABELS) == K.L_CELL + 1


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lists(), st.booleans())
def test_kernel_lists_are_mistletoes(text, jit):
    """Wherever the kernel reads a list, mistletoe's ``List.read`` ends it on the same line, and
    the walk of its items gives the same rows."""
    table = _table(text, jit)
    lm = mo.LineMap(text)
    lines, _ = mo.mistletoe_lines(lm, 0, {})
    hi = len(lines)
    read = _kernel(K._read_list, jit)
    for pos in range(hi):
        b = int(table.bits[pos])
        if b & (L.SAFE | L.EMPTY | L.COMMENT) or table.levels[pos]:
            continue  # advance reads these lines otherwise: no list is tried there
        rows = np.zeros((3 * hi + 1, 4), np.int64)
        got, k = read(table.codes, table.flags, table.starts, table.ends, table.bits,
                      table.levels, table.markers, table.leads, np.int64(pos), np.int64(hi),
                      rows, np.int64(0))
        if got < 0:
            continue
        with mm.mistletoe_state():
            line = lines[pos]
            assert not mm.bt.ThematicBreak.start(line) and mm.bt.List.start(line)
            fw = FileWrapper(lines)
            fw.set_pos(pos - 1)
            items = mm.bt.List.read(fw)
            end = fw.get_pos() + 1
            assert got == end, text
            walker = md._Walker(lm, (lines, lines), {})
            walker.walk([(mm.bt.List, items, pos + 1)], end)
        labels = _compiled.LABELS
        mine = sorted((int(a), int(b), labels[c], int(d)) for a, b, c, d in rows[:k])
        assert mine == sorted(walker.out), text


# ------------------------------------------------------------------------- fences and tables
FENCE_LINES = st.lists(st.sampled_from([
    "```", "````", "~~~", "~~~~", "```py", "``` py", "```a`b", "~~~ a`b", "   ```", "    ```",
    "``", "x", "", "```  ", "```\u3000", "``` \u3000x", "~~~~x", "\t```", "````` y",
]), min_size=1, max_size=10)


@settings(max_examples=300, deadline=None)
@given(FENCE_LINES, st.booleans())
def test_fence_tests_are_codefences(lines, jit):
    text = "\n".join(lines) + "\n"
    table = _table(text, jit)
    fence_open, closes = _kernel(K._fence_open, jit), _kernel(K._fence_closes, jit)
    with mm.mistletoe_state():
        for i, line in enumerate(lines):
            s, e = table.starts[i], table.ends[i]
            run = fence_open(table.codes, s, e)
            assert bool(run) == bool(mm.bt.CodeFence.start(line + "\n")), line
            if not run:
                continue
            leader = mm.bt.CodeFence._open_info[1]
            assert run == len(leader)
            for j, other in enumerate(lines):
                stripped = (other + "\n").lstrip(" ")
                ref = (stripped.startswith(leader) and len(stripped.split(maxsplit=1)) == 1
                       and len(other) - len(other.lstrip(" ")) < 4)
                got = closes(table.codes, table.flags, table.starts[j], table.ends[j],
                             np.uint32(ord(leader[0])), np.int64(run))
                assert got == ref, (line, other)


ROW_LINES = st.lists(st.sampled_from([
    "| a | b |", "|---|---|", "| - | :-: |", "a | b", "|", "||", "| |", "---", "-", ":-", "::",
    "| a \\| b |", "|:-|-:|", " | x", "|--|", "|  |", "| -- | x |", "|\u3000|", "| a |",
]), min_size=2, max_size=8)


@settings(max_examples=300, deadline=None)
@given(ROW_LINES, st.booleans())
def test_table_cell_counts_are_mistletoes(lines, jit):
    text = "\n".join(lines) + "\n"
    table = _table(text, jit)
    header, delim = _kernel(K._header_cells, jit), _kernel(K._delimiter_cells, jit)
    for i, line in enumerate(lines):
        s, e = table.starts[i], table.ends[i]
        args = (table.codes, table.flags, s, e)
        assert header(*args) == mm._n_cells(mm._PIPE.split((line + "\n").strip())), line
        ref = mm._n_cells((line + "\n").strip().split("|")) if mm._is_delimiter_row(line + "\n") else -1
        assert delim(*args) == ref, line


# ------------------------------------------------------------------------- lazy lines
@settings(max_examples=200, deadline=None)
@given(LINES, st.sampled_from(["\n", "\r\n", "\r"]), st.data())
def test_lazy_lines_are_the_split_lines(lines, eol, data):
    text = eol.join(lines).replace("\0", "") + eol  # for texts without NUL (nor a BOM)
    lm = mo.LineMap(text)
    eager = mo._replaced_lines(lm)
    lazy = _compiled.LazyLines(text, lm.starts, lm.ends)
    n = len(eager)
    assert len(lazy) == n
    i = data.draw(st.integers(-n, n - 1))
    assert lazy[i] == eager[i]
    a, b = data.draw(st.integers(0, n)), data.draw(st.integers(0, n))
    assert lazy[a:b] == eager[a:b] and type(lazy[a:b]) is list
    lazy[0] = eager[0] = "x\n"  # a replacement (front matter, a wrapper's mask) is kept
    copy, view = lazy.copy(), lazy.view(min(a, b), max(a, b))
    assert list(lazy) == eager and list(copy) == eager
    assert list(view) == eager[min(a, b):max(a, b)] and len(view) == abs(b - a)


def test_mistletoe_lines_lazy_and_eager_agree():
    for text in list(CASES.values()) + list(CASES_MORE.values()):
        if "\0" in text or text.startswith("\ufeff"):
            continue
        lm = mo.LineMap(text)
        lo = max(mo.front_matter_end(lm) + 1, 0)
        wrappers = mo.find_wrappers(lm, lo)
        eager = mo.mistletoe_lines(mo.LineMap(text), lo, wrappers)
        lazy = mo.mistletoe_lines(lm, lo, wrappers, _compiled.LazyLines(text, lm.starts, lm.ends))
        assert [list(x) for x in lazy] == [list(x) for x in eager], text


def test_the_case_letters_of_the_wrapper_scan():
    """WRAP_SCAN's candidates after "<": every code point re's IGNORECASE matches t or f with."""
    pattern = re.compile("[tf]", re.IGNORECASE)
    found = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000 and pattern.match(chr(c))]
    assert found == [ord(c) for c in "FTft"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdown(), st.booleans())
def test_prescans_from_the_line_table_are_the_regex_scans(text, jit):
    table = _compiled.LineTable(text, jit=jit, deep=3)
    lm = mo.LineMap(text)
    for lo in (0, len(lm) // 2):
        cands = (table.lines_with(L.CLOSE_TAG), table.lines_with(L.WRAP_SCAN))
        assert mo.find_wrappers(lm, lo, cands) == mo.find_wrappers(lm, lo)
        assert mo.deep_lines(lm, lo, 3, table.lines_with(L.DEEP)) == mo.deep_lines(lm, lo, 3)


@pytest.mark.parametrize("text", ["<Table>\n| a |\n</table\n  >\n\n<figure>\nx\n</FIGURE ></b></table>\n",
                                  "```\n<table>\n```\n<Table>\ny\n</Table>\n", "- " * 60 + "x\n"])
def test_prescans_on_edge_cases(text):
    table = _compiled.LineTable(text, deep=3)
    lm = mo.LineMap(text)
    cands = (table.lines_with(L.CLOSE_TAG), table.lines_with(L.WRAP_SCAN))
    assert mo.find_wrappers(lm, 0, cands) == mo.find_wrappers(lm, 0)
    assert mo.deep_lines(lm, 0, 3, table.lines_with(L.DEEP)) == mo.deep_lines(lm, 0, 3)


def test_one_detection_makes_the_code_points_once_and_forgets_them(monkeypatch):
    """The Markdown line table and the text-unit scan share one code-point array per detection."""
    import adachunk
    from adachunk.analysis import CODE_POINTS, analysis_of
    from adachunk.detect.text_units import _scan

    monkeypatch.setattr(_compiled, "wanted", lambda n: True)
    monkeypatch.setattr(_scan, "wanted", lambda n: True)
    made, real = [], _scan.codes_of
    monkeypatch.setattr(_scan, "codes_of", lambda t: made.append(len(t)) or real(t))
    text = "".join(f"# Part {i}\n\nSome text of part {i}, long enough.\n\n- a\n- b\n\n" for i in range(300))
    doc = adachunk.Document(id="x", text=text)
    chunks = adachunk.chunk_document(doc, adachunk.load_profile("default")).chunks
    assert len(chunks) > 1 and made == [len(text)]
    assert CODE_POINTS not in analysis_of(doc)._cache


def test_loops_that_do_not_compile_leave_the_python_reader(monkeypatch, caplog):
    """A Numba that cannot build the loops: the Python fast path reads every text (a failure
    inside a parse would have sent the text to the line scan, with other blocks)."""
    def broken(fn, helpers=()):
        raise RuntimeError("no code generator here")

    monkeypatch.setattr(_compiled, "_LOOPS", [])
    monkeypatch.setattr(_compiled, "compiled", broken)
    monkeypatch.setattr(_compiled, "numba_loaded", lambda: True)
    text = "".join(f"# Part {i}\n\n- a\n- b\n\n| x |\n|---|\n\ntext {i}\n\n" for i in range(100))
    with caplog.at_level("WARNING", logger="adachunk.detect"):
        assert not _compiled.wanted(len(text))
    assert "compiled Markdown reader is unavailable" in caplog.text
    assert parse_blocks(text, "auto") == parse_blocks(text, "mistletoe")
