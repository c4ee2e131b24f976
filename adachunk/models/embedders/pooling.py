"""The pooling grid: where a long text is cut so that every piece fits the embedding model.

A model such as all-MiniLM-L6-v2 reads at most 256 word pieces; a 1,100-token chunk or a
3,000-token DCC window is longer. Such a span is embedded as the token-weighted mean of the
embeddings of the grid pieces it covers, renormalised (the *pooled variant*).

The grid of a document is computed once: its cuts are the parser's block starts (the same
boundaries ICC cuts chunks at), and a block longer than the limit is cut further along
sentence boundaries, then whitespace, then (for a single enormous "word") model tokens,
packing greedily so each piece stays within the limit. Because the grid depends only on the
document, the pieces of a long span are mostly whole grid pieces shared by every span, chunk,
window and candidate that covers them: only the partial pieces at a span's two edges are new.
Each piece is embedded once per document.
"""

from __future__ import annotations

import bisect
from typing import Callable, Sequence

import numpy as np

from ..structure import SENTENCES, lent

class ModelTokenCounter:
    """Counts the embedding model's tokens (word pieces) of any span in O(log n).

    Built from the offsets where the model's tokens start, so it measures spans against the
    model's input limit. Not the chunk-size unit: that is
    :class:`~adachunk.split.common.DocumentTokens`, in the profile's tokenizer.
    """

    def __init__(self, starts: np.ndarray):
        self.starts = np.asarray(starts, dtype=np.int64)

    def rank(self, pos) -> np.ndarray | int:
        """Number of tokens starting before ``pos`` (vectorised)."""
        return np.searchsorted(self.starts, pos, side="left")

    def count(self, a: int, b: int) -> int:
        """Tokens starting in ``[a, b)``."""
        return int(self.rank(b) - self.rank(a))


def _whitespace_cuts(text: str, lo: int, hi: int) -> list[int]:
    """Positions inside ``(lo, hi)`` where a word starts after whitespace."""
    return [i for i in range(lo + 1, hi) if text[i - 1].isspace() and not text[i].isspace()]


def _sentence_cuts(text: str, lo: int, hi: int) -> list[int]:
    split_sentences = lent(SENTENCES)  # detect's sentence scanner (see adachunk.models.structure)
    return [lo + s for s, _ in split_sentences(text[lo:hi])[1:]]


class GridBuilder:
    """Cuts ``text`` so that every piece holds at most ``limit`` model tokens."""

    def __init__(self, text: str, tokens: ModelTokenCounter, limit: int):
        self.text = text
        self.tokens = tokens
        self.limit = max(1, limit)
        self._levels: list[Callable[[int, int], list[int]]] = [
            lambda lo, hi: _sentence_cuts(self.text, lo, hi),
            lambda lo, hi: _whitespace_cuts(self.text, lo, hi),
            self._token_cuts,
        ]

    def _token_cuts(self, lo: int, hi: int) -> list[int]:
        s = self.tokens.starts
        return [int(p) for p in s[self.tokens.rank(lo + 1) : self.tokens.rank(hi)]]

    def build(self, block_starts: Sequence[int]) -> np.ndarray:
        """All cuts, from 0 to ``len(text)``: block starts plus cuts inside long blocks."""
        n = len(self.text)
        bounds = sorted({0, n, *(int(s) for s in block_starts if 0 < s < n)})
        cuts: list[int] = []
        for lo, hi in zip(bounds, bounds[1:]):
            cuts.append(lo)
            cuts.extend(self.split(lo, hi, 0))
        cuts.append(n)
        return np.asarray(cuts, dtype=np.int64)

    def split(self, lo: int, hi: int, level: int) -> list[int]:
        """Interior cuts of ``[lo, hi)`` at ``level`` (0 sentences, 1 whitespace, 2 tokens)."""
        if self.tokens.count(lo, hi) <= self.limit:
            return []
        points = [p for p in self._levels[min(level, 2)](lo, hi) if lo < p < hi] + [hi]
        ranks = self.tokens.rank(np.asarray(points, dtype=np.int64))
        out: list[int] = []
        cur, k = lo, 0
        while cur < hi:
            budget = int(self.tokens.rank(cur)) + self.limit
            j = bisect.bisect_right(ranks, budget, lo=k) - 1  # furthest point within budget
            if j >= k:
                nxt = points[j]
            else:  # the next unit alone is too long: cut it at the finer level
                nxt = points[k]
                out.extend(self.split(cur, nxt, level + 1))
            if nxt < hi:
                out.append(nxt)
            cur = nxt
            k = bisect.bisect_right(points, cur, lo=k)
        return out


def pieces_of(grid: np.ndarray, a: int, b: int, count: Callable[[int, int], int],
              text: str | None = None) -> list[tuple[int, int]]:
    """The grid pieces that ``[a, b)`` covers, the two edge pieces clipped to the span, without
    those that hold no model token by ``count`` (:meth:`ModelTokenCounter.count`: whitespace
    alone is nothing to embed).

    With ``text``, an edge that only white space without a model token separates from a grid
    point moves to it: ``"...the end."`` and ``"...the end.\n"`` are the same word pieces, so
    the clipped piece is the grid piece every other span covering it shares (a chunk ends
    before the line break that starts the next grid piece: on CLAIR 44,000 of the 113,000 model
    tokens the fit embedded in pieces one chunk alone used).
    """
    i = int(np.searchsorted(grid, a, side="right"))
    j = int(np.searchsorted(grid, b, side="left"))
    if text is not None:
        # the interior grid points stay grid[i:j] when an edge moves out to its neighbour
        if i > 0 and grid[i - 1] < a and _blank(text, int(grid[i - 1]), a, count):
            a = int(grid[i - 1])
        if j < len(grid) and grid[j] > b and _blank(text, b, int(grid[j]), count):
            b = int(grid[j])
    bounds = [a, *(int(g) for g in grid[i:j]), b]
    return [(x, y) for x, y in zip(bounds, bounds[1:]) if y > x and count(x, y) > 0]


def _blank(text: str, a: int, b: int, count: Callable[[int, int], int]) -> bool:
    """Whether ``text[a:b]`` is white space in which no model token starts."""
    return text[a:b].isspace() and count(a, b) == 0
