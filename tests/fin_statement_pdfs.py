"""Small 10-K-like statements drawn with reportlab's canvas (issue "A figure never loses its column").

Filings printed from EDGAR HTML set a statement as a grid of table cells: the ``$`` at the left
edge of its figure's column, the figure right-aligned, a negative's ``)`` and a ``%`` just after
the figure, the column headers (``Year Ended December 31,`` over ``2022  2021``, ``(In millions)``
in the stub) in bold above the body; and often every body cell shaded, which pdfplumber's lattice
finder reads as a ruled table whose first row is a body row. Positions are explicit, so the
expected Markdown is known exactly. Nothing is committed as a binary: tests build into tmp_path.
"""

from __future__ import annotations

import re
from pathlib import Path

from reportlab.lib.pagesizes import letter
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

BODY, BOLD = "Helvetica", "Helvetica-Bold"
SIZE = 9.0
PITCH = 13.0         # points between table rows
STUB = 72.0          # left edge of the row labels
FIG_RIGHT = [330.0, 420.0, 510.0]  # right edges of the three figure columns
SIGN_LEFT = [262.0, 352.0, 442.0]  # left edges of their "$" signs
HEIGHT = letter[1]

# (label, [(sign, figure, closer) per column]): what each body row prints
INCOME = [
    ("Net sales", [("$", "3,226,773", ""), ("$", "2,729,388", ""), ("$", "2,198,716", "")]),
    ("Cost of sales", [("", "2,014,270", ""), ("", "1,702,059", ""), ("", "1,496,271", "")]),
    ("Interest (income) expense, net", [("", "(4,378", ")"), ("", "467", ""), ("", "\u2014", "")]),
    ("Net income", [("$", "340,751", ""), ("$", "289,366", ""), ("$", "(1,247", ")")]),
]
INCOME_EXPECTED = [
    ["(In thousands)", "Year Ended December 31, 2022", "Year Ended December 31, 2021",
     "Year Ended December 31, 2020"],
    ["Net sales", "$ 3,226,773", "$ 2,729,388", "$ 2,198,716"],
    ["Cost of sales", "2,014,270", "1,702,059", "1,496,271"],
    ["Interest (income) expense, net", "(4,378)", "467", "\u2014"],
    ["Net income", "$ 340,751", "$ 289,366", "$ (1,247)"],
]
MARGINS = [
    ("Comparable sales", [("", "15.6", "%"), ("", "21.4", "%"), ("", "(4.8", "%)")]),
    ("Gross margin", [("", "37.6", "%"), ("", "37.6", "%"), ("", "35.1", "%")]),
    ("Operating margin", [("", "(0.1", "%)"), ("", "13.8", "%"), ("", "10.2", "%")]),
]
MARGINS_EXPECTED = [
    ["", "Fiscal 2022", "Fiscal 2021", "Fiscal 2020"],
    ["Comparable sales", "15.6%", "21.4%", "(4.8%)"],
    ["Gross margin", "37.6%", "37.6%", "35.1%"],
    ["Operating margin", "(0.1%)", "13.8%", "10.2%"],
]
TEXT = ("The following table presents our results of operations for each of the periods indicated, "
        "as reported in the consolidated statements of operations.")


def _text(c: canvas.Canvas, x: float, top: float, text: str, font: str = BODY, size: float = SIZE) -> None:
    """Draw ``text`` with its top at ``top`` (points from the top of the page)."""
    c.setFont(font, size)
    c.drawString(x, HEIGHT - top - size, text)


def _right(c: canvas.Canvas, x1: float, top: float, text: str, font: str = BODY, size: float = SIZE) -> None:
    """Draw ``text`` right-aligned at ``x1``."""
    _text(c, x1 - stringWidth(text, font, size), top, text, font, size)


def _centred(c: canvas.Canvas, x0: float, x1: float, top: float, text: str, font: str = BOLD) -> None:
    """Draw ``text`` centred between ``x0`` and ``x1``."""
    _text(c, (x0 + x1 - stringWidth(text, font, SIZE)) / 2, top, text, font)


def _body_row(c: canvas.Canvas, top: float, label: str, cells: list[tuple[str, str, str]],
              shade: bool = False) -> None:
    """One body row: the label, then per column its sign, right-aligned figure and closer; with
    ``shade``, every cell is a grey box (the stub, the sign's, the figure's, the closer's), as a
    browser prints the cells' background; a row without signs has one cell for sign and figure
    (the lattice's grid column of the sign holds its figure's box's left part)."""
    if shade:
        c.setFillGray(0.9)
        edges = [STUB - 4]
        for (sign, _, _), left, right in zip(cells, SIGN_LEFT, FIG_RIGHT):
            edges += [left - 2, left + 8, right, right + 8] if sign else [left - 2, right, right + 8]
        for a, b in zip(edges, edges[1:]):
            c.rect(a, HEIGHT - top - PITCH + 3, b - a, PITCH, stroke=0, fill=1)
        c.setFillGray(0)
    _text(c, STUB, top, label)
    for (sign, figure, closer), left, right in zip(cells, SIGN_LEFT, FIG_RIGHT):
        if sign:
            _text(c, left, top, sign)
        _right(c, right, top, figure)
        if closer:
            _text(c, right + 2.0, top, closer)  # apart: a word of its own, as in filings


def _years_header(c: canvas.Canvas, top: float, span: str, years: list[str], unit: str = "") -> float:
    """Bold column headers: a spanning label over the figure columns, the years under it, the
    unit in the stub beside them; returns the top of the first body row."""
    _centred(c, SIGN_LEFT[0], FIG_RIGHT[-1], top, span)
    for year, right in zip(years, FIG_RIGHT):
        _right(c, right, top + PITCH, year, BOLD)
    if unit:
        _text(c, STUB, top + PITCH, unit, BOLD)
    return top + 2 * PITCH + 4


def build_statements(path: str | Path, shade: bool = False) -> Path:
    """A page with an income statement (``$`` signs, a negative's ``)`` apart, a nil dash) under
    its headers, and a margins table (``%`` and ``%)`` apart) under a "Fiscal 2022 ..." row. With
    ``shade``, the body cells are shaded: a lattice table whose header lines stand above it."""
    path = Path(path)
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    _text(c, STUB, 60, "Results of Operations", BOLD, 14)
    cut = TEXT.rindex(" ", 0, 95)
    _text(c, STUB, 90, TEXT[:cut])
    _text(c, STUB, 102, TEXT[cut + 1:])
    top = _years_header(c, 130, "Year Ended December 31,", ["2022", "2021", "2020"], "(In thousands)")
    for label, cells in INCOME:
        _body_row(c, top, label, cells, shade)
        top += PITCH
    _text(c, STUB, top + 20, "Margins were as follows:")
    top += 44
    for year, right in zip(["Fiscal 2022", "Fiscal 2021", "Fiscal 2020"], FIG_RIGHT):
        _right(c, right, top, year, BOLD)
    top += PITCH + 4
    for label, cells in MARGINS:
        _body_row(c, top, label, cells, shade)
        top += PITCH
    c.showPage()
    c.save()
    return path


def build_period_lines(path: str | Path) -> Path:
    """Bold, larger lines that are only years, periods or units, each over a paragraph, and one
    real heading that starts with a year: only the latter is a heading."""
    path = Path(path)
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    _text(c, STUB, 60, "Liquidity and Capital Resources", BOLD, 16)
    top = 100.0
    for line in ["2022", "Fiscal 2023", "Q1 2021", "Three Months Ended March 31,", "(In millions)",
                 "2022 Results"]:
        _text(c, STUB, top, line, BOLD, 12)
        _text(c, STUB, top + 20, f"Cash provided by operating activities is discussed here for {line.lower()}.")
        top += 52
    c.showPage()
    c.save()
    return path


def tables(text: str) -> list[list[list[str]]]:
    """Every <Table> of a converted text as rows of cells (header first, separator dropped): what
    the tests of these statements compare."""
    out = []
    for body in re.findall(r"<Table>\n(.*?)\n</Table>", text, re.S):
        rows = [[c.strip() for c in ln.strip()[1:-1].split(" | ")] for ln in body.splitlines()]
        out.append([rows[0]] + rows[2:])
    return out
