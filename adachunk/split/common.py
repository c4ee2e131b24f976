"""Token plumbing shared by the simple splitters (fixed, recursive, page, sentence, post-processing).

:class:`DocumentTokens` tokenises a document once with the profile's tokenizer (the unit of chunk
sizes) and answers "how many tokens in ``[a, b)``?" in O(log n) from the whole-document
tokenisation (:meth:`DocumentTokens.estimate`). A slice tokenised on its own can differ from that
estimate by a token or two at its edges, so decisions far from a limit use the estimate and
decisions near it use the slice's own count (:meth:`DocumentTokens.fits`, memoised). This keeps the recursive splitter near-linear while every final chunk is still checked
on its own count. :func:`make_chunking` turns spans into chunks the same way for every splitter of
this package (own token counts, heading paths and pages via :func:`build_chunks`).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from ..policy import Policy
from ..tokens import get_counter
from ..datatypes import Chunking, Document
from .assemble import HeadingIndex, build_chunks, markdown_headings

# Estimates and own counts of a slice differ only at its two edges (a pre-token cut in two, a
# whitespace run whose look-ahead changes). Measured on CLAIR with o200k: at most 1 token for
# spans cut at separators, 4 for spans cut anywhere. Inside this band around a limit the own count
# decides; outside it the estimate does, and final chunks are verified on their own counts anyway.
MARGIN = 8


class DocumentTokens:
    """One document tokenised once by the chunk-size tokenizer: estimates and own counts of spans.

    Not to be confused with :class:`~adachunk.models.embedders.pooling.ModelTokenCounter`,
    which counts an embedding model's word pieces, a different unit.

    Attributes:
        text: the document text.
        counter: the token counter (``count`` and ``boundaries``).
        positions: code-point offsets of the token boundaries (0 .. len(text)).
        sizes: tokens before each of ``positions``.
    """

    def __init__(self, text: str, counter, boundaries: tuple | None = None):
        self.text = text
        self.counter = counter
        pos, sizes = boundaries if boundaries is not None else counter.boundaries(text)
        self.positions: list[int] = pos.tolist()
        self.sizes: list[int] = sizes.tolist()
        self._own: dict[tuple[int, int], int] = {}

    def estimate(self, a: int, b: int) -> int:
        """Tokens of the whole-document tokenisation that overlap ``[a, b)``."""
        if b <= a:
            return 0
        lo = bisect.bisect_right(self.positions, a) - 1
        hi = bisect.bisect_left(self.positions, b)
        return self.sizes[hi] - self.sizes[lo]

    def count(self, a: int, b: int) -> int:
        """Own token count of ``text[a:b]`` (tokenised on its own; memoised)."""
        key = (a, b)
        n = self._own.get(key)
        if n is None:
            n = self._own[key] = self.counter.count(self.text[a:b]) if b > a else 0
        return n

    def known(self, a: int, b: int) -> int | None:
        """The own count of ``[a, b)`` if it was already computed, else None."""
        return self._own.get((a, b))

    def fits(self, a: int, b: int, limit: int, margin: int = MARGIN) -> bool:
        """Whether ``text[a:b]`` has at most ``limit`` tokens (own count near the limit)."""
        est = self.estimate(a, b)
        if est <= limit - margin:
            return True
        if est > limit + margin:
            return False
        return self.count(a, b) <= limit

    def reach(self, a: int, limit: int) -> int:
        """Largest token-boundary position ``p`` with ``estimate(a, p) <= limit`` (>= a)."""
        lo = bisect.bisect_right(self.positions, a) - 1
        k = bisect.bisect_right(self.sizes, self.sizes[lo] + limit) - 1
        return max(a, self.positions[k])

    def prefix_within(self, a: int, b: int, limit: int) -> int:
        """End of the longest prefix of ``[a, b)`` whose own count is <= ``limit`` (>= a + 1).

        Binary search on the character length as the paper's hard split does, but only over
        the window the estimate allows, so each probe tokenises about ``limit`` tokens. At least
        one code point is taken so that progress is guaranteed.
        """
        hi = min(b, self.reach(a, limit + MARGIN) + 1)
        lo, best = a + 1, a
        while lo <= hi:
            mid = (lo + hi) // 2
            if self.count(a, mid) <= limit:
                best, lo = mid, mid + 1
            else:
                hi = mid - 1
        return max(best, a + 1)


def token_index(doc: Document, tokenizer: str) -> DocumentTokens:
    """The document's shared :class:`DocumentTokens` (every candidate and post-processing reuse
    it), kept in the document's analysis over its stored token boundaries."""
    from ..analysis import analysis_of

    analysis = analysis_of(doc)
    return analysis.memo(("token_index", tokenizer), lambda: DocumentTokens(
        analysis.text, get_counter(tokenizer), boundaries=analysis.boundaries(tokenizer)))


def heading_index(doc: Document) -> HeadingIndex:
    """Markdown heading paths of a document (one parse shared by every stage), kept in the
    document's analysis."""
    from ..analysis import analysis_of

    analysis = analysis_of(doc)
    return analysis.memo(("heading_index",), lambda: HeadingIndex(analysis.text, markdown_headings(analysis)))


def make_chunking(doc: Document, policy: Policy, spans: Sequence[tuple[int, int]], splitter: str,
                  meta: dict | None = None, core_starts: Sequence[int] | None = None,
                  index: DocumentTokens | None = None, absorb: bool = True) -> Chunking:
    """A :class:`Chunking` from spans (own token counts, heading paths, pages, ids).

    ``size`` is in the profile's solver unit (tokens of the core span, or characters). Own counts
    the splitter already made through ``index`` are reused, not recomputed. ``absorb=False``
    keeps a span of nothing but page furniture as a chunk (:mod:`adachunk.split.furniture`).
    """
    counter = get_counter(policy.solver.tokenizer)
    cache: dict[str, int] = {}
    if index is not None and index.counter is counter:
        for i, (s, e) in enumerate(spans):
            for a in {s, core_starts[i] if core_starts is not None else s}:
                known = index.known(a, e)
                if known is not None:
                    cache[doc.text[a:e]] = known

    def count(text: str) -> int:
        n = cache.get(text)
        if n is None:
            n = cache[text] = counter.count(text)
        return n

    if policy.solver.granularity == "chars":
        def unit(s: int, e: int) -> int:
            return e - s
    else:
        def unit(s: int, e: int) -> int:
            return count(doc.text[s:e])

    chunks = build_chunks(doc, spans, fingerprint=policy.fingerprint, count_tokens=count, unit_size=unit,
                          headings=heading_index(doc) if doc.text else None, core_starts=core_starts,
                          absorb=absorb)
    return Chunking(chunks, splitter, dict(meta or {}))
