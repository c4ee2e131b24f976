"""Reference computation of a shape's cost: every covered candidate, every segment.

:func:`adachunk.cost.lattice.shape_values` computes the same floats faster (it enumerates only
the candidates inside each segment, skips the rest of the region, and adds const rules up in
integers). :func:`shape_values` here is the straightforward version it is tested against
(``tests/parity/test_cost_lattice_parity.py``); :func:`ramp_batch` is also the fast version's
fallback for shapes whose segments overlap.
"""

from __future__ import annotations

import numpy as np

from .punishments import Shape

BATCH = 1 << 22  # covered positions per batch: bounds memory on nested structures


def regions(starts, ends, side: str, n: int):
    """Region ``[lo, hi)`` per span (origin ``lo``) and whether ``lo`` itself is excluded."""
    if side == "on":
        return starts, ends, True  # strictly inside: (start, end)
    nxt_idx = np.searchsorted(starts, ends, side="left")
    nxt = np.where(nxt_idx < len(starts), starts[np.minimum(nxt_idx, len(starts) - 1)], n)
    return ends, np.maximum(nxt, ends), False  # gap after: [end, next_start)


def shape_values(P: np.ndarray, starts, ends, shape: Shape, side: str, n: int,
                 batch: int = BATCH) -> np.ndarray:
    """Float cost of one shape on one side of every span, at every candidate (reference)."""
    m1 = len(P)
    out = np.zeros(m1, dtype=np.float64)
    if len(starts) == 0:
        return out
    lo, hi, open_lo = regions(starts, ends, side, n)
    k_lo = np.searchsorted(P, lo, side="right" if open_lo else "left")
    k_hi = np.searchsorted(P, hi, side="left")
    counts = np.maximum(k_hi - k_lo, 0)
    keep = counts > 0
    if not keep.any():
        return out
    lo, hi, k_lo, counts = lo[keep], hi[keep], k_lo[keep], counts[keep]
    if shape.is_const:
        return const_values(m1, k_lo, counts, shape.scale)
    for sl in batches(counts, batch):
        idx, vals = ramp_batch(P, lo[sl], hi[sl], k_lo[sl], counts[sl], shape)
        out += np.bincount(idx, weights=vals, minlength=m1)
    return out


def const_values(m1: int, k_lo, counts, scale: float) -> np.ndarray:
    """``scale`` at every covered candidate, summed over regions: a difference array, exact and
    O(spans + m) however deeply structures nest."""
    diff = np.zeros(m1 + 1, dtype=np.float64)
    np.add.at(diff, k_lo, scale)
    np.add.at(diff, k_lo + counts, -scale)
    return np.cumsum(diff[:-1])


def batches(counts, batch: int = BATCH):
    """Consecutive slices of regions holding about ``batch`` covered candidates each (at least
    one region), so expanded index arrays stay bounded in memory. The fast version uses the same
    batches, so overlapping spans add up in the same order (bit-identical floats)."""
    csum = np.cumsum(counts)
    first = 0
    while first < len(counts):
        base = csum[first - 1] if first else 0
        last = max(int(np.searchsorted(csum, base + batch, side="right")), first + 1)
        yield slice(first, last)
        first = last


def ramp_batch(P: np.ndarray, lo, hi, k_lo, counts, shape: Shape) -> tuple[np.ndarray, np.ndarray]:
    """Candidate indices and float values of a non-const shape over one batch of regions.

    Args:
        P: candidate positions (sorted code-point offsets).
        lo: region origin of each span (the shape's distance 0).
        hi: region end of each span.
        k_lo: index in ``P`` of each region's first candidate.
        counts: number of candidates in each region (all > 0).
        shape: the shape; its segments get the region lengths ``hi - lo``.

    Returns:
        ``(idx, vals)``: one entry per covered candidate, span by span in candidate order (the
        order in which the caller's ``bincount`` adds them up); 0.0 outside every segment.
    """
    span_of = np.repeat(np.arange(len(counts)), counts)
    offs = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    idx = k_lo[span_of] + offs
    d = (P[idx] - lo[span_of]).astype(np.float64)
    lengths = (hi - lo).astype(np.float64)
    vals = np.zeros(len(idx), dtype=np.float64)
    for d0, d1, v0, v1 in shape.segments(lengths):
        a, b, va, vb = d0[span_of], d1[span_of], v0[span_of], v1[span_of]
        inside = (d >= a) & (d < b)
        width = np.where(np.isfinite(b), b - a, 1.0)
        slope = np.where(np.isfinite(b) & (width > 0), (vb - va) / np.where(width > 0, width, 1.0), 0.0)
        vals += np.where(inside, va + slope * (d - a), 0.0)
    return idx, vals
