"""Cost of every candidate cut: the sum over rules of their punishments.

Candidates are code-point positions ``P[0..m]`` (every position for ``chars``, token boundaries
for ``tokens``). For each rule, each structure span contributes over the candidates in its
region; the work is O(m + covered positions) with numpy, never a Python loop per position.
Each rule's contribution is rounded to an integer separately, so an explanation's parts add up
exactly to the total the solver saw.

Speed without changing a single cost (``tests/parity/test_cost_lattice_parity.py`` checks every
float against :mod:`adachunk.cost.reference`): const rules with an integral scale all go into one
integer difference array; a ramp visits only the candidates inside its segments (a 300-character
decay after a heading, not the whole gap to the next heading), with the same per-candidate
arithmetic in the same order, and over disjoint spans (each candidate covered once) without a
per-candidate sum; binary searches become index arithmetic with ``chars`` granularity
(``P[i] == i``) and lookups in a table of ranks otherwise (:class:`_Finder`). Once Numba is
loaded (or from a million candidates) the regions, ramp rows and const sums run as compiled
loops, one pass per rule (:mod:`adachunk.cost._lattice_jit`), with the same values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..datatypes import SpanArrays, Structure, span_arrays
from . import _lattice_jit as jit
from .candidates import Finder as _Finder
from .coverage_sum import coverage_of, marks_sum, weighted_sum
from ._ramp_parts import _RampPart, _limits, _ramp_batch, _segment_lines  # noqa: F401 (tests reach them here)
from ._ramp_parts import add_ramp_parts
from .punishments import Shape
from .reference import BATCH as _BATCH
from .reference import batches, const_values
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


def _covered(find: _Finder, starts, ends, side: str, n: int):
    """Regions holding at least one candidate: ``(lo, hi, k_lo, counts)``, or None."""
    if len(starts) == 0:
        return None
    if jit.use_loops(find):
        return jit.covered(find, starts, ends, side, n)
    lo, hi, open_lo = _regions(starts, ends, side, n)
    k_lo = find.search(lo, "right" if open_lo else "left")
    k_hi = find.search(hi, "left")
    counts = np.maximum(k_hi - k_lo, 0)
    keep = counts > 0
    if not keep.any():
        return None
    return lo[keep], hi[keep], k_lo[keep], counts[keep]


def shape_values(P: np.ndarray, starts, ends, shape: Shape, side: str, n: int) -> np.ndarray:
    """Float cost of one shape on one side of every span, at every candidate."""
    m1 = len(P)
    out = np.zeros(m1, dtype=np.float64)
    find = _Finder(P)
    cov = _covered(find, starts, ends, side, n)
    if cov is None:
        return out
    lo, hi, k_lo, counts = cov
    if shape.is_const:
        return const_values(m1, k_lo, counts, shape.scale)
    for sl in batches(counts, _BATCH):  # the reference's batches: the same order of addition
        idx, vals = _ramp_batch(find, lo[sl], hi[sl], k_lo[sl], counts[sl], shape)
        out += np.bincount(idx, weights=vals, minlength=m1)
    return out


def _integral_const(shape: Shape | None) -> bool:
    return shape is not None and shape.is_const and float(shape.scale).is_integer()


def _const_marks(find: _Finder, starts, ends, side: str, n: int):
    """Where the regions of one side open and close: difference-array indices, or None."""
    cov = _covered(find, starts, ends, side, n)
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


class CostCache:
    """What the costs of one document's candidates ``P`` owe to its structures, kept across policies.

    A const rule's contribution is its integral scale times the number of its regions covering
    each candidate; that coverage count depends on the structure spans and the side, not on the
    scale. A ramp's rounded row depends on its shape too. Kept here (keyed by the very span
    arrays of the document's analysis, which are the same objects for every policy), a policy
    that only changes scales or adds rules costs one multiply-add per const rule and candidate:
    the tuning loop's lattice. What is kept per label and side is where its regions open and
    close (the marks of one difference array): the first policy sums every const rule in one
    pass over the marks, and coverage rows exist only once a second policy asks (stacked).
    Every value is the same integer :func:`build_costs` computes without a cache
    (``tests/test_analysis.py``, ``tests/parity/test_cost_lattice_parity.py`` check).

    With the compiled loops (:func:`~adachunk.cost._lattice_jit.use_loops`) the const rules and
    the built-in ramps skip that bookkeeping: each policy sums them from the spans in one call
    per document, which costs less than the cache did for the first policy and for a tuning
    trial alike (12 CLAIR documents: 9 → 5 ms a trial at o200k, 20 → 10 ms in characters);
    what stays kept there is the sorted spans, and the regions of plugin-shaped ramps.
    """

    def __init__(self, P: np.ndarray, n: int):
        self.P, self.n = P, n
        self.find = _Finder(P, n)
        self._rows: dict[tuple, tuple] = {}
        self._stacks: dict[tuple, tuple] = {}
        self.stats = {"hits": 0, "misses": 0}

    def _get(self, starts, ends, extra: tuple, compute):
        key = (id(starts), id(ends)) + extra
        found = self._rows.get(key)
        if found is not None and found[0] is starts and found[1] is ends:
            self.stats["hits"] += 1
            return found[2]
        self.stats["misses"] += 1
        value = compute()
        self._rows[key] = (starts, ends, value)  # holding the arrays keeps their ids unique
        return value

    def const_sum(self, consts: list[tuple[tuple, int]]) -> np.ndarray:
        """``sum(scale * coverage)`` of the const rules (int64), from their regions' marks.

        The first time, one integer difference pass over every rule's marks
        (:func:`~adachunk.cost.coverage_sum.marks_sum`: no coverage row per rule). The second
        time a policy asks for the same regions (the pool's second DP, every tuning trial) their
        coverage counts are stacked once into a matrix, summed in one pass from then on
        (:func:`~adachunk.cost.coverage_sum.weighted_sum`). The same integers either way.
        """
        merged: dict[int, list] = {}
        for marks, scale in consts:  # two rules on one label and side share one set of marks
            merged.setdefault(id(marks), [marks, 0])[1] += scale
        found = [mk for mk, _ in merged.values()]
        scales = np.array([s for _, s in merged.values()], dtype=np.int64)
        key = tuple(merged)
        stacked = self._stacks.get(key)
        if stacked is None:
            self._stacks[key] = (found, None)  # held: the ids stay unique
            return marks_sum(len(self.P), found, scales, jit=jit.use_loops(self.find))
        matrix = stacked[1]
        if matrix is None:
            covs = [coverage_of(len(self.P), *mk) for mk in found]
            # coverage counts are nesting depths: the narrowest type that holds them reads fastest
            peak = max(int(c.max(initial=0)) for c in covs)
            dtype = np.uint8 if peak <= 0xFF else np.uint16 if peak <= 0xFFFF else np.int32
            matrix = np.stack(covs).astype(dtype, copy=False)
            self._stacks[key] = (found, matrix)
        return weighted_sum(matrix, scales)

    def sorted_spans(self, spans) -> SpanArrays:
        """:func:`span_arrays` of a label's spans, checked for order once per array pair."""
        if _is_array_pair(spans):
            return self._get(spans[0], spans[1], ("sorted",), lambda: span_arrays(spans))
        return span_arrays(spans)

    def covered(self, starts, ends, side: str):
        """:func:`_covered` of one side of a label's spans (kept: const and ramp rules share it)."""
        return self._get(starts, ends, ("covered", side),
                         lambda: _covered(self.find, starts, ends, side, self.n))

    def marks(self, starts, ends, side: str) -> tuple[np.ndarray, np.ndarray] | None:
        """Where the regions of ``side`` open and close (difference-array indices), or None
        when no region holds a candidate."""
        def compute():
            cov = self.covered(starts, ends, side)
            return None if cov is None else (cov[2], cov[2] + cov[3])

        return self._get(starts, ends, ("marks", side), compute)

    def coverage(self, starts, ends, side: str) -> np.ndarray | None:
        """Regions of ``side`` covering each candidate (int32), or None when none covers any."""
        found = self.marks(starts, ends, side)
        return None if found is None else coverage_of(len(self.P), *found)

    def add_ramp(self, total: np.ndarray, starts, ends, side: str, shape: Shape,
                 scratch: np.ndarray | None = None) -> None:
        """Add the rounded integer row of a non-const (or fractional) shape to ``total``.

        ``scratch``: an all-zero float row over the candidates, which the compiled loops use and
        leave all zero (None: a new one when they need it).

        The rows themselves are not kept (a tuning loop tries many scales); what is kept is
        their scale-free part (:class:`_RampPart`: which candidates each segment covers), so
        a new scale costs one multiply-add per covered candidate, and a ramp that fits one
        batch is summed over the candidates it covers only, not over the whole document.
        """
        if shape.is_const:
            total += np.rint(shape_values(self.P, starts, ends, shape, side, self.n)).astype(np.int64)
            return
        loops = jit.use_loops(self.find)
        if loops and scratch is not None and jit.ramp_shape(self.find, starts, ends, side, self.n, shape,
                                                            _BATCH, scratch, total):
            return  # a built-in ramp in one batch: one call from the spans, nothing kept
        cov = self.covered(starts, ends, side)
        if cov is None:
            return
        lo, hi, _k_lo, counts = cov
        # the reference's batches and order, with each batch's region lengths
        slices = self._get(starts, ends, ("batches", side), lambda: _batch_rows(lo, hi, counts))
        if loops:  # one compiled pass per batch: nothing scale-free to keep
            jit.ramp_rows(self.find, cov, slices, shape, scratch, total)
            return
        parts = self._get(starts, ends, ("parts", side, shape.name, shape.width), dict)
        add_ramp_parts(total, parts, self.find, cov, slices, shape)


def build_costs(P: np.ndarray, structures: "dict[str, list[Structure] | SpanArrays]", rules: list[CostRule], n: int,
                cache: CostCache | None = None) -> np.ndarray:
    """Total integer cost per candidate (0 at both ends of the document).

    Const shapes with an integral scale (every shipped rule but the ramps) add their regions
    to one shared integer difference array, summed once at the end: per rule this is exactly
    the rounded float ``rule_cost`` (integers below 2**53 add exactly), without a pass over
    all candidates per rule. With a :class:`CostCache` (of the same ``P`` and ``n``) the same
    integers come from cached coverage counts and rows instead.
    """
    if cache is not None:
        return _cached_costs(cache, structures, rules)
    total = np.zeros(len(P), dtype=np.int64)
    find = _Finder(P, n)
    marks, scales = [], []
    for rule in rules:
        starts, ends = span_arrays(structures.get(rule.label, []))
        for side, shape in (("on", rule.on), ("off", rule.off)):
            if shape is None:
                continue
            if _integral_const(shape):
                found = _const_marks(find, starts, ends, side, n)
                if found is not None:
                    marks.append(found)
                    scales.append(int(shape.scale))
            else:
                total += np.rint(shape_values(P, starts, ends, shape, side, n)).astype(np.int64)
    if marks:
        total += marks_sum(len(P), marks, np.array(scales, dtype=np.int64))
    return _zero_ends(total)


def _zero_ends(total: np.ndarray) -> np.ndarray:
    if len(total):
        total[0] = 0
        total[-1] = 0
    return total


def _batch_rows(lo: np.ndarray, hi: np.ndarray, counts: np.ndarray) -> list[tuple[slice, np.ndarray]]:
    """The reference's batches of regions with each batch's region lengths ``hi - lo``.

    Regions covering at most one batch of candidates (every document but the longest) are one
    slice, as :func:`~adachunk.cost.reference.batches` gives them, without its generator and
    searches: the lattice asks once per ramp and document.
    """
    if int(counts.sum()) <= _BATCH:
        return [(slice(0, len(counts)), (hi - lo).astype(np.float64))]
    return [(sl, (hi[sl] - lo[sl]).astype(np.float64)) for sl in batches(counts, _BATCH)]


def _is_array_pair(spans) -> bool:
    """Whether a label's spans come as ``(starts, ends)`` arrays (else as Structures)."""
    return isinstance(spans, tuple) and len(spans) == 2 and isinstance(spans[0], np.ndarray)


def _has_spans(spans: "list[Structure] | SpanArrays") -> bool:
    """Whether a label has any span (as ``(starts, ends)`` arrays or as Structures)."""
    return len(spans[0] if _is_array_pair(spans) else spans) > 0


def _cached_costs(cache: CostCache, structures, rules: list[CostRule]) -> np.ndarray:
    """:func:`build_costs` from a :class:`CostCache` (same integers)."""
    consts: list[tuple[np.ndarray, int]] = []
    spans_consts = []  # (starts, ends, side, scale): the compiled loops sum these from the spans
    ramps = []
    loops = jit.use_loops(cache.find)
    for rule in rules:
        found = structures.get(rule.label)
        if found is None or not _has_spans(found):
            continue  # no span, no region on either side: nothing to add (most labels of a short text)
        starts, ends = cache.sorted_spans(found)
        for side, shape in (("on", rule.on), ("off", rule.off)):
            if shape is None:
                continue
            if _integral_const(shape) and loops:
                spans_consts.append((starts, ends, side, int(shape.scale)))
            elif _integral_const(shape):
                found = cache.marks(starts, ends, side)
                if found is not None:  # scale 0 too: the set of regions (the stack's key) stays fixed
                    consts.append((found, int(shape.scale)))
            else:
                ramps.append((starts, ends, side, shape))
    # integers add exactly in any order: the const sum (a new array) becomes the total, and the
    # ramps add into it, so no other row over the candidates is allocated. With the compiled
    # loops the const rules go from their spans to one difference row in one call per document
    # (no regions, marks or coverage kept: recomputing them costs less than the cache's
    # bookkeeping did, for the first policy and for a tuning trial alike).
    if loops:
        total = jit.const_total(cache.find, spans_consts, cache.n)
    else:
        total = cache.const_sum(consts) if consts else np.zeros(len(cache.P), dtype=np.int64)
    scratch = None
    if ramps and loops:
        scratch = np.zeros(len(cache.P), dtype=np.float64)
    for starts, ends, side, shape in ramps:
        cache.add_ramp(total, starts, ends, side, shape, scratch)
    return _zero_ends(total)


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
