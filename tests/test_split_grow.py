"""``solver.grow``: a statement's rows stay together in pieces larger than the candidate's chunks,
with its title and header row, while the prose around it keeps the candidate's sizes; and the
``table_head`` hard rule never separates a title from its header row."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from adachunk import load_profile
from adachunk.detect import tables as _tables
from adachunk.split.dp import _spaced, dp_chunk
from adachunk.tokens import get_counter
from adachunk.datatypes import Document

import numpy as np

PROSE = " ".join(f"Sentence {i} of the management discussion says something about the year." for i in range(40))
ROWS = "\n".join(f"| Line item number {i} of the statement | {1000 + i:,} | {900 + i:,} |" for i in range(60))
STATEMENT = ("ACME CORP CONSOLIDATED STATEMENTS OF CASH FLOWS\n\n(in millions)\n\n<Table>\n"
             "| CASH FLOWS FROM OPERATING ACTIVITIES | 2023 | 2022 |\n| --- | --- | --- |\n" + ROWS + "\n</Table>")
TEXT = f"# Results\n\n{PROSE}\n\n{STATEMENT}\n\n## Outlook\n\n{PROSE}\n"


def _doc() -> Document:
    return Document(id="statement", text=TEXT)


def _profile(tmp_path, grow: int | None) -> str:
    body = ("schema_version: 1\nname: g\nextends: default\n"
            "structures:\n  table_head: {type: table.titled.v1, part: head}\n"
            "  titled_table: {type: table.titled.v1}\n"
            "hard_rules:\n  keep_with_next: [heading]\n  atomic: [heading, table_row, table_head]\n"
            "solver:\n  max_size: 120\n  min_size: 30\n")
    # the default grows tables to 768; a size within max_size grows nothing
    body += f"  grow: {{titled_table: {grow or 120}}}\n"
    path = tmp_path / "g.yaml"
    path.write_text(body, encoding="utf-8")
    return str(path)


def _table_span() -> tuple[int, int]:
    start = TEXT.index("ACME CORP")
    return start, TEXT.index("</Table>") + len("</Table>")


@pytest.mark.parametrize("grow", [None, 400, 2000])
def test_chunks_tile_and_respect_their_limits(tmp_path, grow):
    chunking = dp_chunk(_doc(), load_profile(_profile(tmp_path, grow)).policy)
    chunks = chunking.chunks
    assert chunks[0].start == 0 and chunks[-1].end == len(TEXT)
    assert all(a.end == b.start for a, b in zip(chunks, chunks[1:]))
    assert all(c.text == TEXT[c.start:c.end] for c in chunks)
    count = get_counter("o200k_base").count
    lo, hi = _table_span()
    for c in chunks:
        inside = lo <= c.start and not TEXT[hi:c.end].strip()  # its trailing blank lines are its own
        assert count(c.text) == c.tokens
        assert c.tokens <= (grow if grow and inside else 120), (c.start, c.end, c.tokens)
        if not inside:  # the prose keeps the candidate's size whatever the table may reach
            assert c.tokens <= 120
    grown = [c for c in chunks if c.tokens > 120]
    assert bool(grown) == bool(grow)
    assert chunking.meta.get("grown", 0) >= len(grown)


def test_grow_keeps_a_statement_in_fewer_pieces_each_with_rows_only_of_it(tmp_path):
    lo, hi = _table_span()

    def pieces(grow):
        chunks = dp_chunk(_doc(), load_profile(_profile(tmp_path, grow)).policy).chunks
        return [c for c in chunks if c.end > lo and c.start < hi]

    small, big = pieces(None), pieces(400)
    assert len(big) < len(small)
    # the grown statement is chunked on its own: its first piece starts at its title, its last
    # ends with its closing marker
    assert big[0].start == lo and big[-1].end >= hi
    assert all(lo <= c.start and c.end <= hi + 2 for c in big)
    # a table larger than grow is cut into pieces up to that size
    huge = pieces(2000)
    assert len(huge) == 1 and huge[0].text.startswith("ACME CORP")


def test_a_statement_larger_than_grow_is_cut_in_even_pieces(tmp_path):
    """Cuts between rows all cost the same, so the solver's tie rule chose where a statement too
    large for one piece was cut, and its titled piece could hold two rows (Block's income
    statement: 128 + 686 tokens). The grown segment is solved towards even pieces: the fewest
    that fit, each within a row or two of the mean."""
    lo, hi = _table_span()
    chunks = dp_chunk(_doc(), load_profile(_profile(tmp_path, 400)).policy).chunks
    pieces = [c for c in chunks if c.end > lo and c.start < hi]
    total = sum(c.tokens for c in pieces)
    assert len(pieces) == -(-total // 400) and pieces[0].text.startswith("ACME CORP")
    assert all(c.tokens <= 400 for c in pieces)
    row = get_counter("o200k_base").count(TEXT[pieces[1].start:].split("\n", 1)[0] + "\n")
    assert max(c.tokens for c in pieces) - min(c.tokens for c in pieces) <= 2 * row


@pytest.mark.parametrize("grow", [None, 400])
def test_title_never_leaves_its_header_row(tmp_path, grow):
    chunks = dp_chunk(_doc(), load_profile(_profile(tmp_path, grow)).policy).chunks
    title = TEXT.index("ACME CORP")
    header_end = TEXT.index("| --- | --- | --- |") + len("| --- | --- | --- |")
    assert not any(title < c.start < header_end for c in chunks)


def test_spaced_keeps_the_edges_of_grown_structures():
    S = np.arange(0, 1000, 10)  # 10 units per lattice index
    # a forced cut 2 indices after another is too close for a 30-unit minimum: dropped...
    assert _spaced(S, [10, 12, 50], 30) == [10, 50]
    # ...unless it is a grown structure's edge: then it replaces the other one
    assert _spaced(S, [10, 12, 50], 30, frozenset({12})) == [12, 50]
    # two grown edges stay both (the short text between them is a segment of its own)
    assert _spaced(S, [10, 12, 50], 30, frozenset({10, 12})) == [10, 12, 50]
    # near the end of the document a grown edge stays too
    assert _spaced(S, [98], 30, frozenset({98})) == [98]
    assert _spaced(S, [98], 30) == []


def test_grow_sizes_are_validated(tmp_path):
    from adachunk.errors import ProfileErrors

    path = tmp_path / "bad.yaml"
    path.write_text("schema_version: 1\nname: bad\nextends: default\nsolver:\n  grow: {titled_table: 0}\n")
    with pytest.raises(ProfileErrors, match="grow"):
        load_profile(str(path))


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="|\n \ta\r-", max_size=40))
def test_row_runs_are_the_rows_pattern_matches(text):
    """The table scan tried at row lines only finds exactly what ``_ROWS.finditer`` finds."""
    expect = [(m.start(), m.end()) for m in _tables._ROWS.finditer(text)]
    assert [(m.start(), m.end()) for m in _tables._row_runs(text)] == expect


def test_a_statement_at_the_top_of_a_page_grows_with_its_title(tmp_path):
    """Its page break and running header lie between it and the prose above, where only one
    cut is free (right after the break, adachunk.split.furniture): the gap before it reaches
    through them, so the statement still grows and its first piece holds its title."""
    paged = TEXT.replace("ACME CORP", "12\n\n<!-- PageBreak -->\n\n<!-- PageHeader: ACME 10-K -->\n\nACME CORP", 1)
    doc = Document(id="paged", text=paged)
    lo, hi = paged.index("ACME CORP"), paged.index("</Table>") + len("</Table>")
    chunks = dp_chunk(doc, load_profile(_profile(tmp_path, 2000)).policy).chunks
    pieces = [c for c in chunks if c.end > lo and c.start < hi]
    assert len(pieces) == 1 and "ACME CORP" in pieces[0].text and pieces[0].end >= hi
    # the cut falls right after the page break: the header opens the statement's chunk
    assert pieces[0].text.lstrip().startswith("<!-- PageHeader: ACME 10-K -->")


def test_a_statement_titled_by_a_heading_grows_with_it(tmp_path):
    """A reader that sets the statement's name as a heading ("#### CONSOLIDATED BALANCE SHEETS"):
    no cut is allowed between the heading and its table, so the structure starts at the
    heading, else its gap before had no free cut and the statement did not grow at all."""
    headed = TEXT.replace("ACME CORP CONSOLIDATED STATEMENTS OF CASH FLOWS\n\n(in millions)\n\n",
                          "#### CONSOLIDATED STATEMENTS OF CASH FLOWS\n\n", 1)
    doc = Document(id="headed", text=headed)
    lo, hi = headed.index("#### CONSOLIDATED"), headed.index("</Table>") + len("</Table>")
    chunks = dp_chunk(doc, load_profile(_profile(tmp_path, 2000)).policy).chunks
    pieces = [c for c in chunks if c.end > lo and c.start < hi]
    assert len(pieces) == 1 and pieces[0].start == lo and pieces[0].end >= hi


def test_a_statements_closing_line_stays_with_its_rows(tmp_path):
    """"See accompanying notes…" ends the statement's page: the statement's last piece keeps it
    and the next page's statement opens at its own title, not with that line and the footer
    (a block isolated inside the grown statement no longer forces a cut before the line)."""
    closing = "See accompanying notes to consolidated financial statements."
    second = STATEMENT.replace("CASH FLOWS", "OPERATIONS", 1)
    paged = TEXT.replace(STATEMENT, f"{STATEMENT}\n\n{closing}\n\n<!-- PageFooter: page 84 -->\n"
                         f"<!-- PageBreak -->\n\n<!-- PageHeader: ACME 10-K -->\n\n{second}", 1)
    doc = Document(id="closing", text=paged)
    for grow in (400, 2000):
        chunks = dp_chunk(doc, load_profile(_profile(tmp_path, grow)).policy).chunks
        at = paged.index(closing)
        holder = next(c for c in chunks if c.start <= at < c.end)
        assert holder.start < paged.index("</Table>") and holder.end >= at + len(closing)
        assert not any(c.text.lstrip().startswith("See accompanying") for c in chunks)
        assert any(c.text.lstrip().startswith("<!-- PageHeader: ACME 10-K -->\n\nACME CORP") for c in chunks)
