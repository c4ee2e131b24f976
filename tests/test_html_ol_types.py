"""``<ol type="a|A|i|I">``, ``start=`` and ``value=`` read as the labels a reader of a contract sees
("(a)", "(iv)"), so that the legal profile finds points and definitions in HTML as in Markdown
(issue 48)."""

from __future__ import annotations

import pytest
from .legal_twins import legal_metadata, write_twins

from adachunk.ingest.html import convert_html


def md(body: str) -> str:
    return convert_html(f"<html><body>{body}</body></html>", "t.html").text


@pytest.mark.parametrize("kind, start, labels", [
    ("a", None, ["(a)", "(b)", "(c)"]),
    ("A", "3", ["(C)", "(D)", "(E)"]),
    ("i", "4", ["(iv)", "(v)", "(vi)"]),
    ("I", None, ["(I)", "(II)", "(III)"]),
    ("1", "2", ["2.", "3.", "4."]),
])
def test_ol_type_and_start_give_the_reader_s_labels(kind, start, labels):
    attrs = f' type="{kind}"' + (f' start="{start}"' if start else "")
    text = md(f"<ol{attrs}><li>one</li><li>two</li><li>three</li></ol>")
    assert [line.split(" ", 1)[0] for line in text.splitlines() if line] == labels


def test_value_renumbers_and_later_items_follow():
    text = md('<ol type="a"><li>x</li><li value="26">z</li><li>next</li></ol>')
    assert text == "(a) x\n(z) z\n(aa) next\n"


def test_nested_roman_points_under_lettered_points():
    text = md('<ol type="a"><li>first<ol type="i"><li>sub one</li><li>sub two</li></ol></li><li>second</li></ol>')
    assert text == "(a) first\n    (i) sub one\n    (ii) sub two\n(b) second\n"


def test_html_contract_gives_the_legal_metadata_of_its_markdown_twin(tmp_path):
    files = write_twins(tmp_path)
    html, twin = legal_metadata(files["html"]), legal_metadata(files["md"])
    assert html == twin
    assert sorted(t for r in html for t in r["defines"]) == ["Products", "Term", "Territory"]
    assert any("point (b)" in r["structure_path"] for r in html)  # the points are a point list
