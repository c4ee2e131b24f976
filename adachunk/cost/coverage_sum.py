"""Compiled sums of the cost lattice for policies that share one document's structures.

**Const rules**: ``sum over rules of scale * coverage``, one pass. For one policy,
:func:`marks_sum` adds every rule's region marks into one difference array (no coverage row
per rule); the matrix below serves the policies that come after it.

A tuning trial changes scales, not structures: the coverage counts (how many of a rule's
regions cover each candidate) are fixed per document, so the const part of the lattice is a
matrix-vector product of integers. :func:`weighted_sum_reference` is the plain numpy sum, one
rule at a time; :func:`weighted_sum` runs the same arithmetic in one compiled pass over the
candidates once Numba is loaded anyway (the solver compiles for large inputs) or the input is
large, and is bit-identical to the reference (``tests/test_analysis.py``): integers only.

**Ramps**: a ramp's value at a covered candidate is ``base * slope + va`` (``base = d - a``, the
distance into its segment), summed per candidate over the spans covering it; the plain numpy
version is a multiply, an add and a ``bincount``. :func:`ramp_sums` does the same float
operations in the same order in one compiled pass (Numba does not fuse a multiply and an add
into one rounding unless fast-math is asked for, which it is not), so the sums are identical
(``tests/test_analysis.py`` compares every bit).
"""

from __future__ import annotations

import numpy as np

from ..runtime.jit import compiled, numba_loaded

JIT_MIN_CELLS = 4_000_000  # rules x candidates from which compiling pays in a fresh process


def weighted_sum_reference(rows, scales: np.ndarray) -> np.ndarray:
    """``scales @ rows`` in int64, rule by rule (the reference; ``rows``: a matrix or a
    non-empty sequence of equally long arrays)."""
    total = np.zeros(len(rows[0]), dtype=np.int64)
    for scale, row in zip(np.asarray(scales).tolist(), rows):
        if scale:
            total += np.int64(scale) * row
    return total


def coverage_of(m1: int, opens: np.ndarray, closes: np.ndarray) -> np.ndarray:
    """How many regions cover each of ``m1`` candidates (int32), from where they open and close."""
    diff = np.bincount(opens, minlength=m1 + 1) - np.bincount(closes, minlength=m1 + 1)
    return np.cumsum(diff[:-1], dtype=np.int32)


_EXACT = float(1 << 53)  # float64 sums of integers stay exact while every partial sum is below this


def marks_sum(m1: int, marks, scales: np.ndarray, *, jit: bool = False) -> np.ndarray:
    """``sum(scale * coverage)`` over rules (int64) in one difference pass over their marks.

    Args:
        m1: number of candidates.
        marks: per rule, ``(opens, closes)``: the candidate indices where its regions begin and
            the ones just past where they end (``0 <= index <= m1``).
        scales: integral scale per rule.
        jit: add the marks in int64 in compiled loops, one per rule, into one difference row
            (:func:`adachunk.cost._lattice_loops.marks_loop`; the same integers).

    One weighted ``bincount`` over every mark adds integers in float64, exact while the sum of
    the weights' magnitudes stays below 2**53 (then every partial sum does too); beyond that
    (never with profile scales) each rule's difference array is summed in int64 instead.
    """
    scales = np.asarray(scales, dtype=np.int64)
    used = [(mk, int(s)) for mk, s in zip(marks, scales.tolist()) if s]
    total = np.zeros(m1, dtype=np.int64)
    if not used:
        return total
    if jit:
        from ._lattice_loops import marks_loop, running_sum_loop

        add = compiled(marks_loop)
        diff = np.zeros(m1 + 1, np.int64)
        for (o, c), s in used:
            add(np.ascontiguousarray(o, np.int64), np.ascontiguousarray(c, np.int64), np.int64(s), diff)
        return compiled(running_sum_loop)(diff, np.int64(m1))
    bound = sum(abs(s) * (len(o) + len(c)) for (o, c), s in used)
    if bound < _EXACT:
        idx = np.concatenate([a for (o, c), _ in used for a in (o, c)])
        w = np.concatenate([np.full(len(a), float(v)) for (o, c), s in used for a, v in ((o, s), (c, -s))])
        diff = np.bincount(idx, weights=w, minlength=m1 + 1)
        return np.cumsum(diff[:-1].astype(np.int64))
    for (o, c), s in used:
        diff = np.bincount(o, minlength=m1 + 1) - np.bincount(c, minlength=m1 + 1)
        total += np.int64(s) * np.cumsum(diff[:-1])
    return total


def _weighted_sum_loop(matrix, scales, out):
    rules, m = matrix.shape
    for r in range(rules):
        s = scales[r]
        if s == 0:
            continue
        row = matrix[r]
        for i in range(m):
            out[i] += s * row[i]


def weighted_sum(matrix: np.ndarray, scales: np.ndarray, *, jit: bool | None = None) -> np.ndarray:
    """``scales @ matrix`` in int64 (``matrix``: int32 coverage counts, one row per rule).

    Args:
        matrix: coverage counts, shape ``(rules, candidates)``.
        scales: integral scale per rule (int64).
        jit: compile the loop (None: when Numba is loaded already or the input is large).
    """
    scales = np.ascontiguousarray(scales, dtype=np.int64)
    if jit is None:
        jit = numba_loaded() or matrix.size >= JIT_MIN_CELLS
    if not jit:
        return weighted_sum_reference(matrix, scales)
    out = np.zeros(matrix.shape[1], dtype=np.int64)
    compiled(_weighted_sum_loop)(np.ascontiguousarray(matrix), scales, out)
    return out


def ramp_values(base, cnt, slope, va) -> np.ndarray:
    """``base * slope + va`` per entry, ``slope`` and ``va`` given per row of ``cnt`` entries."""
    vals = base * np.repeat(slope, cnt)
    vals += np.repeat(va, cnt)
    return vals


def ramp_sums_reference(base, inverse, cnt, slope, va, n_bins: int) -> np.ndarray:
    """Per bin, the sum of :func:`ramp_values` over its entries."""
    return np.bincount(inverse, weights=ramp_values(base, cnt, slope, va), minlength=n_bins)


def _ramp_loop(base, inverse, cnt, slope, va, acc):
    k = 0
    for r in range(cnt.shape[0]):
        s = slope[r]
        v = va[r]
        for _ in range(cnt[r]):
            x = base[k] * s
            x = x + v
            acc[inverse[k]] += x
            k += 1


def ramp_sums(base, inverse, cnt, slope, va, n_bins: int, *, jit: bool | None = None) -> np.ndarray:
    """:func:`ramp_sums_reference` in one compiled pass (when Numba is loaded or ``jit``)."""
    if jit is None:
        jit = numba_loaded() or len(base) >= JIT_MIN_CELLS
    if not jit:
        return ramp_sums_reference(base, inverse, cnt, slope, va, n_bins)
    acc = np.zeros(n_bins, dtype=np.float64)
    compiled(_ramp_loop)(base, np.ascontiguousarray(inverse, dtype=np.int64), np.ascontiguousarray(cnt, dtype=np.int64),
                         np.ascontiguousarray(slope, dtype=np.float64), np.ascontiguousarray(va, dtype=np.float64), acc)
    return acc
