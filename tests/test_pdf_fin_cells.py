"""A figure never loses its column, PDF reader: signs in their figures' cells, column headers
taken in from above a shaded statement, years and periods never headings (fin_statement_pdfs)."""

from __future__ import annotations


import pytest

pytest.importorskip("pdfplumber")
pytest.importorskip("reportlab")

from adachunk.ingest.pdf._model import RawTable, Word  # noqa: E402
from adachunk.ingest.pdf._table_head import take_heads, tidy_table  # noqa: E402
from adachunk.ingest.pdf._table_rows import glue_signs  # noqa: E402
from adachunk.ingest.pdf._tables import resolve_tables  # noqa: E402
from adachunk.ingest.pdf import convert_pdf  # noqa: E402

from . import fin_statement_pdfs as fs  # noqa: E402
from .fin_statement_pdfs import tables  # noqa: E402


@pytest.mark.parametrize("shade", [False, True], ids=["borderless", "shaded"])
def test_statement_cells_as_printed_under_their_headers(tmp_path, shade):
    doc = convert_pdf(fs.build_statements(tmp_path / "s.pdf", shade))
    assert tables(doc.text) == [fs.INCOME_EXPECTED, fs.MARGINS_EXPECTED]
    assert [t["header"] for t in doc.meta["tables"]] == [fs.INCOME_EXPECTED[0], fs.MARGINS_EXPECTED[0]]


def test_shaded_statement_golden(tmp_path):
    """The whole page as Markdown: the header lines above the shading are the table's header,
    not paragraphs ("2022 2021") or headings ("## Fiscal 2022")."""
    doc = convert_pdf(fs.build_statements(tmp_path / "s.pdf", shade=True))
    assert doc.text == (
        "# Results of Operations\n\n"
        f"{fs.TEXT}\n\n"
        "<Table>\n"
        "| (In thousands) | Year Ended December 31, 2022 | Year Ended December 31, 2021 | "
        "Year Ended December 31, 2020 |\n"
        "| --- | --- | --- | --- |\n"
        "| Net sales | $ 3,226,773 | $ 2,729,388 | $ 2,198,716 |\n"
        "| Cost of sales | 2,014,270 | 1,702,059 | 1,496,271 |\n"
        "| Interest (income) expense, net | (4,378) | 467 | \u2014 |\n"
        "| Net income | $ 340,751 | $ 289,366 | $ (1,247) |\n"
        "</Table>\n\n"
        "Margins were as follows:\n\n"
        "<Table>\n"
        "|  | Fiscal 2022 | Fiscal 2021 | Fiscal 2020 |\n"
        "| --- | --- | --- | --- |\n"
        "| Comparable sales | 15.6% | 21.4% | (4.8%) |\n"
        "| Gross margin | 37.6% | 37.6% | 35.1% |\n"
        "| Operating margin | (0.1%) | 13.8% | 10.2% |\n"
        "</Table>\n\n"
        "<!-- PageBreak -->\n\n")


def test_years_periods_and_units_are_never_headings(tmp_path):
    doc = convert_pdf(fs.build_period_lines(tmp_path / "h.pdf"))
    assert [t["title"] for t in doc.titles] == ["# Liquidity and Capital Resources", "## 2022 Results"]
    for line in ["2022", "Fiscal 2023", "Q1 2021", "Three Months Ended March 31,", "(In millions)"]:
        assert f"\n{line}\n\nCash provided" in doc.text


def _word(text: str, x0: float, x1: float) -> Word:
    return Word(text, x0, x1, 100.0, 109.0, 9.0, False)


def test_signs_glue_to_their_figures():
    words = [_word("Net", 72, 88), _word("$", 262, 267), _word("3,226,773", 290, 330),
             _word("100.0", 340, 362), _word("%", 364, 371), _word("$", 380, 385), _word("(4,378", 400, 428),
             _word(")", 430, 433)]
    assert [w.text for w in glue_signs(words)] == ["Net", "$ 3,226,773", "100.0%", "$ (4,378)"]
    glued = glue_signs(words)[1]
    assert (glued.x0, glued.x1) == (262, 330)
    # a sign with no figure after it, or a "%" after a word, stays as it is
    assert [w.text for w in glue_signs([_word("$", 72, 77), _word("in", 80, 88)])] == ["$", "in"]
    assert [w.text for w in glue_signs([_word("Change", 72, 100), _word("%", 102, 108)])] == ["Change", "%"]


def test_tidy_table_merges_sign_columns_and_their_bounds():
    t = RawTable(100, 160, 72, 520, [["", "2022", "", "2021", ""], ["Cash", "$", "1,184", "$", "(5)"],
                                     ["Other", "", "190", "", "12"]], [72, 255, 280, 345, 370, 520])
    tidy_table(t)
    assert t.rows == [["", "2022", "2021"], ["Cash", "$ 1,184", "$ (5)"], ["Other", "190", "12"]]
    assert t.columns == [72, 255, 345, 520]


def test_a_table_without_header_gets_an_empty_one_not_a_body_row():
    t = RawTable(100, 140, 72, 400, [["Basic", "50,624", "53,163"], ["Diluted", "50,976", "53,519"]],
                 [72, 250, 330, 400])
    assert take_heads([t], []) == ([t], [])
    assert t.rows[0] == ["", "", ""] and t.rows[1] == ["Basic", "50,624", "53,163"]
    # its continuation on the next page is one table: the empty header of that part goes too
    nxt = RawTable(50, 90, 72, 400, [["", "", ""], ["Total", "101,600", "106,682"]], [72, 250, 330, 400])
    pages, summaries = resolve_tables([[t], [nxt]], wrapper=False)
    assert summaries[0]["pages"] == [1, 2] and summaries[0]["rows"] == 3
    assert pages[1][0].text.splitlines()[2] == "| Total | 101,600 | 106,682 |"


def test_a_header_only_table_above_a_headerless_one_is_its_header():
    head = RawTable(80, 104, 300, 520, [["Three Months Ended", "Three Months Ended", "Twelve Months Ended"],
                                        ["2022", "2021", "2022"]], [300, 380, 450, 520])
    body = RawTable(106, 150, 72, 520, [["Casino", "$ 1,548", "$ 1,527", "$ 5,734"], ["Rooms", "897", "636", "3,057"]],
                    [72, 300, 380, 450, 520])
    tables, words = take_heads([head, body], [])
    assert tables == [body] and words == []
    assert body.rows[0] == ["", "Three Months Ended 2022", "Three Months Ended 2021", "Twelve Months Ended 2022"]
    assert body.rows[1:] == [["Casino", "$ 1,548", "$ 1,527", "$ 5,734"], ["Rooms", "897", "636", "3,057"]]
    assert body.top == 80
