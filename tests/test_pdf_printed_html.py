"""PDFs printed from HTML (10-K filings, press releases): running headers over one part of the
file, page numbers right below the last line, paragraphs set wider than the file's tables."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pdfplumber")
pytest.importorskip("reportlab")

from reportlab.lib.pagesizes import letter  # noqa: E402
from reportlab.pdfbase.pdfmetrics import stringWidth  # noqa: E402
from reportlab.pdfgen import canvas  # noqa: E402

from adachunk.ingest.pdf import convert_pdf  # noqa: E402
from adachunk.ingest.pdf._furniture import repeated_keys  # noqa: E402

WIDTH, HEIGHT = letter
COMMENT = re.compile(r"<!--.*?-->", re.S)
SENTENCES = ["The company sells beverages and convenient foods in more than two hundred countries and",
             "territories through its own sales force and through independent bottlers, which also",
             "distribute products of other companies under agreements that end at different times."]


def _html_printed(path, pages: int = 10, headed: int = 6, footer=str):
    """``pages`` pages whose text ends at a different height on each page, each page number drawn
    right below its last line in the middle of the page; "Table of Contents" above the first
    ``headed`` pages only (the filing), not above the exhibits printed after it."""
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    for k in range(pages):
        if k < headed:
            c.setFont("Helvetica", 8)
            c.drawString(40, HEIGHT - 20, "Table of Contents")
        y = HEIGHT - 60
        c.setFont("Helvetica", 10)
        c.drawString(40, y, f"Part {'ABCDEFGHIJKLMNOP'[k]} of the report.")  # each page's own first line
        y -= 20
        for i in range(4 + k % 5):  # 4 to 8 paragraphs: the page ends somewhere in its middle
            for line in SENTENCES:
                c.drawString(40, y, line)
                y -= 12
            y -= 8
        c.setFont("Helvetica", 8)
        c.drawCentredString(WIDTH / 2, y - 10, footer(k + 1))
        c.showPage()
    c.save()
    return path


def test_page_numbers_below_the_last_line_are_furniture(tmp_path):
    doc = convert_pdf(_html_printed(tmp_path / "filing.pdf"))
    assert not re.search(r"^\[\^\w+\]:", doc.text, re.M)  # a page number is no footnote label
    body = COMMENT.sub("", doc.text)
    assert not re.search(r"^\d+$", body, re.M)
    for k, page in enumerate(doc.pages):
        assert f"<!-- PageFooter: page {k + 1} -->" in doc.text[page.start:page.end]


def test_a_footer_below_the_last_line_on_every_other_page_is_furniture(tmp_path):
    """Left and right pages print different footers right below their text ("2019 FORM 10-K 51",
    "52 NIKE, INC.")."""
    def footer(n: int) -> str:
        return f"2019 FORM 10-K {n}" if n % 2 else f"{n} ACME, INC."

    doc = convert_pdf(_html_printed(tmp_path / "filing.pdf", footer=footer))
    assert "FORM 10-K" not in COMMENT.sub("", doc.text) and "ACME" not in COMMENT.sub("", doc.text)
    for k, page in enumerate(doc.pages):
        assert f"<!-- PageFooter: {footer(k + 1)} -->" in doc.text[page.start:page.end]


def test_a_header_over_the_filing_alone_is_furniture(tmp_path):
    doc = convert_pdf(_html_printed(tmp_path / "filing.pdf", pages=14, headed=6))
    assert "Table of Contents" not in COMMENT.sub("", doc.text)
    assert doc.text.count("<!-- PageHeader: Table of Contents -->") == 6


def test_runs_of_a_header():
    key = "table of contents"
    pages = [set() for _ in range(40)]
    for k in range(5):
        pages[k].add(key)
    assert repeated_keys(pages, 0.5) == {key}  # five pages in a row of forty
    pages[4].discard(key)
    assert repeated_keys(pages, 0.5) == set()  # four are not a run
    alternate = [{key} if k % 2 == 0 and k < 10 else set() for k in range(40)]
    assert repeated_keys(alternate, 0.5) == {key}  # every other page (left pages)
    apart = [{key} if k % 3 == 0 and k < 15 else set() for k in range(40)]
    assert repeated_keys(apart, 0.5) == set()  # every third page: a coincidence of headings


def _tight_notes(path):
    """A canvas whose first lines, fourteen notes in the body size at 1.2 lines, set the file's
    body size and its usual gap between lines; the height they end at."""
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    y = HEIGHT - 60
    c.setFont("Helvetica", 10)
    for i in range(14):
        c.drawString(40, y, f"Note {i}: amounts are reported in millions of dollars except per share data and ratios")
        y -= 12
    return c, y


def _draw_and_read(c, path, lines: list[str], x: float, y: float, pitch: float) -> list[str]:
    """Draw ``lines`` from ``y`` down, ``pitch`` apart, finish the file at ``path`` and read it:
    its Markdown blocks."""
    for line in lines:
        c.drawString(x, y, line)
        y -= pitch
    c.showPage()
    c.save()
    return [b.strip() for b in convert_pdf(path).text.split("\n\n")]


def _justified(c, y: float, lines: list[str], size: float, spacing: float) -> float:
    """A paragraph set justified to 440 points (its last line left as it is) at ``spacing``
    times its size; the height it ends at."""
    for k, line in enumerate(lines):
        t = c.beginText(40, y)
        t.setFont("Helvetica", size)
        if k < len(lines) - 1:
            t.setWordSpace((440 - stringWidth(line, "Helvetica", size)) / line.count(" "))
        t.textLine(line)
        c.drawText(t)
        y -= size * spacing
    return y


def _press_release(path, spacing: float):
    """Notes set tight in the body size (the file's usual line spacing), then a quote set a
    point larger at ``spacing`` times its size, its second paragraph after a full stop one extra
    line down."""
    c, y = _tight_notes(path)
    y -= 20
    quote = ["We are very pleased with our performance and business momentum as our categories and",
             "geographies remained resilient during the first quarter. Given our strong start, we",
             "now expect our full-year organic revenue to increase 8 percent, said Chairman and",
             "CEO Ramon Laguarta."]
    y = _justified(c, y, quote, 11, spacing) - 11 * spacing
    _justified(c, y, ["Our results demonstrate that the investments we have made are laying the",
                      "foundation for durable growth."], 11, spacing)
    c.showPage()
    c.save()
    return path


@pytest.mark.parametrize("spacing", [1.75, 2.3])
def test_a_paragraph_set_wider_than_the_tables_stays_whole(tmp_path, spacing):
    doc = convert_pdf(_press_release(tmp_path / "release.pdf", spacing))
    blocks = [b.strip() for b in doc.text.split("\n\n")]
    quote = next(b for b in blocks if b.startswith("We are very pleased"))
    assert quote.endswith("said Chairman and CEO Ramon Laguarta.")
    assert "categories and geographies remained" in quote and "we now expect" in quote
    assert any(b.startswith("Our results demonstrate") and b.endswith("durable growth.") for b in blocks)


def test_short_items_set_apart_stay_apart(tmp_path):
    """Items of a list whose bullets the font does not map (short lines, lower case, as far apart
    as a wide paragraph's lines) are not one paragraph."""
    c, y = _tight_notes(tmp_path / "rules.pdf")
    items = ["drawing and specification approval", "conformity of production",
             "approval of type testing programme", "type testing of engines"]
    blocks = _draw_and_read(c, tmp_path / "rules.pdf", items, 60, y - 10, 25)
    assert all(item in blocks for item in items)


# --- real filings (../shared; skipped when absent) -------------------------------------------
FILINGS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "financebench-dev" / "pdfs"


@pytest.fixture(scope="module")
def netflix():
    path = FILINGS / "NETFLIX_2017_10K.pdf"
    if not path.is_file():
        pytest.skip("../shared/corpus/financebench-dev is absent")
    return convert_pdf(path)


def test_a_filing_s_page_numbers_and_running_header_leave_its_text(netflix):
    """Netflix's 10-K prints its page number right below each page's text: 65 of them stood in
    the text as paragraphs of their own before."""
    body = COMMENT.sub("", netflix.text)
    assert not re.findall(r"^\d{1,4}$", body, re.M)
    assert not re.findall(r"^\[\^\w+\]:\s*$", netflix.text, re.M)
    assert netflix.text.count("<!-- PageFooter: page ") >= 60


def test_a_press_release_quote_is_one_paragraph():
    path = FILINGS / "PEPSICO_2023Q1_EARNINGS.pdf"
    if not path.is_file():
        pytest.skip("../shared/corpus/financebench-dev is absent")
    text = convert_pdf(path).text
    assert not re.findall(r"[a-z,]\n\n[a-z]", text)  # 16 lines cut off their paragraph before
    assert re.search(r"categories and geographies remained resilient during the first quarter\. "
                     r"Given our strong start to the year, we now expect", text)


def test_an_exhibit_wrapped_by_hand_at_two_lines_stays_one_paragraph(tmp_path):
    """An exhibit printed with its source's own line breaks (ragged: lines 93-100% of the
    measure) at double spacing, in a file whose body is set tight."""
    c, y = _tight_notes(tmp_path / "exhibit.pdf")
    y -= 20
    lines = ["The plan document that was in effect on April 1, 2009, as amended through the merger date,",
             "is attached hereto as an appendix and shall govern all the benefits of the participants who",
             "were subject to the document prior to the plan merger, except for certain administrative",
             "provisions that are now governed by the main portion of the plan, as they are set forth in the",
             "appendix."]
    blocks = _draw_and_read(c, tmp_path / "exhibit.pdf", lines, 40, y, 24)
    assert "except for certain administrative provisions that are now governed" in next(
        b for b in blocks if b.startswith("The plan document"))
