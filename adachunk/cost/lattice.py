"""Cost of every candidate cut: the sum over rules of their punishments.

Candidates are code-point positions ``P[0..m]`` (every position for ``chars``, token boundaries
for ``tokens``). For each rule, each structure span contributes over the candidates in its
region; the work is O(m + covered positions) with numpy, never a Python loop per position.
Each rule's contribution is rounded to an integer separately, so an explanation's parts add up
exactly to the total the solver saw.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..types import SpanArrays, Structure, span_arrays
from .punishments import Shape

_BATCH = 1 << 22  # covered positions per batch: bounds memory on nested structures


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


def _regions(starts, ends, side: str, n: int):
    """Region ``[lo, hi)`` per span (origin ``lo``) and whether ``lo`` itself is excluded."""
    if side == "on":
        return starts, ends, True  # strictly inside: (start, end)
    nxt_idx = np.searchsorted(starts, ends, side="left")
    nxt = np.where(nxt_idx < len(starts), starts[np.minimum(nxt_idx, len(starts) - 1)], n)
    return ends, np.maximum(nxt, ends), False  # gap after: [end, next_start)


def shape_values(P: np.ndarray, starts, ends, shape: Shape, side: str, n: int) -> np.ndarray:
    """Float cost of one shape on one side of every span, at every candidate."""
    m1 = len(P)
    out = np.zeros(m1, dtype=np.float64)
    if len(starts) == 0:
        return out
    lo, hi, open_lo = _regions(starts, ends, side, n)
    k_lo = np.searchsorted(P, lo, side="right" if open_lo else "left")
    k_hi = np.searchsorted(P, hi, side="left")
    counts = np.maximum(k_hi - k_lo, 0)
    keep = counts > 0
    if not keep.any():
        return out
    lo, hi, k_lo, counts = lo[keep], hi[keep], k_lo[keep], counts[keep]
    if shape.is_const:
        # difference array: exact and O(spans + m) however deeply structures nest
        diff = np.zeros(m1 + 1, dtype=np.float64)
        np.add.at(diff, k_lo, shape.scale)
        np.add.at(diff, k_lo + counts, -shape.scale)
        return np.cumsum(diff[:-1])
    csum = np.cumsum(counts)
    first = 0
    while first < len(counts):
        # batch spans so the expanded index arrays stay bounded in memory
        base = csum[first - 1] if first else 0
        last = int(np.searchsorted(csum, base + _BATCH, side="right"))
        last = max(last, first + 1)
        sl = slice(first, last)
        cnt = counts[sl]
        span_of = np.repeat(np.arange(len(cnt)), cnt)
        offs = np.arange(int(cnt.sum())) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        idx = k_lo[sl][span_of] + offs
        d = (P[idx] - lo[sl][span_of]).astype(np.float64)
        lengths = (hi[sl] - lo[sl]).astype(np.float64)
        vals = np.zeros(len(idx), dtype=np.float64)
        for d0, d1, v0, v1 in shape.segments(lengths):
            a, b, va, vb = d0[span_of], d1[span_of], v0[span_of], v1[span_of]
            inside = (d >= a) & (d < b)
            width = np.where(np.isfinite(b), b - a, 1.0)
            slope = np.where(np.isfinite(b) & (width > 0), (vb - va) / np.where(width > 0, width, 1.0), 0.0)
            vals += np.where(inside, va + slope * (d - a), 0.0)
        out += np.bincount(idx, weights=vals, minlength=m1)
        first = last
    return out


def rule_cost(P: np.ndarray, spans: "list[Structure] | SpanArrays", rule: CostRule, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Integer ``(on, off)`` contributions of one rule at every candidate."""
    starts, ends = span_arrays(spans)
    zero = np.zeros(len(P), dtype=np.int64)
    on = np.rint(shape_values(P, starts, ends, rule.on, "on", n)).astype(np.int64) if rule.on else zero
    off = np.rint(shape_values(P, starts, ends, rule.off, "off", n)).astype(np.int64) if rule.off else zero
    return on, off


def build_costs(P: np.ndarray, structures: "dict[str, list[Structure] | SpanArrays]", rules: list[CostRule], n: int) -> np.ndarray:
    """Total integer cost per candidate (0 at both ends of the document)."""
    total = np.zeros(len(P), dtype=np.int64)
    for rule in rules:
        on, off = rule_cost(P, structures.get(rule.label, []), rule, n)
        total += on
        total += off
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
