"""Binary searches over a document's candidate positions, answered in O(1) where they can be.

The cost lattice looks up, for the start and end of every structure span (every word and
sentence of the document), the index of the first candidate at or after it; with many spans a
binary search per span costs more than the rest of the lattice.
"""

from __future__ import annotations

import numpy as np

from .._jit import compiled, numba_loaded

# From this many candidates a document's lattice runs the compiled loops of
# :mod:`adachunk.cost._lattice_loops` even in a process that has not loaded Numba yet (its
# import and the loops' load from the disk cache cost ~0.6 s of CPU; the solver compiles from
# 1,000,000 candidates on, so Numba is loaded by then anyway). The rank table below follows the
# same rule (:func:`adachunk.cost._lattice_jit.use_loops`), so it never loads Numba on its own.
JIT_MIN_CANDIDATES = 1_000_000


def _is_arange(P: np.ndarray) -> bool:
    """Whether ``P[i] == i`` for every ``i`` (chars granularity). Integers from 0 to
    ``len(P) - 1`` are that exactly when they strictly increase (``[0, 0, 2]`` does not)."""
    return (len(P) > 0 and int(P[0]) == 0 and int(P[-1]) == len(P) - 1
            and bool(np.all(P[1:] > P[:-1])))


class Finder:
    """``np.searchsorted(P, x, side)`` for integer ``x``, O(1) per value where it can be.

    With ``chars`` granularity (``P[i] == i``) the index is ``x`` itself. Given the text length
    ``n``, a table ``below[x]`` (how many candidates lie before position ``x``; built once in
    O(n), 4 bytes a character) turns each search into a lookup: a document's rules search the
    starts and ends of every word and sentence, and a binary search per span costs more than the
    rest of the lattice. Otherwise (no ``n``, or ``P`` not strictly increasing in ``[0, n]``) a
    binary search. All three give the same indices.
    """

    def __init__(self, P: np.ndarray, n: int | None = None):
        self.P = P
        self.arange = _is_arange(P)
        self.below = None
        # (mode, P, below) as the compiled lattice loops take them, made on first use there
        # (adachunk.cost._lattice_jit.loop_args)
        self.loop_args: tuple | None = None
        if (not self.arange and n is not None and len(P) and 0 <= int(P[0]) and int(P[-1]) <= n
                and len(P) < (1 << 31) and bool(np.all(P[1:] > P[:-1]))):
            self.below = _below_table(P, n)

    def search(self, x: np.ndarray, side: str) -> np.ndarray:
        """``np.searchsorted(self.P, x, side)`` (int64)."""
        if self.arange:
            return np.clip(x + 1 if side == "right" else x, 0, len(self.P))
        if self.below is not None:  # #{P < t} with t = x (left) or x + 1 (right)
            t = np.clip(x + 1 if side == "right" else x, 0, len(self.below) - 1)
            return self.below[t].astype(np.int64)
        return np.searchsorted(self.P, x, side=side)


def _below_table(P: np.ndarray, n: int) -> np.ndarray:
    """``below[x] = #{i: P[i] < x}`` for ``x`` in ``0..n+1`` (int32; ``P`` strictly increasing
    in ``[0, n]``).

    numpy marks ``P + 1`` in a zero row and sums it up. Its ``cumsum`` does not vectorise: the
    whole took 14.3-14.9 ms of a CLAIR pass at o200k. When the lattice runs its compiled loops
    the running sum is the const sum's compiled one
    (:func:`adachunk.cost._lattice_loops.running_sum_loop`): 4.1-4.2 ms, the same integers.
    """
    below = np.zeros(n + 2, dtype=np.int32)
    below[P + 1] = 1
    if numba_loaded() or len(P) >= JIT_MIN_CANDIDATES:
        from ._lattice_loops import running_sum_loop

        return compiled(running_sum_loop)(below, np.int64(n + 2))
    return np.cumsum(below, out=below)
