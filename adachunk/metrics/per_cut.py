"""``bi_cut.v1`` and ``rc_cut.v1``: Block Integrity and References Completeness per cut.

The paper's BI and RC count the blocks and pairs a chunking breaks out of all blocks and pairs:
every extra cut can only break more, so both rise as chunks grow, and a selection weighing them
prefers the largest candidate whatever the reader can use. These variants measure the *damage
per cut* instead, which does not depend on how many cuts a chunk size needs:

* ``bi_cut``: the share of cuts that fall between protected blocks (no block has the cut inside
  it beyond ``metrics.bi_tolerance``); the blocks are BI's (:func:`~adachunk.metrics.blocks.protected_blocks`).
* ``rc_cut``: the share of cuts that separate no entity→pronoun pair (RC's pairs and rule).

Cuts are BI's (:func:`~adachunk.metrics.blocks.cut_points`). A chunking without cuts (one chunk)
scores 1.0; ``rc_cut`` is None when the document has no pairs, as RC. The paper's definitions
stay in ``bi.v1``/``rc.v1`` (``adachunk score``, the ``paper`` profile).
"""

from __future__ import annotations

import numpy as np

from ..components.registry import metrics
from ..datatypes import Chunk
from .base import Metric, MetricContext, MetricResult
from .blocks import cut_points, protected_blocks
from .references import document_pairs, pair_extents


def _inside(cuts: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Per cut: whether some interval ``(lo, hi)`` (open) holds it. Intervals may overlap."""
    if not len(lo):
        return np.zeros(len(cuts), dtype=bool)
    order = np.argsort(lo, kind="stable")
    lo, hi = lo[order], hi[order]
    reach = np.maximum.accumulate(hi)  # the furthest end among intervals starting at or before each
    k = np.searchsorted(lo, cuts, side="left") - 1  # last interval starting strictly before the cut
    ok = k >= 0
    out = np.zeros(len(cuts), dtype=bool)
    out[ok] = reach[k[ok]] > cuts[ok]
    return out


@metrics.register("bi_cut.v1")
class BlockIntegrityPerCut(Metric):
    """Share of cuts that break no protected block."""

    key = "bi_cut"

    def score(self, chunks: list[Chunk], ctx: MetricContext) -> MetricResult:
        """Score one chunking; detail lists the cuts that break a block."""
        if not chunks:
            return MetricResult(None, "no chunks")
        cuts = cut_points(chunks, with_ends=True)
        if not cuts:
            return MetricResult(1.0, "one chunk: no cut")
        blocks, source = ctx.memo(("bi.blocks",), lambda: protected_blocks(ctx.doc))
        if not blocks:
            return MetricResult(None, f"the document has no protected blocks ({source})")
        tol = ctx.settings.bi_tolerance
        lo = np.fromiter((a + tol for a, _ in blocks), dtype=np.int64, count=len(blocks))
        hi = np.fromiter((b - tol for _, b in blocks), dtype=np.int64, count=len(blocks))
        at = np.asarray(cuts, dtype=np.int64)
        bad = _inside(at, lo, hi)
        detail = [{"cut": int(c), "source": source} for c in at[bad]]
        return MetricResult(1.0 - float(bad.mean()), None, detail)


@metrics.register("rc_cut.v1")
class ReferencesPerCut(Metric):
    """Share of cuts that separate no entity→pronoun pair."""

    key = "rc_cut"

    def score(self, chunks: list[Chunk], ctx: MetricContext) -> MetricResult:
        """Score one chunking; detail lists the cuts that separate a pair, with how many."""
        if not chunks:
            return MetricResult(None, "no chunks")
        ps = document_pairs(ctx)
        if not ps.pairs:
            return MetricResult(None, ps.reason or "no entity→pronoun pairs")
        cuts = cut_points(chunks, with_ends=True)
        if not cuts:
            return MetricResult(1.0, "one chunk: no cut")
        # a pair (a, b) (b its inclusive end) is separated by a cut x when a < x <= b, i.e. x lies
        # in the open interval (a, b + 1)
        lo, hi = ctx.memo(("rc_cut.intervals", len(ps.pairs)), lambda: _pair_intervals(ps))
        at = np.asarray(cuts, dtype=np.int64)
        bad = _inside(at, lo, hi)
        note = ps.reason if ps.dropped else None
        return MetricResult(1.0 - float(bad.mean()), note, [{"cut": int(c)} for c in at[bad]])


def _pair_intervals(ps) -> tuple[np.ndarray, np.ndarray]:
    ext = pair_extents(ps)
    return (np.fromiter((a for a, _, _ in ext), dtype=np.int64, count=len(ext)),
            np.fromiter((b + 1 for _, b, _ in ext), dtype=np.int64, count=len(ext)))
