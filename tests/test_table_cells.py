"""Cells as printed and column-header phrases (adachunk/ingest/_table_cells.py), shared by the
PDF, Word and HTML readers (issue "A figure never loses its column")."""

from __future__ import annotations

import pytest

from adachunk.ingest._table_cells import is_currency, is_figure, is_period_phrase, stack_header, tidy_rows


@pytest.mark.parametrize("text", [
    "2022", "2022 2021 2020", "Year Ended December 31,", "Years Ended December 31, 2022 and 2021",
    "December 31, 2022", "Fiscal 2023", "FY23", "Q1 2021", "1Q21", "Three Months Ended March 31,",
    "13 Weeks Ended January 28, 2023 (Unaudited)", "As of June 30,", "(In millions)",
    "(In millions, except per share data)", "(Dollars in thousands)", "$ in millions", "(in billions, except ratios)",
])
def test_period_and_unit_phrases(text):
    assert is_period_phrase(text)


@pytest.mark.parametrize("text", [
    "2022 Results", "Fiscal Year 2023 Compared with Fiscal Year 2022", "Liquidity and Capital Resources",
    "Quarter over quarter results", "FISCAL 2019 NIKE BRAND REVENUE HIGHLIGHTS", "Note 12", "Payments due by period",
    "1.2", "", "Per Share Data",
])
def test_headings_that_are_not_periods(text):
    assert not is_period_phrase(text)


def test_signs_and_figures():
    assert all(is_currency(s) for s in ["$", "€", "£", "¥", "US$", "HK$", "C$"])
    assert not any(is_currency(s) for s in ["USD", "$1", "in", "%"])
    assert all(is_figure(s) for s in ["1,184", "$ 1,184", "$1,184", "US$1,184", "(4,378)", "(0.1%)", "100.0%",
                                      "-5.0%", "\u2014", "-", "$ \u2014"])
    assert not any(is_figure(s) for s in ["(4,378", "1,184)", "2,729,388 100.0%", "Total", "1.2.3 x"])


def test_signs_go_into_their_figures_cells_and_emptied_columns_go():
    rows = [["", "2022", "2022", "2022", "2021", "2021", "2021"],
            ["Net sales", "$", "1,184", "", "$", "1,020", ""],
            ["Interest", "", "(4,378", ")", "", "467", ""],
            ["Margin", "", "15.6", "%", "", "(0.1", "%)"],
            ["Nil", "", "\u2014", "", "$", "\u2014", ""]]
    out, keep, into = tidy_rows(rows)
    assert out == [["", "2022", "2021"], ["Net sales", "$ 1,184", "$ 1,020"], ["Interest", "(4,378)", "467"],
                   ["Margin", "15.6%", "(0.1%)"], ["Nil", "\u2014", "$ \u2014"]]
    assert keep == [0, 2, 5] and into == {1: 2, 3: 2, 4: 5, 6: 5}


def test_signs_glued_to_a_label_or_a_figure_move_to_the_figure_after_them():
    out, _, _ = tidy_rows([["", "2023", "", "2022", ""], ["Net sales $", "3,226,773", "100.0% $", "2,729,388", ""],
                           ["Cash", "$", "415 $", "415 $", "—"]])
    assert out[1] == ["Net sales", "$ 3,226,773", "100.0%", "$ 2,729,388", ""]
    assert out[2] == ["Cash", "", "$ 415", "$ 415", "$ —"]


def test_a_sign_before_text_or_a_lone_percent_column_stays():
    rows = [["Item", "Unit", "Note"], ["Price", "$", "see below"], ["Share", "%", ""]]
    assert tidy_rows(rows)[0] == rows


def test_a_sign_before_a_stack_of_figures_joins_it():
    # a PDF column read as one cell: the sign printed before its first figure goes with the stack
    out, _, _ = tidy_rows([["In Millions", "", "Fiscal 2020", "Fiscal 2019"],
                           ["Service cost", "$", "92.7 230.5 (449.9) -", "$ 94.6"]])
    assert out == [["In Millions", "Fiscal 2020", "Fiscal 2019"], ["Service cost", "$ 92.7 230.5 (449.9) -", "$ 94.6"]]
    assert tidy_rows([["Item", "", "Note"], ["Fee", "$", "12 months"]])[0][1] == ["Fee", "$", "12 months"]


def test_a_sign_whose_figure_went_elsewhere_is_dropped():
    # General Mills' stock-option grid (shading boxes): the figures of the sign's column landed in
    # another cell; the sign left at the row's end says nothing
    rows = [["Balance", "23,653.0", "$", "47.12", "4.82"], ["Outstanding", "18,164.6", "$", "", ""],
            ["Exercisable", "8,706.4", "$", "", ""]]
    out, _, _ = tidy_rows(rows)
    assert out == [["Balance", "23,653.0", "$ 47.12", "4.82"], ["Outstanding", "18,164.6", "", ""],
                   ["Exercisable", "8,706.4", "", ""]]
    # a column the header names keeps its signs; so does a sign with no figure before it
    named = [["Item", "Amount", "Currency"], ["Fee", "12.00", "$"], ["Tax", "3.00", "€"]]
    assert tidy_rows(named)[0] == named
    first = [["", "", ""], ["Price", "$", ""], ["Cost", "4", "5"]]
    assert tidy_rows(first)[0][1] == ["Price", "$", ""]
    # a sign printed after its figures (a European price list) is not a lost one
    suffix = [["", "", ""], ["Fee", "12,00", "€"], ["Tax", "3,00", "€"]]
    assert tidy_rows(suffix)[0] == suffix


def test_header_rows_stack_into_one():
    rows = [["", "", "", ""], ["", "Year Ended December 31,", "Year Ended December 31,", "Year Ended December 31,"],
            ["", "2022", "2021", "2020"], ["(In millions)", "", "", ""], ["Revenue", "1,184", "1,020", "990"]]
    assert stack_header(rows) == [["(In millions)", "Year Ended December 31, 2022", "Year Ended December 31, 2021",
                                   "Year Ended December 31, 2020"], ["Revenue", "1,184", "1,020", "990"]]
    # the stub's label on the last header row; a lattice's spanning label filled rightwards
    rows = [["", "Pension", "", "Other", ""], ["Assets", "2022", "2021", "2022", "2021"], ["Cash", "1", "2", "3", "4"]]
    assert stack_header(rows, fill=True)[0] == ["Assets", "Pension 2022", "Pension 2021", "Other 2022", "Other 2021"]


def test_tables_that_are_not_statements_keep_their_rows():
    people = [["Name", "Role"], ["Alice", "Engineer"], ["Bob", "Writer"]]
    assert stack_header(people) == people and tidy_rows(people)[0] == people
    years_as_rows = [["Year", "Amount"], ["2023", "1,000"], ["2024", "2,000"]]
    assert stack_header(years_as_rows) == years_as_rows
