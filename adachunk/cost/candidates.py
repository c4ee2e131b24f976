"""Binary searches over a document's candidate positions, answered in O(1) where they can be.

The cost lattice looks up, for the start and end of every structure span (every word and
sentence of the document), the index of the first candidate at or after it; with many spans a
binary search per span costs more than the rest of the lattice.
"""

from __future__ import annotations

import numpy as np

from ..runtime.jit import compiled, numba_loaded
from ._lattice_loops import BLOCK_BITS, rank_loop

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
    ``n``, a rank table (how many candidates lie before position ``x``; built once in O(n))
    turns each search into two lookups: a document's rules search the starts and ends of every
    word and sentence, and a binary search per span costs more than the rest of the lattice.
    Otherwise (no ``n``, or ``P`` not strictly increasing in ``[0, n]``) a binary search. All
    three give the same indices.

    The table is blocked (``rank``: :func:`rank_table`): per block of 256 positions the
    candidates before it (int64), per position the candidates before it inside its block
    (uint8): 1 byte a character instead of the 4 of one int32 count per position, which at
    20 MB of text was an 80 MB row, page-faulted in on every document and out of every cache.
    """

    def __init__(self, P: np.ndarray, n: int | None = None):
        self.P = P
        self.arange = _is_arange(P)
        self.rank: tuple[np.ndarray, np.ndarray] | None = None
        # (mode, P, base, offset) as the compiled lattice loops take them, made on first use
        # there (adachunk.cost._lattice_jit.loop_args)
        self.loop_args: tuple | None = None
        if (not self.arange and n is not None and len(P) and 0 <= int(P[0]) and int(P[-1]) <= n
                and len(P) < (1 << 31) and bool(np.all(P[1:] > P[:-1]))):
            self.rank = rank_table(P, n)

    def search(self, x: np.ndarray, side: str) -> np.ndarray:
        """``np.searchsorted(self.P, x, side)`` (int64)."""
        if self.arange:
            return np.clip(x + 1 if side == "right" else x, 0, len(self.P))
        if self.rank is not None:  # #{P < t} with t = x (left) or x + 1 (right)
            base, offset = self.rank
            t = np.clip(x + 1 if side == "right" else x, 0, len(offset) - 1)
            return base[t >> BLOCK_BITS] + offset[t]
        return np.searchsorted(self.P, x, side=side)


def rank_table(P: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(base, offset)`` with ``#{i: P[i] < x} == base[x >> BLOCK_BITS] + offset[x]`` for ``x`` in
    ``0..n+1`` (``P`` strictly increasing in ``[0, n]``).

    Once Numba is loaded (or from a million candidates) one compiled pass
    (:func:`adachunk.cost._lattice_loops.rank_loop`) with no row of counts over the text at all;
    before, numpy marks ``P + 1`` in a zero row, sums it up and splits it (small documents only:
    the temporary int32 row is what the blocked table avoids).
    """
    size = n + 2
    base = np.empty(((size - 1) >> BLOCK_BITS) + 1, dtype=np.int64)
    offset = np.zeros(size, dtype=np.uint8)
    if numba_loaded() or len(P) >= JIT_MIN_CANDIDATES:
        compiled(rank_loop)(np.ascontiguousarray(P, dtype=np.int64), base, offset)
        return base, offset
    below = np.zeros(size, dtype=np.int32)  # counts stay below len(P) < 2**31
    below[P + 1] = 1
    np.cumsum(below, out=below)
    base[:] = below[:: 1 << BLOCK_BITS]
    np.subtract(below, np.repeat(base, 1 << BLOCK_BITS)[:size], out=below)
    offset[:] = below
    return base, offset
