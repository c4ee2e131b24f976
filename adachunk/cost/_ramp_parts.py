"""The numpy path of a lattice ramp: which candidates each segment of a shape covers, and their
values (:mod:`adachunk.cost.lattice` uses it when the compiled loops do not run, and keeps the
scale-free part per ramp so that a tuning trial's new scale is one multiply-add per covered
candidate). Every float is the reference's (:mod:`adachunk.cost.reference`), in its order.
"""

from __future__ import annotations

import numpy as np

from .candidates import Finder as _Finder
from .coverage_sum import ramp_sums, ramp_values
from .punishments import Shape
from .reference import ramp_batch


def _limits(find: _Finder, lo: np.ndarray, x: np.ndarray, nan: float) -> np.ndarray:
    """Index of the first candidate ``i`` with ``P[i] - lo >= x`` (per span; ``x`` float).

    Distances ``d = P[i] - lo`` are integers, so ``d >= x`` holds exactly when
    ``d >= ceil(x)``, and ``d < x`` exactly when ``d < ceil(x)``: the comparison moves to
    integers, where adding ``lo`` cannot round. ``nan`` replaces NaN bounds (a comparison with
    NaN is always false). Distances are never negative, so clipping at -1 changes nothing.
    """
    x = np.asarray(x, dtype=np.float64)
    if np.isnan(x).any():
        x = np.where(np.isnan(x), nan, x)
    t = np.ceil(np.clip(x, -1.0, float(1 << 53))).astype(np.int64)  # +-inf clip to the ends
    return find.search(lo + t, "left")


def _segment_geometry(find: _Finder, lo, k_lo, counts, segs):
    """Per (span, segment), span-major: first candidate index and candidate count.

    Returns None when two segments of one span share a candidate (a registered shape may
    overlap its segments; the reference then adds the values per candidate first).
    """
    region_end = k_lo + counts
    starts, cnts = [], []
    for d0, d1, _v0, _v1 in segs:
        first = np.maximum(_limits(find, lo, d0, float(1 << 53)), k_lo)
        stop = np.minimum(_limits(find, lo, d1, -1.0), region_end)
        starts.append(first)
        cnts.append(np.maximum(stop - first, 0))
    for s in range(len(segs)):
        for t in range(s + 1, len(segs)):
            both = (cnts[s] > 0) & (cnts[t] > 0)
            lo_max = np.maximum(starts[s], starts[t])
            if np.any(both & (lo_max < np.minimum(starts[s] + cnts[s], starts[t] + cnts[t]))):
                return None
    # rows in span-major order: contributions reach bincount in the reference's order
    return _interleave(starts), _interleave(cnts)


def _segment_lines(segs):
    """Per (span, segment), span-major: the line ``va + slope * (d - a)`` as ``(a, va, slope)``."""
    params = []
    for d0, d1, v0, v1 in segs:
        # the same per-span formulas the reference evaluates per candidate (identical floats)
        width = np.where(np.isfinite(d1), d1 - d0, 1.0)
        slope = np.where(np.isfinite(d1) & (width > 0),
                         (v1 - v0) / np.where(width > 0, width, 1.0), 0.0)
        params.append((d0, v0, slope))
    return tuple(_interleave([p[k] for p in params]) for k in range(3))


def _interleave(arrays: list[np.ndarray]) -> np.ndarray:
    """``[a0[0], a1[0], ..., a0[1], a1[1], ...]`` (span-major rows of per-segment arrays)."""
    if len(arrays) == 1:
        return arrays[0]
    k = len(arrays)
    out = np.empty(len(arrays[0]) * k, dtype=np.result_type(*arrays))
    for s, arr in enumerate(arrays):
        out[s::k] = arr
    return out


class _RampPart:
    """The scale-free part of a ramp over one batch of regions: the candidates each segment
    covers and their distances ``d - a`` (what :func:`_ramp_batch` computes before the line)."""

    def __init__(self, find: _Finder, lo, k_lo, counts, segs):
        self.d = [(d0, d1) for d0, d1, _, _ in segs]
        geometry = _segment_geometry(find, lo, k_lo, counts, segs)
        self.fallback = geometry is None
        if self.fallback:
            return
        first, self.cnt = geometry
        a = _segment_lines(segs)[0]
        idx = np.arange(int(self.cnt.sum()), dtype=np.int64)
        idx += np.repeat(first - (np.cumsum(self.cnt) - self.cnt), self.cnt)
        self.idx = idx
        # bins of the covered candidates: bincount over them adds the values of each candidate
        # in the same order as over all candidates, so the floats are the same. Disjoint spans
        # (paragraphs, the gaps after headings) cover each candidate once, in order: then there
        # is nothing to add up (inverse None), and a bincount's 0.0 + v is v (or 0.0 for -0.0,
        # the same integer once rounded)
        if len(idx) < 2 or bool(np.all(idx[1:] > idx[:-1])):
            self.unique, self.inverse = idx, None
        else:
            self.unique, self.inverse = np.unique(idx, return_inverse=True)
        pos = idx if find.arange else find.P[idx]
        base = (pos - np.repeat(np.repeat(lo, len(segs)), self.cnt)).astype(np.float64)
        base -= np.repeat(a, self.cnt)
        self.base = base

    def fits(self, segs) -> bool:
        """Whether ``segs`` cover the same candidates (only the values differ)."""
        return len(segs) == len(self.d) and all(
            np.array_equal(d0, e0) and np.array_equal(d1, e1) for (d0, d1, _, _), (e0, e1) in zip(segs, self.d))

    def values(self, segs) -> tuple[np.ndarray, np.ndarray]:
        """``(idx, vals)`` as :func:`_ramp_batch` returns them (same floats, same order)."""
        _a, va, slope = _segment_lines(segs)
        return self.idx, ramp_values(self.base, self.cnt, slope, va)


def _ramp_batch(find: _Finder, lo, hi, k_lo, counts, shape: Shape):
    """Candidate indices and values of a non-const shape over one batch of regions.

    Equal, value for value, to :func:`adachunk.cost.reference.ramp_batch` except that the
    candidates outside every segment (value 0) are left out: a reverse_linear ramp of width
    300 after a heading costs 300 candidates, not the whole gap to the next heading.
    """
    segs = shape.segments((hi - lo).astype(np.float64))
    part = _RampPart(find, lo, k_lo, counts, segs)
    if part.fallback:
        return ramp_batch(find.P, lo, hi, k_lo, counts, shape)
    return part.values(segs)


def add_ramp_parts(total: np.ndarray, parts: dict, find: _Finder, cov, slices, shape: Shape) -> None:
    """``total += rint(`` a non-const shape over the covered regions ``cov`` ``)`` on the numpy
    path, batch by batch (``slices``: the reference's batches with their region lengths).

    ``parts``: the ramp's :class:`_RampPart` per batch, kept by the caller across policies and
    rebuilt here when a new shape covers other candidates.
    """
    P = find.P
    lo, hi, k_lo, counts = cov
    out = np.zeros(len(P), dtype=np.float64) if len(slices) > 1 else None
    for b, (sl, lengths) in enumerate(slices):
        segs = shape.segments(lengths)
        part = parts.get(b)
        if part is None or not part.fits(segs):
            part = parts[b] = _RampPart(find, lo[sl], k_lo[sl], counts[sl], segs)
        if part.fallback:
            idx, vals = ramp_batch(P, lo[sl], hi[sl], k_lo[sl], counts[sl], shape)
        elif out is None:  # one batch: summed over the covered candidates only
            _a, va, slope = _segment_lines(segs)
            if part.inverse is None:
                sums = ramp_values(part.base, part.cnt, slope, va)
            else:
                sums = ramp_sums(part.base, part.inverse, part.cnt, slope, va, len(part.unique))
            total[part.unique] += np.rint(sums).astype(np.int64)
            return
        else:
            idx, vals = part.values(segs)
        if out is None:
            out = np.zeros(len(P), dtype=np.float64)
        out += np.bincount(idx, weights=vals, minlength=len(P))
    total += np.rint(out).astype(np.int64)
