"""Paper reproduction: RC, BI and SC of raw page chunks on the CLAIR corpus (paper-spec §7.4).

One chunk per page of ``doc.pages`` with exact offsets. The paper's RC located chunks by text
search, which misplaces the empty last page of "Responsible AI" (95.79 there; 97.89 with exact
offsets); every other document matches to the printed decimal.
"""

from __future__ import annotations

import json
from functools import lru_cache

import pytest

from adachunk.ingest import read_document
from adachunk.metrics.base import MetricContext
from adachunk.metrics.suite import score_chunking
from adachunk.split.assemble import build_chunks
from adachunk.tokens import get_counter

from .conftest import CLAIR, clair_files

MISLOCATED_BY_THE_PAPER = {
    "Sophia_sciences_sociales_Responsible_AI_A_competitive_edge_in_the_data_and_GenAI_landscape.json": 97.89,
}


@lru_cache(maxsize=4096)
def _count(text: str) -> int:
    return get_counter("o200k_base").count(text)


def page_chunks(doc, keep_empty: bool):
    """One chunk per page; an empty page is merged into its neighbour (nothing to move) unless
    ``keep_empty`` keeps it as an empty chunk, as the paper's raw page chunks do."""
    spans = [(p.start, p.end) for p in doc.pages if keep_empty or p.end > p.start]
    spans[-1] = (spans[-1][0], len(doc.text))  # pages concatenate to the text; guard the tail
    # absorb=False: the paper's raw page chunks as cut, a page of nothing but furniture included
    return build_chunks(doc, spans, fingerprint="paper", count_tokens=_count,
                        unit_size=lambda s, e: e - s, absorb=False)


@pytest.fixture(scope="module")
def page_raw():
    files = clair_files()
    if not files:
        pytest.skip("../shared/corpus/clair is not available")
    out = {}
    for path in files:
        doc = read_document(path)
        ctx = MetricContext(doc, {"sc_min_tokens": 100, "sc_max_tokens": 1100, "bi_tolerance": 5})
        merged = score_chunking(page_chunks(doc, keep_empty=False), ctx, ("sc", "bi", "rc"))
        kept = score_chunking(page_chunks(doc, keep_empty=True), ctx, ("sc",))
        out[path.name] = {k: r.value for k, r in merged.items()} | {"sc_kept": kept["sc"].value}
    return out


def test_rc_per_document_matches_the_paper(page_raw):
    published = json.loads((CLAIR / "paper_reference.json").read_text(encoding="utf-8"))
    reference = published["page_raw_rc_per_document"]
    assert set(reference) == set(page_raw)
    for name, paper in reference.items():
        ours = page_raw[name]["rc"]
        if paper is None:
            assert ours is None, name
            continue
        expected = MISLOCATED_BY_THE_PAPER.get(name, paper)
        assert round(100 * ours, 2) == pytest.approx(expected, abs=0.005), name


def test_rc_and_bi_means(page_raw):
    rcs = [v["rc"] for v in page_raw.values() if v["rc"] is not None]
    assert len(rcs) == 31
    assert 100 * sum(rcs) / len(rcs) == pytest.approx(97.13, abs=0.01)  # paper 97.06 by text search
    assert round(100 * sum(rcs) / len(rcs), 1) == 97.1  # Table 3 prints 97.1
    assert all(v["bi"] == 1.0 for v in page_raw.values())  # Table 3: BI 100.0


def test_sc_with_exact_o200k_counts(page_raw):
    kept = [v["sc_kept"] for v in page_raw.values()]
    assert round(100 * sum(kept) / len(kept), 1) == 92.7  # Table 3: empty pages count as chunks
    merged = [v["sc"] for v in page_raw.values()]
    assert sum(merged) > sum(kept)  # merging the 4 empty pages removes 4 non-compliant chunks
