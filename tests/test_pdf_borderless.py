"""Borderless-table rules (adachunk/ingest/pdf/_borderless.py) on hand-placed words."""

from __future__ import annotations

import pytest

pytest.importorskip("pdfplumber")

from adachunk.ingest.pdf._borderless import find_tables  # noqa: E402
from adachunk.ingest.pdf._lines import reading_order  # noqa: E402
from adachunk.ingest.pdf._model import Line, Word  # noqa: E402

SIZE = 10.0
SPACE = 2.8  # a word space at 10 pt


def row(cells: list[tuple[float, str]], top: float, size: float = SIZE) -> list[Word]:
    """Words of one row: each (x, text) cell starts at x, its words a space apart."""
    out = []
    for x, text in cells:
        for word in text.split():
            width = 5.0 * len(word)
            out.append(Word(word, x, x + width, top, top + size, size, False))
            x += width + SPACE
    return out


def grid(rows: list[list[str]], xs: list[float], top: float = 100.0, pitch: float = 18.0) -> list[Word]:
    return [w for i, r in enumerate(rows) for w in row([(x, c) for x, c in zip(xs, r) if c], top + i * pitch)]


def test_numeric_table_without_rulings():
    rows = [["Segment", "Region", "Revenue"]] + [[f"Seg-{i:03d}", "North", f"{1000 + i:,}"] for i in range(6)]
    [t] = find_tables(grid(rows, [72, 180, 300]))
    assert t.rows == rows and not t.ruled and len(t.columns) == 4


def test_wrapped_label_joins_its_row_and_spanning_header_is_repeated():
    words = grid([["", "Group", ""], ["", "2024", "2023"], ["Cash", "1,200", "1,100"],
                  ["Property, plant and", "", ""], ["equipment", "45,300", "44,120"], ["Total", "46,500", "45,220"]],
                 [72, 300, 380])
    # "Group" centred over both figure columns
    words = [Word("Group", 345, 370, w.top, w.bottom, SIZE, False) if w.text == "Group" else w for w in words]
    [t] = find_tables(words)
    assert t.rows[0] == ["", "Group 2024", "Group 2023"]
    assert t.rows[1:] == [["Cash", "1,200", "1,100"], ["Property, plant and equipment", "45,300", "44,120"],
                          ["Total", "46,500", "45,220"]]


def test_prose_is_not_a_table():
    text = "the group manages its liquidity centrally and reports the position of each segment"
    words = [w for i in range(8) for w in row([(72, text)], 100 + 12 * i)]
    assert find_tables(words) == []


def test_two_text_columns_are_not_a_table():
    left = "interest rate risk arises from the borrowings of the"
    right = "credit risk is managed on a group basis and arises"
    words = [w for i in range(10) for w in row([(72, left), (330, right)], 100 + 12 * i)]
    assert find_tables(words) == []


def test_hanging_indent_list_is_not_a_table():
    words = [w for i in range(4) for w in row([(72, f"{i + 1}"), (100, "numbered point text of the item")],
                                               100 + 14 * i)]
    assert find_tables(words) == []


def test_alignment_inside_a_label_column_is_not_a_column_boundary():
    # three labels whose second words start at the same x: aligned by chance, a word space apart
    rows = [["Trade and other receivables", "8,120"], ["Cash and cash equivalents", "12,450"],
            ["Debt and lease liabilities", "(3,300)"], ["Total net assets", "17,270"]]
    [t] = find_tables(grid(rows, [72, 330]))
    assert t.rows == rows


def _line(text: str, x0: float, top: float, width: float, size: float = 10.0) -> Line:
    w = Word(text, x0, x0 + width, top, top + size, size, False)
    return Line([w], x0, x0 + width, top, top + size, size, False)


def test_side_note_and_footnote_read_after_both_columns():
    title = _line("Risk Report", 247, 60, 101, 18)
    left = [_line(f"left {i}", 63, 100 + 12 * i, 175) for i in range(10)]
    right = [_line(f"right {i}", 272, 100 + 12 * i, 175) for i in range(8)]
    side = _line("side note", 468, 100, 55, 7.5)
    foot = _line("1 a footnote", 57, 750, 150, 7)
    ordered, gutter = reading_order([foot, side, title] + right + left, 595)
    assert gutter is not None
    assert [ln.text for ln in ordered] == (["Risk Report"] + [f"left {i}" for i in range(10)]
                                           + [f"right {i}" for i in range(8)] + ["side note", "1 a footnote"])
