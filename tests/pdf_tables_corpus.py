"""Harder borderless tables, generated with reportlab as statements are made (issue 34).

Cases the first corpus (tests/pdf_corpus.py) did not hold: a header row with an empty stub cell
and two-word column headers ("2024 EUR k") set wider than the figures under them; a long table
over several pages whose header the PDF does not repeat and whose label column changes width
from page to page; labels followed by dot leaders; labels and descriptions wrapped over two or
three lines, upper-case continuations included; a two-level budget header with the stub's label
on its lower row; a right-aligned text column; header cells wrapped over two lines beside their
figures. Each builder returns the expected table
(header first, then body rows) as one Markdown table should hold it.
"""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.units import cm
from reportlab.platypus import Paragraph, Table, TableStyle

try:  # imported as tests.pdf_tables_corpus by pytest, as pdf_tables_corpus by the benches
    from .pdf_corpus import BODY, SS, TEXT, _doc, _furniture
except ImportError:
    from pdf_corpus import BODY, SS, TEXT, _doc, _furniture

Tables = list[list[list[str]]]
RIGHT = TableStyle([("ALIGN", (1, 0), (-1, -1), "RIGHT")])


def build_year_headers(path: str | Path) -> tuple[Path, Tables]:
    """A balance sheet: empty stub over the labels, "2024 EUR k" and "2023 EUR k" over narrow
    right-aligned figures (the header wider than every figure under it)."""
    path = Path(path)
    head = ["", "2024 EUR k", "2023 EUR k"]
    body = [["Intangible assets", "1,204", "988"], ["Property, plant and equipment", "45,300", "44,120"],
            ["Inventories", "812", "790"], ["Trade receivables", "8,120", "7,655"],
            ["Cash and cash equivalents", "12,450", "10,980"], ["Total assets", "67,886", "64,533"]]
    table = Table([head] + body, colWidths=[7 * cm, 2.6 * cm, 2.6 * cm], style=RIGHT)
    story = [Paragraph("Balance Sheet", SS["Title"]), Paragraph(TEXT, BODY), table, Paragraph(TEXT, BODY)]
    _doc(path, "Balance").build(story)
    return path, [[head] + body]


def long_rows(n: int) -> list[list[str]]:
    """Ledger rows whose label widths vary: the widest label differs from page to page."""
    names = ["Rent", "Office supplies and small equipment", "Travel", "Legal fees", "Insurance premiums",
             "Utilities", "Consulting"]
    return [[f"{names[i % 7]} {i:03d}", f"{(i * 37) % 900 + 100:,}", f"{(i * 53) % 700 + 50:,}"] for i in range(n)]


def build_multipage_no_repeat(path: str | Path) -> tuple[Path, Tables]:
    """A 110-row ledger over three pages, header only on the first page, page-number footer."""
    path = Path(path)
    head = ["Account", "Budget", "Actual"]
    rows = long_rows(110)
    table = Table([head] + rows, colWidths=[8 * cm, 3 * cm, 3 * cm], style=RIGHT, repeatRows=0)
    story = [Paragraph("Ledger", SS["Title"]), Paragraph(TEXT, BODY), table, Paragraph("End of the ledger.", BODY)]
    furn = _furniture("Ledger 2024")
    _doc(path, "Ledger").build(story, onFirstPage=furn, onLaterPages=furn)
    return path, [[head] + rows]


def build_leaders(path: str | Path) -> tuple[Path, Tables]:
    """Labels followed by dot leaders up to their figures (``Total . . . . .  1,200``)."""
    path = Path(path)
    head = ["", "2024", "2023"]
    body = [["Revenue", "10,200", "9,870"], ["Cost of sales", "(6,150)", "(5,990)"],
            ["Gross profit", "4,050", "3,880"], ["Administrative expenses", "(1,720)", "(1,655)"],
            ["Operating profit", "2,330", "2,225"], ["Total", "2,330", "2,225"]]
    data = [head] + [[r[0] + " " + ". " * (36 - len(r[0]))] + r[1:] for r in body]
    table = Table(data, colWidths=[8 * cm, 2.5 * cm, 2.5 * cm], style=RIGHT)
    story = [Paragraph("Income Statement", SS["Title"]), Paragraph(TEXT, BODY), table, Paragraph(TEXT, BODY)]
    _doc(path, "Income").build(story)
    return path, [[head] + body]


def build_wrapped(path: str | Path) -> tuple[Path, Tables]:
    """Labels and descriptions wrapped over two and three lines (Paragraph cells, top-aligned),
    continuations in upper and lower case, figures on the first line."""
    path = Path(path)
    head = ["Item", "Description", "Amount"]
    body = [["Office lease", "Monthly rent for the head office in Berlin, including service charges and "
             "parking spaces for the staff", "14,200"],
            ["IT Services", "Hosting", "3,150"],
            ["Professional Fees And Advisory Services Rendered", "Audit of the annual accounts", "25,000"],
            ["Travel", "Flights and hotels for the board meetings in London and Paris", "6,420"],
            ["Insurance", "Directors and officers liability", "4,800"],
            ["Training Programmes For New Staff Members", "External courses", "2,310"]]
    cell = SS["BodyText"]
    data = [head] + [[Paragraph(a, cell), Paragraph(b, cell), c] for a, b, c in body]
    style = TableStyle([("ALIGN", (2, 0), (2, -1), "RIGHT"), ("VALIGN", (0, 0), (-1, -1), "TOP"),
                        ("BOTTOMPADDING", (0, 0), (-1, -1), 6)])
    table = Table(data, colWidths=[4.5 * cm, 8 * cm, 2.5 * cm], style=style)
    story = [Paragraph("Expenses", SS["Title"]), Paragraph(TEXT, BODY), table, Paragraph(TEXT, BODY)]
    _doc(path, "Expenses").build(story)
    return path, [[head] + body]


def build_budget(path: str | Path) -> tuple[Path, Tables]:
    """A budget table: "Actual" and "Estimate" spanning two years each, the stub's label
    ("Programme") on the lower header row, indented sub-items, dashes, an empty cell and a
    footnote mark."""
    path = Path(path)
    head = [["", "Actual", "", "Estimate", ""], ["Programme", "2022", "2023", "2024", "2025"]]
    body = [["Education", "1,204.5", "1,310.2", "1,402.0", "1,455.8"], ["Primary schools", "604.1", "650.0", "\u2014", "702.3"],
            ["Secondary schools", "600.4", "660.2", "700.1", ""], ["Health\u00b9", "2,301.0", "2,450.7", "2,600.3", "2,710.9"],
            ["Hospitals", "1,800.0", "1,900.2", "2,000.0", "2,100.0"], ["Defence", "950.0", "\u2014", "1,010.0", "1,050.5"],
            ["Total", "4,455.5", "3,760.9", "5,012.3", "5,216.7"]]
    indented = [["   " + r[0] if r[0] in ("Primary schools", "Secondary schools", "Hospitals") else r[0]] + r[1:]
                for r in body]
    style = TableStyle([("SPAN", (1, 0), (2, 0)), ("SPAN", (3, 0), (4, 0)), ("ALIGN", (1, 0), (-1, -1), "RIGHT"),
                        ("ALIGN", (1, 0), (-1, 0), "CENTER")])
    table = Table(head + indented, colWidths=[6 * cm] + [2.3 * cm] * 4, style=style)
    story = [Paragraph("Budget", SS["Title"]), Paragraph(TEXT, BODY), table, Paragraph(TEXT, BODY)]
    _doc(path, "Budget").build(story)
    return path, [[["Programme", "Actual 2022", "Actual 2023", "Estimate 2024", "Estimate 2025"]] + body]


def build_text_columns(path: str | Path) -> tuple[Path, Tables]:
    """A table of words only, its middle column right-aligned (no left edges line up there)."""
    path = Path(path)
    rows = [["Term", "Meaning", "Source"], ["Accrual", "Recognition when earned", "IAS 1"],
            ["Provision", "A liability of uncertain timing", "IAS 37"],
            ["Lease", "A contract conveying the right to use", "IFRS 16"], ["Goodwill", "Excess of consideration", "IFRS 3"]]
    table = Table(rows, colWidths=[4 * cm, 8 * cm, 3 * cm], style=RIGHT)
    story = [Paragraph("Glossary", SS["Title"]), Paragraph(TEXT, BODY), table, Paragraph(TEXT, BODY)]
    _doc(path, "Glossary").build(story)
    return path, [rows]


def build_wrapped_header(path: str | Path) -> tuple[Path, Tables]:
    """Header cells wrapped over two lines and set flush left over right-aligned figures
    ("Labor cost" over "in hours" beside, not above, the narrow figures)."""
    path = Path(path)
    cell = SS["BodyText"]
    head = ["Action", "Labor cost in hours", "Parts cost", "Cost per product"]
    body = [["Wiring change", "79", "3,790", "10,505"], ["Sensor test", "40", "0", "3,400"], ["Flight", "2", "0", "170"],
            ["Software", "1", "0", "85"]]
    style = TableStyle([("ALIGN", (1, 0), (-1, -1), "RIGHT"), ("VALIGN", (0, 0), (-1, -1), "BOTTOM")])
    table = Table([[Paragraph(h, cell) for h in head]] + body, colWidths=[5 * cm] + [2.2 * cm] * 3, style=style)
    story = [Paragraph("Estimated Costs", SS["Title"]), Paragraph(TEXT, BODY), table, Paragraph(TEXT, BODY)]
    _doc(path, "Costs").build(story)
    return path, [[head] + body]


BUILDERS = {"year_headers": build_year_headers, "multipage_no_repeat": build_multipage_no_repeat,
            "leaders": build_leaders, "wrapped": build_wrapped, "budget": build_budget,
            "text_columns": build_text_columns, "wrapped_header": build_wrapped_header}
