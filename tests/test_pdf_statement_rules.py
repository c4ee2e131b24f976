"""Statement-table rules of the PDF reader (issue 48, item 4), one generated case each
(fin_statement_cases): a shaded current-year column read with the table beside it (Nike 10-K
2019), a period label over shaded rows heading every year (Corning 10-K), a label set against its
first figure parted from it (General Mills 10-K), a row set tight, row groups after a blank line
(and a block after one that does not line up: a table of its own), a wrapped long row label, a
group label ending in a colon, two statements printed one under the other (an earnings
release's "Exhibit 1" and "Exhibit 2"), and percentage columns named after their amounts'
headers. Each test converts the PDF and asserts the exact tables.
"""

from __future__ import annotations


import pytest

pytest.importorskip("pdfplumber")
pytest.importorskip("reportlab")

from adachunk.ingest.pdf._model import Word  # noqa: E402
from adachunk.ingest.pdf._table_rows import _figures_apart  # noqa: E402
from adachunk.ingest.pdf import convert_pdf  # noqa: E402

from . import fin_statement_cases as fc  # noqa: E402
from .fin_statement_pdfs import tables  # noqa: E402
from . import fin_statement_notes as fn  # noqa: E402


def _convert(build, tmp_path):
    path, expected = build(tmp_path / "case.pdf")
    doc = convert_pdf(path)
    return doc, tables(doc.text), expected


def test_shaded_year_column_is_read_with_the_table_beside_it(tmp_path):
    """Rule 1 (pdf._grid_mend._filled_columns): the 2019 column's sign and margin boxes hold no
    more than "$": the lattice's grid is one column of the table, so the mended table keeps it."""
    doc, got, expected = _convert(fc.build_shaded_year_column, tmp_path)
    assert got == expected
    assert [t["header"] for t in doc.meta["tables"]] == [expected[0][0]]
    assert "Year Ended May 31," not in doc.text.split("<Table>")[0]


def test_period_label_over_shaded_rows_heads_every_year(tmp_path):
    """Rule 2 (_table_cells._fill_spans): "Year ended December 31," in the middle column's
    cell heads 2019 on its left as well as 2018 and 2017."""
    _, got, expected = _convert(fc.build_shaded_rows_span, tmp_path)
    assert got == expected
    assert got[0][0][1] == "Year ended December 31, 2019"


def test_label_set_against_its_first_figure_is_parted_from_it(tmp_path):
    """Rule 3 (pdf._table_rows._figures_apart): the long label two points before "$ 2,210.8"
    keeps only its words; the figure goes to the 2022 column."""
    _, got, expected = _convert(fc.build_label_against_figures, tmp_path)
    assert got == expected
    assert [fc.LONG_LABEL, "$ 2,210.8", "$ 1,786.2", "$ 2,163.0"] in got[0]


def _w(text: str, x0: float, x1: float) -> Word:
    return Word(text, x0, x1, 100.0, 109.0, 9.0, False)


def test_figures_apart_keeps_a_code_in_its_label():
    """Rule 3's other side: a code ("Rent 000") is no amount, so it stays in its label even
    across a boundary; an amount ("2,210.8") or a "$" is split off, each figure on its own."""
    inner = [98.0, 200.0]  # a boundary between the label and its figure
    code = [_w("Rent", 72, 90), _w("000", 98, 112)]
    assert _figures_apart(code, inner) == [code]
    label, amount = [_w("Net", 72, 85), _w("interests", 87, 97)], _w("2,210.8", 99, 130)
    assert _figures_apart(label + [amount], inner) == [label, [amount]]
    sign = _w("$", 99, 104)
    assert _figures_apart(label + [sign, amount], inner) == [label, [sign, amount]]
    # no boundary between label and figure: the phrase as it is
    assert _figures_apart(label + [amount], [150.0]) == [label + [amount]]


def test_tight_row_stays_a_table_row(tmp_path):
    """Rule 4 (pdf._regions._label_and_figures): "Selling, general and administrative
    expenses 762,706 23.6% 649,968 23.8%" (no cell gap) is a row, its figures in their columns;
    the table does not end above it."""
    doc, got, expected = _convert(fc.build_tight_row, tmp_path)
    assert len(got) == 1
    assert got[0][-4:] == expected[0][1:]
    assert "Selling, general and administrative expenses 762,706" not in doc.text.replace("\n", " ").split(
        "<Table>")[0]


def test_share_columns_under_a_bare_year(tmp_path):
    """The tight case's header: "2022" and "2021" over their amounts only; the shares' columns
    are named "2022 %" and "2021 %" (_name_shares) and that row must stay the header."""
    _, got, expected = _convert(fc.build_tight_row, tmp_path)
    assert got == expected


def test_row_groups_after_a_blank_line_stay_in_the_table(tmp_path):
    """Rule 5 (pdf._regions._group_after_blank): the liabilities after a blank line and two
    section labels, figures ending where the assets' do, are the same table; the property block
    after a blank line, its figures ending elsewhere, is a table of its own."""
    doc, got, expected = _convert(fc.build_blank_line_groups, tmp_path)
    assert got == expected
    assert len(got) == 2
    assert ["LIABILITIES AND EQUITY", "", ""] in got[0] and ["Land", "1,218", "1,203"] not in got[0]


def test_wrapped_long_label_is_one_row(tmp_path):
    """Rule 6 (pdf._regions._wrapped_label): the resale-agreements label (over 60 characters)
    and its second line with the figures are one row; the table does not end above it."""
    doc, got, expected = _convert(fc.build_wrapped_label, tmp_path)
    assert got == expected
    assert [f"{fc.WRAP_1} {fc.WRAP_2}", "272,481", "296,284"] in got[0]
    assert fc.WRAP_1 not in doc.text.replace("<Table>", "\0").split("\0")[0]


def test_figures_in_running_text_neither_end_a_label_nor_join_a_footnote(tmp_path):
    """Rule 6, its limits: a wrapped label ends on a line that ends with figures in cells of
    their own, not on a line of share counts inside the text; a footnote under the table whose
    second line holds amounts ("$140.8 million for the year ended 2017.") stays text."""
    doc, got, expected = _convert(fc.build_figures_in_text, tmp_path)
    assert got == expected
    after = doc.text.split("</Table>")[-1]
    assert fc.NOTE_1.split()[1] in after and "$140.8 million" in after


@pytest.mark.parametrize("deep", [False, True], ids=["members-indented", "label-indented"])
def test_group_label_with_colon_is_a_label_row(tmp_path, deep):
    """Rule 7 (pdf._regions._group_label): "Adjustments to reconcile ... activities:" after
    "Net income" is a label-only row of the cash-flow table, not a paragraph ending it (with
    the members indented under it, _wrapped_label keeps it too; indented deeper than its
    members, only _group_label does)."""
    doc, got, expected = _convert(lambda p: fc.build_group_label(p, deep), tmp_path)
    assert got == expected
    assert [fc.GROUP, "", "", ""] in got[0]
    assert len(got) == 1


def test_stacked_statements_are_two_tables(tmp_path):
    """Rule 8 (pdf._regions.restarts): the 52-week statement printed right under the 13-week
    one is a second table with its own header; its title lines are text between the two."""
    doc, got, expected = _convert(fc.build_stacked_statements, tmp_path)
    assert got == expected
    assert len(got) == 2
    between = doc.text.split("</Table>")[1].split("<Table>")[0]
    assert " ".join(between.split()) == " ".join(fc.TITLES_2)


def test_share_columns_take_their_amounts_headers(tmp_path):
    """pdf._table_head._name_shares: each unheaded percentage column right of an amount column
    is headed "<amount's header> %"."""
    doc, got, expected = _convert(fc.build_share_columns, tmp_path)
    assert got == expected
    assert doc.meta["tables"][0]["header"][2] == "Fiscal Year Ended January 28, 2023 %"


@pytest.mark.parametrize("lead_in", [fn.LEAD_IN, fn.SHORT_LEAD_IN, fn.SHORTEST_LEAD_IN],
                         ids=["long", "short", "shortest"])
def test_lead_in_with_colon_parts_two_note_tables(tmp_path, lead_in):
    """Rules 6 and 7, their limits (pdf._regions._wrapped_label, _group_label): a lead-in
    sentence ending in a colon, set a blank line under a table, over a "Fiscal Year" line and a
    header of years, is text between two tables: not a row label wrapped onto figures (the long
    one), not a group label opening rows (the short one: a header, not figures, comes next),
    not a label row at all (the shortest, shorter than a prose row: _lead_in)."""
    doc, got, expected = _convert(lambda p: fn.build_lead_in_between_tables(p, lead_in), tmp_path)
    assert got == expected
    between = doc.text.split("</Table>")[1].split("<Table>")[0]
    assert lead_in in " ".join(between.split())


def test_period_label_without_year_is_a_row_not_a_new_statement(tmp_path):
    """Rule 8, its limits (pdf._regions.restarts): "At May 31," between two row groups of a
    selected-data table holds no year, so it is a label row of the one table, not the header
    of a second statement."""
    doc, got, expected = _convert(fn.build_period_group_label, tmp_path)
    assert got == expected


def test_shaded_rows_grid_whose_cell_takes_every_row_is_read_by_alignment(tmp_path):
    """pdf._grid_mend.undivided, shaded rows: boxes down the sign column and the margin, and
    the shaded label cells of the last rows, make a grid one of whose cells holds the figures
    of all the other rows; the table is read by alignment, each row with its figures."""
    doc, got, expected = _convert(fn.build_shaded_summary, tmp_path)
    assert got == expected
