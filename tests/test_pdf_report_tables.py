"""Tables as real reports print them (issue 48): one generated PDF per phenomenon, asserting the
Markdown table the reader emits, and the real statistical page that shows all five
(tests/fixtures/pdf_tables/12s0324.pdf, U.S. Census Bureau, public domain; see SOURCES.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pdfplumber")
pytest.importorskip("reportlab")

from adachunk.ingest.pdf._overprint import dedupe, doubled  # noqa: E402
from adachunk.ingest.pdf import convert_pdf  # noqa: E402

from . import pdf_report_tables as prt  # noqa: E402

REAL = Path(__file__).parent / "fixtures" / "pdf_tables" / "12s0324.pdf"


def tables(text: str) -> list[list[list[str]]]:
    """Each pipe table of the Markdown: its rows (header first), cells stripped."""
    out = []
    for body in re.findall(r"<Table>\n(.*?)\n</Table>", text, re.S):
        lines = body.splitlines()
        out.append([[c.strip() for c in ln.strip()[1:-1].split(" | ")] for ln in [lines[0]] + lines[2:]])
    return out


def only_table(tmp_path: Path, name: str) -> tuple[list[list[str]], list[list[str]], str]:
    path, expected = prt.BUILDERS[name](tmp_path / f"{name}.pdf")
    text = convert_pdf(path).text
    [table] = tables(text)
    return table, expected, text


def test_overprinted_text_is_read_once(tmp_path):
    table, expected, text = only_table(tmp_path, "overprint")
    assert table == expected
    assert "# BETTER VARIETIES" in text and "BBEE" not in text


def test_unbroken_dot_leader_separates_label_and_figures(tmp_path):
    table, expected, _ = only_table(tmp_path, "leaders")
    assert table == expected  # header "Kind of injury | 2019 | 2020", one row per label


def test_nil_markers_are_kept_as_printed(tmp_path):
    table, expected, _ = only_table(tmp_path, "nil")
    assert table == expected
    assert ["Denmark", "...", "...", "..."] in table and ["Canada", "88.1", "\u2013", "\u2013"] in table


def test_grouped_header_joins_group_and_column_names(tmp_path):
    table, expected, _ = only_table(tmp_path, "grouped_header")
    assert table[0] == ["Department", "Plan Revenue", "Plan Capital", "Plan Total", "Non-Plan Revenue",
                        "Non-Plan Capital", "Non-Plan Total", "Total"]
    assert table == expected


def test_statistical_page_row_groups_subtotals_and_footnote_markers(tmp_path):
    table, expected, _ = only_table(tmp_path, "statistical")
    assert table == expected
    assert ["Robbery 1", "102.1", "25.5", "38.0", "38.6"] in table  # the marker apart from the figures
    assert sum(r[0] == "Subtotal" for r in table) == 2


def test_partial_grid_is_read_with_its_label_and_last_columns(tmp_path):
    table, expected, _ = only_table(tmp_path, "partial_grid")
    assert table == expected  # one table: labels, figure columns and the unruled last column


def test_doubled_words_and_dedupe():
    assert doubled("22001122") and doubled("20122012") and doubled("TToottaall")
    assert not doubled("33") and not doubled("2012") and not doubled("Total") and not doubled("2020")
    chars = [{"text": t, "x0": x, "top": 10.0, "fontname": "F", "size": 9.0}
             for t, x in [("1", 0.0), ("1", 0.25), ("1", 5.0), ("1", 5.3)]]
    # the two copies go, the real second "1" a glyph width away stays
    assert [c["x0"] for c in dedupe(chars)] == [0.0, 5.0]


@pytest.fixture(scope="module")
def real_tables() -> list[list[list[str]]]:
    return tables(convert_pdf(REAL).text)


def test_real_statistical_page_is_one_table_per_statistical_table(real_tables):
    # table 324: ten columns (stub, then Total/Male/Female x three), table 325: six
    assert [len(t[0]) for t in real_tables] == [10, 6]


@pytest.mark.parametrize("row", [
    # spaced dot leaders, in a font that maps "." to " .", before bold figures
    ["Total", "11,062.6", "1,540.0", "9,522.6", "8,263.3", "1,071.6", "7,191.7", "2,799.2", "468.3", "2,330.9"],
    # an unbroken leader; nil markers "–"; a label wrapped over two lines
    ["Murder and nonnegligent manslaughter", "10.0", "0.9", "9.1", "9.0", "0.9", "8.1", "1.1", "\u2013", "1.0"],
    ["Forcible rape", "17.5", "2.6", "14.9", "17.2", "2.5", "14.7", "\u2013", "\u2013", "\u2013"],
    # a footnote marker after the label, kept apart from the figures
    ["Stolen property 1", "84.3", "15.1", "69.2", "66.7", "12.2", "54.5", "17.6", "2.8", "14.7"],
    # the last dots of a spaced leader ("etc. .") go, the abbreviation's stays
    ["Weapons; carrying, possessing, etc.", "132.9", "27.1", "105.8", "122.1", "24.3", "97.8", "10.8", "2.8", "8.0"],
    # "(X)": not applicable
    ["Runaways", "75.8", "75.8", "(X)", "34.0", "34.0", "(X)", "41.8", "41.8", "(X)"],
    ["Sex offenses 1", "60,175", "44,240", "14,347", "715", "873"],
])
def test_real_statistical_page_rows(real_tables, row):
    assert any(row in t for t in real_tables)


def test_real_grouped_header_names_its_groups(real_tables):
    # three header lines: a group label centred over three columns each, then each column's
    # name wrapped over two lines ("Under 18" / "years"); one header row with joined names
    groups = [f"{g} {n}" for g in ("Total", "Male", "Female") for n in ("Total", "Under 18 years", "18 years and over")]
    assert real_tables[0][0] == ["Offense charged"] + groups
    # "American" over "Indian/Alaskan" over "Native" is one column's wrapped name, not a group label
    assert real_tables[1][0] == ["Offense charged", "Total", "White", "Black", "American Indian/Alaskan Native",
                                 "Asian Pacific Islander"]
