"""Dispatch to the Numba kernel (default) or the reference twin, with feasibility fallbacks."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .kernel import solve_kernel
from .reference import solve_reference


@dataclass(frozen=True)
class Solution:
    """Chosen boundaries as candidate indices, the objective, and how it was reached.

    Attributes:
        cuts: candidate indices ``0 = c0 < c1 < ... < ck = m``.
        total: minimal objective (sum of cut costs + chunk_cost per chunk).
        relaxed: which constraint had to be relaxed, or None (``min_size`` when the sizes admit no
            chunking with every interior chunk >= min_size; ``max_size`` when a single
            indivisible unit is larger than max_size).
    """

    cuts: np.ndarray
    total: int
    relaxed: str | None = None


def solve(
    sizes: np.ndarray,
    cost: np.ndarray,
    *,
    chunk_cost: int,
    min_size: int,
    max_size: int,
    target: int | None = None,
    over: int = 0,
    under: int = 0,
    backend: str = "numba",
) -> Solution:
    """Minimise Σ cost(cut) + chunk_cost·#chunks [+ Σ dev(size)] under the size limits.

    With a ``target`` size, every chunk also costs ``over`` per unit above it and ``under`` per
    unit below it (see :mod:`adachunk.solve.reference`).

    ``min_size`` binds every chunk but the last, which may undershoot only when nothing else
    fits. If even that is impossible (``max_size < 2·min_size`` can leave gaps), ``min_size`` is
    dropped; if a single indivisible step exceeds ``max_size``, the limit is widened to that step.
    """
    fn = solve_kernel if backend == "numba" else _reference_arrays
    dev = (target, over, under)
    cuts, total = fn(sizes, cost, chunk_cost, min_size, max_size, *dev)
    if total >= 0:
        return Solution(np.asarray(cuts, np.int64), int(total))
    cuts, total = fn(sizes, cost, chunk_cost, 0, max_size, *dev)
    if total >= 0:
        return Solution(np.asarray(cuts, np.int64), int(total), relaxed="min_size")
    widest = int(np.max(np.diff(sizes))) if len(sizes) > 1 else 0
    cuts, total = fn(sizes, cost, chunk_cost, 0, max(max_size, widest), *dev)
    return Solution(np.asarray(cuts, np.int64), int(total), relaxed="max_size")


def _reference_arrays(sizes, cost, chunk_cost, min_size, max_size, target=None, over=0, under=0):
    return solve_reference([int(x) for x in sizes], [int(x) for x in cost], chunk_cost, min_size, max_size,
                           target, over, under)
