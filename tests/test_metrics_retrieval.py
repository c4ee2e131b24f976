"""``rf`` (retrieval fit under the profile's regime), its probes, and the per-cut structural
metrics ``bi_cut`` and ``rc_cut``."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adachunk.metrics.base import MetricContext
from adachunk.metrics.blocks import cut_points
from adachunk.metrics.per_cut import _inside
from adachunk.metrics.suite import score_one
from adachunk.metrics._probes import document_probes
from adachunk.policy_types import RetrievalSpec
from adachunk.datatypes import Chunk, Document

TOPICS = ["rivers carry silt and salt toward the estuary", "volcanoes erupt molten basalt and ash",
          "glaciers carve valleys from granite", "forests store carbon in peat and timber",
          "deserts trap heat in dunes of quartz", "reefs shelter coral and parrotfish"]


def _text(seed: int = 0, paragraphs: int = 24) -> str:
    rng = random.Random(seed)
    out = []
    for i in range(paragraphs):
        topic = TOPICS[i % len(TOPICS)]
        name = f"Station{i}"
        sents = [f"{name} studies how {topic} in region number {i}.",
                 f"Its staff measured the {topic.split()[0]} every {rng.randint(2, 9)} days during the survey.",
                 f"The findings of {name} were published with detailed maps and tables for readers."]
        out.append(" ".join(sents))
    return "\n\n".join(out) + "\n"


def _chunks(text: str, cuts: list[int]) -> list[Chunk]:
    bounds = [0, *sorted(cuts), len(text)]
    return [Chunk(index=i, start=a, end=b, text=text[a:b], size=b - a, tokens=max(1, (b - a) // 4))
            for i, (a, b) in enumerate(zip(bounds, bounds[1:]))]


def _paragraph_cuts(text: str, every: int) -> list[int]:
    starts = [i + 2 for i in range(len(text)) if text.startswith("\n\n", i)]
    return starts[every - 1::every]


def _ctx(doc: Document, **regime) -> MetricContext:
    regime = {"queries": 24, "document_share": 1.0, **regime}  # budgets read whole unless a test says
    return MetricContext(doc, {"embedder": {"type": "hash.v1", "max_tokens": 40}}, retrieval=RetrievalSpec(**regime))


def test_probes_are_passages_with_their_topic_and_deterministic():
    text = _text()
    probes = document_probes(text, 12)
    assert len(probes) == 12 and probes == document_probes(text, 12)
    for p in probes:
        a, b = p.evidence[0][0], p.evidence[-1][1]
        assert 0 <= a < b <= len(text) and 2 <= len(p.query.split()) <= 6
    assert document_probes("", 8) == [] and document_probes("Too short.", 8) == []
    half = len(text) // 2  # keep: the same probes as filtering the full list, queries made for those only
    kept = document_probes(text, 12, keep=lambda ev: ev[-1][1] <= half)
    assert kept == [p for p in probes if p.evidence[-1][1] <= half] and 0 < len(kept) < len(probes)


def test_paragraph_chunks_fit_better_than_random_cuts_and_giant_chunks():
    doc = Document(id="d", text=_text())
    ctx = _ctx(doc, retrievers=("dense", "bm25"), budgets=(120,))
    para = score_one("rf", _chunks(doc.text, _paragraph_cuts(doc.text, 1)), ctx)
    giant = score_one("rf", _chunks(doc.text, [len(doc.text) // 2]), ctx)
    rng = random.Random(1)
    words = [i for i in range(1, len(doc.text)) if doc.text[i - 1] == " "]
    ragged = score_one("rf", _chunks(doc.text, rng.sample(words, 24)), ctx)
    assert 0 <= giant.value < para.value <= 1 and ragged.value < para.value
    assert {(d["retriever"], d["budget"]) for d in para.detail} == {("dense", 120), ("bm25", 120)}
    assert para.reason == "24 probes"


def test_document_share_reads_that_part_of_each_budget():
    doc = Document(id="d", text=_text())
    chunks = _chunks(doc.text, _paragraph_cuts(doc.text, 2))
    shared = score_one("rf", chunks, _ctx(doc, retrievers=("dense", "bm25"), budgets=(400,), document_share=0.25))
    whole = score_one("rf", chunks, _ctx(doc, retrievers=("dense", "bm25"), budgets=(100,)))
    assert shared.value == whole.value
    assert [(d["budget"], d["read"]) for d in shared.detail] == [(400, 100), (400, 100)]
    assert [d["recall"] for d in shared.detail] == [d["recall"] for d in whole.detail]
    assert RetrievalSpec().document_share == 0.25


@pytest.mark.parametrize("share", [0, -0.5, 1.5])
def test_document_share_outside_0_1_is_rejected(share):
    with pytest.raises(ValueError, match="document_share"):
        RetrievalSpec(document_share=share)


def test_rf_is_the_mean_over_retrievers_and_budgets_and_deterministic():
    doc = Document(id="d", text=_text(2))
    chunks = _chunks(doc.text, _paragraph_cuts(doc.text, 2))
    res = score_one("rf", chunks, _ctx(doc, retrievers=("dense", "bm25", "hybrid"), budgets=(60, 200)))
    assert len(res.detail) == 6
    assert res.value == pytest.approx(sum(d["recall"] for d in res.detail) / 6, abs=1e-6)
    again = score_one("rf", chunks, _ctx(doc, retrievers=("dense", "bm25", "hybrid"), budgets=(60, 200)))
    assert again.value == res.value


def test_k_caps_the_chunks_read():
    doc = Document(id="d", text=_text(3))
    chunks = _chunks(doc.text, _paragraph_cuts(doc.text, 1))
    capped = score_one("rf", chunks, _ctx(doc, retrievers=("bm25",), budgets=(10_000,), k=1)).value
    free = score_one("rf", chunks, _ctx(doc, retrievers=("bm25",), budgets=(10_000,))).value
    assert free == 1.0 and capped < 1.0


def test_truncation_hides_what_a_long_chunk_says_after_the_models_limit():
    doc = Document(id="d", text=_text(4))
    one = _chunks(doc.text, [])  # one chunk: pooled it is read whole, truncated only its head
    trunc = score_one("rf", one, _ctx(doc, retrievers=("dense",), budgets=(100_000,), long_chunks="truncate"))
    pooled = score_one("rf", one, _ctx(doc, retrievers=("dense",), budgets=(100_000,), long_chunks="pool"))
    assert trunc.value == pooled.value == 1.0  # one chunk and a budget for all of it: always read
    chunks = _chunks(doc.text, _paragraph_cuts(doc.text, 8))  # three long chunks, a budget for one
    t = score_one("rf", chunks, _ctx(doc, retrievers=("dense",), budgets=(400,), long_chunks="truncate"))
    p = score_one("rf", chunks, _ctx(doc, retrievers=("dense",), budgets=(400,), long_chunks="pool"))
    assert t.value != p.value


def test_rf_is_none_without_prose():
    doc = Document(id="d", text="# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    res = score_one("rf", _chunks(doc.text, []), _ctx(doc))
    assert res.value is None and "no prose" in res.reason


# --- per-cut metrics -------------------------------------------------------------------------------

def test_bi_cut_counts_the_cuts_that_break_a_block():
    text = _text(5, paragraphs=6)
    doc = Document(id="d", text=text)
    ctx = MetricContext(doc)
    between = score_one("bi_cut", _chunks(text, _paragraph_cuts(text, 1)), ctx)
    assert between.value == 1.0
    mid = [text.index("Its staff", p) for p in _paragraph_cuts(text, 1)[:2]]
    res = score_one("bi_cut", _chunks(text, _paragraph_cuts(text, 1)[2:] + mid), ctx)
    assert res.value == pytest.approx(1 - 2 / 5) and [d["cut"] for d in res.detail] == sorted(mid)
    assert score_one("bi_cut", _chunks(text, []), ctx).value == 1.0


def test_bi_cut_does_not_reward_fewer_cuts():
    text = _text(6, paragraphs=12)
    ctx = MetricContext(Document(id="d", text=text))
    fine = score_one("bi_cut", _chunks(text, _paragraph_cuts(text, 1)), ctx).value
    coarse = score_one("bi_cut", _chunks(text, _paragraph_cuts(text, 4)), ctx).value
    bi_fine = score_one("bi", _chunks(text, _paragraph_cuts(text, 1)), ctx).value
    assert fine == coarse == bi_fine == 1.0


def test_rc_cut_counts_the_cuts_that_separate_a_pair():
    text = "Ann met Bob. She smiled. " * 4
    doc = Document(id="d", text=text, entity_pron_pairs=[[[0, 2], [13, 15]], [[25, 27], [38, 40]]])
    ctx = MetricContext(doc, {"coref": {"type": "precomputed.v1"}})
    res = score_one("rc_cut", _chunks(text, [13, 25, 50]), ctx)
    assert res.value == pytest.approx(2 / 3) and [d["cut"] for d in res.detail] == [13]
    none = score_one("rc_cut", _chunks("No pairs here.", [3]), MetricContext(Document(id="e", text="No pairs here."),
                                                                             {"coref": {"type": "precomputed.v1"}}))
    assert none.value is None


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(1, 30)), max_size=12),
       st.lists(st.integers(0, 100), max_size=15))
def test_inside_agrees_with_the_definition(intervals, cuts):
    import numpy as np

    lo = np.array([a for a, _ in intervals], dtype=np.int64)
    hi = np.array([a + w for a, w in intervals], dtype=np.int64)
    at = np.array(sorted(set(cuts)), dtype=np.int64)
    want = [any(a < c < b for a, b in zip(lo, hi)) for c in at]
    assert _inside(at, lo, hi).tolist() == want


def test_cut_points_are_shared_with_bi():
    text = _text(7, paragraphs=4)
    chunks = _chunks(text, _paragraph_cuts(text, 1))
    assert cut_points(chunks) == _paragraph_cuts(text, 1)


# --- the regime in the selection's records and in tune's QA objective ---------------------------

def test_the_decision_records_the_regime_and_the_winners_estimate(tmp_path):
    from adachunk import load_profile
    from adachunk.selection.choose import select_document

    from .conftest import FAST_PROFILE

    path = tmp_path / "fast.yaml"
    path.write_text(FAST_PROFILE + "retrieval: {retrievers: [bm25], budgets: [300]}\n")
    doc = Document(id="d", text=_text(8))
    rec = select_document(doc, load_profile(str(path)).policy).record()
    assert rec["retrieval"]["regime"]["retrievers"] == ["bm25"] and rec["retrieval"]["regime"]["budgets"] == [300]
    winner = next(c for c in rec["candidates"] if c["name"] == rec["winner"])
    assert rec["retrieval"]["estimate"] == winner["scores"]["rf"]
    assert rec["retrieval"]["by_reader"] == winner["retrieval"] and winner["retrieval"][0]["budget"] == 300


def test_tunes_regime_objective_is_the_mean_coverage_over_retrievers_and_budgets(tmp_path):
    from adachunk import load_profile
    from adachunk.evaluate import evaluate_chunks
    from adachunk.evaluate.qa import QASet, Question
    from adachunk.tune.objective import regime_value

    from .conftest import FAST_PROFILE

    path = tmp_path / "fast.yaml"
    path.write_text(FAST_PROFILE + "retrieval: {retrievers: [dense, bm25], budgets: [50, 400]}\n")
    policy = load_profile(str(path)).policy
    doc = Document(id="d", text=_text(9))
    probes = document_probes(doc.text, 10)
    qa = QASet([Question(f"q{i}", p.query, "d", (p.evidence,)) for i, p in enumerate(probes)], documents={"d": doc})
    chunks = {"d": _chunks(doc.text, _paragraph_cuts(doc.text, 2))}
    got = regime_value(chunks, qa, policy)
    want = []
    for r in ("dense", "bm25"):
        res = evaluate_chunks(chunks, qa, r, ks=(1,), embedder={"type": "hash.v1"}, budgets=(50, 400),
                              tokenizer="o200k_base", long_text="truncate")
        want += [res.summary["coverage@50tok"], res.summary["coverage@400tok"]]
    assert got == pytest.approx(sum(want) / 4)
