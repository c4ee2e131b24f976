"""Every primary statement of the financebench-dev filings comes out as one Markdown table per
printed table whose header names each figure column's fiscal year and whose rows keep their label
and figures together (issue 48, item 4).

The expectations (``tests/fixtures/financebench_statements.yaml``) were read off the printed pages
(pdfplumber's layout text and word positions, checked against FinanceBench's evidence quotes), never
from adachunk's output. Each statement is read from its own pages only (the reader's page stages
and the layout that joins a table across a page break), so that the suite stays fast; the whole
filings run end to end in ``bench/retrieval_bench.py --corpus financebench-dev``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest
import yaml

pytest.importorskip("pdfplumber")

from adachunk.ingest.pdf._extract import _extract_range  # noqa: E402
from adachunk.ingest.pdf._tables import parse_markdown_table  # noqa: E402
from adachunk.ingest.pdf import PdfOptions, layout_pages  # noqa: E402
from adachunk.ingest.pdf._render import render  # noqa: E402

PDFS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "financebench-dev" / "pdfs"
EXPECTED = yaml.safe_load((Path(__file__).parent / "fixtures" / "financebench_statements.yaml").read_text())
CASES = [(doc, st) for doc, statements in EXPECTED.items() for st in statements]


def _norm(text: str) -> str:
    """A cell as compared: currency signs and spaces dropped, dashes unified, case folded."""
    text = re.sub(r"[$€£\s]", "", text).replace("\u2014", "-").replace("\u2013", "-")
    return text.casefold()


@lru_cache(maxsize=8)
def _pages_markdown(doc: str, first: int, count: int) -> str:
    """Markdown of pages ``first .. first + count - 1`` (zero-based) of one filing."""
    path = PDFS / f"{doc}.pdf"
    raw = _extract_range(path.read_bytes(), path.name, None, first, first + count)
    pages, _ = layout_pages(raw, PdfOptions())
    return render(pages, "comment").text


def _tables(markdown: str) -> list[tuple[list[str], list[list[str]]]]:
    """Every pipe table of ``markdown``: its header row and body rows."""
    out = []
    for m in re.finditer(r"(?m)(?:^\|.*\n?)+", markdown):
        parsed = parse_markdown_table(m.group(0).strip())
        if parsed:
            out.append(parsed)
    return out


def _find_row(tables, label: str, figures: list[str]):
    """The table and the row whose label and figures are those expected, in order."""
    want = [_norm(f) for f in figures]
    for header, rows in tables:
        for row in rows:
            if _norm(row[0]) != _norm(label):
                continue
            cells = [_norm(c) for c in row[1:]]
            got = [c for c in cells if c]
            if got == [w for w in want if w]:
                return header, row
    return None, None


@pytest.mark.parametrize(("doc", "statement"), CASES, ids=[f"{d}-{s['statement']}" for d, s in CASES])
def test_statement_is_a_table_with_its_years(doc, statement):
    if not (PDFS / f"{doc}.pdf").is_file():
        pytest.skip("../shared/corpus/financebench-dev is absent")
    markdown = _pages_markdown(doc, statement["page"], 2 if statement.get("continues") else 1)
    tables = _tables(markdown)
    assert tables, f"no table on page {statement['page']} of {doc}"
    years = statement["columns"]
    for row in statement["rows"]:
        header, got = _find_row(tables, row["label"], row["figures"])
        assert got is not None, (f"{doc} p.{statement['page']}: no row {row['label']!r} with "
                                 f"{row['figures']} (label and figures in one row, in order)")
        figure_columns = [i for i, c in enumerate(got) if i > 0 and c.strip()]
        wanted = [y for y, f in zip(years, row["figures"]) if _norm(f)]
        named = [header[i] for i in figure_columns]
        assert len(named) == len(wanted), (header, got)
        for year, head in zip(wanted, named):
            assert year in head, f"{doc} {statement['title']}: column {head!r} does not name {year} ({header})"
