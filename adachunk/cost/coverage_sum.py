"""The const rules' share of every cut cost: ``sum over rules of scale * coverage``, one pass.

A tuning trial changes scales, not structures: the coverage counts (how many of a rule's
regions cover each candidate) are fixed per document, so the const part of the lattice is a
matrix-vector product of integers. :func:`weighted_sum_reference` is the plain numpy sum, one
rule at a time; :func:`weighted_sum` runs the same arithmetic in one compiled pass over the
candidates once Numba is loaded anyway (the solver compiles for large inputs) or the input is
large, and is bit-identical to the reference (``tests/test_analysis.py``): integers only.
"""

from __future__ import annotations

import numpy as np

from .._jit import compiled, numba_loaded

JIT_MIN_CELLS = 4_000_000  # rules x candidates from which compiling pays in a fresh process


def weighted_sum_reference(rows, scales: np.ndarray) -> np.ndarray:
    """``scales @ rows`` in int64, rule by rule (the reference; ``rows``: a matrix or a
    non-empty sequence of equally long arrays)."""
    total = np.zeros(len(rows[0]), dtype=np.int64)
    for scale, row in zip(np.asarray(scales).tolist(), rows):
        if scale:
            total += np.int64(scale) * row
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
