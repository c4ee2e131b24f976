"""The PDF test corpus, generated with reportlab's platypus as finance teams' PDFs are made.

Every builder writes one PDF and returns its expected tables (header first, then body rows),
so tests can count how many cells land in the right row and column. Tables use reportlab's
default ``Table`` style unless said otherwise: no ruling lines at all, the common case in
annual reports and filings. Nothing here is committed as a binary: tests build into tmp_path.
"""

from __future__ import annotations

from pathlib import Path

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import cm
from reportlab.platypus import (BaseDocTemplate, Frame, FrameBreak, PageBreak, PageTemplate, Paragraph,
                                SimpleDocTemplate, Table, TableStyle)

SS = getSampleStyleSheet()
BODY = SS["BodyText"]
CAPTION = ParagraphStyle("caption", parent=BODY, fontName="Helvetica-Oblique")
NOTE = ParagraphStyle("footnote", parent=BODY, fontSize=7, leading=8.5)
SIDE = ParagraphStyle("side", parent=BODY, fontSize=7.5, leading=9, textColor=colors.grey)
FIN_HEADER = ["Segment", "Region", "Revenue (kEUR)", "Margin"]
REGIONS = ["North", "South", "East", "West"]
TEXT = ("The group manages its liquidity centrally and reports the position of each segment every "
        "quarter to the board, together with the headroom on its committed facilities. ")

Tables = list[list[list[str]]]
# the running header each corpus document prints at the top of every page (test name -> text)
RUNNING_HEADERS = {"finance": "Annual Statement of Reserves 2024", "statement": "Consolidated Financial Statements 2024",
                   "two_column": "Risk Report 2024", "borderless_repeated": "Segment Review 2024",
                   "borderless_not_repeated": "Segment Review 2024", "ruled_repeated": "Historical Series 1900-1989",
                   "ruled_not_repeated": "Historical Series 1900-1989"}


def _furniture(title: str):
    """onPage callback: a running header and a page-number footer on every page."""
    def draw(canvas, doc):
        canvas.saveState()
        canvas.setFont("Helvetica", 8)
        canvas.drawString(2 * cm, A4[1] - 1.2 * cm, title)
        canvas.drawCentredString(A4[0] / 2, 1.0 * cm, f"Page {doc.page}")
        canvas.restoreState()
    return draw


def _amount(v: int) -> str:
    """Finance notation: thousands separators, negatives in parentheses, nil as a dash."""
    if v == 0:
        return "-"
    return f"({-v:,})" if v < 0 else f"{v:,}"


def _value(cell: str) -> int:
    """The number an amount cell shows ("(1,250)" is -1250, "-" is 0)."""
    if cell == "-":
        return 0
    return int(cell.replace(",", "").replace("(", "-").replace(")", ""))


def finance_rows(n: int = 240) -> list[list[str]]:
    """The body rows of the segment table (row i: ``Seg-{i:03d}``)."""
    rows = []
    for i in range(n):
        rev = 1000 + 37 * i * (1 if i % 7 else -1) + (i % 5) * 1000
        margin = "-" if i % 23 == 11 else f"{(i * 7) % 40 - 5:.1f}%"
        rows.append([f"Seg-{i:03d}", REGIONS[i % 4], _amount(rev if i % 31 != 17 else 0), margin])
    return rows


def _doc(path: Path, title: str) -> SimpleDocTemplate:
    return SimpleDocTemplate(str(path), pagesize=A4, invariant=1, title=title,
                             topMargin=2.2 * cm, bottomMargin=2.2 * cm)


def build_finance(path: str | Path, rows: int = 240, repeat_header: bool = True) -> tuple[Path, Tables]:
    """The issue's document: title, H1 "1. Liquidity Position", H2 "1.1 Segment Detail", a
    caption and a unit line, one 240-row 4-column borderless table over several A4 pages (its
    header repeated by reportlab on each page when ``repeat_header``), a totals row, running
    header and page-number footer."""
    path = Path(path)
    body = finance_rows(rows)
    total = ["Total", "", _amount(sum(_value(r[2]) for r in body)), ""]
    data = [FIN_HEADER] + body + [total]
    story = [Paragraph("Annual Statement of Reserves", SS["Title"]),
             Paragraph("1. Liquidity Position", SS["Heading1"]), Paragraph(TEXT * 3, BODY),
             Paragraph("1.1 Segment Detail", SS["Heading2"]), Paragraph(TEXT, BODY),
             Paragraph("Table 1: Segment revenue and margin", CAPTION),
             Paragraph("(in thousands of EUR)", BODY),
             Table(data, repeatRows=1 if repeat_header else 0),
             Paragraph("2. Outlook", SS["Heading1"]), Paragraph(TEXT, BODY)]
    furn = _furniture(RUNNING_HEADERS["finance"])
    _doc(path, "Annual Statement of Reserves").build(story, onFirstPage=furn, onLaterPages=furn)
    return path, [data]


STATEMENT_HEAD = [["", "Group", "", "Company", ""], ["", "2024", "2023", "2024", "2023"]]
STATEMENT = [
    ["Cash and cash equivalents", "12,450", "10,980", "3,210", "2,875"],
    ["Trade receivables", "8,120", "7,655", "-", "-"],
    ["Property, plant and equipment, net of\naccumulated depreciation", "45,300", "44,120", "1,020", "1,115"],
    ["Provisions", "(1,250)", "(980)", "(45)", "(30)"],
    ["Deferred tax", "-", "310", "-", "-"],
    ["Total assets", "64,620", "62,085", "4,185", "3,960"],
]
LEASE_HEAD = ["Lease liabilities", "2024", "2023"]
LEASE = [["Within one year", "1,120", "1,045"], ["Between one and five years", "3,480", "3,310"],
         ["After five years", "2,010", "2,250"], ["Total undiscounted", "6,610", "6,605"],
         ["Interest", "(540)", "(575)"], ["Carrying amount", "6,070", "6,030"]]


def statement_expected() -> list[list[str]]:
    """The statement as one Markdown table: spanning header rows flattened onto each column
    ("Group 2024"), the two-line label joined."""
    head = ["", "Group 2024", "Group 2023", "Company 2024", "Company 2023"]
    return [head] + [[c.replace("\n", " ") for c in r] for r in STATEMENT]


def build_statement(path: str | Path) -> tuple[Path, Tables]:
    """A statement with notes: a spanning two-level header, a two-line row label, negatives in
    parentheses, nil dashes, a totals row; then "Note 12 Leases" with its own small table and
    a footnote cited by the note's text."""
    path = Path(path)
    style = TableStyle([("SPAN", (1, 0), (2, 0)), ("SPAN", (3, 0), (4, 0)), ("ALIGN", (1, 0), (-1, -1), "RIGHT"),
                        ("ALIGN", (1, 0), (-1, 0), "CENTER")])
    stmt = Table(STATEMENT_HEAD + STATEMENT, colWidths=[7 * cm, 2.2 * cm, 2.2 * cm, 2.2 * cm, 2.2 * cm], style=style)
    lease = Table([LEASE_HEAD] + LEASE, colWidths=[7 * cm, 2.5 * cm, 2.5 * cm],
                  style=TableStyle([("ALIGN", (1, 0), (-1, -1), "RIGHT")]))
    story = [Paragraph("Consolidated Financial Statements", SS["Title"]),
             Paragraph("Statement of Financial Position", SS["Heading1"]),
             Paragraph("(in thousands of EUR)", BODY), stmt, PageBreak(),
             Paragraph("Notes to the Financial Statements", SS["Heading1"]),
             Paragraph("Note 12 Leases", SS["Heading2"]),
             Paragraph("The group leases offices and vehicles. The maturity of the lease liabilities is shown "
                       "below, undiscounted.<super>1</super>", BODY),
             lease,
             Paragraph("Note 13 Provisions", SS["Heading2"]),
             Paragraph("Provisions cover warranties and restructuring. " * 2, BODY)]

    def furn(canvas, doc):
        _furniture(RUNNING_HEADERS["statement"])(canvas, doc)
        if doc.page == 2:
            _footnote(canvas, 2.7 * cm, "1 Discounted at the incremental borrowing rate of 4.1%.")
    _doc(path, "Statements").build(story, onFirstPage=furn, onLaterPages=furn)
    return path, [statement_expected(), [LEASE_HEAD] + LEASE]


def _footnote(canvas, y: float, text: str) -> None:
    """A footnote at the page foot: a short rule 0.4 cm above a 7-point line of text at ``y``."""
    canvas.setFont("Helvetica", 7)
    canvas.line(2 * cm, y + 0.4 * cm, 6 * cm, y + 0.4 * cm)
    canvas.drawString(2 * cm, y, text)


RULED_HEAD = ["Year", "Revenue", "Cost"]


def build_ruled_multipage(path: str | Path, repeat_header: bool) -> tuple[Path, Tables]:
    """A ruled (gridded) table of 90 rows over two pages, its header repeated by the PDF or not."""
    path = Path(path)
    rows = [[str(1900 + i), f"{i * 13.5:,.1f}", f"({i * 7.25:,.2f})"] for i in range(90)]
    table = Table([RULED_HEAD] + rows, repeatRows=1 if repeat_header else 0,
                  style=TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
    story = [Paragraph("Historical Series", SS["Title"]), Paragraph("1. Revenue and cost", SS["Heading1"]),
             Paragraph(TEXT, BODY), table, Paragraph("The series ends here.", BODY)]
    furn = _furniture(RUNNING_HEADERS["ruled_repeated"])
    _doc(path, "Series").build(story, onFirstPage=furn, onLaterPages=furn)
    return path, [[RULED_HEAD] + rows]


def build_borderless_multipage(path: str | Path, repeat_header: bool) -> tuple[Path, Tables]:
    """The segment table alone (120 rows) without ruling lines, header repeated or not."""
    path = Path(path)
    data = [FIN_HEADER] + finance_rows(120)
    story = [Paragraph("Segment Table", SS["Title"]), Paragraph(TEXT, BODY), Table(data, repeatRows=int(repeat_header)),
             Paragraph("End of the segment table.", BODY)]
    furn = _furniture(RUNNING_HEADERS["borderless_repeated"])
    _doc(path, "Segments").build(story, onFirstPage=furn, onLaterPages=furn)
    return path, [data]


LEFT_TEXT = ("Interest rate risk arises from the group's borrowings. Borrowings at variable rates expose the "
             "group to cash flow interest rate risk, which is partly offset by cash held at variable rates. ")
RIGHT_TEXT = ("Credit risk is managed on a group basis. It arises from cash and cash equivalents, derivative "
              "financial instruments and deposits with banks, as well as credit exposures to customers. ")


def build_two_column(path: str | Path) -> tuple[Path, Tables]:
    """Two pages: a title across the page, then two text columns (left read before right), a
    side note in the right margin, and a footnote at the foot of the first page."""
    path = Path(path)
    w, h = A4
    doc = BaseDocTemplate(str(path), pagesize=A4, invariant=1)
    gap, side = 0.8 * cm, 3.0 * cm
    col = (w - 4 * cm - gap - side) / 2
    frames = [Frame(2 * cm, h - 5 * cm, w - 4 * cm, 2.5 * cm, id="title"),
              Frame(2 * cm, 4 * cm, col, h - 9.2 * cm, id="left"),
              Frame(2 * cm + col + gap, 4 * cm, col, h - 9.2 * cm, id="right"),
              Frame(w - 2 * cm - side + 0.3 * cm, h - 9 * cm, side - 0.3 * cm, 4 * cm, id="side")]

    def foot(canvas, doc_):
        _furniture(RUNNING_HEADERS["two_column"])(canvas, doc_)
        if doc_.page == 1:
            _footnote(canvas, 3.0 * cm, "1 Hedging instruments are described in note 21.")
    doc.addPageTemplates([PageTemplate("two", frames=frames, onPage=foot)])
    story = [Paragraph("Risk Report", SS["Title"]), FrameBreak(),
             Paragraph("Interest rate risk", SS["Heading2"]), Paragraph(LEFT_TEXT * 5, BODY), FrameBreak(),
             Paragraph("Credit risk", SS["Heading2"]),
             Paragraph(RIGHT_TEXT * 4 + "Derivatives are used to hedge.<super>1</super>", BODY), FrameBreak(),
             Paragraph("Side note: figures are unaudited.", SIDE), FrameBreak(),
             Paragraph("Risk Report, continued", SS["Title"]), FrameBreak(),
             Paragraph("Liquidity risk", SS["Heading2"]), Paragraph(LEFT_TEXT * 2, BODY), FrameBreak(),
             Paragraph(RIGHT_TEXT * 2, BODY)]
    doc.build(story)
    return path, []


def build_scanned_page(path: str | Path) -> Path:
    """Three pages: text, a scanned page (a bitmap, no text layer at all), text again."""
    import io
    import random

    from PIL import Image as PILImage  # reportlab depends on Pillow
    from reportlab.platypus import Image

    path = Path(path)
    rng = random.Random(5)
    scan = PILImage.new("L", (120, 170), 235)
    scan.putdata([235 - rng.randrange(40) for _ in range(120 * 170)])  # paper grain
    png = io.BytesIO()
    scan.save(png, format="PNG")
    png.seek(0)
    story = [Paragraph("Annual Report", SS["Title"]), Paragraph(TEXT, BODY), PageBreak(),
             Image(png, width=15 * cm, height=21 * cm), PageBreak(), Paragraph("After the scan.", BODY)]
    _doc(path, "Scan").build(story)
    return path
