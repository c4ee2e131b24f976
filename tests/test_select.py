"""Adaptive selection: work that cannot change the decision is skipped, and says so."""

from __future__ import annotations

import pytest

from adachunk.datatypes import METRIC_KEYS

from adachunk.api import load_profile
from adachunk.ingest import read_document
from adachunk.selection.choose import select_document

from .conftest import EXAMPLES, FAST_PROFILE

LLM_DOWN = ("  - {type: llm_regex.v1, base_url: 'http://127.0.0.1:9/v1', timeout_s: 1, max_retries: 0,"
            " name: llm, cache: false}\n")


@pytest.fixture(scope="module")
def doc():
    return read_document(str(sorted(p for p in EXAMPLES.glob("*.md") if p.name != "SOURCES.md")[0]))


def _policy(tmp_path, extra: str = "", llm: bool = True):
    # the paper's five metrics, each computed (the default profile computes rf alone)
    text = (FAST_PROFILE.replace("  - {type: fixed.v1, name: fixed}\n", LLM_DOWN if llm else "")
            .replace("metrics:\n", "metrics:\n  weights: balanced\n") + extra)
    path = tmp_path / "p.yaml"
    path.write_text(text)
    return load_profile(str(path)).policy


def test_a_fallen_back_candidate_is_not_scored_unless_asked(doc, tmp_path):
    decision = select_document(doc, _policy(tmp_path))
    llm = next(c for c in decision.candidates if c.name == "llm")
    assert llm.status == "fallback" and llm.score is None and "score_s" not in llm.seconds
    assert set(llm.scores) == set(METRIC_KEYS) and all(v is None for v in llm.scores.values())
    assert "cannot win" in llm.reasons["icc"]
    assert decision.best.name != "llm" and decision.best.score is not None
    asked = select_document(doc, _policy(tmp_path, "select: {score_ineligible: true}\n"))
    llm = next(c for c in asked.candidates if c.name == "llm")
    assert llm.score is not None and llm.scores["sc"] is not None
    assert asked.best.name == decision.best.name  # scoring it changes nothing else


def test_a_fallback_is_scored_when_it_is_all_that_is_left(doc, tmp_path):
    path = tmp_path / "only.yaml"
    path.write_text("name: only\nextends: default\ncandidates:\n" + LLM_DOWN
                    + "metrics:\n  embedder: {type: hash.v1}\n  coref: {type: precomputed.v1}\n")
    decision = select_document(doc, load_profile(str(path)).policy)
    assert decision.best.name == "llm" and decision.best.score is not None


def test_zero_weight_metrics_are_not_computed(doc, tmp_path):
    extra = "  weights: {sc: 0.5, bi: 0.5, rc: 0, icc: 0, dcc: 0}\n"
    policy = _policy(tmp_path, llm=False)
    path = tmp_path / "w.yaml"
    path.write_text(FAST_PROFILE.replace("metrics:\n", "metrics:\n" + extra))
    zero = select_document(doc, load_profile(str(path)).policy)
    full = select_document(doc, policy)
    for a, b in zip(zero.candidates, full.candidates):
        assert list(a.scores) == list(METRIC_KEYS)  # same keys, same order
        assert a.scores["icc"] is None and "weight 0" in a.reasons["icc"]
        assert a.scores["sc"] == b.scores["sc"] and a.scores["bi"] == b.scores["bi"]
        assert a.score == pytest.approx((b.scores["sc"] + b.scores["bi"]) / 2, abs=1e-6)
