"""A figure never loses its column, end to end on real filings (issue 52): every chunk of
``adachunk run``'s winner that holds rows of a table carries the table's header row, in its text
or in what the index embeds before it; no currency sign stands alone in a cell; no heading is
only a year or a period. Two earnings releases of ``../shared/corpus/financebench-dev`` (the
small, table-heavy filings; the 10-Ks are measured in ``bench/retrieval_bench.py``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pdfplumber")

from adachunk import load_profile  # noqa: E402
from adachunk.enrich import enrich_records  # noqa: E402
from adachunk.enrich.tables import table_contexts  # noqa: E402
from adachunk.ingest import read_document  # noqa: E402
from adachunk.metrics.suite import context_for  # noqa: E402
from adachunk.selection.choose import select_document  # noqa: E402
from adachunk.sink.records import chunk_record, embed_prefix  # noqa: E402

PDFS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "financebench-dev" / "pdfs"
FILINGS = ["ULTABEAUTY_2023Q4_EARNINGS", "MGMRESORTS_2022Q4_EARNINGS"]
_PERIOD = re.compile(r"(?i)(?:fiscal\s+|fy\s*)?(?:19|20)\d\d|q[1-4]\s*(?:19|20)?\d\d|"
                     r"(?:three|six|nine|twelve) months ended.*|year ended.*")


def pipe_tables(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, header row)`` of every pipe table (runs of lines starting with ``|``); the
    header row with the years: a table's own, or for the second part of a statement printed in
    two, the first part's (:func:`adachunk.enrich.tables.table_contexts`)."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"(?m)(?:^\|.*\n?)+", text)]
    contexts = table_contexts(text, {"table": spans})
    return [(a, b, next(ln for ln in ctx.split("\n") if ln.startswith("|"))) for a, b, ctx in contexts]


@pytest.fixture(scope="module", params=FILINGS)
def filing(request):
    path = PDFS / f"{request.param}.pdf"
    if not path.is_file():
        pytest.skip("../shared/corpus/financebench-dev is absent")
    return read_document(path)


@pytest.mark.parametrize("profile", ["default", "finance"])
def test_every_chunk_with_table_rows_carries_its_header(filing, profile):
    rp = load_profile(profile)
    best = select_document(filing, rp.policy, ctx=context_for(filing, rp.policy)).best
    records = enrich_records([chunk_record(c, filing, rp.name, rp.fingerprint, best.type, candidate=best.name)
                              for c in best.chunking.chunks], filing, rp.policy)
    tables = pipe_tables(filing.text)
    with_rows = carried = 0
    missing = []
    for rec in records:
        prefix = embed_prefix(rec, rp.policy.index.embed_text)
        for start, end, header in tables:
            first_body = filing.text.find("\n", filing.text.find("\n", start) + 1) + 1  # after header and separator
            if rec["start"] >= end or rec["end"] <= first_body:
                continue  # no body row of this table in the chunk
            with_rows += 1
            if header in rec["text"] or header in prefix:
                carried += 1
            else:
                missing.append((rec["index"], header[:60]))
    assert tables and with_rows, "the filing has tables whose rows land in chunks"
    assert carried == with_rows, missing[:5]


def test_cells_as_printed_and_no_period_heading(filing):
    cells = [c.strip() for line in filing.text.splitlines() if line.startswith("|") for c in line.strip("|").split("|")]
    assert cells and not [c for c in cells if c in {"$", "%", "€", "£"}]
    headings = [ln.lstrip("#").strip() for ln in filing.text.splitlines() if re.match(r"#{1,6} ", ln)]
    assert not [h for h in headings if _PERIOD.fullmatch(h)]


def test_shading_box_grids_leave_no_sign_alone():
    # General Mills' stock-option and pension-expense tables (pages 76 and 81): grids drawn by
    # shading boxes, one PDF cell holding a column's figures; their last five lone "$" cells
    path = PDFS / "GENERALMILLS_2020_10K.pdf"
    if not path.is_file():
        pytest.skip("../shared/corpus/financebench-dev is absent")
    import pdfplumber

    from adachunk.ingest._table_cells import is_currency
    from adachunk.ingest.pdf._extract import extract_page

    with pdfplumber.open(path) as pdf:
        pages = [extract_page(pdf.pages[n - 1], n) for n in (76, 81)]
    rows = [r for p in pages for t in p.tables for r in t.rows]
    assert any("Outstanding as of May 31, 2020" in c for r in rows for c in r)
    assert any(c.startswith("$ 92.7") for r in rows for c in r)  # the sign before the stacked figures
    assert not [c for r in rows for c in r if is_currency(c)]
