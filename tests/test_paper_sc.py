"""Size Compliance of the paper's candidates on CLAIR against its Table 3 (paper_reference.json).

The candidates come from ``profiles/paper.yaml`` run through the pool (post-processed as in the
paper), plus raw ``page.v1`` without post-processing. ``llm_regex.v1`` is dropped from a copy of
the profile written to ``tmp_path``: it needs a language model, and SC for it cannot be reproduced
offline. SC is computed by a tiny local helper (the paper's rule: share of chunks whose own o200k
count is within 100..1100 inclusive, averaged over documents, x100); the paper counts an empty
page as a 0-token chunk, which ``page.v1`` lists in ``meta["empty_pages"]`` instead of emitting.

The whole corpus takes about 20 s here (one token index and one heading parse per document,
shared by the candidates), so it runs by default.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adachunk.api import load_profile
from adachunk.ingest import read_document
from adachunk.selection.candidates import make_splitter, run_candidates
from adachunk.tokens import get_counter

from .conftest import CLAIR, ROOT, clair_files

TABLE3 = ("our_recurs_1100", "our_recurs_600", "page", "page_raw")


def sc(counts: list[int], lo: int = 100, hi: int = 1100) -> float:
    """The paper's Size Compliance of one document's chunks."""
    return sum(lo <= c <= hi for c in counts) / len(counts)


@pytest.fixture(scope="module")
def per_doc(tmp_path_factory) -> list[tuple[str, dict[str, list[int]]]]:
    """Own token counts of every candidate's chunks, per CLAIR document."""
    paths = clair_files()
    if not paths:
        pytest.skip("../shared/corpus/clair is not available")
    text = (ROOT / "profiles" / "paper.yaml").read_text(encoding="utf-8")
    kept = [line for line in text.splitlines() if "llm_regex.v1" not in line]
    profile_file = tmp_path_factory.mktemp("profiles") / "paper_offline.yaml"
    profile_file.write_text("\n".join(kept) + "\n", encoding="utf-8")
    policy = load_profile(profile_file).policy
    assert [name for _, _, name in policy.candidates] == ["our_recurs_1100", "our_recurs_600", "page"]
    return [(str(path), chunk_counts(read_document(path), policy)) for path in paths]


def chunk_counts(doc, policy) -> dict[str, list[int]]:
    out = {}
    for run in run_candidates(doc, policy):
        assert run.error is None, run.error
        assert "".join(c.text for c in run.chunking.chunks) == doc.text
        out[run.name] = [c.tokens for c in run.chunking.chunks]
    raw = make_splitter("page.v1", {"furniture_pages": "keep"}).split(doc, policy)  # the paper's raw pages
    out["page_raw"] = [c.tokens for c in raw.chunks] + [0] * len(raw.meta.get("empty_pages", []))
    return out


def test_raw_pages_are_the_papers_pages(per_doc):
    enc = get_counter("o200k_base")
    for path, counts in per_doc:
        pages = json.loads(Path(path).read_text(encoding="utf-8"))["pages"]
        assert sorted(counts["page_raw"]) == sorted(enc.count(t) for t in pages.values()), path


def test_post_processed_sizes(per_doc):
    for path, counts in per_doc:
        assert max(counts["our_recurs_1100"] + counts["our_recurs_600"] + counts["page"]) <= 1150, path


def test_table3_size_compliance(per_doc):
    reference = json.loads((CLAIR / "paper_reference.json").read_text(encoding="utf-8"))["table3"]
    assert len(per_doc) == 33
    for name in TABLE3:
        value = 100 * sum(sc(counts[name]) for _, counts in per_doc) / len(per_doc)
        n = sum(len(counts[name]) for _, counts in per_doc)
        print(f"{name}: SC {value:.3f} (paper {reference[name]['SC']}), {n} chunks")
        assert abs(value - reference[name]["SC"]) <= 0.1, (name, value)
