"""One table of block starts (``_block_starts.OPENERS``), and every reader's shortcut derives from it.

The shortcuts that skip mistletoe's probes (``_mistletoe._PLAIN_LINE`` and ``_plain``,
``_fast._HTML_OPEN``, ``_fast_list._MARKER_OPEN``, ``_mistletoe._PIPE_ROW`` and ``Html._maybe``)
are made from the table. Here:

* every block token type the tokenizer probes (``_mistletoe.TOKENS``) has an entry, and a walker
  branch: a sample of it gives its label through both engines; mistletoe's own token types are
  each one of ours or a deliberate exception;
* a line the fast path calls plain opens nothing but a paragraph and interrupts none, by
  mistletoe's own ``start`` / ``check_interrupts_paragraph``;
* the claims the shortcuts rest on (what a list marker or ``<`` cannot open) hold in the table.

A block kind taught to the tokenizer and not to the table would read as a paragraph on the fast
path: ``docs/markdown-engines.md`` has the checklist.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mistletoe.block_tokenizer import FileWrapper

from adachunk.detect.markdown import _block_starts as bs
from adachunk.detect.markdown import _fast, _fast_list
from adachunk.detect.markdown import _mistletoe as mm
from adachunk.detect.markdown import _offsets as mo
from adachunk.detect.markdown import parse_blocks


# One sample per kind of the table, and the label its first block gets: adding a kind to the
# table (or a token type to the tokenizer) asks for a sample here.
SAMPLES = {
    "BlockCode": ("    code\n", "code"),
    "Heading": ("# h\n", "heading"),
    "Quote": ("> q\n", "blockquote"),
    "CodeFence": ("```\nx\n```\n", "code"),
    "ThematicBreak": ("***\n", "thematic_break"),
    "List": ("- a\n", "list"),
    "Html": ("<div>\nx\n</div>\n", "html_block"),
    "GfmTable": ("| a |\n|---|\n", "table"),
    "Paragraph": ("p\n", "paragraph"),
    "SetextHeading": ("T\n===\n", "heading"),
}
# mistletoe's own block token types that the tokenizer leaves out on purpose: link reference
# definitions are read as paragraphs (the module docstring of adachunk.detect.markdown).
LEFT_OUT = {"Footnote"}


def _token_names() -> set[str]:
    """The kinds the tokenizer can produce: its token types and the setext heading."""
    return {t.__name__ for t in mm.TOKENS} | {"SetextHeading"}


def test_every_token_type_has_a_table_entry_and_a_sample():
    assert set(bs.OPENERS) == _token_names()
    assert set(SAMPLES) == set(bs.OPENERS)


def test_mistletoes_token_types_are_ours_or_left_out_on_purpose():
    ours = {base.__name__ for t in mm.TOKENS for base in t.__mro__}
    theirs = {t.__name__ for t in mm.bt._token_types}  # outside mistletoe_state: mistletoe's own
    assert theirs - ours == LEFT_OUT


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_every_kind_has_a_walker_branch(kind):
    """The sample is that kind in mistletoe's buffer, and both engines give its label."""
    text, label = SAMPLES[kind]
    lines, _ = mo.mistletoe_lines(mo.LineMap(text), 0, {})
    with mm.mistletoe_state():
        (first, result, _line), *_ = mm.tokenize_block(lines, mm.bt._token_types)
    found = type(result).__name__ if kind == "SetextHeading" else first.__name__
    assert found == ("Setext" if kind == "SetextHeading" else kind)
    for engine in ("auto", "mistletoe"):
        blocks = parse_blocks(text, engine)
        assert label in {b.label for b in blocks}, (engine, blocks)


def test_the_one_anywhere_character():
    assert bs.ANYWHERE == "|" and len(bs.ANYWHERE) == 1  # _plain tests membership of one character


def test_the_shortcuts_are_the_tables():
    assert mm._PLAIN_LINE is bs.PLAIN_LINE
    assert _fast_list._MARKER_OPEN.pattern == bs.opening("List").pattern
    assert _fast._HTML_OPEN.pattern == bs.opening("Html").pattern
    assert mm._PIPE_ROW.pattern == bs.opening("GfmTable").pattern


def test_what_the_shortcuts_claim_holds_in_the_table():
    # a list marker's first character opens no Heading, Quote, CodeFence or Html
    for kind in ("Heading", "Quote", "CodeFence", "Html"):
        assert not set(bs.OPENERS["List"]) & set(bs.OPENERS[kind]), kind
    # "<" opens nothing probed before Html
    before_html = mm.TOKENS[:mm.TOKENS.index(mm.Html)]
    assert all("<" not in bs.OPENERS[t.__name__] for t in before_html)
    # "|" opens none of the table's enders
    assert all(bs.ANYWHERE not in bs.OPENERS[t.__name__] for t in mm.TABLE_ENDERS)


# ------------------------------------------------------------------------- plain lines
def _starts(token_type, line: str, after: str) -> bool:
    """Whether ``token_type`` starts on ``line`` followed by ``after``: its ``start``, and for a
    table its ``read`` too (``start`` is any "|"; the delimiter row on the next line decides)."""
    if not token_type.start(line):
        return False
    if token_type is mm.GfmTable:
        return mm.GfmTable.read(FileWrapper([line, after, "\n"]), check_only=True) is not None
    return True


def _assert_opens_only_a_paragraph(line: str, after: str = "\n") -> None:
    """No block but a paragraph starts on ``line`` (followed by ``after``), it interrupts no
    paragraph, and it is no setext underline. Inside ``mistletoe_state``."""
    started = [t.__name__ for t in mm.TOKENS if t is not mm.Paragraph and _starts(t, line, after)]
    assert not started, (line, started)
    fw = FileWrapper(["p\n", line, after, "\n"])
    next(fw)
    breaking = [t for t in mm.TOKENS if hasattr(t, "check_interrupts_paragraph")]
    hits = [t.__name__ for t in breaking if t.check_interrupts_paragraph(fw)]
    assert not hits, (line, hits)
    assert not mm.Paragraph.is_setext_heading(line), line


# every visible ASCII character, white space and a few others, at the shapes that open blocks
FIRSTS = [chr(c) for c in range(32, 127)] + list("\t\u00a0\u3000é字§“—\u2028\x0b\x1c")
SHAPES = ["{c}x", "{c} x", "{c}{c}{c}", "{c}", "   {c} x", "    {c}", "{c}1. x", "1{c} x", "{c}-- x"]


def test_no_line_that_opens_a_block_is_plain():
    with mm.mistletoe_state():
        for c in FIRSTS:
            for shape in SHAPES:
                line = shape.format(c=c) + "\n"
                if mm._plain(line):
                    _assert_opens_only_a_paragraph(line)


def test_every_opener_makes_a_line_not_plain():
    for c in bs.chars():
        assert not mm._plain(c + "x\n") and not mm._plain("   " + c + "x\n"), repr(c)
    for c in FIRSTS:
        if c.isspace() and c != " ":  # a tab (indented code), white space before "<"
            assert not mm._plain(c + "x\n"), repr(c)
        elif c not in bs.chars() and not c.isspace():
            assert mm._plain(c + "x\n"), repr(c)


LINES = st.lists(st.sampled_from([
    "", " ", "   ", "    x", "\t- a", "a", "é", "2024 x", "1. a", "1.", "10) b", "1234567890. c",
    "1.5", "- a", "-a", "--", "---", "- - -", "* * *", "*a*", "+ b", "+b", "_x_", "___", "=x",
    "===", "`x`", "```", "~x", "~~~", "# h", "#h", "####### h", "#", "> q", ">q", "<!-- c -->",
    "<!-- c", "<!-->", "  <!-- x -->", "<div>", "a | b", "|", "\u3000x", "\u00a0", "x\u00a0",
    "\u2028", "\x0b", "\x1c", "\0", "标题", "😀 x", "1.\u00a0b", "-\u00a0c", "\\* x", "[l]: /u",
    "-====", "=-", "=-=x", "-=x", "==-- ", "--==\t", "*_*", "_-_", "+-+",
    "x | y", "- a | b", "  a | b", "|---|", "--- | ---", " :-- | --: ", "-|-", "|:-:|", "| a |",
]), min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(LINES)
def test_plain_lines_open_only_paragraphs(lines):
    """Also as a list item's continuation (leading spaces gone) and after a list marker."""
    text = "\n".join(lines) + "\n"
    mlines = mo._replaced_lines(mo.LineMap(text))
    with mm.mistletoe_state():
        for i, line in enumerate(mlines):
            after = mlines[i + 1] if i + 1 < len(mlines) else "\n"
            for variant in (line, line.lstrip(" ")):
                if variant.strip() and mm._plain(variant):
                    _assert_opens_only_a_paragraph(variant, after)
                    _assert_opens_only_a_paragraph(variant, after.lstrip(" ") or "\n")
            marker = mm.bt.ListItem.parse_marker(line) if mm.ITEM_RE.match(line) else None
            if marker is not None and marker[3].strip() and mm._plain(marker[3]):
                _assert_opens_only_a_paragraph(marker[3], after)
