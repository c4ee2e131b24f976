"""The fast cost lattice gives exactly the reference's floats and integers.

``adachunk.cost.lattice`` skips candidates outside a ramp's segments, adds const rules up in one
integer difference array and replaces binary searches by arithmetic for ``chars``; none of that
may change a single cost (the golden chunks depend on every integer), so every value is compared
bit for bit with ``adachunk.cost.reference`` on random spans, shapes and candidate sets.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import adachunk.cost.lattice as lat
from adachunk.cost import reference
from adachunk.cost.lattice import CostRule, build_costs, rule_cost, shape_values
from adachunk.cost.punishments import Shape, make_shape


SHAPES = ["const", "linear", "reverse_linear", "triangular", "inverse_triangular"]
SMALL_BATCH = 7  # covered candidates per batch: forces many batches on small inputs


@st.composite
def lattices(draw):
    """(P, starts, ends, n): candidates (all positions or a sorted subset) and sorted spans."""
    n = draw(st.integers(1, 400))
    if draw(st.booleans()):
        P = np.arange(n + 1, dtype=np.int64)
    else:
        inner = draw(st.sets(st.integers(1, n - 1), max_size=n - 1)) if n > 1 else set()
        P = np.array([0, *sorted(inner), n], dtype=np.int64)
    pairs = draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, 60)), max_size=30))
    spans = sorted((s, min(n, s + w)) for s, w in pairs)  # nested and overlapping spans too
    starts = np.array([s for s, _ in spans], dtype=np.int64)
    ends = np.array([e for _, e in spans], dtype=np.int64)
    return P, starts, ends, n


_scales = st.sampled_from([1, 5, 60, 300, 1000]) | st.floats(0.01, 2000, allow_nan=False)
_widths = st.none() | st.sampled_from([1, 3, 50, 300]) | st.floats(0.5, 500, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(data=lattices(), shape=st.sampled_from(SHAPES), scale=_scales, width=_widths,
       side=st.sampled_from(["on", "off"]))
def test_shape_values_bit_identical_to_reference(data, shape, scale, width, side):
    P, starts, ends, n = data
    sh = make_shape(shape, scale, width)
    got = shape_values(P, starts, ends, sh, side, n)
    want = reference.shape_values(P, starts, ends, sh, side, n)
    assert got.tobytes() == want.tobytes()


@settings(max_examples=60, deadline=None)
@given(data=lattices(), shape=st.sampled_from(SHAPES[1:]), width=_widths)
def test_small_batches_keep_the_reference_order(data, shape, width):
    """Overlapping spans split across batches add up in the reference's batch order."""
    P, starts, ends, n = data
    sh = make_shape(shape, 97.3, width)
    old = lat._BATCH
    lat._BATCH = SMALL_BATCH
    try:
        got = shape_values(P, starts, ends, sh, "on", n)
    finally:
        lat._BATCH = old
    want = reference.shape_values(P, starts, ends, sh, "on", n, batch=SMALL_BATCH)
    assert got.tobytes() == want.tobytes()


def _overlapping(lengths, scale, width):
    """A shape whose two segments overlap (allowed for registered shapes)."""
    full = lambda v: np.full(lengths.shape, float(v))  # noqa: E731
    return [(full(0), lengths, full(scale), full(0)), (lengths / 3, lengths, full(1.5), full(2.5))]


def test_overlapping_segments_fall_back_to_the_reference():
    P = np.arange(41, dtype=np.int64)
    starts, ends = np.array([2, 5, 30]), np.array([25, 12, 40])
    sh = Shape("overlap", _overlapping, 10.0)
    got = shape_values(P, starts, ends, sh, "on", 40)
    assert got.tobytes() == reference.shape_values(P, starts, ends, sh, "on", 40).tobytes()


_picks = st.lists(st.tuples(st.sampled_from(SHAPES), _scales, _widths, st.sampled_from(["on", "off", "both"])),
                  min_size=1, max_size=5)


def rules_of(picks) -> list[CostRule]:
    """One rule per pick ``(shape, scale, width, side)``, on labels ``y`` and ``x`` in turn."""
    rules = []
    for k, (shape, scale, width, side) in enumerate(picks):
        sh = make_shape(shape, scale, width)
        rules.append(CostRule(f"r{k}", "x" if k % 2 else "y", on=sh if side != "off" else None,
                              off=sh if side != "on" else None))
    return rules


def rounded_reference(P, structures, rules, n) -> np.ndarray:
    """Each rule rounded separately from the reference floats (what build_costs must equal)."""
    want = np.zeros(len(P), dtype=np.int64)
    for rule in rules:
        sp = structures[rule.label]
        for side, shape in (("on", rule.on), ("off", rule.off)):
            if shape is not None:
                want += np.rint(reference.shape_values(P, *sp, shape, side, n)).astype(np.int64)
    want[0] = want[-1] = 0
    return want


@settings(max_examples=150, deadline=None)
@given(data=lattices(), picks=_picks)
def test_build_costs_is_the_sum_of_rounded_rules(data, picks):
    """The shared integer difference array equals rounding each rule separately (old build)."""
    P, starts, ends, n = data
    rules = rules_of(picks)
    structures = {"x": (starts, ends), "y": (starts[::2].copy(), ends[::2].copy())}
    want = rounded_reference(P, structures, rules, n)
    assert build_costs(P, structures, rules, n).tolist() == want.tolist()
    for rule in rules:  # rule_cost (explanations) agrees with the reference too
        on, off = rule_cost(P, structures[rule.label], rule, n)
        sp = structures[rule.label]
        ref_on = reference.shape_values(P, *sp, rule.on, "on", n) if rule.on else np.zeros(len(P))
        assert on.tolist() == np.rint(ref_on).astype(np.int64).tolist()


@pytest.mark.parametrize("granularity", ["chars", "tokens"])
def test_clair_document_costs_equal_the_reference(clair_docs, granularity):
    """The default profile's costs on a real document, both granularities."""
    from adachunk import load_profile
    from adachunk.detect.base import DetectContext
    from adachunk.split.dp import detect_all
    from adachunk.tokens import CharCounter, get_counter

    text = clair_docs[0][1]["full_text"][:60_000]
    policy = load_profile("default").policy
    structures = detect_all(policy, DetectContext(text))
    P, _ = (CharCounter() if granularity == "chars" else get_counter("o200k_base")).boundaries(text)
    want = np.zeros(len(P), dtype=np.int64)
    for rule in policy.rules:
        sp = structures.get(rule.label, (np.zeros(0, np.int64), np.zeros(0, np.int64)))
        for side, shape in (("on", rule.on), ("off", rule.off)):
            if shape is not None:
                ref = reference.shape_values(P, *sp, shape, side, len(text))
                want += np.rint(ref).astype(np.int64)
    want[0] = want[-1] = 0
    assert np.array_equal(build_costs(P, structures, list(policy.rules), len(text)), want)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_finder_equals_searchsorted(data):
    """Index arithmetic, the rank table and the binary search give the same indices."""
    n = data.draw(st.integers(0, 300))
    kind = data.draw(st.sampled_from(["arange", "subset", "duplicates", "beyond"]))
    if kind == "arange":
        P = np.arange(n + 1, dtype=np.int64)
    else:
        inner = data.draw(st.lists(st.integers(0, n), max_size=60))
        P = np.array(sorted(inner if kind == "duplicates" else {0, n, *inner}), dtype=np.int64)
        if kind == "beyond":
            P = np.append(P, n + data.draw(st.integers(1, 5)))
    x = np.array(data.draw(st.lists(st.integers(-5, n + 5) | st.sampled_from([-(1 << 40), 1 << 53]),
                                    max_size=40)), dtype=np.int64)
    from adachunk.cost.candidates import Finder

    find = Finder(P, n)
    if kind == "subset":
        assert find.rank is not None or find.arange
    for side in ("left", "right"):
        assert find.search(x, side).tolist() == np.searchsorted(P, x, side=side).tolist()


def test_marks_sum_is_exact_beyond_float_precision():
    """Weights too large for an exact float sum go through int64 difference arrays."""
    from adachunk.cost.coverage_sum import coverage_of, marks_sum

    m1 = 50
    marks = [(np.array([1, 3, 3], np.int64), np.array([10, 40, 50], np.int64)),
             (np.array([0, 20], np.int64), np.array([30, 49], np.int64))]
    for scales in ([400, 150], [(1 << 52) + 1, 3], [0, (1 << 50) + 7]):
        want = sum(np.int64(s) * coverage_of(m1, *mk).astype(np.int64) for mk, s in zip(marks, scales))
        got = marks_sum(m1, marks, np.array(scales, dtype=np.int64))
        assert got.dtype == np.int64 and got.tolist() == want.tolist()


@settings(max_examples=100, deadline=None)
@given(data=lattices(), shape=st.sampled_from(SHAPES[1:]), scale=_scales, width=_widths,
       side=st.sampled_from(["on", "off"]), policies=st.integers(1, 3))
def test_cached_ramps_on_disjoint_spans_equal_the_reference(data, shape, scale, width, side, policies):
    """Disjoint spans (each candidate covered once) skip the per-candidate sums: same integers."""
    P, starts, ends, n = data
    keep, last = [], -1
    for k, (s, e) in enumerate(zip(starts.tolist(), ends.tolist())):
        if s >= last:
            keep.append(k)
            last = e
    starts, ends = starts[keep], ends[keep]
    cache = lat.CostCache(P, n)
    for p in range(policies):  # a tuning loop: the same spans, other scales
        sh = make_shape(shape, scale * (p + 1), width)
        rule = CostRule("r", "x", on=sh if side == "on" else None, off=sh if side == "off" else None)
        want = np.rint(reference.shape_values(P, starts, ends, sh, side, n)).astype(np.int64)
        want[0] = want[-1] = 0
        got = build_costs(P, {"x": (starts, ends)}, [rule], n, cache=cache)
        assert got.tolist() == want.tolist()


@pytest.mark.parametrize("granularity", ["chars", "tokens"])
def test_clair_cached_costs_equal_the_uncached_ones(clair_docs, granularity):
    """The document's cost cache (first policy, then rescaled ones as a tuning loop asks for
    them: the stacked coverage matrix) gives the plain lattice's integers."""
    from adachunk import load_profile
    from adachunk.detect.base import DetectContext
    from adachunk.split.dp import detect_all
    from adachunk.tokens import CharCounter, get_counter

    text = clair_docs[0][1]["full_text"][:80_000]
    policy = load_profile("default").policy
    structures = detect_all(policy, DetectContext(text))
    P, _ = (CharCounter() if granularity == "chars" else get_counter("o200k_base")).boundaries(text)
    cache = lat.CostCache(P, len(text))
    rules = list(policy.rules)
    for factor in (1.0, 1.0, 0.5, 3.0):
        scaled = [CostRule(r.name, r.label, *(None if sh is None else make_shape(sh.name, sh.scale * factor, sh.width)
                                              for sh in (r.on, r.off))) for r in rules]
        want = build_costs(P, structures, scaled, len(text))
        assert np.array_equal(build_costs(P, structures, scaled, len(text), cache=cache), want)
