"""The per-document analysis: a changed rule, size or chunk cost re-detects nothing, re-chunking
from a cached (or stored) analysis equals the full pipeline, and the cost cache adds the same
integers as the plain lattice."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adachunk.analysis import analysis_of, document_key
from adachunk.analysis.store import AnalysisStore, use_store
from adachunk.api import load_profile
from adachunk.cost.lattice import CostCache, CostRule, build_costs
from adachunk.cost.punishments import Shape, shapes
from adachunk.ingest import read_document
from adachunk.split.dp import dp_chunk
from adachunk.datatypes import Document

EXAMPLES = sorted(Path(__file__).resolve().parents[1].joinpath("examples").glob("*.md"))
CLAIR = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "clair"


def _rows(chunking):
    return [(c.start, c.end, c.size, c.tokens, c.heading_path, c.pages, c.id, c.core_start) for c in chunking.chunks]


@pytest.fixture
def detector_calls(monkeypatch):
    """Counts every detector run (all registered detector classes are patched)."""
    from adachunk.components.builtins import ensure_builtins
    from adachunk.components.registry import detectors

    ensure_builtins()
    calls = []
    for name in detectors.names():
        cls = detectors.get(name)
        original = cls.detect_arrays

        def spy(self, ctx, _original=original):
            calls.append(self.name)
            return _original(self, ctx)

        monkeypatch.setattr(cls, "detect_arrays", spy)
    return calls


def _scaled(policy, factor: float):
    """The policy with every rule's scales multiplied (integral, so const rules stay integral)."""
    def scale(shape):
        return None if shape is None else dataclasses.replace(shape, scale=float(round(shape.scale * factor)))

    rules = tuple(dataclasses.replace(r, on=scale(r.on), off=scale(r.off)) for r in policy.rules)
    return dataclasses.replace(policy, rules=rules)


def test_changed_rules_and_sizes_do_not_detect(detector_calls):
    policy = load_profile("legal").policy
    doc = read_document(EXAMPLES[1])
    dp_chunk(doc, policy)
    assert detector_calls, "the first chunking detects"
    first = len(detector_calls)
    variants = [
        (_scaled(policy, 2.0), policy.solver.with_overrides(max_size=300)),
        (_scaled(policy, 0.5), policy.solver.with_overrides(min_size=50, chunk_cost=5)),
        (policy, policy.solver.with_overrides(target_size=200)),
    ]
    for variant, solver in variants:
        before = len(detector_calls)
        cached = dp_chunk(doc, variant, solver)
        assert len(detector_calls) == before, "a rule/size variant must not call any detector"
        fresh = dp_chunk(read_document(EXAMPLES[1]), variant, solver)  # a new document: full pipeline
        assert len(detector_calls) == before + first
        assert _rows(cached) == _rows(fresh)
    assert analysis_of(doc).stats["reused"] >= len(policy.detectors) * len(variants)


def test_reresolved_profile_reuses_detection(detector_calls, tmp_path):
    """A variant written as a profile file (new detector instances, equal specs) hits the cache."""
    doc = read_document(EXAMPLES[0])
    dp_chunk(doc, load_profile("finance", max_size=200).policy)
    first = len(detector_calls)
    assert first
    variant = tmp_path / "variant.yaml"
    variant.write_text("name: variant\nextends: finance\nsolver: {max_size: 256, chunk_cost: 10}\n"
                       "rules:\n  items:\n    - {name: sentence, structure: sentence, on: {shape: const, scale: 400}}\n")
    rp = load_profile(str(variant))
    cached = dp_chunk(doc, rp.policy)
    assert len(detector_calls) == first
    assert _rows(cached) == _rows(dp_chunk(read_document(EXAMPLES[0]), rp.policy))


def test_store_round_trip(detector_calls, tmp_path):
    """Another process (a fresh document object) loads the stored analysis and detects nothing."""
    store = use_store(tmp_path / "cache")
    try:
        policy = load_profile("default").policy
        a = read_document(EXAMPLES[2])
        want = _rows(dp_chunk(a, policy))
        assert analysis_of(a).stats["saved"] > 0 and store.entries() > 0
        calls = len(detector_calls)
        b = read_document(EXAMPLES[2])
        assert _rows(dp_chunk(b, policy)) == want
        assert len(detector_calls) == calls, "stored structures must be loaded, not detected"
        stats = analysis_of(b).stats
        assert stats["loaded"] >= len(policy.detectors) and stats["detected"] == 0
    finally:
        use_store(None)


def test_store_ignores_broken_entries(tmp_path):
    store = AnalysisStore(tmp_path)
    assert store.put("ab" * 32, "det.x", {"starts": np.arange(3), "ends": np.arange(3) + 1})
    path = next(tmp_path.rglob("det.x.npz"))
    path.write_bytes(b"not a zip")
    assert store.get("ab" * 32, "det.x") is None
    assert store.put("ab" * 32, "det.x", {"starts": np.arange(2)}), "a broken entry is replaced"
    assert store.get("ab" * 32, "det.x")["starts"].tolist() == [0, 1]
    assert not store.put("ab" * 32, "det.x", {"starts": np.arange(5)}), "a readable entry is written once"


def test_document_key_covers_reader_facts():
    a = Document(id="a", text="Same text.")
    b = Document(id="b", text="Same text.")
    c = Document(id="a", text="Same text.", split_points=[0, 5])
    assert document_key(a) == document_key(b)
    assert document_key(a) != document_key(c)


@pytest.mark.parametrize("granularity", ["tokens", "chars"])
@pytest.mark.parametrize("profile", ["default", "legal", "finance", "technical", "paper", "darn"])
def test_rechunk_equals_full_pipeline(profile, granularity):
    """Shipped profiles × units on the examples (and a few CLAIR documents when present)."""
    paths = list(EXAMPLES)
    if CLAIR.exists():
        paths += sorted(p for p in CLAIR.glob("*_*.json") if "paper_reference" not in p.name)[:2]
    policy = load_profile(profile).policy
    solver = policy.solver.with_overrides(granularity=granularity,
                                          max_size=policy.solver.max_size * (4 if granularity == "chars" else 1))
    for path in paths:
        doc = read_document(path)
        dp_chunk(doc, _scaled(policy, 3.0), solver)  # warm the analysis with another policy
        assert _rows(dp_chunk(doc, policy, solver)) == _rows(dp_chunk(read_document(path), policy, solver)), path


_SHAPES = st.sampled_from(["const", "linear", "reverse_linear", "triangular", "inverse_triangular"])


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_cost_cache_equals_plain_lattice(data):
    n = data.draw(st.integers(5, 300))
    P = np.array(sorted({0, n, *data.draw(st.lists(st.integers(0, n), max_size=60))}), dtype=np.int64)
    structures = {}
    for label in ("a", "b"):
        raw = data.draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, 40)), max_size=12))
        spans = sorted((s, min(n, s + w)) for s, w in raw)
        structures[label] = (np.array([s for s, _ in spans], np.int64), np.array([e for _, e in spans], np.int64))
    cache = CostCache(P, n)
    for _ in range(3):  # several policies over one cache, as a tuning loop does
        rules = []
        for label in data.draw(st.lists(st.sampled_from(["a", "b", "missing"]), min_size=1, max_size=4)):
            def shape():
                name = data.draw(_SHAPES)
                scale = data.draw(st.one_of(st.integers(0, 500).map(float), st.floats(0, 500)))
                width = data.draw(st.one_of(st.none(), st.floats(1, 50)))
                return Shape(name, shapes.get(name), scale, width)
            rules.append(CostRule(label, label, on=data.draw(st.one_of(st.none(), st.builds(shape))),
                                  off=data.draw(st.one_of(st.none(), st.builds(shape)))))
        want = build_costs(P, structures, rules, n)
        assert np.array_equal(build_costs(P, structures, rules, n, cache=cache), want)


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 6), m=st.integers(1, 200), data=st.data())
def test_coverage_sum_kernel_equals_reference(rows, m, data):
    from adachunk.cost.coverage_sum import _weighted_sum_loop, weighted_sum, weighted_sum_reference

    matrix = np.array(data.draw(st.lists(st.lists(st.integers(0, 50), min_size=m, max_size=m),
                                         min_size=rows, max_size=rows)), dtype=np.int32)
    scales = np.array(data.draw(st.lists(st.integers(0, 10**9), min_size=rows, max_size=rows)), dtype=np.int64)
    want = weighted_sum_reference(matrix, scales)
    assert np.array_equal(weighted_sum(matrix, scales, jit=True), want)
    out = np.zeros(m, dtype=np.int64)
    _weighted_sum_loop(matrix, scales, out)  # the loop uncompiled: the same function Numba compiles
    assert np.array_equal(out, want)


def test_default_store_is_scoped(tmp_path, monkeypatch):
    from adachunk.analysis.store import ENV, current_store, default_store

    monkeypatch.delenv(ENV, raising=False)
    use_store(None)
    with default_store(tmp_path / "a") as store:
        assert current_store() is store and store.root == (tmp_path / "a").resolve()
        with default_store(tmp_path / "b") as inner:  # a store chosen already wins
            assert inner is store
    assert current_store() is None and ENV not in __import__("os").environ


def test_stored_span_embeddings_are_reused(tmp_path):
    """ICC/DCC of a fresh document object embed nothing the store already holds."""
    from adachunk.metrics.suite import context_for, score_chunking

    policy = load_profile("default").policy
    metrics = policy.metrics.updated(embedder={"type": "hash.v1"})
    policy = dataclasses.replace(policy, metrics=metrics)
    use_store(tmp_path / "cache")
    try:
        scores = []
        for _ in range(2):
            doc = read_document(EXAMPLES[2])
            ctx = context_for(doc, policy)
            chunks = dp_chunk(doc, policy).chunks
            scores.append({k: r.value for k, r in score_chunking(chunks, ctx, ("icc", "dcc")).items()})
            stats = next(v for k, v in analysis_of(doc)._cache.items() if k[0] == "span_embeddings").stats
        assert scores[0] == scores[1]
        assert stats["model_calls"] == 0 and stats["stored_hits"] > 0, stats
    finally:
        use_store(None)


def test_detector_key_follows_the_metric_settings_it_reads():
    """coref.pair.v1 with backend 'metrics' depends on metrics.coref; with 'precomputed' (the
    default profile's) it reads no metric setting, and neither do other detectors."""
    policy = load_profile("default").policy
    precomputed = policy.detectors["coref_pair"]
    assert precomputed.params.backend == "precomputed"
    cls = type(precomputed)
    coref = cls(cls.Params(backend="metrics"), name="coref_pair")
    word = policy.detectors["word"]
    from adachunk.analysis import detector_key

    a, b = {"coref": {"type": "heuristic.v1"}, "weights": {"sc": 1}}, {"coref": {"type": "auto"}, "weights": {"sc": 1}}
    assert detector_key(coref, a) != detector_key(coref, b)
    assert detector_key(precomputed, a) == detector_key(precomputed, b) != detector_key(coref, a)
    assert detector_key(word, a) == detector_key(word, b) == detector_key(word, {"weights": {"bi": 1}})


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_ramp_sum_kernel_equals_numpy_bit_for_bit(data):
    from adachunk.cost.coverage_sum import _ramp_loop, ramp_sums, ramp_sums_reference

    cnt = np.array(data.draw(st.lists(st.integers(0, 20), min_size=1, max_size=20)), dtype=np.int64)
    n = int(cnt.sum())
    floats = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
    base = np.array(data.draw(st.lists(floats, min_size=n, max_size=n)), dtype=np.float64)
    bins = data.draw(st.integers(1, 30))
    inverse = np.array(data.draw(st.lists(st.integers(0, bins - 1), min_size=n, max_size=n)), dtype=np.int64)
    slope = np.array(data.draw(st.lists(floats, min_size=len(cnt), max_size=len(cnt))), dtype=np.float64)
    va = np.array(data.draw(st.lists(floats, min_size=len(cnt), max_size=len(cnt))), dtype=np.float64)
    want = ramp_sums_reference(base, inverse, cnt, slope, va, bins)
    got = ramp_sums(base, inverse, cnt, slope, va, bins, jit=True)
    assert want.tobytes() == got.tobytes()
    acc = np.zeros(bins)
    _ramp_loop(base, inverse, cnt, slope, va, acc)  # uncompiled: the function Numba compiles
    assert acc.tobytes() == want.tobytes()


def test_chunking_leaves_no_cyclic_garbage():
    """A chunked document and its analysis go by reference counting, not by the collector.

    The analysis refers to its document weakly; a cycle would keep every parse, structure list
    and array of each document until a full collection (measured at 0.1-0.15 s in a process
    with Numba loaded, once per ~30 documents).
    """
    import gc

    text = next(p for p in EXAMPLES if p.name == "regulation_excerpt.md").read_text(encoding="utf-8")
    rp = load_profile("default")
    dp_chunk(Document(id="warm", text=text), rp.policy)
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        doc = Document(id="d", text=text)
        chunking = dp_chunk(doc, rp.policy)
        assert analysis_of(doc).doc is doc and chunking.chunks
        del doc, chunking
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        garbage = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
    assert garbage == []


def test_analysis_outliving_its_document_says_so():
    doc = Document(id="d", text="# T\n\nText.\n")
    an = analysis_of(doc)
    assert an.doc is doc
    del doc
    with pytest.raises(ReferenceError):
        an.doc  # noqa: B018 - the property raises
