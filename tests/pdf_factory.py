"""Build small, real PDFs with reportlab for the PDF ingestion tests and the PDF benchmark.

Lines are laid out explicitly (the test author decides where a line breaks and which word is
hyphenated), so the expected Markdown is known exactly. Tables are drawn as ruled grids, which
is what pdfplumber's default table finder recognises.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Sequence

from reportlab.lib.pagesizes import letter
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

WIDTH, HEIGHT = letter
LEFT, RIGHT = 72.0, WIDTH - 72.0
TOP, BOTTOM = HEIGHT - 72.0, 80.0
BODY = "Helvetica"
BOLD = "Helvetica-Bold"


class Writer:
    """A tiny page-layout engine on a reportlab canvas.

    Args:
        path: output file.
        header: running header drawn at the top of every page ("#" is replaced by the page number).
        footer: running footer drawn at the bottom left of every page (same "#" rule).
        page_numbers: draw a bare page number at the bottom centre of every page.
        encrypt: a user password: the PDF is encrypted and cannot be opened without it.
    """

    def __init__(self, path: str | Path, header: str | None = None, footer: str | None = None,
                 page_numbers: bool = False, encrypt: str | None = None):
        self.c = canvas.Canvas(str(path), pagesize=letter, encrypt=encrypt, invariant=1)
        self.header, self.footer, self.page_numbers = header, footer, page_numbers
        self.page = 1
        self.y = TOP
        self.footnotes: list[tuple[str, str]] = []
        self._used = False

    # ----------------------------------------------------------------- pages
    def _furniture(self) -> None:
        c = self.c
        if self.header:
            c.setFont(BODY, 9)
            c.drawString(LEFT, HEIGHT - 40, self.header.replace("#", str(self.page)))
        if self.footer:
            c.setFont(BODY, 9)
            c.drawString(LEFT, 36, self.footer.replace("#", str(self.page)))
        if self.page_numbers:
            c.setFont(BODY, 9)
            c.drawCentredString(WIDTH / 2, 22, str(self.page))
        y = BOTTOM - 8
        if self.footnotes:
            c.setLineWidth(0.5)
            c.line(LEFT, BOTTOM + 4, LEFT + 120, BOTTOM + 4)
        for label, text in self.footnotes:
            c.setFont(BODY, 7.5)
            c.drawString(LEFT, y, label)
            c.drawString(LEFT + 8, y, text)
            y -= 10
        self.footnotes = []

    def new_page(self) -> None:
        """Finish the current page (furniture and footnotes) and start the next one."""
        self._furniture()
        self.c.showPage()
        self.page += 1
        self.y = TOP

    def ensure(self, height: float) -> None:
        """Start a new page unless ``height`` points still fit above the bottom margin."""
        if self.y - height < BOTTOM + 10 * len(self.footnotes) + 12:
            self.new_page()

    def save(self) -> None:
        """Finish the last page and write the file."""
        self._furniture()
        self.c.save()

    # ----------------------------------------------------------------- text
    def _line(self, x: float, y: float, line: str, font: str, size: float) -> None:
        """Draw one line; a token ``^N`` is drawn as a raised, smaller superscript N."""
        c = self.c
        if "^" not in line:
            c.setFont(font, size)
            c.drawString(x, y, line)
            return
        first = True
        for word in line.split(" "):
            if not first:
                x += stringWidth(" ", font, size)
            first = False
            base, _, sup = word.partition("^")
            c.setFont(font, size)
            c.drawString(x, y, base)
            x += stringWidth(base, font, size)
            if sup:
                c.setFont(font, size * 0.65)
                c.drawString(x, y + size * 0.38, sup)
                x += stringWidth(sup, font, size * 0.65)

    def heading(self, text: str, size: float, space_before: float = 10) -> None:
        """A bold heading line at ``size`` points."""
        self.ensure(space_before + size * 1.3 + 40)
        self.y -= space_before + size
        self._line(LEFT, self.y, text, BOLD, size)
        self.y -= size * 0.5

    def lines(self, lines: Sequence[str], size: float = 10, indent: float = 0, space_before: float = 8,
              font: str = BODY) -> None:
        """A paragraph laid out as exactly these lines (1.2 line spacing)."""
        self.y -= space_before
        for line in lines:
            self.ensure(size * 1.2)
            self.y -= size * 1.2
            self._line(LEFT + indent, self.y, line, font, size)

    def paragraph(self, text: str, size: float = 10) -> None:
        """A paragraph wrapped greedily to the text width (no hyphenation)."""
        self.lines(wrap(text, RIGHT - LEFT, size), size)

    def bullets(self, items: Sequence[Sequence[str]], marker: str | Sequence[str] = "\u2022", size: float = 10) -> None:
        """A list; each item is its lines; continuation lines hang under the item text.

        ``marker`` is one bullet for every item, or one marker per item ("(a)", "(b)").
        """
        self.y -= 8
        markers = [marker] * len(items) if isinstance(marker, str) else list(marker)
        for item, marker in zip(items, markers):
            for i, line in enumerate(item):
                self.ensure(size * 1.2)
                self.y -= size * 1.2
                if i == 0:
                    self.c.setFont(BODY, size)
                    self.c.drawString(LEFT + 10, self.y, marker)
                self._line(LEFT + 26, self.y, line, BODY, size)

    def footnote(self, label: str, text: str) -> None:
        """A footnote printed at the bottom of the current page."""
        self.footnotes.append((label, text))

    # ----------------------------------------------------------------- tables
    def table(self, rows: Sequence[Sequence[str]], widths: Sequence[float], size: float = 9,
              row_height: float = 14, repeat_header: bool = False) -> None:
        """A ruled table; rows that do not fit continue on the next page.

        Args:
            rows: the header row first, then the body rows.
            widths: column widths in points.
            repeat_header: draw the header row again at the top of each continuation page.
        """
        self.y -= 10
        header, body = list(rows[0]), [list(r) for r in rows[1:]]
        first = True
        while first or body:
            part = [header] if first or repeat_header else []
            room = int((self.y - BOTTOM - 12) // row_height) - len(part)
            if room < 1:
                self.new_page()
                continue
            part, body = part + body[:room], body[room:]
            self._grid(part, widths, size, row_height)
            first = False
            if body:
                self.new_page()

    def _grid(self, rows: Sequence[Sequence[str]], widths: Sequence[float], size: float, row_height: float) -> None:
        xs = [LEFT]
        for w in widths:
            xs.append(xs[-1] + w)
        ys = [self.y - i * row_height for i in range(len(rows) + 1)]
        self.c.setLineWidth(0.6)
        self.c.grid(xs, ys)
        for r, row in enumerate(rows):
            for col, cell in enumerate(row):
                self.c.setFont(BODY, size)
                self.c.drawString(xs[col] + 3, ys[r] - row_height + 4, cell)
        self.y = ys[-1] - 4


def wrap(text: str, width: float, size: float, font: str = BODY) -> list[str]:
    """Greedy word wrap to ``width`` points."""
    out, line = [], ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if line and stringWidth(trial, font, size) > width:
            out.append(line)
            line = word
        else:
            line = trial
    if line:
        out.append(line)
    return out


LONG_HEADER = ["Code", "Country", "Amount"]


def long_rows(n: int = 59) -> list[list[str]]:
    """The body rows of the long table (row i has code R{i:03d})."""
    return [[f"R{i:03d}", f"Country {i}", f"{i * 17 % 1000}.{i % 10}0"] for i in range(1, n + 1)]


def build_sample(path: str | Path, repeat_header: bool = False) -> Path:
    """The test document: 3 heading levels, wrapped and hyphenated paragraphs, a list, a 3x4
    table, a footnote, a 60-row table over two pages, running header, footer and page numbers."""
    w = Writer(path, header="ACME Annual Report 2024", footer="Confidential draft - page # of 3",
               page_numbers=True)
    w.heading("1 Introduction", 20)
    w.lines(["The new regu-", "lation applies to every well-", "known firm in the market. It also",
             "covers small firms.^1"])
    w.footnote("1", "Small firms are those with fewer than fifty employees.")
    w.heading("1.1 Scope", 15)
    w.lines(["This section describes the scope of the rules and the", "firms that must comply with them."])
    w.bullets([["Banks and credit institutions that hold deposits", "from the public."],
               ["Insurance companies."], ["Investment funds."]])
    w.heading("Definitions", 10)
    w.lines(["The terms below have the following meanings."])
    w.table([["Term", "Meaning", "Source"], ["Firm", "A legal person", "Art. 2"],
             ["Deposit", "Money held for a client", "Art. 3"], ["Fund", "A pooled investment", "Art. 4"]],
            [100, 200, 100])
    w.lines(["The table above lists the defined terms."])
    w.bullets([["Firms must report."], ["Funds must publish."]], marker=["(a)", "(b)"])
    w.new_page()
    w.heading("2 Data", 20)
    w.lines(["The following table lists the amounts reported by each country."])
    w.table([LONG_HEADER] + long_rows(), [100, 200, 100], repeat_header=repeat_header)
    w.lines(["This closes the report."])
    w.save()
    return Path(path)


def build_platypus(path: str | Path) -> Path:
    """A document laid out by reportlab's platypus, as real reports are: justified text, list
    flowables (bullets, numbers set apart), a centred table repeating its header row on the
    next page and followed by a heading."""
    from reportlab.lib import colors
    from reportlab.lib.enums import TA_JUSTIFY
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import ListFlowable, ListItem, Paragraph, SimpleDocTemplate, Table, TableStyle

    ss = getSampleStyleSheet()
    body = ss["BodyText"]
    body.alignment = TA_JUSTIFY
    text = ("Every provider of widgets shall comply with the registration requirements, the transparency "
            "obligations and the reporting duties towards the competent authorities of the Member States. ")
    rows = [["Year", "Revenue", "Cost"]] + [[str(1990 + i), f"{i * 13.5:.1f}", f"{i * 7.25:.2f}"] for i in range(45)]
    table = Table(rows, repeatRows=1)
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
    story = [Paragraph("Widget Regulation", ss["Title"]), Paragraph("Article 1", ss["Heading2"]),
             Paragraph(text * 6, body),
             ListFlowable([ListItem(Paragraph(f"bullet point {i}", body)) for i in range(3)], bulletType="bullet"),
             ListFlowable([ListItem(Paragraph(f"numbered point {i}", body)) for i in range(3)], bulletType="1"),
             Paragraph(text * 2, body), table, Paragraph("Article 2", ss["Heading2"]), Paragraph(text, body)]
    SimpleDocTemplate(str(path), pagesize=letter, invariant=1).build(story)
    return Path(path)


def build_encrypted(path: str | Path) -> Path:
    """A one-page PDF that needs a user password."""
    w = Writer(path, encrypt="secret")
    w.lines(["Secret text."])
    w.save()
    return Path(path)


def build_image_only(path: str | Path) -> Path:
    """Two pages of drawn shapes and a bitmap (a "scan"): no text layer at all."""
    from reportlab.lib.utils import ImageReader

    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    rng = random.Random(3)
    try:
        from PIL import Image

        scan = Image.new("L", (64, 64))
        scan.putdata([rng.randrange(256) for _ in range(64 * 64)])
        bitmap = ImageReader(scan)
    except ImportError:  # reportlab without Pillow: shapes only
        bitmap = None
    for _ in range(2):
        c.setFillColorRGB(0.2, 0.4, 0.6)
        c.rect(100, 400, 300, 200, fill=1)
        c.circle(300, 250, 60, fill=1)
        if bitmap is not None:
            c.drawImage(bitmap, 72, 620, 120, 120)
        c.showPage()
    c.save()
    return Path(path)


def build_truncated(path: str | Path, source: str | Path) -> Path:
    """The first half of another PDF's bytes."""
    data = Path(source).read_bytes()
    Path(path).write_bytes(data[: len(data) // 2])
    return Path(path)


def build_corrupt(path: str | Path, seed: int = 7) -> Path:
    """A PDF header, random bytes and an end-of-file marker: nothing parseable in between."""
    rng = random.Random(seed)
    Path(path).write_bytes(b"%PDF-1.4\n" + bytes(rng.randrange(256) for _ in range(4000)) + b"\n%%EOF\n")
    return Path(path)


def build_long(path: str | Path, pages: int = 200, seed: int = 1) -> Path:
    """A long report for the benchmark: sections, paragraphs, lists and a table now and then,
    exactly ``pages`` pages (each about 3,000 characters, a dense page of a regulation)."""
    rng = random.Random(seed)
    vocab = ("the firm shall report each quarter to the authority on its capital liquidity and risk "
             "exposures including market credit and operational risks within thirty days").split()
    w = Writer(path, header="Benchmark Report", footer="Internal use - page #", page_numbers=True)

    def full() -> bool:  # stop before the content would spill onto page pages + 1
        return w.page > pages or (w.page == pages and w.y < BOTTOM + 260)

    section = 0
    while not full():
        section += 1
        w.heading(f"{section} Section {section}", 16)
        for sub in range(1, 3):
            if full():
                break
            w.heading(f"{section}.{sub} Part {sub}", 13)
            for _ in range(2):
                w.paragraph(" ".join(rng.choice(vocab) for _ in range(rng.randint(60, 120))).capitalize() + ".")
            w.bullets([[" ".join(rng.choice(vocab) for _ in range(8))] for _ in range(3)])
        if section % 3 == 0 and not full():
            w.table([["Item", "Value", "Note"]] + [[f"I{i}", str(rng.randint(1, 999)), rng.choice(vocab)]
                                                  for i in range(12)], [100, 200, 100])
    w.save()
    return Path(path)
