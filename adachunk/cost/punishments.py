"""Punishment shapes: how the cost of a cut varies across a region.

A rule punishes cuts ``on`` a structure (strictly inside it) and ``off`` it (in the gap after it,
up to the next structure with the same label). Within a region of length ``L`` a shape gives the
cost at distance ``d`` from the region's origin. Shapes are piecewise linear, described as
segments ``(d0, d1, v0, v1)``: on ``d0 <= d < d1`` the value goes linearly from ``v0`` to ``v1``
(outside every segment it is 0). New shapes register in :data:`adachunk.components.registry.shapes`.

The five shapes are darn's, made independent of the unit:

===================  =============================================================
``const``            ``scale`` everywhere in the region
``linear``           rises from 0 at the origin to ``scale`` (at the region end, or
                     after ``width`` characters, then stays at ``scale``)
``reverse_linear``   falls from ``scale`` at the origin to 0 (at the region end, or
                     after ``width`` characters: a decaying cost right after a heading)
``triangular``       0 at both edges, ``scale`` in the middle
``inverse_triangular`` ``scale`` at both edges, 0 in the middle
===================  =============================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..components.registry import shapes

Segments = list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]
ShapeFn = Callable[[np.ndarray, float, "float | None"], Segments]


@dataclass(frozen=True)
class Shape:
    """A resolved shape: its registered name, function, scale and optional width (chars)."""

    name: str
    fn: ShapeFn
    scale: float
    width: float | None = None

    @property
    def is_const(self) -> bool:
        """Whether the cost is flat over the region (lets the lattice skip per-position ramps)."""
        return self.name == "const"

    def segments(self, lengths: np.ndarray) -> Segments:
        """Segments for regions of the given lengths (arrays aligned with ``lengths``)."""
        return self.fn(lengths.astype(np.float64), float(self.scale), self.width)


def _full(lengths, value):
    return np.full(lengths.shape, float(value))


@shapes.register("const")
def const(lengths, scale, width):
    """``scale`` over the whole region."""
    return [(_full(lengths, 0), lengths, _full(lengths, scale), _full(lengths, scale))]


@shapes.register("linear")
def linear(lengths, scale, width):
    """0 → ``scale`` across the region (or across ``width``, then flat at ``scale``)."""
    if width:
        w = _full(lengths, width)
        return [(_full(lengths, 0), w, _full(lengths, 0), _full(lengths, scale)),
                (w, _full(lengths, np.inf), _full(lengths, scale), _full(lengths, scale))]
    return [(_full(lengths, 0), lengths, _full(lengths, 0), _full(lengths, scale))]


@shapes.register("reverse_linear")
def reverse_linear(lengths, scale, width):
    """``scale`` → 0 across the region (or across ``width``, then 0)."""
    end = _full(lengths, width) if width else lengths
    return [(_full(lengths, 0), end, _full(lengths, scale), _full(lengths, 0))]


@shapes.register("triangular")
def triangular(lengths, scale, width):
    """0 at the edges, ``scale`` in the middle: cutting mid-structure is worst."""
    half = lengths / 2.0
    return [(_full(lengths, 0), half, _full(lengths, 0), _full(lengths, scale)),
            (half, lengths, _full(lengths, scale), _full(lengths, 0))]


@shapes.register("inverse_triangular")
def inverse_triangular(lengths, scale, width):
    """``scale`` at the edges, 0 in the middle: avoid orphaning a few words at either end."""
    half = lengths / 2.0
    return [(_full(lengths, 0), half, _full(lengths, scale), _full(lengths, 0)),
            (half, lengths, _full(lengths, 0), _full(lengths, scale))]


def make_shape(name: str, scale: float, width: float | None = None) -> Shape:
    """Resolve a registered shape by name (raises ADA205 on an unknown name)."""
    return Shape(name=name, fn=shapes.get(name), scale=scale, width=width)
