"""When and how the cost lattice runs its compiled loops (:mod:`adachunk.cost._lattice_loops`).

:mod:`adachunk.cost.lattice` asks :func:`use_loops` per document, then calls :func:`covered`
(the regions of one label and side that hold a candidate) and :func:`ramp_rows` (a non-const
shape, one :func:`ramp` per batch of regions) instead of its numpy passes; both give the numpy
path's arrays and floats exactly (``tests/parity/test_cost_lattice_loops.py``). The compiled
functions live in a file of their own, which Numba's disk cache watches.
"""

from __future__ import annotations

import numpy as np

from ..runtime.jit import compiled, numba_loaded
from . import _lattice_loops as loops
from .candidates import JIT_MIN_CANDIDATES, Finder
from . import punishments
from .punishments import Shape
from .reference import ramp_batch
from .reference import regions as _regions


def use_loops(find: Finder) -> bool:
    """Whether the lattice over ``find``'s candidates runs the compiled loops (same values):
    Numba is loaded or the document is long, and each search is O(1)."""
    return (find.arange or find.rank is not None) and (
        numba_loaded() or len(find.P) >= JIT_MIN_CANDIDATES)


def loop_args(find: Finder) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``(mode, P, base, offset)`` of ``find`` as the compiled loops take them (fixed dtypes)."""
    args = find.loop_args
    if args is None:
        P = np.ascontiguousarray(find.P, dtype=np.int64)
        if find.arange:
            args = (loops.ARANGE, P, np.zeros(1, np.int64), np.zeros(1, np.uint8))
        else:
            base, offset = find.rank
            args = (loops.TABLE, P, np.ascontiguousarray(base, dtype=np.int64),
                    np.ascontiguousarray(offset, dtype=np.uint8))
        find.loop_args = args
    return args


def covered(find: Finder, starts, ends, side: str, n: int):
    """:func:`adachunk.cost.lattice._covered` in one compiled pass over the spans (same arrays)."""
    mode, P, base, offset = loop_args(find)
    lo, hi, open_lo = _regions(starts, ends, side, n)
    lo = np.ascontiguousarray(lo, dtype=np.int64)
    hi = np.ascontiguousarray(hi, dtype=np.int64)
    out = np.empty((4, len(lo)), np.int64)  # one allocation: its rows are the four outputs
    k = compiled(loops.covered_loop, loops.HELPERS)(mode, P, base, offset, lo, hi, open_lo, *out)
    if k == 0:
        return None
    return tuple(a[:k] for a in out)


# sets with up to this many spans in all go to const_sets_loop in one concatenated call; a
# larger one (the words of a long document) is passed as it is, in a call of its own
_CONCAT_SPANS = 1 << 16


def const_total(find: Finder, sets: list[tuple[np.ndarray, np.ndarray, str, int]], n: int) -> np.ndarray:
    """``sum(scale * coverage)`` of const rules given as ``(starts, ends, side, scale)`` (starts
    sorted): the integers of ``covered`` then ``coverage_sum.marks_sum``, from one difference
    row filled by :func:`~._lattice_loops.const_sets_loop` (rules on the same spans and side
    add their scales first: integers, the same sums)."""
    mode, P, base, offset = loop_args(find)
    m1 = len(P)
    merged: dict[tuple, list] = {}
    for starts, ends, side, scale in sets:
        merged.setdefault((id(starts), id(ends), side), [starts, ends, side, 0])[3] += scale
    used = [entry for entry in merged.values() if entry[3] and len(entry[0])]
    diff = np.zeros(m1 + 1, np.int64)
    fill = compiled(loops.const_sets_loop, loops.HELPERS)
    small = [u for u in used if len(u[0]) <= _CONCAT_SPANS]
    groups = [small] if small else []
    groups += [[u] for u in used if len(u[0]) > _CONCAT_SPANS]
    for group in groups:
        bounds = np.zeros(len(group) + 1, np.int64)
        np.cumsum([len(u[0]) for u in group], out=bounds[1:])
        if len(group) == 1:
            starts, ends = group[0][0], group[0][1]
        else:
            starts, ends = np.concatenate([u[0] for u in group]), np.concatenate([u[1] for u in group])
        fill(mode, P, base, offset, np.ascontiguousarray(starts, np.int64), np.ascontiguousarray(ends, np.int64),
             bounds, np.array([u[2] == "off" for u in group], np.int64),
             np.array([u[3] for u in group], np.int64), np.int64(n), diff)
    return compiled(loops.running_sum_loop)(diff, np.int64(m1))


# the shape functions ramp_shape_loop evaluates itself, by their code there
_BUILT_IN_RAMPS = {punishments.linear: loops.LINEAR, punishments.reverse_linear: loops.REVERSE_LINEAR,
                   punishments.triangular: loops.TRIANGULAR,
                   punishments.inverse_triangular: loops.INVERSE_TRIANGULAR}


def ramp_shape(find: Finder, starts: np.ndarray, ends: np.ndarray, side: str, n: int, shape: Shape,
               batch: int, scratch: np.ndarray, total: np.ndarray) -> bool:
    """``total += rint(`` the ramp of a built-in shape on one side of the spans (sorted) ``)``
    in one compiled call, from the spans themselves (no region arrays, segments or rows made):
    :func:`~._lattice_loops.ramp_shape_loop`. ``scratch``: an all-zero float row over the
    candidates, left all zero.

    Returns:
        False, with nothing added, for a shape of another kind (a registered plugin), regions
        covering more than ``batch`` candidates (the reference adds those batch by batch) or
        overlapping segments: the caller's path then does it.
    """
    code = _BUILT_IN_RAMPS.get(shape.fn)
    width = 0.0 if shape.width is None else float(shape.width)
    if code is None or not np.isfinite(width) or not np.isfinite(float(shape.scale)):
        return False
    mode, P, base, offset = loop_args(find)
    return bool(compiled(loops.ramp_shape_loop, loops.RAMP_HELPERS)(
        mode, P, base, offset, np.ascontiguousarray(starts, np.int64), np.ascontiguousarray(ends, np.int64),
        side == "off", np.int64(n), np.int64(code), float(shape.scale), width, np.int64(batch), scratch, total))


def ramp(find: Finder, lo, hi, k_lo, counts, shape: Shape, lengths: np.ndarray,
         acc: np.ndarray | None = None):
    """A non-const shape over one batch of regions, compiled: ``(acc, a, b)``, the floats per
    candidate that ``bincount`` of :func:`adachunk.cost.lattice._ramp_batch` (or of the reference when segments
    overlap) gives, non-zero only in ``acc[a:b]``. ``lengths``: the regions' ``hi - lo``.

    ``acc``: an all-zero float row over the candidates to fill (a scratch row the caller clears
    again, see :func:`round_add`); None: a new one. When the segments overlap the values come
    in a new row and ``acc`` is left all zero.
    """
    mode, P, base, offset = loop_args(find)
    segs = shape.segments(lengths)
    if acc is None:
        acc = np.zeros(len(P), dtype=np.float64)
    # one row per segment (a shape gives an array per region for each of d0, d1, v0, v1)
    cols = [np.array([seg[k] for seg in segs], dtype=np.float64).reshape(len(segs), -1) for k in range(4)]
    ok, a, b = compiled(loops.ramp_loop, loops.HELPERS)(mode, P, base, offset, lo, k_lo, counts, *cols, acc)
    if ok:
        return acc, a, b
    acc[:] = 0.0  # partly filled before the overlap was found
    idx, vals = ramp_batch(find.P, lo, hi, k_lo, counts, shape)  # overlapping segments
    return np.bincount(idx, weights=vals, minlength=len(P)), 0, len(P)


def round_add(acc: np.ndarray, a: int, b: int, total: np.ndarray) -> None:
    """``total[a:b] += rint(acc[a:b])`` in int64 and ``acc[a:b] = 0``, in one compiled pass."""
    compiled(loops.round_add_loop)(acc, np.int64(a), np.int64(b), total)


def move_add(acc: np.ndarray, a: int, b: int, out: np.ndarray) -> None:
    """``out[a:b] += acc[a:b]`` and ``acc[a:b] = 0``, in one compiled pass."""
    compiled(loops.move_add_loop)(acc, np.int64(a), np.int64(b), out)


def ramp_rows(find: Finder, cov, slices, shape: Shape, scratch: np.ndarray | None,
              total: np.ndarray) -> None:
    """``total += rint(`` a non-const shape over the covered regions ``cov`` ``)``, one compiled
    :func:`ramp` per batch (``slices``: the reference's batches with their region lengths).

    ``scratch``: an all-zero float row over the candidates, left all zero (None: a new one).
    """
    lo, hi, k_lo, counts = cov
    # Every row over the candidates comes from one scratch row, left all zero after
    # each use: at 20 MB of text a fresh row is a 36 MB mapping, faulted in page by
    # page (the lattice's system time was 0.2 s of its 0.44 s there).
    if scratch is None:
        scratch = np.zeros(len(find.P), dtype=np.float64)
    if len(slices) == 1:  # rounded over the candidates it reaches only
        acc, a, b = ramp(find, lo, hi, k_lo, counts, shape, slices[0][1], scratch)
        round_add(acc, a, b, total)
        return
    out = np.zeros(len(find.P), dtype=np.float64)
    for k, (sl, lengths) in enumerate(slices):  # each batch summed on its own first, as bincount does
        # the first batch lands in the zero row itself (0.0 + x is x, or 0.0 for -0.0)
        acc, a, b = ramp(find, lo[sl], hi[sl], k_lo[sl], counts[sl], shape, lengths,
                         out if k == 0 else scratch)
        if acc is not out:
            move_add(acc, a, b, out)
    round_add(out, 0, len(out), total)
