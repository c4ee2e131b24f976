"""The compiled lattice loops give the numpy lattice's (and the reference's) integers exactly.

:mod:`adachunk.cost._lattice_loops` replaces, per rule, the numpy passes of
:mod:`adachunk.cost.lattice` (regions' candidate ranges, ramp rows, the const difference sum).
Every test runs twice: the loops compiled by Numba, and the same functions as plain Python (the
reference twin), both forced on whatever the input size.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import adachunk.cost._lattice_jit as jit
import adachunk.cost.lattice as lat
from adachunk.cost import coverage_sum, reference
from adachunk.cost.candidates import Finder
from adachunk.cost.lattice import CostCache, CostRule, build_costs
from adachunk.cost.punishments import Shape, make_shape

from .test_cost_lattice_parity import SHAPES, SMALL_BATCH, _picks, _widths, lattices, rounded_reference, rules_of


@pytest.fixture(params=["compiled", "python"])
def loops_on(request, monkeypatch):
    """The lattice runs its loops for every input; ``python``: the loops uncompiled."""
    monkeypatch.setattr(jit, "use_loops", lambda find: find.arange or find.rank is not None)
    if request.param == "python":
        monkeypatch.setattr(jit, "compiled", lambda fn, helpers=(): fn)
        monkeypatch.setattr(coverage_sum, "compiled", lambda fn, helpers=(): fn)
    return request.param


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=lattices(), picks=_picks, policies=st.integers(1, 3))
def test_loops_equal_the_reference(loops_on, data, picks, policies):
    """Nested and overlapping spans, every shape, both sides; a tuning loop's later policies."""
    P, starts, ends, n = data
    structures = {"x": (starts, ends), "y": (starts[::2].copy(), ends[::2].copy())}
    cache = CostCache(P, n)
    for p in range(policies):
        rules = rules_of([(s, scale * (p + 1), w, side) for s, scale, w, side in picks])
        got = build_costs(P, structures, rules, n, cache=cache)
        assert got.tolist() == rounded_reference(P, structures, rules, n).tolist()


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=lattices(), shape=st.sampled_from(SHAPES[1:]), width=_widths)
def test_loops_keep_the_reference_batches(loops_on, data, shape, width, monkeypatch):
    """Ramps split across batches add up batch by batch, as the reference's bincounts do."""
    P, starts, ends, n = data
    monkeypatch.setattr(lat, "_BATCH", SMALL_BATCH)
    sh = make_shape(shape, 97.3, width)
    rule = CostRule("r", "x", on=sh)
    got = build_costs(P, {"x": (starts, ends)}, [rule], n, cache=CostCache(P, n))
    want = np.rint(reference.shape_values(P, starts, ends, sh, "on", n, batch=SMALL_BATCH)).astype(np.int64)
    want[0] = want[-1] = 0
    assert got.tolist() == want.tolist()


def _overlapping(lengths, scale, width):
    """Two segments sharing candidates (allowed for registered shapes)."""
    full = lambda v: np.full(lengths.shape, float(v))  # noqa: E731
    return [(full(0), lengths, full(scale), full(0)), (lengths / 3, lengths, full(1.5), full(2.5))]


@pytest.mark.parametrize("P", [np.arange(41, dtype=np.int64), np.array([0, 3, 4, 9, 17, 22, 30, 31, 40])])
def test_overlapping_segments_fall_back_to_the_reference(loops_on, P):
    """A registered shape whose segments overlap: the batch goes to the reference."""
    starts, ends = np.array([2, 5, 30]), np.array([25, 12, 40])
    sh = Shape("overlap", _overlapping, 10.0)
    rules = [CostRule("r", "x", on=sh, off=sh)]
    structures = {"x": (starts, ends)}
    got = build_costs(P, structures, rules, 40, cache=CostCache(P, 40))
    assert got.tolist() == rounded_reference(P, structures, rules, 40).tolist()


@pytest.mark.parametrize("scales", [[400, 150, 0], [(1 << 52) + 1, 3, 1], [-7, (1 << 50) + 7, 2]])
def test_marks_loop_equals_the_difference_sum(loops_on, scales):
    """The compiled const sum gives marks_sum's integers, float-exact bound or not."""
    m1 = 50
    marks = [(np.array([1, 3, 3], np.int64), np.array([10, 40, 50], np.int64)),
             (np.array([0, 20], np.int64), np.array([30, 49], np.int64)),
             (np.array([], np.int64), np.array([], np.int64))]
    want = coverage_sum.marks_sum(m1, marks, np.array(scales, dtype=np.int64))
    got = coverage_sum.marks_sum(m1, marks, np.array(scales, dtype=np.int64), jit=True)
    assert got.dtype == np.int64 and got.tolist() == want.tolist()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=lattices(), picks=_picks)
def test_const_rules_in_calls_of_their_own_equal_the_reference(loops_on, data, picks, monkeypatch):
    """Const rules summed from their spans: a set too large to concatenate (here anything over
    two spans) goes in a call of its own, into the same difference row."""
    monkeypatch.setattr(jit, "_CONCAT_SPANS", 2)
    P, starts, ends, n = data
    structures = {"x": (starts, ends), "y": (starts[::2].copy(), ends[::2].copy()),
                  "z": (starts[:2].copy(), ends[:2].copy())}
    rules = rules_of(picks) + [CostRule("z", "z", on=make_shape("const", 7.0), off=make_shape("const", 3.0))]
    got = build_costs(P, structures, rules, n, cache=CostCache(P, n))
    assert got.tolist() == rounded_reference(P, structures, rules, n).tolist()


@pytest.mark.parametrize("scales", [[400, 150, 0], [(1 << 52) + 1, 3, -((1 << 52) + 1)], [-7, (1 << 50) + 7, 2]])
def test_const_total_sums_scales_of_shared_spans_first(loops_on, scales):
    """Rules on the same spans and side add their scales before the marks (integers: the same
    total as one rule at a time), a zero sum adds nothing."""
    P = np.arange(41, dtype=np.int64)
    starts, ends = np.array([2, 5, 30], np.int64), np.array([25, 12, 40], np.int64)
    find = Finder(P, 40)
    sets = [(starts, ends, side, s) for s in scales for side in ("on", "off")]
    want = np.zeros(len(P), np.int64)
    for side in ("on", "off"):
        for s in scales:
            want += s * reference.const_values(len(P), *_regions_of(P, starts, ends, side, 40), 1.0).astype(np.int64)
    assert jit.const_total(find, sets, 40).tolist() == want.tolist()


def _regions_of(P, starts, ends, side, n):
    """``(k_lo, counts)`` of the regions holding a candidate (the reference's searches)."""
    lo, hi, open_lo = reference.regions(starts, ends, side, n)
    k_lo = np.searchsorted(P, lo, side="right" if open_lo else "left")
    counts = np.maximum(np.searchsorted(P, hi, side="left") - k_lo, 0)
    return k_lo[counts > 0], counts[counts > 0]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=lattices(), shape=st.sampled_from(SHAPES[1:]), width=_widths, side=st.sampled_from(["on", "off"]))
def test_built_in_ramps_go_from_their_spans_in_one_call(loops_on, data, shape, width, side, monkeypatch):
    """A built-in ramp in one batch takes the fused loop (the batched path is never asked) and
    gives the reference's integers."""
    P, starts, ends, n = data

    def batched(*args, **kwargs):
        raise AssertionError("the batched ramp path ran")

    monkeypatch.setattr(jit, "ramp", batched)
    sh = make_shape(shape, 53.7, width)
    rule = CostRule("r", "x", **{side: sh})
    got = build_costs(P, {"x": (starts, ends)}, [rule], n, cache=CostCache(P, n))
    assert got.tolist() == rounded_reference(P, {"x": (starts, ends)}, [rule], n).tolist()


def test_loops_need_an_O1_search():
    """Without a rank table (no text length given) the lattice keeps its numpy searches."""
    P = np.array([0, 4, 9, 30], dtype=np.int64)
    assert not jit.use_loops(Finder(P))
    assert jit.use_loops(Finder(P, 30)) == jit.numba_loaded()
    big = Finder(np.arange(jit.JIT_MIN_CANDIDATES, dtype=np.int64))
    assert jit.use_loops(big)


@pytest.mark.parametrize("granularity", ["chars", "tokens"])
def test_clair_costs_with_loops_equal_the_numpy_lattice(clair_docs, granularity, monkeypatch):
    """The default profile on a real document: compiled loops, numpy lattice, same integers."""
    from adachunk import load_profile
    from adachunk.detect.base import DetectContext
    from adachunk.split.dp import detect_all
    from adachunk.tokens import CharCounter, get_counter

    text = clair_docs[1][1]["full_text"][:120_000]
    policy = load_profile("default").policy
    structures = detect_all(policy, DetectContext(text))
    P, _ = (CharCounter() if granularity == "chars" else get_counter("o200k_base")).boundaries(text)
    rules = list(policy.rules)
    monkeypatch.setattr(jit, "use_loops", lambda find: False)
    want = build_costs(P, structures, rules, len(text), cache=CostCache(P, len(text)))
    monkeypatch.setattr(jit, "use_loops", lambda find: True)
    got = build_costs(P, structures, rules, len(text), cache=CostCache(P, len(text)))
    assert np.array_equal(got, want)


def test_round_add_rounds_half_to_even_and_clears_the_scratch_row(loops_on):
    """``round_add`` is ``total[a:b] += rint(acc[a:b])`` and leaves ``acc`` all zero; ``move_add``
    adds floats the same way (the ramps' rows without temporaries)."""
    acc = np.array([9.0, 0.5, 1.5, 2.5, -0.5, -1.5, -0.0, 1e15 + 0.5, 3.49999, 7.0])
    total = np.arange(10, dtype=np.int64) * 1000
    want = total.copy()
    want[1:9] += np.rint(acc[1:9]).astype(np.int64)
    jit.round_add(acc, 1, 9, total)
    assert total.tolist() == want.tolist()
    assert acc[1:9].tolist() == [0.0] * 8 and acc[0] == 9.0 and acc[9] == 7.0
    out = np.full(10, 0.25)
    jit.move_add(acc, 0, 10, out)
    assert out.tolist() == [9.25] + [0.25] * 8 + [7.25] and not acc.any()


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(positions=set(range(0, 1000, 2)), extra=3, numpy_path=False)  # 500 candidates: counts past a byte
@given(positions=st.sets(st.integers(0, 1200), min_size=1, max_size=300), extra=st.integers(0, 600),
       numpy_path=st.booleans())
def test_rank_table_counts_the_candidates_before_each_position(monkeypatch, positions, extra, numpy_path):
    """``Finder``'s blocked rank table (by the compiled pass, its plain twin, or numpy) gives
    ``#{P < x}`` for every ``x`` in ``0..n+1``, across block edges (256 positions)."""
    from adachunk.runtime.jit import compiled
    from adachunk.cost import _lattice_loops as loops
    from adachunk.cost import candidates

    P = np.array(sorted(positions), dtype=np.int64)
    n = int(P[-1]) + extra
    x = np.arange(n + 2)
    want = np.searchsorted(P, x, side="left")
    for fn in (loops.rank_loop, compiled(loops.rank_loop)):
        base = np.full(((n + 1) >> loops.BLOCK_BITS) + 1, -1, dtype=np.int64)
        offset = np.zeros(n + 2, dtype=np.uint8)
        fn(P, base, offset)
        assert (base[x >> loops.BLOCK_BITS] + offset[x]).tolist() == want.tolist()
    with monkeypatch.context() as m:
        m.setattr(candidates, "numba_loaded", lambda: not numpy_path)
        find = Finder(P, n)
    if find.arange:  # chars granularity needs no table
        return
    base, offset = find.rank
    assert base.dtype == np.int64 and offset.dtype == np.uint8 and len(offset) == n + 2
    assert (base[x >> loops.BLOCK_BITS] + offset[x]).tolist() == want.tolist()
