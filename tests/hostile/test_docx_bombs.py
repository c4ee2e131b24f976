"""Hostile Word documents (issue 50, item 3): each answers with its coded outcome, in bounded
time and memory (the risky ones in a child process under a memory ceiling, see ``bounded``).

Before: a ``w:start`` of 10^18 in lowerRoman never finished (4.7 GB at 60 s); upperLetter, a
non-numeric ``ilvl`` or an out-of-range ``w:sym`` were tracebacks; ``gridSpan`` 10^8 took 6 GB;
400 MB of tiny runs went past 8 GB; a main part that is not ``w:document`` converted to nothing.
"""

from __future__ import annotations

import pytest

from adachunk.errors import InputError
from adachunk.ingest import read_document
from adachunk.ingest.docx._numbering import MAX_NUMBER, format_number

from . import gen
from .bounded import BOUND_S, RSS_MB, cli_in_child, read_in_child, write_file

def test_huge_list_starts_render_in_decimal_in_every_format(tmp_path):
    fmts = ["lowerRoman", "upperRoman", "lowerLetter", "upperLetter", "ordinalText", "decimalZero"]
    files = [write_file(tmp_path, f"{fmt}.docx", gen.numbered(fmt, 10**18)) for fmt in fmts]
    o = read_in_child(*files)
    assert not o.timed_out and o.rc == 0, o.err[-2000:]
    assert o.wall_s < BOUND_S * 2 and o.rss_mb < RSS_MB
    rows = o.rows()
    for fmt in fmts:
        text = rows[f"{fmt}.docx"]["text"]
        assert "1000000000000000000. item 0" in text and "1000000000000000002. item 2" in text, (fmt, text)


def test_numbers_up_to_the_cap_keep_their_format_and_unknown_formats_are_decimal():
    assert format_number(MAX_NUMBER, "upperRoman").startswith("MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM")
    assert format_number(MAX_NUMBER + 1, "upperRoman") == str(MAX_NUMBER + 1)
    assert format_number(28, "upperLetter") == "BB"
    assert format_number(-5, "lowerRoman") == "-5"
    assert format_number(7, "hebrew2") == "7"  # a format without a renderer


@pytest.mark.parametrize("ilvl", ["x", "-1", "9", "1e3", "99999999999999999999"])
def test_a_level_index_that_is_not_0_to_8_is_ada304(tmp_path, ilvl):
    f = write_file(tmp_path, "ilvl.docx", gen.numbered("decimal", 1, ilvl=ilvl))
    with pytest.raises(InputError) as err:
        read_document(f)
    assert err.value.code == "ADA304" and "w:ilvl" in err.value.message and str(f) in err.value.render()


@pytest.mark.parametrize("char", ["FFFFFFFF", "110000", "D800", "1F", "zz", "F0" * 100])
def test_a_sym_that_is_no_character_is_skipped(tmp_path, char):
    doc = read_document(write_file(tmp_path, "sym.docx", gen.sym(char)))
    assert "beforeafter" in doc.text


def test_a_sym_in_the_symbol_font_area_is_kept(tmp_path):
    assert "before\u00b7after" in read_document(write_file(tmp_path, "sym.docx", gen.sym("F0B7"))).text


def test_huge_table_spans_are_clamped(tmp_path):
    files = [write_file(tmp_path, "span.docx", gen.spans(grid_span=10**8)),
             write_file(tmp_path, "before.docx", gen.spans(before=10**9)),
             write_file(tmp_path, "after.docx", gen.spans(after=10**12))]
    o = read_in_child(*files)
    assert not o.timed_out and o.rc == 0, o.err[-2000:]
    assert o.wall_s < BOUND_S and o.rss_mb < RSS_MB
    for name, row in o.rows().items():
        assert row["code"] is None and "after the table" in row["text"], name
        widest = max(line.count("|") for line in row["text"].splitlines())
        assert widest <= 2 * 1000 + 10, name  # MAX_SPAN columns and the real cells


def test_tiny_runs_past_the_element_budget_are_ada318(tmp_path):
    # 40 MB of one-letter runs under a 64 MB limit (budget: 0.5 M elements): the same ratio as
    # 400 MB under the default 512 MB, at a tenth of the cost
    f = gen.tiny_runs(tmp_path / "runs.docx", 40)
    o = read_in_child(f, env={"ADACHUNK_MAX_INPUT_BYTES": str(64 * 2**20)})
    assert not o.timed_out and o.rc == 0, o.err[-2000:]
    row = o.rows()["runs.docx"]
    assert row["code"] == "ADA318" and "XML elements" in row["message"]
    assert o.wall_s < BOUND_S and o.rss_mb < RSS_MB


@pytest.mark.parametrize("root", ["w:glossaryDocument", "w:styles", "w:document"])
def test_a_main_part_that_is_not_a_document_with_a_body_is_ada304(tmp_path, root):
    data = gen.main_part(root)
    if root == "w:document":  # a w:document without its w:body
        data = gen._replace(data, "word/document.xml", f'<w:document {gen.NS}/>'.encode())
    with pytest.raises(InputError) as err:
        read_document(write_file(tmp_path, "main.docx", data))
    assert err.value.code == "ADA304" and "main part" in err.value.message


def test_text_after_an_unresolved_entity_is_kept(tmp_path):
    doc = read_document(write_file(tmp_path, "ent.docx", gen.entity_in_text()))
    assert "before" in doc.text and "after" in doc.text


def test_convert_answers_a_bad_level_with_its_code_not_a_traceback(tmp_path):
    f = write_file(tmp_path, "ilvl.docx", gen.numbered("upperLetter", 10**18, ilvl="x"))
    o = cli_in_child("convert", str(f), "-o", str(tmp_path / "out.md"))
    assert o.rc == 2 and "ADA304" in o.err and "Traceback" not in o.err, o.err[-2000:]
