"""Note tables and selected-data layouts from 10-K filings that bound the PDF reader's
statement rules (issue 48, item 4; fin_statement_cases has the rules themselves), drawn with
reportlab's canvas at explicit positions. Each builder returns the PDF's path and the tables it
must come out as, every table a list of rows, header first:

* :func:`build_lead_in_between_tables`: two note tables set a blank line apart, the second
  introduced by a one-line lead-in ending in a colon ("... are classified in our Consolidated
  Statements of Earnings as follows:") over a "Fiscal Year" line and a header of years. The
  lead-in is text between two tables, neither a wrapped label nor a group label joining them
  (General Mills 10-K 2020, notes 4 and 5).
* :func:`build_period_group_label`: a selected-data table whose rows are grouped under "Year
  Ended May 31," and "At May 31,". The second period label, with no year of its own, is a
  label row inside the one table, not the header of a second statement (Nike 10-K 2019,
  "Financial history"). The first, right under the years, joins the header as the reader's
  header rule has it.
* :func:`build_shaded_summary`: a results summary whose non-GAAP rows are shaded, label and
  sign cells drawn as boxes, with narrow boxes down the sign column and the right margin: the
  lattice finder's grid then has one cell holding the figures of every unshaded row. The
  table is read by alignment instead (General Mills 10-K 2020, "Consolidated results").
"""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

from .fin_statement_cases import _box, _figures
from .fin_statement_pdfs import BOLD, FIG_RIGHT, PITCH, STUB, _right, _text

Rows = list[list[str]]
YEARS = ["2020", "2019", "2018"]

# 1. A lead-in ending with a colon between two note tables ---------------------------------------

CHARGES = [("Global cost savings initiatives", "$ 49.3"), ("Charges associated with restructuring", "33.4"),
           ("Total", "$ 82.7")]
LEAD_IN = ("Restructuring and impairment charges and project-related costs are classified in our "
           "Consolidated Statements of Earnings as follows:")
SHORT_LEAD_IN = "Joint venture earnings and cash flow activity is as follows:"  # as short as a group label
SHORTEST_LEAD_IN = "Net sales by class of similar products were as follows:"  # shorter than a prose row
CLASSIFIED = [("Cost of sales", ["$ 25.8", "$ 9.9", "$ 14.0"]),
              ("Restructuring, impairment, and other exit costs", ["24.4", "275.1", "165.6"]),
              ("Total restructuring and impairment charges", ["50.2", "285.0", "179.6"])]


def _row(c: canvas.Canvas, top: float, label: str, cells: list[str]) -> None:
    """A body row: its label, and each cell as printed ("$ 25.8": the sign at the column's
    left edge, the figure right-aligned), drawn by fin_statement_cases' ``_figures``."""
    _text(c, STUB, top, label)
    _figures(c, top, [(sign, fig) for sign, _, fig in (cell.rpartition(" ") for cell in cells)])


def build_lead_in_between_tables(path: str | Path, lead_in: str = LEAD_IN) -> tuple[Path, list[Rows]]:
    """Charges by initiative (one figure column), a blank line, the lead-in sentence (longer
    than two prose rows, or as short as a group label), "Fiscal Year" over the years, and the
    charges by line of the statement of earnings."""
    path = Path(path)
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    _text(c, STUB, 60, "Charges recorded in fiscal 2018 were as follows:")
    top = 84.0
    _right(c, FIG_RIGHT[0], top, "Expense, in Millions", BOLD)
    top += PITCH
    for label, cell in CHARGES:
        _row(c, top, label, [cell])
        top += PITCH
    top += 10.0  # a blank line, closer than a paragraph break
    _text(c, STUB, top, lead_in)
    top += 20.0
    _right(c, FIG_RIGHT[1], top, "Fiscal Year", BOLD)
    top += PITCH
    _text(c, STUB, top, "In Millions", BOLD)
    for year, right in zip(YEARS, FIG_RIGHT):
        _right(c, right, top, year, BOLD)
    top += PITCH
    for label, cells in CLASSIFIED:
        _row(c, top, label, cells)
        top += PITCH
    c.showPage()
    c.save()
    first = [["", "Expense, in Millions"]] + [[label, cell] for label, cell in CHARGES]
    second = [["In Millions"] + [f"Fiscal Year {y}" for y in YEARS]] + [[label] + cells for label, cells in CLASSIFIED]
    return path, [first, second]


# 2. A period label without a year inside a selected-data table ----------------------------------

HISTORY = [
    ("Year Ended May 31,", None),
    ("Revenues", ["$ 39,117", "$ 36,397", "$ 34,350"]),
    ("Net income", ["4,029", "1,933", "4,240"]),
    ("Cash provided by operations", ["5,903", "4,955", "3,846"]),
    ("At May 31,", None),
    ("Cash and equivalents", ["$ 4,466", "$ 4,249", "$ 3,808"]),
    ("Inventories", ["5,622", "5,261", "5,055"]),
    ("Total assets", ["23,717", "22,536", "23,259"]),
]


def build_period_group_label(path: str | Path) -> tuple[Path, list[Rows]]:
    """Financial history: the years' header, then two row groups each opened by a period label
    ("Year Ended May 31," / "At May 31,") set as a label-only row."""
    path = Path(path)
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    _text(c, STUB, 60, "FINANCIAL HISTORY", BOLD)
    top = 84.0
    _text(c, STUB, top, "(In millions)", BOLD)
    for year, right in zip(["2019", "2018", "2017"], FIG_RIGHT):
        _right(c, right, top, year, BOLD)
    top += PITCH
    for label, cells in HISTORY:
        if cells is None:
            _text(c, STUB, top, label, BOLD)
        else:
            _row(c, top, label, cells)
        top += PITCH
    _text(c, STUB, top + 20, "All amounts are reported in millions of U.S. dollars unless noted.")
    c.showPage()
    c.save()
    head = ["(In millions) Year Ended May 31,", "2019", "2018", "2017"]  # the first label joins the header
    return path, [[head] + [[label] + (cells or ["", "", ""]) for label, cells in HISTORY[1:]]]


# 3. Shaded rows whose boxes make a misleading grid ----------------------------------------------

SUMMARY = [
    ("Net sales", ["$ 17,626.6", "5%"]),
    ("Operating profit", ["2,953.9", "17%"]),
    ("Net earnings attributable to the company", ["2,181.2", "24%"]),
    ("Diluted earnings per share", ["$ 3.56", "23%"]),
    ("Adjusted operating profit (a)", ["3,058.0", "7%"]),
    ("Adjusted diluted earnings per share (a)", ["$ 3.61", "12%"]),
]
SHADED = 4  # the rows from here on (the non-GAAP measures) are shaded
SUM_EDGES = (STUB - 2, 257.0, 267.0, 566.0, 576.0)  # label | sign | figures | margin


def build_shaded_summary(path: str | Path) -> tuple[Path, list[Rows]]:
    """The summary: label, amount (its "$" in a column of its own), change; a rule over and
    under it, the sign column and the margin boxed on every row, the label cells of the last
    rows shaded too."""
    path = Path(path)
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    top = 84.0
    _text(c, STUB, top, "In millions", BOLD)
    _right(c, 330.0, top, "Fiscal 2020", BOLD)
    _right(c, 410.0, top, "vs. Fiscal 2019", BOLD)
    top += PITCH
    c.setLineWidth(0.5)
    c.line(SUM_EDGES[0], letter[1] - top + 3, SUM_EDGES[4], letter[1] - top + 3)  # rules over and under
    c.line(SUM_EDGES[0], letter[1] - top - len(SUMMARY) * PITCH + 3, SUM_EDGES[4],
           letter[1] - top - len(SUMMARY) * PITCH + 3)
    for k, (label, (amount, change)) in enumerate(SUMMARY):
        _box(c, SUM_EDGES[1], SUM_EDGES[2], top)
        _box(c, SUM_EDGES[3], SUM_EDGES[4], top)
        if k >= SHADED:
            _box(c, SUM_EDGES[0], SUM_EDGES[1], top)
        _text(c, STUB, top, label)
        sign, _, fig = amount.rpartition(" ")
        if sign:
            _text(c, 259.0, top, sign)
        _right(c, 330.0, top, fig)
        _right(c, 410.0, top, change)
        top += PITCH
    _text(c, STUB, top + 20, "(a) See the Non-GAAP Measures section for our use of measures not defined by GAAP.")
    c.showPage()
    c.save()
    head = ["In millions", "Fiscal 2020", "vs. Fiscal 2019"]
    return path, [[head] + [[label] + cells for label, cells in SUMMARY]]


__all__ = ["LEAD_IN", "SHORT_LEAD_IN", "SHORTEST_LEAD_IN", "build_lead_in_between_tables", "build_shaded_summary", "build_period_group_label"]
