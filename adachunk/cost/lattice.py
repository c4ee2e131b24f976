"""Cost of every candidate cut: the sum over rules of their punishments.

Candidates are code-point positions ``P[0..m]`` (every position for ``chars``, token boundaries
for ``tokens``). For each rule, each structure span contributes over the candidates in its
region; the work is O(m + covered positions) with numpy, never a Python loop per position.
Each rule's contribution is rounded to an integer separately, so an explanation's parts add up
exactly to the total the solver saw.

Speed without changing a single cost (``tests/test_cost_lattice_parity.py`` checks every float
against :mod:`adachunk.cost.reference`): const rules with an integral scale all go into one
integer difference array; a ramp visits only the candidates inside its segments (a 300-character
decay after a heading, not the whole gap to the next heading), with the same per-candidate
arithmetic in the same order; and with ``chars`` granularity (``P[i] == i``) binary searches
become index arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..types import SpanArrays, Structure, span_arrays
from .punishments import Shape
from .reference import BATCH as _BATCH
from .reference import batches, const_values, ramp_batch
from .reference import regions as _regions


@dataclass(frozen=True)
class CostRule:
    """A resolved punishment rule.

    Attributes:
        name: display name (profile rule name or ``<label>``).
        label: structure label it applies to.
        on: shape applied strictly inside each structure (or None).
        off: shape applied from a structure's end to the next structure's start (or None).
    """

    name: str
    label: str
    on: Shape | None = None
    off: Shape | None = None


def _is_arange(P: np.ndarray) -> bool:
    """Whether ``P[i] == i`` for every ``i`` (chars granularity): P is strictly increasing."""
    return len(P) > 0 and int(P[0]) == 0 and int(P[-1]) == len(P) - 1


def _search(P: np.ndarray, x: np.ndarray, side: str, arange: bool) -> np.ndarray:
    """``np.searchsorted(P, x, side)`` for integer ``x``; O(1) per value when P is an arange."""
    if arange:
        return np.clip(x + 1 if side == "right" else x, 0, len(P))
    return np.searchsorted(P, x, side=side)


def _limits(P: np.ndarray, lo: np.ndarray, x: np.ndarray, nan: float, arange: bool) -> np.ndarray:
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
    return _search(P, lo + t, "left", arange)


def _segment_rows(P, lo, hi, k_lo, counts, shape: Shape, arange: bool):
    """Per (span, segment): first candidate index, candidate count, and the segment's line.

    Returns None when two segments of one span share a candidate (a registered shape may
    overlap its segments; the reference then adds the values per candidate first).
    """
    lengths = (hi - lo).astype(np.float64)
    segs = shape.segments(lengths)
    region_end = k_lo + counts
    starts, cnts, params = [], [], []
    for d0, d1, v0, v1 in segs:
        first = np.maximum(_limits(P, lo, d0, float(1 << 53), arange), k_lo)
        stop = np.minimum(_limits(P, lo, d1, -1.0, arange), region_end)
        starts.append(first)
        cnts.append(np.maximum(stop - first, 0))
        # the same per-span formulas the reference evaluates per candidate (identical floats)
        width = np.where(np.isfinite(d1), d1 - d0, 1.0)
        slope = np.where(np.isfinite(d1) & (width > 0),
                         (v1 - v0) / np.where(width > 0, width, 1.0), 0.0)
        params.append((d0, v0, slope))
    for s in range(len(segs)):
        for t in range(s + 1, len(segs)):
            both = (cnts[s] > 0) & (cnts[t] > 0)
            lo_max = np.maximum(starts[s], starts[t])
            if np.any(both & (lo_max < np.minimum(starts[s] + cnts[s], starts[t] + cnts[t]))):
                return None
    # rows in span-major order: contributions reach bincount in the reference's order
    return (_interleave(starts), _interleave(cnts), np.repeat(lo, len(segs)),
            _interleave([p[0] for p in params]), _interleave([p[1] for p in params]),
            _interleave([p[2] for p in params]))


def _interleave(arrays: list[np.ndarray]) -> np.ndarray:
    """``[a0[0], a1[0], ..., a0[1], a1[1], ...]`` (span-major rows of per-segment arrays)."""
    if len(arrays) == 1:
        return arrays[0]
    k = len(arrays)
    out = np.empty(len(arrays[0]) * k, dtype=np.result_type(*arrays))
    for s, arr in enumerate(arrays):
        out[s::k] = arr
    return out


def _ramp_batch(P, lo, hi, k_lo, counts, shape: Shape, arange: bool):
    """Candidate indices and values of a non-const shape over one batch of regions.

    Equal, value for value, to :func:`adachunk.cost.reference.ramp_batch` except that the
    candidates outside every segment (value 0) are left out: a reverse_linear ramp of width
    300 after a heading costs 300 candidates, not the whole gap to the next heading.
    """
    rows = _segment_rows(P, lo, hi, k_lo, counts, shape, arange)
    if rows is None:
        return ramp_batch(P, lo, hi, k_lo, counts, shape)
    first, cnt, row_lo, a, va, slope = rows
    idx = np.arange(int(cnt.sum()), dtype=np.int64)
    idx += np.repeat(first - (np.cumsum(cnt) - cnt), cnt)
    pos = idx if arange else P[idx]
    # va + slope * (d - a), evaluated in place: IEEE + and * commute, so the floats are the same
    vals = (pos - np.repeat(row_lo, cnt)).astype(np.float64)
    vals -= np.repeat(a, cnt)
    vals *= np.repeat(slope, cnt)
    vals += np.repeat(va, cnt)
    return idx, vals


def _covered(P: np.ndarray, starts, ends, side: str, n: int, arange: bool = False):
    """Regions holding at least one candidate: ``(lo, hi, k_lo, counts)``, or None."""
    if len(starts) == 0:
        return None
    lo, hi, open_lo = _regions(starts, ends, side, n)
    k_lo = _search(P, lo, "right" if open_lo else "left", arange)
    k_hi = _search(P, hi, "left", arange)
    counts = np.maximum(k_hi - k_lo, 0)
    keep = counts > 0
    if not keep.any():
        return None
    return lo[keep], hi[keep], k_lo[keep], counts[keep]


def shape_values(P: np.ndarray, starts, ends, shape: Shape, side: str, n: int) -> np.ndarray:
    """Float cost of one shape on one side of every span, at every candidate."""
    m1 = len(P)
    out = np.zeros(m1, dtype=np.float64)
    arange = _is_arange(P)
    cov = _covered(P, starts, ends, side, n, arange)
    if cov is None:
        return out
    lo, hi, k_lo, counts = cov
    if shape.is_const:
        return const_values(m1, k_lo, counts, shape.scale)
    for sl in batches(counts, _BATCH):  # the reference's batches: the same order of addition
        idx, vals = _ramp_batch(P, lo[sl], hi[sl], k_lo[sl], counts[sl], shape, arange)
        out += np.bincount(idx, weights=vals, minlength=m1)
    return out


def _integral_const(shape: Shape | None) -> bool:
    return shape is not None and shape.is_const and float(shape.scale).is_integer()


def _const_marks(P: np.ndarray, starts, ends, side: str, n: int, arange: bool):
    """Where the regions of one side open and close: difference-array indices, or None."""
    cov = _covered(P, starts, ends, side, n, arange)
    if cov is None:
        return None
    _lo, _hi, k_lo, counts = cov
    return k_lo, k_lo + counts


def rule_cost(P: np.ndarray, spans: "list[Structure] | SpanArrays", rule: CostRule, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Integer ``(on, off)`` contributions of one rule at every candidate."""
    starts, ends = span_arrays(spans)
    zero = np.zeros(len(P), dtype=np.int64)
    on = np.rint(shape_values(P, starts, ends, rule.on, "on", n)).astype(np.int64) if rule.on else zero
    off = np.rint(shape_values(P, starts, ends, rule.off, "off", n)).astype(np.int64) if rule.off else zero
    return on, off


def build_costs(P: np.ndarray, structures: "dict[str, list[Structure] | SpanArrays]", rules: list[CostRule], n: int) -> np.ndarray:
    """Total integer cost per candidate (0 at both ends of the document).

    Const shapes with an integral scale (every shipped rule but the ramps) add their regions
    to one shared integer difference array, summed once at the end: per rule this is exactly
    the rounded float ``rule_cost`` (integers below 2**53 add exactly), without a pass over
    all candidates per rule.
    """
    total = np.zeros(len(P), dtype=np.int64)
    arange = _is_arange(P)
    marks, weights = [], []
    for rule in rules:
        starts, ends = span_arrays(structures.get(rule.label, []))
        for side, shape in (("on", rule.on), ("off", rule.off)):
            if shape is None:
                continue
            if _integral_const(shape):
                found = _const_marks(P, starts, ends, side, n, arange)
                if found is not None:
                    marks += found
                    scale = float(shape.scale)
                    weights += [np.full(len(found[0]), scale), np.full(len(found[1]), -scale)]
            else:
                total += np.rint(shape_values(P, starts, ends, shape, side, n)).astype(np.int64)
    if marks:
        # float sums of integers below 2**53 are exact, so one weighted bincount is exact too
        diff = np.bincount(np.concatenate(marks), weights=np.concatenate(weights),
                           minlength=len(P) + 1)
        total += np.cumsum(diff[:-1].astype(np.int64))
    if len(total):
        total[0] = 0
        total[-1] = 0
    return total


@dataclass(frozen=True)
class Contribution:
    """One rule's share of a cut's cost."""

    rule: str
    label: str
    side: str
    shape: str
    value: int


def breakdown(P, cut_idx, structures, rules: list[CostRule], n: int) -> list[list[Contribution]]:
    """Per chosen cut (candidate indices), the non-zero contributions of each rule."""
    out: list[list[Contribution]] = [[] for _ in cut_idx]
    idx = np.asarray(cut_idx, dtype=np.int64)
    last = len(P) - 1
    for rule in rules:
        on, off = rule_cost(P, structures.get(rule.label, []), rule, n)
        for side, arr, shp in (("on", on, rule.on), ("off", off, rule.off)):
            if shp is None:
                continue
            for k, i in enumerate(idx):
                if 0 < i < last and arr[i]:
                    out[k].append(Contribution(rule.name, rule.label, side, shp.name, int(arr[i])))
    return out
