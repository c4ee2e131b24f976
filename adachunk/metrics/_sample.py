"""Where the retrieval fit reads a long document when ``retrieval.sample`` is below 1.

The fit's cost is the model's pass over the document's text (:mod:`adachunk.metrics.retrieval`,
"Cost"): about one pass per document, whatever the pool. On a long document the candidates'
differences repeat from page to page, so the fit can ask its questions in a sample of the text
and rank, for each candidate, only the chunks that meet it: the model reads about the sampled
share. The sample is evenly spread slices of the text (a few pages each, the same for every
candidate), never less than :data:`FLOOR_CHARS` characters: a short document is read whole.
"""

from __future__ import annotations

import bisect
import math

Span = tuple[int, int]
SLICE_CHARS = 6_000  # about two pages: a slice holds whole sections' worth of chunks at every rung
FLOOR_CHARS = 60_000  # about 15k tokens: below this the document is read whole (a short filing or release
# sampled below it chose worse: bench/RESULTS.md, "The fit on a sample")


def windows(length: int, share: float) -> list[Span] | None:
    """The sampled character windows of a text of ``length`` characters (adjacent slices merged),
    or None when the whole text is read (``share`` 1, or the text no longer than the floor)."""
    share = max(share, FLOOR_CHARS / length) if length else 1.0
    if share >= 1:
        return None
    n = math.ceil(length / SLICE_CHARS)
    out: list[Span] = []
    for i in range(n):
        # slice i is kept when the running count of kept slices steps up (Bresenham: even spread)
        if math.floor((i + 1) * share) > math.floor(i * share):
            a, b = i * SLICE_CHARS, min(length, (i + 1) * SLICE_CHARS)
            if out and out[-1][1] == a:
                out[-1] = (out[-1][0], b)
            else:
                out.append((a, b))
    return out or None


def share_of(spans: list[Span], length: int) -> float:
    """The share of the text that ``spans`` cover."""
    return sum(b - a for a, b in spans) / length if length else 1.0


def meets(a: int, b: int, spans: list[Span]) -> bool:
    """Whether ``[a, b)`` overlaps one of the sorted disjoint ``spans``."""
    i = bisect.bisect_right(spans, (a, math.inf)) - 1
    return (i >= 0 and spans[i][1] > a) or (i + 1 < len(spans) and spans[i + 1][0] < b)


def within(evidence: tuple[Span, ...], spans: list[Span]) -> bool:
    """Whether every span of ``evidence`` lies inside one of ``spans``."""
    return all(any(s <= a and b <= e for s, e in spans) for a, b in evidence)
