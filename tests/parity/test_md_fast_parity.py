"""``markdown.block.v1`` engine ``auto`` (fast top level) gives mistletoe's blocks exactly.

``mistletoe`` is the reference engine. ``auto`` reads the top level of a document (and of each
``<Table>``/``<Figure>`` wrapper) with :mod:`adachunk.detect.markdown._fast`, and defers to
mistletoe's own readers, at the same position, for every block it does not read itself. Here:

* every span, label and level equal on CLAIR (skipped when ``../shared`` is absent), on every
  ``examples/`` file, on the Markdown the peers bench gathers from installed packages, and on
  hypothesis-generated Markdown (nested lists, tables, fences, HTML blocks, wrappers, front
  matter, CRLF and lone CR, CJK/emoji, tabs, NUL, BOM);
* the top-level parse buffer equal, entry for entry, to mistletoe's (same token class, same
  line, same heading level);
* which kinds of block were deferred to mistletoe (:data:`DEFERRED_KINDS`, also recorded for
  the corpora by ``test_deferred_kinds_on_the_corpora``);
* every shipped profile, in tokens and in chars, chunks the examples identically.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adachunk.detect.markdown import _fast as mf
from adachunk.detect.markdown import _mistletoe as mm
from adachunk.detect.markdown import _offsets as mo
from adachunk.detect import markdown as md
from adachunk.detect.markdown import parse_blocks

from .corpus import ROOT, clair_texts, examples, needs_clair, package_markdown


EXAMPLES = examples(".md", ".txt")  # Markdown only

# What the fast path reads itself (everything else is read by mistletoe at the same position):
FAST_KINDS = {"paragraph (plain lines, ended by a blank line)", "atx heading",
              "one-line html block (kinds 1-5)", "list of one-paragraph plain items"}
# Top-level kinds that the fast path hands to mistletoe's readers (by CommonMark design or
# because only mistletoe's reader knows where they end).
DEFERRED_KINDS = {"Quote", "CodeFence", "BlockCode", "ThematicBreak", "GfmTable", "Html",
                  "List", "Paragraph", "SetextHeading"}


def assert_same_blocks(text: str) -> None:
    fast, ref = parse_blocks(text, "auto"), parse_blocks(text, "mistletoe")
    if fast != ref:
        extra = sorted(set(fast) - set(ref))[:3]
        missing = sorted(set(ref) - set(fast))[:3]
        pytest.fail(f"auto differs from mistletoe: extra {extra}, missing {missing}")


def _buffers(text: str) -> tuple[list, list]:
    """The top-level buffers of both tokenizers on ``text`` (no front matter, no wrapper)."""
    lm = mo.LineMap(text)
    lines, _ = mo.mistletoe_lines(lm, 0, {})
    with mm.mistletoe_state():
        fast = mf.tokenize_top(lines, 0, len(lines))
        ref = list(mm.tokenize_block(lines, mm.bt._token_types))
    return fast, ref


def _key(entry) -> tuple:
    kind, res, line = entry
    if kind is mm.Heading:
        return kind, line, res[0]
    if kind is mm.Paragraph:
        return kind, line, isinstance(res, mm.Setext)
    if kind is mm.bt.List:  # the items' lines, leaders and child buffers
        return kind, line, [(item[4], item[3], [(k.__name__, n) for k, _, n in item[0]])
                            for item in res]
    return kind, line


def deferred_kinds(text: str) -> set[str]:
    """Names of the top-level token kinds that ``auto`` left to mistletoe's readers."""
    fast, _ = _buffers(text)
    out = set()
    for kind, res, _line in fast:
        if kind is mm.Paragraph:
            if res is not None:
                out.add("Paragraph")
        elif kind is mm.bt.List:
            if any(item[0] and item[0][0][1] is not None for item in res):
                out.add("List")
        elif kind is mm.Html:
            if res is not None:
                out.add("Html")
        elif kind is not mm.Heading:
            out.add(kind.__name__)
    return out


# ------------------------------------------------------------------------- corpora
@needs_clair
def test_clair_blocks_are_mistletoes():
    texts = clair_texts()
    assert texts
    for text in texts:
        assert_same_blocks(text)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_blocks_are_mistletoes(path):
    assert_same_blocks(path.read_text(encoding="utf-8"))


def test_package_markdown_blocks_are_mistletoes():
    docs = package_markdown()
    if not docs:
        pytest.skip("no Markdown in site-packages")
    for _name, text in docs:
        assert_same_blocks(text)


def corpora_texts() -> list[str]:
    """The examples' Markdown, 300 KB of package Markdown and CLAIR when it is there."""
    texts = [p.read_text(encoding="utf-8") for p in EXAMPLES if p.suffix == ".md"]
    texts += [t for _, t in package_markdown(300_000)]
    texts += clair_texts()
    return texts


def test_deferred_kinds_on_the_corpora():
    seen = set().union(*(deferred_kinds(t) for t in corpora_texts()))
    assert seen <= DEFERRED_KINDS, seen - DEFERRED_KINDS


# ------------------------------------------------------------------------- unit cases
CASES = {
    "plain paragraphs": "a\nb\n\nc\n",
    "paragraph then heading": "para\n# H\nmore\n",
    "setext": "Title\n=====\n\nSub\n---\n",
    "list then para": "- a\n- b\n\nafter\n",
    "loose list": "1. one\n\n2. two\n   cont\n\n3. three\nlazy\n",
    "list marker types": "- a\n+ b\n* c\n1. d\n1) e\n",
    "list thematic": "- a\n- - -\n* b\n***\n",
    "list with table": "- a\nx | y\n--|--\n",
    "list nested": "- a\n  - b\n    - c\n- d\n",
    "list empty items": "-\n  x\n-\n\n- y\n",
    "list second paragraph": "- item\n\n  cont\n",
    "list item two blocks": "- a\n\n  b\n- c\n",
    "list blank then lazy": "- a\n\nlazy\n",
    "list two blanks": "- a\n\n\n- b\n\n\n",
    "list whitespace tail": "- a\n    \n",
    "list wide gap": "-     code\n- b\n",
    "list then fence": "- a\n```\n\nx\n```\n",
    "html comment": "<!-- a -->\n<!-- b\n\nc -->\npara\n",
    "html div": "<div>\nx\n\ny\n",
    "html casefold": "<SCRIPT>\nx\n</Script>\nz\n",
    "html short": "<!\n\n<?\n",
    "table": "| a | b |\n|---|---|\n| 1 | 2 |\ntext\n",
    "fence": "```\n# not\n\n```\n~~~~\nx\n~~~\n",
    "indented code": "    code\n\n    more\ntext\n",
    "quote": "> a\nlazy\n> - b\n\n> c\n",
    "crlf": "# H\r\n\r\n- a\r\n- b\r\n\r\npara\r\n",
    "lone cr": "# H\r\rpara\rmore\r\r- x\r",
    "bom": "\ufeff# T\n\npara\n",
    "bom blank": "\ufeff  \n\npara\n",
    "nul": "a\0b\n\n- \0\n",
    "tabs": "#\tH\n\t- x\n-\tx\n",
    "cjk emoji": "# 标题 😀\n\n段落「テスト」\n\n- 項目 🎉\n- 二\n",
    "wrapper": "<Table>\n| a | b |\n|---|---|\n\n| 1 | 2 |\n</Table>\nafter\n",
    "wrapper in list": "- x\n  <Figure>\n  y\n  </Figure>\n",
    "front matter": "---\ntitle: x\n---\n# H\n\ntext\n",
    "unicode spaces": "a\u3000\n\u3000\n-\u3000x\n\u2028\n",
    "digit lines": "2024 was a year\n1.5 million\n10. ten\n1234567890. long\n\n3) x\n",
    "plain openers": "#tag\n-x\n+y\n*z*\n_a_\n=b\n`c`\n~d\n--e\n**f**\n\nnext\n",
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


@pytest.mark.parametrize("text", list(CASES.values()), ids=list(CASES))
def test_cases_blocks_are_mistletoes(text):
    assert_same_blocks(text)


@pytest.mark.parametrize("text", list(CASES.values()), ids=list(CASES))
def test_cases_top_level_buffer_is_mistletoes(text):
    fast, ref = _buffers(text)
    assert [_key(e) for e in fast] == [_key(e) for e in ref]


def test_nonplain_lines_is_plain_negated():
    lines = ["a\n", "\n", " b|c\n", "   x\n", "    y\n", "#\n", "\u3000z\n", "1\n", "é\n"]
    got = mf.nonplain_lines(lines, 0, len(lines))
    assert got == [i for i, line in enumerate(lines) if not mm._plain(line)] + [len(lines)]


def test_mistletoe_lines_split_equals_slices():
    for text in CASES.values():
        lm = mo.LineMap(text)
        lines, _ = mo.mistletoe_lines(lm, 0, {})
        t = text.replace("\0", "\ufffd")
        t = " " + t[1:] if t.startswith("\ufeff") else t
        assert lines == [t[s:e] + "\n" for s, e in zip(lm.starts, lm.ends)]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["", " ", "  ", "   "]), st.text(max_size=12))
def test_a_pipe_row_starts_no_table_ender(indent, rest):
    # _ends_table answers False for " {0,3}|" lines without probing: the probes must agree
    from mistletoe.block_tokenizer import FileWrapper

    line = indent + "|" + rest.replace("\n", " ").replace("\r", " ") + "\n"
    with mm.mistletoe_state():
        probes = any(t.start(line) for t in mm.TABLE_ENDERS)
        html = mm.Html.check_interrupts_paragraph(FileWrapper([line]))
    assert not probes and not html


def test_last_nonblank_fast_case_equals_is_blank_scan():
    for text in CASES.values():
        lm = mo.LineMap(text)
        n = len(lm)
        for first in range(n):
            for stop in range(first + 1, n + 2):
                last = min(stop, n) - 1
                while last > first and lm.is_blank(last, 0):
                    last -= 1
                assert lm.last_nonblank(first, stop) == max(last, first)


def test_engine_param_is_described_and_validated():
    params = md.MarkdownBlockDetector.Params
    assert params.model_fields["engine"].description
    assert params(block="heading").engine == "auto"
    with pytest.raises(Exception):
        params(block="heading", engine="comrak")


def test_mistletoe_failure_still_falls_back_piece_by_piece(monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("boom")

    monkeypatch.setattr(md, "_tokenize_block", broken)
    text = "# H\n\npara\n\n> q\n\n- a\n  - b\n"
    fast = parse_blocks(text, "auto")
    assert fast == parse_blocks(text, "mistletoe")
    assert ("heading", 1) in {(s.label, s.level) for s in fast}


# ------------------------------------------------------------------------- generated
WORDS = st.sampled_from(["word", "x", "标题", "テスト", "😀", "é", "a*b", "1.", "#x", "`c`",
                         "<b>", "a|b", "\\|", "---", "[l]: /u", "\t", "  ", "\u3000", "\0"])
PREFIX = st.sampled_from(["", "", "", " ", "  ", "   ", "    ", "\t", "> ", ">", "- ", "* ",
                          "+ ", "1. ", "2) ", "10. ", "  - ", "   1. ", "-", "> - ", "- > "])
TEMPLATE = st.sampled_from([
    "{p}{w}", "{p}{w} {w}", "{p}# {w}", "{p}### {w} ###", "{p}#{w}", "{p}====", "{p}---",
    "{p}***", "{p}- - -", "{p}```", "{p}```py", "{p}~~~", "{p}````", "{p}| {w} | {w} |",
    "{p}|---|---|", "{p}--|--", "{p}{w} | {w}", "{p}<!-- {w} -->", "{p}<!-- {w}", "{p}{w} -->",
    "{p}<div>", "{p}</div>", "{p}<pre>", "{p}</pre>", "{p}<x-y>", "{p}<?php", "{p}?>",
    "{p}<!DOCTYPE", "{p}<Table>", "</Table>", "{p}<Figure>", "</Figure>", "", "", " ", "    ",
    "{p}{w}  ", "{p}\\* {w}", "{p}1.", "{p}-", "---", "...", "title: {w}",
])
EOL = st.sampled_from(["\n", "\n", "\n", "\r\n", "\r"])


@st.composite
def markdown(draw) -> str:
    n = draw(st.integers(1, 25))
    out = []
    if draw(st.booleans()) and draw(st.booleans()):
        out.append(draw(st.sampled_from(["\ufeff", ""])) + "---" + draw(EOL))
    for _ in range(n):
        line = draw(TEMPLATE).format(p=draw(PREFIX), w=draw(WORDS))
        out.append(line + draw(EOL))
    text = "".join(out)
    return text if draw(st.booleans()) else text.rstrip("\r\n")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdown())
def test_generated_markdown_blocks_are_mistletoes(text):
    assert_same_blocks(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdown())
def test_generated_top_level_buffer_is_mistletoes(text):
    fast, ref = _buffers(text)
    assert [_key(e) for e in fast] == [_key(e) for e in ref]


@st.composite
def lists(draw) -> str:
    """Lists and list-like lines only: the fast list reader's ground."""
    items = []
    for _ in range(draw(st.integers(1, 12))):
        marker = draw(st.sampled_from(["- ", "* ", "+ ", "1. ", "2. ", "3) ", "-", "1.", " - ",
                                       "   - ", "10. ", "-    ", "-     ", "- - -"]))
        body = draw(st.sampled_from(["item", "**b**", "a | b", "", "# h", "`x`", "标题 😀", "x | y |"]))
        items.append(marker + body)
        for _ in range(draw(st.integers(0, 3))):
            items.append(draw(st.sampled_from(["", "", "", "  cont", "  cont", "   cont", "lazy",
                                               "    code", "  - nested", "> q", "after", "===",
                                               "  ", "<!-- c -->", "```", "| x |", "# h",
                                               "  |---|", "--- | ---", "  a | b", "c | d"])))
    return draw(EOL).join(items) + "\n"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lists())
def test_generated_lists_are_mistletoes(text):
    assert_same_blocks(text)
    fast, ref = _buffers(text)
    assert [_key(e) for e in fast] == [_key(e) for e in ref]


# ------------------------------------------------------------------------- whole chunking
PROFILES = sorted(p.stem for p in (ROOT / "profiles").glob("*.yaml"))
EXAMPLE_MD = [p for p in EXAMPLES if p.suffix == ".md"]


@pytest.mark.parametrize("unit", ["tokens", "chars"])
@pytest.mark.parametrize("profile", PROFILES)
def test_shipped_profiles_chunk_the_examples_identically(profile, unit, monkeypatch):
    import adachunk

    overrides = {"granularity": "chars", "min_size": 0} if unit == "chars" else {}
    rp = adachunk.load_profile(profile, **overrides)
    real_init, used = md._Walker.__init__, []

    def chunk_with(engine: str) -> list[list[tuple[int, int, int]]]:
        def init(self, lm, lines, wrappers, _engine="auto"):
            used.append(engine)
            real_init(self, lm, lines, wrappers, engine)

        monkeypatch.setattr(md._Walker, "__init__", init)
        out = []
        for path in EXAMPLE_MD:  # a new Document each time: no parse is shared between engines
            doc = adachunk.Document(id=path.name, text=path.read_text(encoding="utf-8"))
            out.append([(c.start, c.core_start, c.end) for c in adachunk.chunk_document(doc, rp).chunks])
        return out

    ref = chunk_with("mistletoe")
    assert used and set(used) == {"mistletoe"}
    used.clear()
    assert chunk_with("auto") == ref
    assert used and set(used) == {"auto"}
