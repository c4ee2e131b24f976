"""Word's Title above Heading 1: heading paths carry the document title (issue 48).

Title and Heading 1 are both Word's outline level 1; when a document has both, the Title is
``#`` and every other heading goes one level down. A document without a Title, or one whose
headings start at Heading 2 under its Title, keeps its levels.
"""

from __future__ import annotations

from .docx_builder import build_docx, p
from .legal_twins import MARKDOWN, STYLES, docx_bytes, legal_metadata, write_twins

from adachunk.ingest.docx import convert_docx


def headings(data: bytes) -> list[str]:
    return [ln for ln in convert_docx(data, "t.docx").text.splitlines() if ln.startswith("#")]


def test_title_is_above_heading_1():
    assert headings(docx_bytes()) == ["# Distribution Agreement", "## Article 1 Definitions", "## Article 2 Term"]


def test_without_a_title_heading_1_stays_level_1():
    assert headings(docx_bytes(title=None)) == ["# Article 1 Definitions", "# Article 2 Term"]


def test_title_over_heading_2_keeps_its_levels():
    assert headings(docx_bytes(article="Heading2")) == [
        "# Distribution Agreement", "## Article 1 Definitions", "## Article 2 Term"]


def test_empty_title_paragraph_shifts_nothing():
    body = p("", "Title") + p("Scope", "Heading1") + p("Text.") + p("Detail", "Heading2") + p("More.")
    assert headings(build_docx(body, styles=STYLES)) == ["# Scope", "## Detail"]


def test_every_heading_level_goes_down_one_under_a_title():
    body = p("Report", "Title") + p("Part", "Heading1") + p("Text.") + p("Detail", "Heading2") + p("More.")
    assert headings(build_docx(body, styles=STYLES)) == ["# Report", "## Part", "### Detail"]


def test_word_contract_is_its_markdown_twin_for_the_legal_profile(tmp_path):
    files = write_twins(tmp_path)
    converted = convert_docx(files["docx"].read_bytes(), "contract.docx").text
    # Word writes each point as a paragraph of its own: the twin's lines, blank lines between
    assert converted.replace(";\n\n(", ";\n(") == MARKDOWN
    word, twin = legal_metadata(files["docx"]), legal_metadata(files["md"])
    assert word == twin
    assert any(r["heading_path"][:2] == ["Distribution Agreement", "Article 1 Definitions"] for r in word)
    assert sorted(t for r in word for t in r["defines"]) == ["Products", "Term", "Territory"]
