"""Fixed-size token windows (``fixed.v1``), the plainest splitter of the pool.

Windows of ``size`` tokens of the whole-document tokenisation, optionally overlapping; the token
plumbing (:class:`~adachunk.split.common.DocumentTokens`,
:func:`~adachunk.split.common.make_chunking`) is shared with the other simple splitters in
:mod:`adachunk.split.common`.
"""

from __future__ import annotations

import bisect
import itertools

from pydantic import Field, model_validator

from ..components.params import ComponentParams
from ..policy import Policy
from ..components.registry import splitters
from ..datatypes import Chunking, Document
from .base import Splitter
from .common import DocumentTokens, make_chunking, token_index


class FixedParams(ComponentParams):
    """Fixed-size token windows."""

    chunk_size: int = Field(default=512, ge=4, description="tokens per window (own count, o200k by default)")
    chunk_overlap: int = Field(default=0, ge=0, description="tokens copied from the end of the previous window")

    @model_validator(mode="after")
    def _overlap(self) -> FixedParams:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(f"chunk_overlap ({self.chunk_overlap}) cannot be greater than or equal to "
                             f"chunk_size ({self.chunk_size})")
        return self


def fixed_windows(index: DocumentTokens, size: int) -> list[tuple[int, int]]:
    """Consecutive windows of at most ``size`` own tokens, cut at token boundaries.

    Cuts fall on token boundaries of the whole-document tokenisation that are also code-point
    boundaries; a window whose own count exceeds ``size`` (a cut through a long pre-token can
    re-tokenise differently) is shortened to the previous boundary.
    """
    n = len(index.text)
    out, a = [], 0
    while a < n:
        b = index.reach(a, size)
        if b <= a:  # one code point worth more than the whole budget
            b = index.prefix_within(a, n, size)
        while b > a + 1 and index.count(a, b) > size:
            k = bisect.bisect_left(index.positions, b) - 1
            b = index.positions[k] if index.positions[k] > a else index.prefix_within(a, b - 1, size)
        out.append((a, b))
        a = b
    return out


@splitters.register("fixed.v1")
class FixedSplitter(Splitter):
    """Baseline: fixed token windows with an optional token overlap."""

    Params = FixedParams

    def split(self, doc: Document, policy: Policy) -> Chunking:
        """Windows of ``chunk_size`` tokens (overlap included) tiling ``doc.text``."""
        p = self.params
        meta = {"chunk_size": p.chunk_size, "chunk_overlap": p.chunk_overlap, "tokenizer": policy.solver.tokenizer}
        if not doc.text:
            return Chunking([], "fixed.v1", meta)
        index = token_index(doc, policy.solver.tokenizer)
        cores = fixed_windows(index, p.chunk_size - p.chunk_overlap)
        starts = [a for a, _ in cores]
        if p.chunk_overlap:
            starts = [cores[0][0]] + [_overlap_start(index, pa, a, b, p.chunk_overlap, p.chunk_size)
                                      for (pa, _), (a, b) in itertools.pairwise(cores)]
        spans = [(s, b) for s, (_, b) in zip(starts, cores)]
        return make_chunking(doc, policy, spans, "fixed.v1", meta, core_starts=[a for a, _ in cores],
                             index=index)


def _overlap_start(index: DocumentTokens, prev: int, a: int, b: int, overlap: int, size: int) -> int:
    """Earliest token boundary in ``[prev, a)`` giving <= ``overlap`` tokens and a chunk <= ``size``.

    The estimate proposes the boundary; own counts confirm it, moving towards ``a`` if needed.
    """
    pos, sizes = index.positions, index.sizes
    ka = bisect.bisect_left(pos, a)
    k = max(bisect.bisect_left(pos, prev), bisect.bisect_left(sizes, sizes[ka] - overlap))
    while k < ka and not index.fits(pos[k], a, overlap):  # small spans: own count near the limit
        k += 1
    while k < ka and index.count(pos[k], b) > size:  # the whole chunk, once in practice
        k += 1
    return pos[k] if k < ka else a
