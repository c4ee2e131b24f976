"""One compiled loop per lattice step: regions' candidate ranges, ramp rows, const sums.

:mod:`adachunk.cost.lattice` computes these with numpy, a dozen whole-array passes per rule
(searches, clips, masks, repeats); on a document of a million candidates those passes, and the
call overhead of each on the many small rules, were 14% of the chunking time. Each function
here does one rule in one pass over its spans, with the same arithmetic in the same order, so
the integers and floats are the numpy path's bit for bit
(``tests/parity/test_cost_lattice_loops.py`` runs both, compiled and as plain Python, against :mod:`adachunk.cost.reference`).

The functions are plain Python (their own reference twins) compiled by
:func:`adachunk.runtime.jit.compiled` when the lattice decides that pays. The helpers stay in this file:
Numba's disk cache notices edits to the compiled function's own file only.

``mode`` says how a candidate index is found (:class:`adachunk.cost.candidates.Finder`):
``ARANGE`` (``P[i] == i``) or ``TABLE`` (``rbase[x >> BLOCK_BITS] + roff[x]`` candidates
before ``x``: :func:`adachunk.cost.candidates.rank_table`).
"""

from __future__ import annotations

import numpy as np

ARANGE, TABLE = 0, 1
# the rank table's blocks (:func:`adachunk.cost.candidates.rank_table`): 2**8 = 256 positions, so
# a count inside one block fits the uint8 offset
BLOCK_BITS = 8
_BLOCK_MASK = (1 << BLOCK_BITS) - 1
_HUGE = float(1 << 53)


def _search(mode, P, rbase, roff, x):
    """``Finder.search(x, "left")`` for one integer ``x``: candidates strictly before ``x``.

    Only the two O(1) modes: a binary search in the same function as the loops slowed every
    mode's loop fourfold (measured), so a :class:`Finder` without a table keeps the numpy path.
    """
    if mode == ARANGE:
        return min(max(x, 0), len(P))
    t = min(max(x, 0), len(roff) - 1)
    return rbase[t >> BLOCK_BITS] + np.int64(roff[t])


def _ceil_bound(x, nan):
    """``ceil(clip(x, -1, 2**53))`` as an integer, ``nan`` replacing NaN (``lattice._limits``)."""
    if x != x:
        x = nan
    return np.int64(np.ceil(min(max(x, -1.0), _HUGE)))


def _gap_end(starts, a0, a1, lo, n):
    """Where the gap after a span ending at ``lo`` ends (``reference.regions``, side "off"):
    the first of ``starts[a0:a1]`` (sorted) that is ``>= lo`` (``np.searchsorted``, "left"),
    else ``n``; never before ``lo``."""
    t, t_hi = a0, a1
    while t < t_hi:
        mid = (t + t_hi) >> 1
        if starts[mid] < lo:
            t = mid + 1
        else:
            t_hi = mid
    hi = starts[t] if t < a1 else n
    return hi if hi >= lo else lo


def covered_loop(mode, P, rbase, roff, lo, hi, open_lo, lo_out, hi_out, k_out, cnt_out):
    """``lattice._covered`` once the regions ``[lo, hi)`` are known (``reference.regions``):
    the regions holding a candidate, written to the ``*_out`` arrays.

    ``open_lo``: the origin itself is excluded (regions strictly inside a span).

    Returns:
        How many regions were written (the rest of the output arrays is unused).
    """
    k = 0
    for r in range(len(lo)):
        a, b = lo[r], hi[r]
        first = _search(mode, P, rbase, roff, a + 1 if open_lo else a)  # "right" of an integer
        count = _search(mode, P, rbase, roff, b) - first
        if count > 0:
            lo_out[k] = a
            hi_out[k] = b
            k_out[k] = first
            cnt_out[k] = count
            k += 1
    return k


def _region(mode, P, rbase, roff, starts, ends, a0, a1, off, n, r):
    """Span ``r`` of the set ``starts[a0:a1]`` (sorted by start): its region as
    ``reference.regions`` makes it and ``covered_loop`` counts its candidates, ``(origin, hi,
    first candidate, count)`` (``off``: the gap ``[end, next start)``, else strictly inside the
    span)."""
    if not off:
        first = _search(mode, P, rbase, roff, starts[r] + 1)  # "right" of an integer
        return starts[r], ends[r], first, _search(mode, P, rbase, roff, ends[r]) - first
    lo = ends[r]
    hi = _gap_end(starts, a0, a1, lo, n)
    first = _search(mode, P, rbase, roff, lo)
    return lo, hi, first, _search(mode, P, rbase, roff, hi) - first


def _bounds(mode, P, rbase, roff, origin, region_lo, region_end, d0, d1):
    """The candidate range ``[i0, i1)`` of one ramp segment (distances ``d0`` to ``d1`` from
    ``origin``) inside its region's candidates ``[region_lo, region_end)``."""
    i0 = max(_search(mode, P, rbase, roff, origin + _ceil_bound(d0, _HUGE)), region_lo)
    i1 = min(_search(mode, P, rbase, roff, origin + _ceil_bound(d1, -1.0)), region_end)
    return i0, (i1 if i1 > i0 else i0)


def _add_segment(P, origin, a, b, v0, v1, i0, i1, acc):
    """One segment's values ``(d - a) * slope + v0`` at candidates ``[i0, i1)`` added into
    ``acc``, with the floats of ``lattice._RampPart`` and ``coverage_sum.ramp_values``."""
    width = b - a if np.isfinite(b) else 1.0
    slope = (v1 - v0) / width if np.isfinite(b) and width > 0 else 0.0
    for i in range(i0, i1):
        base = np.float64(P[i] - origin)
        base = base - a
        x = base * slope
        x = x + v0
        acc[i] += x


def const_sets_loop(mode, P, rbase, roff, starts, ends, bounds, sides, scales, n, diff):
    """Const rules straight from their spans into the int64 difference row ``diff``: what
    :func:`covered_loop` then :func:`marks_loop` do per rule, for every set in one call.

    Set ``j`` is the spans ``starts[bounds[j]:bounds[j + 1]]`` (sorted by start) on side
    ``sides[j]``: 0 ("on": the candidates strictly inside ``(start, end)``) or 1 ("off": those
    in ``[end, next start)``, the next start being the first start ``>= end`` of the set, else
    ``n``; ``reference.regions``), with the scale ``scales[j]``: added at the first candidate
    of each region holding one, taken at the one past its last. No region array is made: on a
    13 KB README the dozen calls and arrays per rule, not the adds, were the lattice's cost.
    """
    for j in range(sides.shape[0]):
        a0, a1, scale = bounds[j], bounds[j + 1], scales[j]
        for r in range(a0, a1):
            _origin, _hi, first, count = _region(mode, P, rbase, roff, starts, ends, a0, a1,
                                                 sides[j] != 0, n, r)
            if count > 0:
                diff[first] += scale
                diff[first + count] -= scale


def ramp_loop(mode, P, rbase, roff, lo, k_lo, counts, d0, d1, v0, v1, acc):
    """A ramp's values over one batch of regions, added into ``acc`` (floats, one per candidate).

    ``d0, d1, v0, v1`` are the shape's segments, one row per segment and one column per region:
    segment ``s`` runs from distance ``d0`` to ``d1`` (from the region origin ``lo``) with
    values from ``v0`` to ``v1``. Per region, segment by segment, each covered candidate gets
    ``(d - a) * slope + va``, exactly as ``lattice._RampPart`` and ``coverage_sum.ramp_values``
    compute it, added in the same order as their ``bincount``.

    Returns:
        ``(ok, a, b)``: the values landed in ``acc[a:b]`` only. ``ok`` is False, with ``acc``
        left partly filled, when two segments of one region share a candidate: the reference
        then adds the segments per candidate first, and the caller must use it instead.
    """
    segs = d0.shape[0]
    first = np.empty(segs, np.int64)
    stop = np.empty(segs, np.int64)
    touched_lo, touched_hi = len(acc), 0
    for r in range(len(lo)):
        origin, region_lo = lo[r], k_lo[r]
        region_end = region_lo + counts[r]
        for s in range(segs):
            first[s], stop[s] = _bounds(mode, P, rbase, roff, origin, region_lo, region_end,
                                        d0[s, r], d1[s, r])
        for s in range(segs):
            for t in range(s + 1, segs):
                if (stop[s] > first[s] and stop[t] > first[t]
                        and max(first[s], first[t]) < min(stop[s], stop[t])):
                    return False, 0, 0
        for s in range(segs):
            if stop[s] > first[s]:
                touched_lo = min(touched_lo, first[s])
                touched_hi = max(touched_hi, stop[s])
            _add_segment(P, origin, d0[s, r], d1[s, r], v0[s, r], v1[s, r], first[s], stop[s], acc)
    return True, touched_lo, max(touched_lo, touched_hi)


# the built-in ramps (:mod:`adachunk.cost.punishments`) that ramp_shape_loop evaluates itself
LINEAR, REVERSE_LINEAR, TRIANGULAR, INVERSE_TRIANGULAR = 1, 2, 3, 4


def _segments(code, width):
    """How many segments the built-in shape ``code`` has (``width`` 0.0: none given)."""
    if code == LINEAR:
        return 2 if width != 0.0 else 1
    return 1 if code == REVERSE_LINEAR else 2


def _segment(code, length, scale, width, s):
    """Segment ``s`` ``(d0, d1, v0, v1)`` of the built-in shape ``code`` over a region of
    ``length``: the floats the shape's function in ``punishments`` computes for that region
    (``width`` 0.0 where it tests ``if width`` false)."""
    if code == LINEAR:
        if width != 0.0:
            if s == 0:
                return 0.0, width, 0.0, scale
            return width, np.inf, scale, scale
        return 0.0, length, 0.0, scale
    if code == REVERSE_LINEAR:
        return 0.0, (width if width != 0.0 else length), scale, 0.0
    half = length / 2.0
    if code == TRIANGULAR:
        if s == 0:
            return 0.0, half, 0.0, scale
        return half, length, scale, 0.0
    if s == 0:  # INVERSE_TRIANGULAR
        return 0.0, half, scale, 0.0
    return half, length, 0.0, scale


def ramp_shape_loop(mode, P, rbase, roff, starts, ends, off, n, code, scale, width, batch, acc, total):
    """A built-in ramp from its spans to ``total``: ``covered_loop``, the shape's segments,
    :func:`ramp_loop` into the all-zero row ``acc`` and :func:`round_add_loop`, in one call and
    with the same floats, for spans (sorted by start) whose regions cover at most ``batch``
    candidates in all (the reference's one batch).

    Returns:
        False, with nothing written, when the regions cover more than ``batch`` candidates or
        two segments of a region share one: the caller's batched path does those.
    """
    segs = _segments(code, width)
    covered = 0
    for r in range(starts.shape[0]):  # first pass: the batch and the segments' overlaps
        origin, hi, region_lo, count = _region(mode, P, rbase, roff, starts, ends, 0, starts.shape[0],
                                               off, n, r)
        if count <= 0:
            continue
        covered += count
        if covered > batch:
            return False
        length = np.float64(hi - origin)
        if segs == 2:
            a0, a1, _u0, _u1 = _segment(code, length, scale, width, 0)
            b0, b1, _w0, _w1 = _segment(code, length, scale, width, 1)
            i0, i1 = _bounds(mode, P, rbase, roff, origin, region_lo, region_lo + count, a0, a1)
            j0, j1 = _bounds(mode, P, rbase, roff, origin, region_lo, region_lo + count, b0, b1)
            if i1 > i0 and j1 > j0 and max(i0, j0) < min(i1, j1):
                return False
    touched_lo, touched_hi = acc.shape[0], 0
    for r in range(starts.shape[0]):
        origin, hi, region_lo, count = _region(mode, P, rbase, roff, starts, ends, 0, starts.shape[0],
                                               off, n, r)
        if count <= 0:
            continue
        length = np.float64(hi - origin)
        for s in range(segs):
            a, b, v0, v1 = _segment(code, length, scale, width, s)
            i0, i1 = _bounds(mode, P, rbase, roff, origin, region_lo, region_lo + count, a, b)
            if i1 > i0:
                touched_lo = min(touched_lo, i0)
                touched_hi = max(touched_hi, i1)
            _add_segment(P, origin, a, b, v0, v1, i0, i1, acc)
    round_add_loop(acc, touched_lo, max(touched_lo, touched_hi), total)
    return True


def marks_loop(opens, closes, scale, diff):
    """One rule of ``coverage_sum.marks_sum``: ``scale`` added at its regions' opening candidate
    indices and taken at their closing ones, in the int64 difference row ``diff`` (``m1 + 1``
    entries; ``0 <= index <= m1``). Called once per rule, so the rules' marks are never
    concatenated (the words' alone are two arrays of a million entries per CLAIR document)."""
    for k in range(opens.shape[0]):
        diff[opens[k]] += scale
    for k in range(closes.shape[0]):
        diff[closes[k]] -= scale


def rank_loop(P, base, offset):
    """:func:`adachunk.cost.candidates.rank_table` in one pass over the positions: ``base[b]``
    the candidates before block ``b`` (256 positions), ``offset[x]`` those before ``x`` inside
    its block. ``offset`` comes all zero, ``P`` strictly increasing in ``[0, len(offset) - 2]``;
    every entry of both is written. ``P + 1`` is marked in ``offset`` first, then read back
    and overwritten position by position (the running count reads each mark before the
    position's own offset replaces it)."""
    for k in range(P.shape[0]):
        offset[P[k] + 1] = 1
    total = 0  # candidates before x
    first = 0  # candidates before x's block
    for x in range(offset.shape[0]):
        total += np.int64(offset[x])  # a uint8 sum would wrap at 256 (plain Python)
        if (x & _BLOCK_MASK) == 0:
            first = total
            base[x >> BLOCK_BITS] = total
        offset[x] = total - first


def running_sum_loop(diff, m1):
    """``diff[:m1]`` replaced by its running sum, in place, and returned: the difference row of
    :func:`marks_loop` as ``sum(scale * coverage)`` per candidate. In place because a second
    row over every candidate is a fresh mapping (page faults) once it passes glibc's 32 MB mmap
    threshold, about 4 M candidates."""
    run = 0
    for i in range(m1):
        run += diff[i]
        diff[i] = run
    return diff[:m1]


def round_add_loop(acc, a, b, total):
    """``total[a:b] += rint(acc[a:b])`` (as int64), then ``acc[a:b] = 0``.

    What ``total[a:b] += np.rint(acc[a:b]).astype(np.int64)`` computes (``rint`` rounds half to
    even in both), without its two temporaries over the candidates, and leaving ``acc`` all zero
    again: one scratch row serves every ramp of a lattice.
    """
    for i in range(a, b):
        total[i] += np.int64(np.rint(acc[i]))
        acc[i] = 0.0


def move_add_loop(acc, a, b, out):
    """``out[a:b] += acc[a:b]`` (floats), then ``acc[a:b] = 0``: one batch of a ramp summed on its
    own first, as ``bincount`` gives it, then added to the ramp's row."""
    for i in range(a, b):
        out[i] += acc[i]
        acc[i] = 0.0


HELPERS = (_search, _ceil_bound, _gap_end, _region, _bounds, _add_segment)
RAMP_HELPERS = HELPERS + (_segments, _segment, round_add_loop)
