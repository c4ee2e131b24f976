"""Statement layouts from 10-K filings and earnings releases that the PDF reader's table rules
handle (issue 48, item 4), drawn with reportlab's canvas at explicit positions.

One builder per rule; each returns the PDF's path and the tables it must come out as, every
table a list of rows, header first:

* :func:`build_shaded_year_column`: the current-year column alone is shaded, each cell drawn as
  narrow boxes (the ``$`` sign's, the figure's, a margin's), so the lattice finder reads that
  column as a grid of its own beside the borderless rest (Nike 10-K 2019). One table.
* :func:`build_shaded_rows_span`: every row, the header rows too, shaded as boxes per cell; a
  period label ("Year ended December 31,") centred over three year columns falls in the middle
  one's grid cell and must head all three (Corning 10-K).
* :func:`build_label_against_figures`: a long row label set one point before the first column's
  "$ 2,210.8" (no gap) is parted from its figures by the column boundary (General Mills 10-K).
* :func:`build_tight_row`: a row set with a word space between label and figures, never a cell
  gap ("Selling, general and administrative expenses 762,706 23.6% ..."), stays a row.
* :func:`build_blank_line_groups`: a balance sheet with a blank line and the section labels
  "LIABILITIES AND EQUITY" / "Current liabilities" between its row groups is one table; a block
  after a blank line whose figures end elsewhere is a second table.
* :func:`build_wrapped_label`: a row label longer than a prose line wrapped onto the next line,
  which ends with the row's figures, is one row (bank balance sheets: "Federal funds sold ...").
* :func:`build_figures_in_text`: figures inside running text (a label's share counts on the
  middle line of three, a footnote's amounts right under the table) neither end a wrapped label
  nor pull a footnote into the table.
* :func:`build_group_label`: "Adjustments to reconcile net income to net cash provided by
  operating activities:" inside a cash-flow statement is a label-only row, not prose.
* :func:`build_stacked_statements`: an earnings release's "Exhibit 1" 13-week statement with the
  52-week statement printed right under it (titles and headers, no gap) is two tables, the title
  lines text between them.
* :func:`build_share_columns`: a percentage column right of each amount column, under that
  amount's year alone, is headed "<amount's header> %".
"""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import letter
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

from .fin_statement_pdfs import BODY, BOLD, FIG_RIGHT, HEIGHT, PITCH, SIGN_LEFT, SIZE, STUB, _centred, _right, _text

Rows = list[list[str]]
Cells = list[tuple[str, str]]  # (sign, figure) per column


def _canvas(path: Path) -> canvas.Canvas:
    return canvas.Canvas(str(path), pagesize=letter, invariant=1)


def _box(c: canvas.Canvas, x0: float, x1: float, top: float) -> None:
    """A grey box a row high behind the text whose top is at ``top``."""
    c.setFillGray(0.88)
    c.rect(x0, HEIGHT - top - PITCH + 3, x1 - x0, PITCH, stroke=0, fill=1)
    c.setFillGray(0)


def _figures(c: canvas.Canvas, top: float, cells: Cells, rights: list[float] = FIG_RIGHT,
             signs: list[float] = SIGN_LEFT) -> None:
    for (sign, fig), left, right in zip(cells, signs, rights):
        if sign:
            _text(c, left, top, sign)
        _right(c, right, top, fig)


def _prose(c: canvas.Canvas, top: float, text: str) -> None:
    _text(c, STUB, top, text)


def _cell(sign: str, fig: str) -> str:
    return f"{sign} {fig}" if sign else fig


# 1. Nike: the current year's column alone shaded ------------------------------------------------

NIKE = [
    ("Revenues", [("$", "39,117"), ("$", "36,397"), ("$", "34,350")]),
    ("Cost of sales", [("", "21,643"), ("", "20,441"), ("", "19,038")]),
    ("Gross profit", [("", "17,474"), ("", "15,956"), ("", "15,312")]),
    ("Demand creation expense", [("", "3,753"), ("", "3,577"), ("", "3,341")]),
    ("Operating overhead expense", [("", "8,949"), ("", "7,934"), ("", "7,222")]),
    ("Net income", [("$", "4,029"), ("$", "1,933"), ("$", "4,240")]),
]


def build_shaded_year_column(path: str | Path) -> tuple[Path, list[Rows]]:
    """Nike's income statement: the 2019 column (headers and figures) on grey, each of its cells
    three boxes side by side (sign, figure, margin); the labels and the 2018 and 2017 columns
    unshaded."""
    path = Path(path)
    c = _canvas(path)
    _text(c, STUB, 60, "NIKE, Inc. Consolidated Statements of Income", BOLD, 12)
    top = 100.0
    sign, right = SIGN_LEFT[0], FIG_RIGHT[0]
    _centred(c, SIGN_LEFT[0], FIG_RIGHT[-1], top, "Year Ended May 31,")
    top += PITCH
    _box(c, sign - 2, right + 8, top)
    for text, r in zip(["2019", "2018", "2017"], FIG_RIGHT):
        _right(c, r, top, text, BOLD)
    _text(c, STUB, top, "(In millions)", BOLD)
    top += PITCH
    for label, cells in NIKE:
        for x0, x1 in ((sign - 2, sign + 8), (sign + 8, right), (right, right + 8)):
            _box(c, x0, x1, top)
        _text(c, STUB, top, label)
        _figures(c, top, cells)
        top += PITCH
    _prose(c, top + 20, "The accompanying notes are an integral part of these statements.")
    c.showPage()
    c.save()
    head = ["(In millions)"] + [f"Year Ended May 31, {y}" for y in ("2019", "2018", "2017")]
    return path, [[head] + [[label] + [_cell(*x) for x in cells] for label, cells in NIKE]]


# 2. Corning: shaded rows, a period label centred over three years -------------------------------

CORNING = [
    ("Net sales", [("$", "11,290"), ("$", "11,398"), ("$", "10,116")]),
    ("Cost of sales", [("", "7,468"), ("", "7,325"), ("", "6,084")]),
    ("Gross margin", [("", "3,822"), ("", "4,073"), ("", "4,032")]),
    ("Research expenses", [("", "993"), ("", "1,031"), ("", "993")]),
    ("Net income", [("$", "960"), ("$", "1,173"), ("$", "(74)")]),
]


CORNING_EDGES = [STUB - 4, 170.0, 295.0, 420.0, 545.0]  # the grid: the stub and three wide year columns
CORNING_RIGHT = [285.0, 410.0, 535.0]
CORNING_SIGN = [180.0, 305.0, 430.0]


def _shaded_cells(c: canvas.Canvas, top: float) -> None:
    """A whole row on grey, one box per cell (the stub and each year's column): the boxes' edges
    are the lattice's grid, with no merged cell."""
    for a, b in zip(CORNING_EDGES, CORNING_EDGES[1:]):
        _box(c, a, b, top)


def build_shaded_rows_span(path: str | Path) -> tuple[Path, list[Rows]]:
    """Corning's statement of income: every row on grey, header rows included; "Year ended
    December 31," centred over the three years, inside the middle column's cell of the grid."""
    path = Path(path)
    c = _canvas(path)
    _text(c, STUB, 60, "Consolidated Statements of Income", BOLD, 12)
    _prose(c, 80, "Corning Incorporated and Subsidiary Companies")
    top = 110.0
    _shaded_cells(c, top)
    _centred(c, CORNING_EDGES[1], CORNING_EDGES[-1], top, "Year ended December 31,")
    top += PITCH
    _shaded_cells(c, top)
    _text(c, STUB, top, "(In millions)", BOLD)
    for year, right in zip(["2019", "2018", "2017"], CORNING_RIGHT):
        _right(c, right, top, year, BOLD)
    top += PITCH
    for label, cells in CORNING:
        _shaded_cells(c, top)
        _text(c, STUB, top, label)
        _figures(c, top, cells, CORNING_RIGHT, CORNING_SIGN)
        top += PITCH
    _prose(c, top + 20, "The accompanying notes are an integral part of these statements.")
    c.showPage()
    c.save()
    head = ["(In millions)"] + [f"Year ended December 31, {y}" for y in ("2019", "2018", "2017")]
    return path, [[head] + [[label] + [_cell(*x) for x in cells] for label, cells in CORNING]]


# 3. General Mills: a label set against its first figure -----------------------------------------

LONG_LABEL = "Net earnings attributable to noncontrolling interests"
MILLS = [
    ("Net sales", [("$", "17,626.6"), ("$", "16,865.2"), ("$", "15,740.4")]),
    ("Cost of sales", [("", "11,108.4"), ("", "11,312.8"), ("", "10,312.2")]),
    ("Income taxes", [("", "586.3"), ("", "367.8"), ("", "57.3")]),
    (LONG_LABEL, [("$", "2,210.8"), ("$", "1,786.2"), ("$", "2,163.0")]),
    ("Rent 000", [("", "23.1"), ("", "21.8"), ("", "20.4")]),
    ("Net earnings", [("$", "2,339.8"), ("$", "1,804.4"), ("$", "2,192.8")]),
]


def build_label_against_figures(path: str | Path) -> tuple[Path, list[Rows]]:
    """General Mills' earnings statement: the long label (indented so) ends one point before its
    row's "$"; "Rent 000" is a label with a code in it, a cell gap from its figures."""
    path = Path(path)
    c = _canvas(path)
    _text(c, STUB, 60, "Consolidated Statements of Earnings", BOLD, 12)
    top = 100.0
    for year, right in zip(["2022", "2021", "2020"], FIG_RIGHT):
        _right(c, right, top, year, BOLD)
    _text(c, STUB, top, "In millions", BOLD)
    top += PITCH + 4
    for label, cells in MILLS:
        x = STUB
        if label == LONG_LABEL:  # the label's end two points before the "$" of its first figure
            x = SIGN_LEFT[0] - 2 - stringWidth(label, BODY, SIZE)
        _text(c, x, top, label)
        _figures(c, top, cells)
        top += PITCH
    _prose(c, top + 20, "See accompanying notes to consolidated financial statements.")
    c.showPage()
    c.save()
    head = ["In millions", "2022", "2021", "2020"]
    return path, [[head] + [[label] + [_cell(*x) for x in cells] for label, cells in MILLS]]


# 4. A row set tight: a word space between label and figures -------------------------------------

TIGHT_LABEL = "Selling, general and administrative expenses"
TIGHT = [
    ("Gross profit", ["121,055", "37.5%", "102,418", "37.5%"]),
    ("Store pre-opening costs", ["142,107", "14.4%", "129,074", "10.5%"]),
    (TIGHT_LABEL, ["762,706", "23.6%", "649,968", "23.8%"]),
    ("Operating income", ["433,634", "13.4%", "361,306", "13.2%"]),
]  # amounts of one width, shares of one width: the tight row's figures fill their columns


def build_tight_row(path: str | Path) -> tuple[Path, list[Rows]]:
    """Results of operations with amounts and their shares of sales: the long label's row has
    no cell gap anywhere (one word space to its first figure, a few points between figures). The
    expense rows are indented under "Gross profit" and "Operating income" is not, so the tight row
    is no wrapped label's first line either (``_wrapped_label`` wants the next line indented as
    much): only ``_label_and_figures`` keeps it."""
    path = Path(path)
    c = _canvas(path)
    space = stringWidth(" ", BODY, SIZE)
    first = STUB + 8 + stringWidth(TIGHT_LABEL, BODY, SIZE) + space + stringWidth("762,706", BODY, SIZE)
    pct = stringWidth("23.6%", BODY, SIZE)
    # every gap between columns about 6 points: more than a word space, less than a cell gap
    rights = [first, first + 6 + pct]
    rights += [rights[1] + 6 + stringWidth("649,968", BODY, SIZE)]
    rights += [rights[2] + 6 + pct]
    _text(c, STUB, 60, "Results of Operations", BOLD, 12)
    _prose(c, 82, "The following table sets forth our results as a percentage of net sales.")
    top = 110.0
    _text(c, STUB, top, "(In thousands)", BOLD)
    for text, right in zip(["2022", "2021"], rights[::2]):  # the shares have no header of their own
        _right(c, right, top, text, BOLD)
    top += PITCH + 4
    for label, figs in TIGHT:
        _text(c, STUB if label.startswith(("Gross", "Operating")) else STUB + 8, top, label)  # expenses indented
        for fig, right in zip(figs, rights):
            _right(c, right, top, fig)
        top += PITCH
    _prose(c, top + 20, "Selling, general and administrative expenses grew with the new stores.")
    c.showPage()
    c.save()
    head = ["(In thousands)", "2022", "2022 %", "2021", "2021 %"]
    return path, [[head] + [[label] + figs for label, figs in TIGHT]]


# 5. A blank line between row groups -------------------------------------------------------------

ASSETS = [
    ("Cash and cash equivalents", [("$", "2,339"), ("$", "1,734")]),
    ("Accounts receivable, net", [("", "4,272"), ("", "3,677")]),
    ("Inventories", [("", "5,622"), ("", "5,261")]),
    ("Total assets", [("$", "23,717"), ("$", "22,536")]),
]
LIABILITIES = [
    ("Accounts payable", [("$", "2,612"), ("$", "2,279")]),
    ("Accrued liabilities", [("", "5,010"), ("", "3,269")]),
    ("Total liabilities and equity", [("$", "23,717"), ("$", "22,536")]),
]
OTHER = [("Land", "1,218", "1,203"), ("Buildings", "6,811", "6,504"), ("Machinery", "2,104", "1,968")]
BS_RIGHT, BS_SIGN = FIG_RIGHT[:2], SIGN_LEFT[:2]


def build_blank_line_groups(path: str | Path) -> tuple[Path, list[Rows]]:
    """A balance sheet: assets, a blank line, "LIABILITIES AND EQUITY" and "Current
    liabilities:", then the liabilities, figures ending where the assets' do (one table). After
    a paragraph's worth of blank space, property by class with its figures ending further left,
    after a blank line too: a second table."""
    path = Path(path)
    c = _canvas(path)
    _text(c, STUB, 60, "Consolidated Balance Sheets", BOLD, 12)
    top = 100.0
    _text(c, STUB, top, "(In millions)", BOLD)
    for year, right in zip(["May 31, 2019", "May 31, 2018"], BS_RIGHT):
        _right(c, right, top, year, BOLD)
    top += PITCH + 4
    for label, cells in ASSETS:
        _text(c, STUB, top, label)
        _figures(c, top, cells, BS_RIGHT, BS_SIGN)
        top += PITCH
    top += PITCH  # the blank line
    _text(c, STUB, top, "LIABILITIES AND EQUITY", BOLD)
    top += PITCH
    _text(c, STUB, top, "Current liabilities:")
    top += PITCH
    for label, cells in LIABILITIES:
        _text(c, STUB, top, label)
        _figures(c, top, cells, BS_RIGHT, BS_SIGN)
        top += PITCH
    top += PITCH  # a blank line, then figures that end elsewhere
    for label, a, b in OTHER:
        _text(c, STUB, top, label)
        _right(c, 230, top, a)
        _right(c, 290, top, b)
        top += PITCH
    _prose(c, top + 20, "Property is stated at cost less accumulated depreciation.")
    c.showPage()
    c.save()
    head = ["(In millions)", "May 31, 2019", "May 31, 2018"]
    body = ([[label] + [_cell(*x) for x in cells] for label, cells in ASSETS]
            + [["LIABILITIES AND EQUITY", "", ""], ["Current liabilities:", "", ""]]
            + [[label] + [_cell(*x) for x in cells] for label, cells in LIABILITIES])
    return path, [[head] + body, [["", "", ""]] + [list(r) for r in OTHER]]


# 6. A long row label wrapped onto the line of its figures ---------------------------------------

WRAP_1 = "Federal funds sold and securities purchased under resale agreements (included $12,210"
WRAP_2 = "and $11,432 at fair value)"
BANK = [
    ("Cash and due from banks", [("$", "24,185"), ("$", "26,438")]),
    ("Deposits with banks", [("", "433,432"), ("", "263,637")]),
    (f"{WRAP_1} {WRAP_2}", [("", "272,481"), ("", "296,284")]),
    ("Trading assets", [("", "361,888"), ("", "347,665")]),
    ("Total assets", [("$", "2,622,532"), ("$", "2,533,600")]),
]


def build_wrapped_label(path: str | Path) -> tuple[Path, list[Rows]]:
    """A bank's balance sheet: the resale-agreements label (over 60 characters, no figure) wraps
    onto a second line, set closer than the rows, that ends with the row's two figures."""
    path = Path(path)
    c = _canvas(path)
    _text(c, STUB, 60, "Consolidated balance sheets", BOLD, 12)
    top = 100.0
    _text(c, STUB, top, "(in millions)", BOLD)
    for year, right in zip(["2018", "2017"], [440.0, 520.0]):
        _right(c, right, top, year, BOLD)
    top += PITCH + 4
    for label, cells in BANK:
        if label.startswith(WRAP_1):
            _text(c, STUB, top, WRAP_1)
            top += 10.0
            _text(c, STUB + 6, top, WRAP_2)
        else:
            _text(c, STUB, top, label)
        _figures(c, top, cells, [440.0, 520.0], [380.0, 460.0])
        top += PITCH
    _prose(c, top + 20, "The notes to the consolidated financial statements are an integral part.")
    c.showPage()
    c.save()
    head = ["(in millions)", "2018", "2017"]
    return path, [[head] + [[label] + [_cell(*x) for x in cells] for label, cells in BANK]]



# 6b. Figures inside running text: a label's share counts and a footnote's amounts --------------

SHARES_1 = "Common stock, $0.001 par value; 4,990,000,000 shares authorized"
SHARES_2 = "at December 31, 2017 and 2016; 433,392,686 and 430,054,212 issued"
SHARES_3 = "and outstanding, respectively"
NOTE_1 = "(1) Debt is denominated in euro with a 1,300 million aggregate principal amount. Total proceeds"
NOTE_2 = "were $1,420.5 million and the remeasurement loss was $140.8 million for the year ended 2017."
EQUITY = [
    ("Total liabilities", [("", "15,430,786"), ("", "10,906,810")]),
    (f"{SHARES_1} {SHARES_2} {SHARES_3}", [("", "1,871,396"), ("", "1,599,762")]),
    ("Retained earnings", [("", "1,731,117"), ("", "1,128,603")]),
    ("Total stockholders' equity", [("$", "3,581,956"), ("$", "2,679,800")]),
]


def build_figures_in_text(path: str | Path) -> tuple[Path, list[Rows]]:
    """A balance sheet's common-stock label wrapped over three lines, the middle one holding
    share counts (figures inside the label's text), the last one the row's figures; and a
    footnote set right under the table whose second line holds amounts in running text. The
    label is one row; the footnote is text, not a row of the table (Netflix 10-K 2017)."""
    path = Path(path)
    c = _canvas(path)
    _text(c, STUB, 60, "Consolidated balance sheets", BOLD, 12)
    top = 100.0
    _text(c, STUB, top, "(in thousands)", BOLD)
    for year, right in zip(["2017", "2016"], [460.0, 540.0]):
        _right(c, right, top, year, BOLD)
    top += PITCH + 4
    for label, cells in EQUITY:
        if label.startswith(SHARES_1):
            for k, line in enumerate([SHARES_1, SHARES_2]):
                _text(c, STUB, top, line)
                top += 10.0
            _text(c, STUB + 6, top, SHARES_3)
        else:
            _text(c, STUB, top, label)
        _figures(c, top, cells, [460.0, 540.0], [400.0, 480.0])
        top += PITCH
    _text(c, STUB, top + 2, NOTE_1)
    _text(c, STUB, top + 12, NOTE_2)
    c.showPage()
    c.save()
    head = ["(in thousands)", "2017", "2016"]
    return path, [[head] + [[label] + [_cell(*x) for x in cells] for label, cells in EQUITY]]

# 7. A group label ending with a colon ----------------------------------------------------------

GROUP = "Adjustments to reconcile net income to net cash provided by operating activities:"
CASH = [
    ("Net income", [("$", "4,029"), ("$", "1,933"), ("$", "4,240")]),
    (GROUP, None),
    ("Depreciation", [("", "705"), ("", "747"), ("", "706")]),
    ("Deferred income taxes", [("", "34"), ("", "647"), ("", "(80)")]),
    ("Stock-based compensation", [("", "325"), ("", "218"), ("", "215")]),
    ("Cash provided by operations", [("", "5,903"), ("", "4,955"), ("", "3,640")]),
]


def build_group_label(path: str | Path, deep: bool = False) -> tuple[Path, list[Rows]]:
    """A cash-flow statement: "Adjustments to reconcile ... activities:" (81 characters, no
    figure) opens the adjustments right under "Net income", the adjustments indented under it.
    With ``deep``, the group label is indented further than the adjustments under it, so it is
    no wrapped label's first line (``_wrapped_label`` wants the next line indented as much):
    only ``_group_label`` keeps it."""
    path = Path(path)
    c = _canvas(path)
    _text(c, STUB, 60, "Consolidated Statements of Cash Flows", BOLD, 12)
    top = 100.0
    _text(c, STUB, top, "(In millions)", BOLD)
    for year, right in zip(["2019", "2018", "2017"], FIG_RIGHT):
        _right(c, right, top, year, BOLD)
    top += PITCH + 4
    for label, cells in CASH:
        x = STUB if label == "Net income" else STUB + 8
        if cells is None:
            x = STUB + 16 if deep else STUB
        _text(c, x, top, label)
        if cells:
            _figures(c, top, cells)
        top += PITCH
    _prose(c, top + 20, "The accompanying notes are an integral part of these statements.")
    c.showPage()
    c.save()
    head = ["(In millions)", "2019", "2018", "2017"]
    return path, [[head] + [[label] + ([_cell(*x) for x in cells] if cells else ["", "", ""])
                            for label, cells in CASH]]


# 8. Two statements one under the other ---------------------------------------------------------

WEEKS_13 = [
    ("Net sales", [("$", "3,226,773"), ("$", "2,729,388")]),
    ("Cost of sales", [("", "2,014,270"), ("", "1,702,059")]),
    ("Gross profit", [("", "1,212,503"), ("", "1,027,329")]),
    ("Net income", [("$", "340,751"), ("$", "289,366")]),
]
WEEKS_52 = [
    ("Net sales", [("$", "9,867,283"), ("$", "8,712,001")]),
    ("Cost of sales", [("", "6,104,559"), ("", "5,420,117")]),
    ("Gross profit", [("", "3,762,724"), ("", "3,291,884")]),
    ("Net income", [("$", "1,017,226"), ("$", "884,310")]),
]
ST_RIGHT, ST_SIGN = [400.0, 490.0], [320.0, 410.0]
TITLES_2 = ["Exhibit 2", "Five Below, Inc.", "Consolidated Statements of Operations"]


def _weeks_header(c: canvas.Canvas, top: float, weeks: str) -> float:
    for line in ([weeks] * 2, ["January 28,", "January 29,"], ["2023", "2022"]):
        for text, right in zip(line, ST_RIGHT):
            _right(c, right, top, text, BOLD)
        top += PITCH
    return top


def build_stacked_statements(path: str | Path) -> tuple[Path, list[Rows]]:
    """An earnings release: "Exhibit 1", the 13-week statement, and right under its last row
    (one row pitch apart) "Exhibit 2", the company, the statement's name, the 52-week headers
    and body."""
    path = Path(path)
    c = _canvas(path)
    _text(c, STUB, 50, "Exhibit 1", BOLD)
    _text(c, STUB, 50 + PITCH, "Five Below, Inc.", BOLD)
    top = _weeks_header(c, 50 + 3 * PITCH, "13 Weeks Ended")
    for rows, titles in ((WEEKS_13, TITLES_2), (WEEKS_52, None)):
        for label, cells in rows:
            _text(c, STUB, top, label)
            _figures(c, top, cells, ST_RIGHT, ST_SIGN)
            top += PITCH
        if titles:
            for t in titles:
                _text(c, STUB, top, t, BOLD)
                top += PITCH
            top = _weeks_header(c, top, "52 Weeks Ended")
    _prose(c, top + 20, "Net income per share is computed on the weighted shares outstanding.")
    c.showPage()
    c.save()
    out = []
    for weeks, rows in (("13 Weeks Ended", WEEKS_13), ("52 Weeks Ended", WEEKS_52)):
        head = ["", f"{weeks} January 28, 2023", f"{weeks} January 29, 2022"]
        out.append([head] + [[label] + [_cell(*x) for x in cells] for label, cells in rows])
    return path, out


# 9. Share columns under their amount's year ---------------------------------------------------

SHARES = [
    ("Net sales", [("$", "3,226,773", "100.0%"), ("$", "2,729,388", "100.0%")]),
    ("Cost of sales", [("", "2,014,270", "62.4%"), ("", "1,702,059", "62.4%")]),
    ("Gross profit", [("", "1,212,503", "37.6%"), ("", "1,027,329", "37.6%")]),
    ("Operating income", [("", "433,634", "13.4%"), ("", "361,306", "13.2%")]),
]


def build_share_columns(path: str | Path) -> tuple[Path, list[Rows]]:
    """Results of operations: "Fiscal Year Ended" centred over both years, each year's date
    over its amount only, the percentage of sales right of each amount with no header."""
    path = Path(path)
    c = _canvas(path)
    amount, share, sign = [300.0, 450.0], [360.0, 510.0], [240.0, 390.0]
    _text(c, STUB, 60, "Results of Operations", BOLD, 12)
    _prose(c, 82, "The following table presents our results as a percentage of net sales.")
    top = 110.0
    _centred(c, sign[0], share[1], top, "Fiscal Year Ended")
    top += PITCH
    for text, right in zip(["January 28, 2023", "January 29, 2022"], amount):
        _right(c, right, top, text, BOLD)
    top += PITCH + 4
    for label, cells in SHARES:
        _text(c, STUB, top, label)
        for (s, fig, pct), a, p, x in zip(cells, amount, share, sign):
            if s:
                _text(c, x, top, s)
            _right(c, a, top, fig)
            _right(c, p, top, pct)
        top += PITCH
    _prose(c, top + 20, "Gross profit grew with net sales in both years.")
    c.showPage()
    c.save()
    years = ["Fiscal Year Ended January 28, 2023", "Fiscal Year Ended January 29, 2022"]
    head = ["", years[0], f"{years[0]} %", years[1], f"{years[1]} %"]
    body = [[label] + [x for s, fig, pct in cells for x in (_cell(s, fig), pct)] for label, cells in SHARES]
    return path, [[head] + body]


BUILDERS = {"shaded_year_column": build_shaded_year_column, "shaded_rows_span": build_shaded_rows_span,
            "label_against_figures": build_label_against_figures, "tight_row": build_tight_row,
            "blank_line_groups": build_blank_line_groups, "wrapped_label": build_wrapped_label,
            "group_label": build_group_label, "stacked_statements": build_stacked_statements,
            "share_columns": build_share_columns}
