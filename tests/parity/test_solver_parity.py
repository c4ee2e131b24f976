"""The Numba kernel and the brute-force reference solver agree exactly (cuts and objective)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from adachunk.solve.kernel import solve_kernel
from adachunk.solve.reference import solve_reference
from adachunk.solve.solver import solve


@st.composite
def instances(draw):
    m = draw(st.integers(0, 70))
    steps = draw(st.lists(st.integers(1, 4), min_size=m, max_size=m))
    sizes = np.concatenate(([0], np.cumsum(steps))).astype(np.int64)
    cost = np.array(draw(st.lists(st.integers(0, 6), min_size=m + 1, max_size=m + 1)), dtype=np.int64)
    max_size = draw(st.integers(1, 25))
    min_size = draw(st.integers(0, max_size))
    chunk_cost = draw(st.integers(0, 5))
    return sizes, cost, chunk_cost, min_size, max_size


@settings(max_examples=1500, deadline=None)
@given(instances())
def test_kernel_matches_reference(inst):
    """Compiled by Numba and run as plain Python (small documents), the kernel is the reference."""
    sizes, cost, chunk_cost, min_size, max_size = inst
    r_cuts, r_total = solve_reference(sizes.tolist(), cost.tolist(), chunk_cost, min_size, max_size)
    for jit in (True, False):
        k_cuts, k_total = solve_kernel(sizes, cost, chunk_cost, min_size, max_size, jit=jit)
        assert k_total == r_total
        if r_total >= 0:
            assert k_cuts.tolist() == r_cuts


@settings(max_examples=300, deadline=None)
@given(instances())
def test_solution_respects_limits(inst):
    sizes, cost, chunk_cost, min_size, max_size = inst
    sol = solve(sizes, cost, chunk_cost=chunk_cost, min_size=min_size, max_size=max_size)
    cuts = sol.cuts.tolist()
    assert cuts[0] == 0 and cuts[-1] == len(sizes) - 1
    chunk_sizes = [int(sizes[b] - sizes[a]) for a, b in zip(cuts, cuts[1:])]
    if sol.relaxed != "max_size":
        assert all(s <= max_size for s in chunk_sizes)
    if sol.relaxed is None:
        assert all(s >= min_size for s in chunk_sizes[:-1])


def test_ties_prefer_longest_jump():
    sizes = np.arange(7, dtype=np.int64)
    cost = np.zeros(7, dtype=np.int64)
    sol = solve(sizes, cost, chunk_cost=0, min_size=0, max_size=3)
    # all cuts cost 0: backtracking takes the longest admissible jump from the end each time
    assert sol.cuts.tolist() == [0, 3, 6]


def test_last_chunk_may_undershoot_only_when_unavoidable():
    sizes = np.arange(11, dtype=np.int64)
    cost = np.zeros(11, dtype=np.int64)
    sol = solve(sizes, cost, chunk_cost=1, min_size=4, max_size=6)
    lens = np.diff(sizes[sol.cuts]).tolist()
    assert all(4 <= x <= 6 for x in lens) and sol.relaxed is None
    sol = solve(np.arange(6, dtype=np.int64), np.zeros(6, np.int64), chunk_cost=1, min_size=4, max_size=4)
    assert np.diff(sol.cuts).tolist() == [4, 1]


def test_indivisible_step_larger_than_max_widens_limit():
    sol = solve(np.array([0, 5, 6]), np.zeros(3, np.int64), chunk_cost=0, min_size=0, max_size=3)
    assert sol.relaxed == "max_size" and sol.cuts.tolist() == [0, 1, 2]


def test_numba_comes_in_once_enough_candidates_were_solved_uncompiled(monkeypatch):
    """Small inputs run the loops uncompiled (no Numba import for a page); a process that has
    solved JIT_AFTER_CANDIDATES that way compiles them, with the same results."""
    from adachunk.solve import kernel

    compiled: list[str] = []
    monkeypatch.setattr(kernel, "is_compiled", lambda fn: fn.__name__ in compiled)
    monkeypatch.setattr(kernel, "numba_loaded", lambda: False)
    monkeypatch.setattr(kernel, "_uncompiled", [0])
    monkeypatch.setattr(kernel, "JIT_AFTER_CANDIDATES", 100)
    monkeypatch.setattr(kernel, "compiled", lambda fn: compiled.append(fn.__name__) or fn)
    sizes = np.arange(61, dtype=np.int64)
    cost = (np.arange(61, dtype=np.int64) * 7) % 5
    first = solve_kernel(sizes, cost, 1, 3, 10)
    second = solve_kernel(sizes, cost, 1, 3, 10)
    assert compiled == [] and kernel._uncompiled[0] == 120  # 60 + 60 candidates, uncompiled
    third = solve_kernel(sizes, cost, 1, 3, 10)
    assert compiled == ["_forward", "_relaxed_end", "_backtrack"]
    assert first[1] == second[1] == third[1] and first[0].tolist() == third[0].tolist()


def test_numba_comes_in_sooner_once_another_loop_loaded_it(monkeypatch):
    """With Numba already loaded by another loop, the lower JIT_LOADED_CANDIDATES applies to one
    input and to the candidates solved uncompiled; without it, the plain thresholds."""
    from adachunk.solve import kernel

    compiled: list[str] = []
    loaded = [False]
    monkeypatch.setattr(kernel, "is_compiled", lambda fn: fn.__name__ in compiled)
    monkeypatch.setattr(kernel, "numba_loaded", lambda: loaded[0])
    monkeypatch.setattr(kernel, "_uncompiled", [0])
    monkeypatch.setattr(kernel, "JIT_MIN_CANDIDATES", 1000)
    monkeypatch.setattr(kernel, "JIT_AFTER_CANDIDATES", 1000)
    monkeypatch.setattr(kernel, "JIT_LOADED_CANDIDATES", 100)
    monkeypatch.setattr(kernel, "compiled", lambda fn: compiled.append(fn.__name__) or fn)
    big = np.arange(151, dtype=np.int64)
    plain = solve_kernel(big, big % 3, 1, 3, 10)
    assert compiled == [] and kernel._uncompiled[0] == 150  # 150 < 1000: uncompiled
    loaded[0] = True
    kernel._uncompiled[0] = 0
    small = np.arange(61, dtype=np.int64)
    solve_kernel(small, small % 3, 1, 3, 10)
    assert compiled == []  # 60 < 100 and nothing solved before
    again = solve_kernel(big, big % 3, 1, 3, 10)  # 150 >= 100: compiled
    assert compiled == ["_forward", "_relaxed_end", "_backtrack"]
    assert plain[1] == again[1] and plain[0].tolist() == again[0].tolist()
    compiled.clear()
    kernel._uncompiled[0] = 100
    solve_kernel(small, small % 3, 1, 3, 10)  # 100 solved uncompiled already: compiled
    assert compiled == ["_forward", "_relaxed_end", "_backtrack"]


@st.composite
def target_instances(draw):
    sizes, cost, chunk_cost, min_size, max_size = draw(instances())
    target = draw(st.integers(1, 30))
    over = draw(st.integers(0, 4))
    under = draw(st.integers(0, 4))
    return sizes, cost, chunk_cost, min_size, max_size, target, over, under


@settings(max_examples=1500, deadline=None)
@given(target_instances())
def test_kernel_with_target_matches_reference(inst):
    """The size deviation term (two sliding windows in the kernel) against the brute force."""
    sizes, cost, chunk_cost, min_size, max_size, target, over, under = inst
    r_cuts, r_total = solve_reference(sizes.tolist(), cost.tolist(), chunk_cost, min_size, max_size,
                                      target, over, under)
    for jit in (True, False):
        k_cuts, k_total = solve_kernel(sizes, cost, chunk_cost, min_size, max_size, target, over, under, jit=jit)
        assert k_total == r_total
        if r_total >= 0:
            assert k_cuts.tolist() == r_cuts


def test_target_size_moves_chunks_towards_it():
    """Without a target, a chunk cost packs chunks against max_size; with one, they sit at it."""
    sizes = np.arange(101, dtype=np.int64)
    cost = np.zeros(101, dtype=np.int64)
    packed = solve(sizes, cost, chunk_cost=5, min_size=0, max_size=40)
    assert max(np.diff(packed.cuts).tolist()) == 40
    aimed = solve(sizes, cost, chunk_cost=5, min_size=0, max_size=40, target=25, over=1, under=1)
    assert np.diff(aimed.cuts).tolist() == [25, 25, 25, 25]
    ref = solve(sizes, cost, chunk_cost=5, min_size=0, max_size=40, target=25, over=1, under=1, backend="reference")
    assert ref.cuts.tolist() == aimed.cuts.tolist() and ref.total == aimed.total
