"""Generated PDFs for reading order (issue 34): a three-column gazette page with a narrow
gutter, pages set sideways, a numbered transcript and an agenda whose item text is set a point
larger than its fine print. Each builder returns the path and what must come out."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

from .pdf_factory import wrap

WIDTH, HEIGHT = letter
BODY, BOLD = "Times-Roman", "Times-Bold"

WORDS = ("the agency proposes that operators revise the manual and install new software before "
         "the next flight so that the unsafe condition is addressed on every airplane").split()


def paragraph(seed: int, n: int = 40) -> str:
    """A sentence-like paragraph of ``n`` words, told apart from the others by its seed."""
    words = [WORDS[(seed * 7 + i * 3) % len(WORDS)] for i in range(n)]
    return f"Paragraph {seed} says " + " ".join(words) + "."


def build_gazette(path: Path, pages: int = 1) -> tuple[Path, list[str]]:
    """Pages of three 9-point columns with an 8-point gutter and lines on one baseline grid,
    under a full-width title; paragraphs run on from one column into the next."""
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    col_w, gutter, left = 168.0, 8.0, 46.0
    paras = [paragraph(k) for k in range(pages * 9)]
    lines: list[tuple[str, bool]] = []
    for p in paras:
        for i, ln in enumerate(wrap(p, col_w - 10, 9, BODY)):
            lines.append((ln, i == 0))
    per_col = 62
    k = 0
    for _ in range(pages):
        c.setFont(BOLD, 16)
        c.drawString(left, HEIGHT - 50, "Proposed Rules")
        for col in range(3):
            x = left + col * (col_w + gutter)
            y = HEIGHT - 80
            for ln, first in lines[k:k + per_col]:
                c.setFont(BODY, 9)
                c.drawString(x + (8 if first else 0), y, ln)
                y -= 10
            k += per_col
        c.showPage()
    c.save()
    return path, paras


def build_sideways(path: Path, rotate_page: bool) -> tuple[Path, list[str]]:
    """A landscape text set sideways on a portrait page: by the page's /Rotate (text upright in
    its own space), or by text rotated 90° anticlockwise (reading bottom to top)."""
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    rows = [f"Row {i} holds the value {i * 7} for the region number {i}" for i in range(1, 13)]
    if rotate_page:
        c.setPageSize((HEIGHT, WIDTH))
        c.setPageRotation(90)
        c.setFont(BODY, 11)
        for i, text in enumerate(rows):
            c.drawString(60, WIDTH - 60 - 16 * i, text)
    else:
        c.translate(WIDTH - 60, 60)
        c.rotate(90)
        c.setFont(BODY, 11)
        for i, text in enumerate(rows):
            c.drawString(0, -16 * i, text)
    c.showPage()
    c.save()
    return path, rows


def build_transcript(path: Path) -> tuple[Path, list[str]]:
    """A transcript page: lines numbered 1 to 20 in the left margin, double spaced."""
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    text = ["The above-entitled matter came on for oral", "argument before the Supreme Court of the",
            "United States at 1:01 p.m.", "", "APPEARANCES:", "STEVEN E. MERCER, ESQ., on behalf of",
            "the Petitioner."]
    for i in range(20):
        y = HEIGHT - 80 - 26 * i
        c.setFont("Courier", 12)
        c.drawRightString(104, y, str(i + 1))
        if i < len(text) and text[i]:
            c.drawString(150 if i else 230, y, text[i])
    c.showPage()
    c.save()
    return path, ["The above-entitled matter came on for oral argument before the Supreme Court of the United "
                  "States at 1:01 p.m."]


def build_agenda(path: Path) -> tuple[Path, list[str], list[str]]:
    """An agenda: fine print at 8 pt carries most characters, item text wraps at 10 pt, the
    numbered items are bold 11 pt. Returns the items and the wrapped lines that are no headings."""
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    y = HEIGHT - 60
    fine = " ".join(paragraph(k, 60) for k in range(3))
    c.setFont("Helvetica", 8)
    for ln in wrap(fine, 500, 8, "Helvetica"):
        c.drawString(50, y, ln)
        y -= 9.5
    items = ["1. CALL TO ORDER", "2. PUBLIC COMMENT", "3. CLOSED SESSION"]
    wrapped: list[str] = []
    for k, item in enumerate(items):
        y -= 16
        c.setFont("Helvetica-Bold", 11)
        c.drawString(60, y, item)
        y -= 13
        lines = wrap(paragraph(20 + k, 70), 440, 10, "Helvetica")
        wrapped += lines[1:]
        c.setFont("Helvetica", 10)
        for ln in lines:
            c.drawString(80, y, ln)
            y -= 12
    c.showPage()
    c.save()
    return path, items, wrapped
