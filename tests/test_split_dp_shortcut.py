"""A document that fits in one chunk skips detection, costs and the solve: the result must be
what the full path gives (same chunks, ids, heading paths, token counts, objective)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adachunk import load_profile
from adachunk.split import dp
from adachunk.datatypes import Document

from .conftest import EXAMPLES
from .test_properties_dp import markdown


def _both(text: str, rp, **over):
    doc = Document(id="d", text=text)
    policy = rp.policy
    s = policy.solver.with_overrides(**over)
    fast = dp.dp_chunk(doc, policy, s)
    saved = dp._one_chunk
    dp._one_chunk = lambda *a, **k: False
    try:
        full = dp.dp_chunk(doc, policy, s)
    finally:
        dp._one_chunk = saved
    return fast, full


def _same(fast, full):
    assert fast.chunks == full.chunks
    for key in ("total_cost", "relaxed", "candidates"):
        assert fast.meta[key] == full.meta[key], key


@pytest.mark.parametrize("profile", ["default", "darn", "legal"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=markdown(), granularity=st.sampled_from(["tokens", "chars"]), min_size=st.sampled_from([0, 64, 5000]),
       chunk_cost=st.sampled_from([0, 40]))
def test_one_chunk_shortcut_equals_the_full_path(profile, text, granularity, min_size, chunk_cost):
    rp = load_profile(profile)
    fast, full = _both(text, rp, granularity=granularity, max_size=100_000, min_size=min_size, chunk_cost=chunk_cost)
    _same(fast, full)
    assert len(fast.chunks) <= 1


def test_shortcut_taken_only_when_the_document_fits(monkeypatch):
    text = (EXAMPLES / "financial_report_excerpt.md").read_text(encoding="utf-8")
    rp = load_profile("default")
    calls = []
    real = dp.detect_all
    monkeypatch.setattr(dp, "detect_all", lambda *a: calls.append(1) or real(*a))
    big = dp.dp_chunk(Document(id="d", text=text), rp.policy, rp.policy.solver.with_overrides(max_size=100_000))
    assert len(big.chunks) == 1 and calls == []  # fits: no detection at all
    small = dp.dp_chunk(Document(id="d", text=text), rp.policy)
    assert len(small.chunks) > 1 and calls == [1]
    fast, full = _both(text, rp, max_size=100_000)
    _same(fast, full)
    assert fast.chunks[0].heading_path == full.chunks[0].heading_path


def test_no_shortcut_when_a_cut_could_pay():
    """A plugin shape may reward cuts (negative values): then only the solve knows the optimum."""
    from dataclasses import replace

    from adachunk.cost.lattice import CostRule
    from adachunk.cost.punishments import Shape

    rp = load_profile("default")
    lat = dp.Candidates(Document(id="d", text="One. Two. Three."), rp.policy.solver)
    assert dp._one_chunk(lat, rp.policy, rp.policy.solver, 512)
    reward = Shape("reward", lambda lengths, scale, width: [], -5.0)
    policy = replace(rp.policy, rules=rp.policy.rules + (CostRule("r", "sentence", off=reward),))
    assert not dp._one_chunk(lat, policy, policy.solver, 512)
    assert not dp._one_chunk(lat, rp.policy, rp.policy.solver, 2)  # does not fit
