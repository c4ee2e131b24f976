"""Columns of a page by recursive XY-cut on word boxes: reading order for multi-column layouts.

A region of the page is cut at a vertical gap (a gutter no word crosses) when both sides are
text columns, and otherwise into bands at the wide horizontal gaps (wider than a line gap). The
leaves are read in order: bands top to bottom, columns left to right, so a three-column gazette
reads column by column and a full-width heading, table or footnote between column sections
stays where it sits. Cutting at word gaps rather than at lines matters: a narrow gutter (the
US Federal Register's is under one font size) is narrower than a justified line's widest word
space would allow a line splitter to trust, so lines are only built inside a leaf.

Two guards keep the usual failure of XY-cut away. A vertical cut needs three rows of words and
a width of a text column on each side (a label and its value, or a date set to the right of an
address, are not columns). Bands that share a gutter are merged back before they are cut, so
columns set on a common baseline grid (all gaps between lines at the same heights) are not
sliced into rows.
"""

from __future__ import annotations

import statistics
from typing import Sequence, TypeVar

_MIN_ROWS = 3  # words on this many rows at least on each side of a gutter
_MIN_COLUMN = 0.15  # a text column is this share of the page's width at least
_MAX_DEPTH = 64
_MAX_GUTTERS = 6  # widest gaps tried as gutters per region (a grid of figures has dozens)

Box = TypeVar("Box")  # anything with x0, x1, top, bottom (words, tables)


class LayoutError(Exception):
    """The layout of a page could not be analysed (the page falls back to line order)."""


class _Cutter:
    """Recursive XY-cut over the boxes of one page."""

    def __init__(self, size: float, width: float):
        self.vgap = max(0.8 * size, 3.0)  # a gutter is wider than a word space, even a letter-spaced one
        self.hgap = 0.9 * size  # a band break is wider than the gap between lines
        self.row = 0.5 * size
        self.min_width = _MIN_COLUMN * width
        self.split = False  # a vertical cut was made somewhere

    def cut(self, boxes: list, depth: int = 0) -> list[list]:
        """The leaves of ``boxes`` in reading order."""
        if depth > _MAX_DEPTH:
            raise LayoutError(f"XY-cut deeper than {_MAX_DEPTH} levels")
        if len(boxes) < 2 * _MIN_ROWS:
            return [boxes]
        sides = self.vertical(boxes)
        bands = self.bands(boxes) if sides is None or self._wider_band_gap(boxes, sides[0]) else [boxes]
        if len(bands) > 1:
            return [leaf for band in bands for leaf in self.cut(band, depth + 1)]
        if sides is None:
            return [boxes]
        self.split = True  # no band break, or every band shares the gutter: cut at it
        return self.cut(sides[1], depth + 1) + self.cut(sides[2], depth + 1)

    def vertical(self, boxes: list) -> tuple[float, list, list] | None:
        """The widest gutter whose sides are both text columns, with the boxes left and right
        of it; None when there is none."""
        for x in self._gaps([(b.x0, b.x1) for b in boxes], self.vgap)[:_MAX_GUTTERS]:
            left = [b for b in boxes if b.x1 <= x]
            right = [b for b in boxes if b.x0 >= x]
            if self._column(left) and self._column(right):
                return x, left, right
        return None

    def _wider_band_gap(self, boxes: list, x: float) -> bool:
        """A horizontal gap is the clearer cut: wider, for its threshold, than the gutter at
        ``x`` is for its own (a centred title over two columns leaves a narrow slit beside it
        that looks like a gutter; the wide gap under the title is the cut to make first)."""
        ys = self._gaps([(b.top, b.bottom) for b in boxes], self.hgap, widths=True)
        if not ys:
            return False
        left = max(b.x1 for b in boxes if b.x1 <= x)
        right = min(b.x0 for b in boxes if b.x0 >= x)
        return ys[0] / self.hgap > (right - left) / self.vgap

    def _column(self, boxes: list) -> bool:
        if len(boxes) < _MIN_ROWS:
            return False
        if max(b.x1 for b in boxes) - min(b.x0 for b in boxes) < self.min_width:
            return False
        tops = sorted(b.top for b in boxes)
        rows = 1 + sum(1 for a, b in zip(tops, tops[1:]) if b - a > self.row)
        return rows >= _MIN_ROWS

    def bands(self, boxes: list) -> list[list]:
        """``boxes`` split at the wide horizontal gaps; neighbouring bands that share a gutter
        merged again (columns on one baseline grid have their line gaps at the same heights)."""
        cuts = sorted(self._gaps([(b.top, b.bottom) for b in boxes], self.hgap))
        if not cuts:
            return [boxes]
        parts: list[list] = [[] for _ in range(len(cuts) + 1)]
        for b in boxes:
            parts[sum(1 for y in cuts if b.top >= y)].append(b)
        merged = [parts[0]]
        for part in parts[1:]:
            if self._share_gutter(merged[-1], part):
                merged[-1] = merged[-1] + part
            else:
                merged.append(part)
        return merged

    def _share_gutter(self, upper: list, lower: list) -> bool:
        """Both bands have text on both sides of a gutter of the two together (a band with
        text on one side only, such as a date set over the right column, is not merged)."""
        cut = self.vertical(upper + lower)
        if cut is None:
            return False
        x = cut[0]
        return all(any(b.x1 <= x for b in band) and any(b.x0 >= x for b in band) for band in (upper, lower))

    @staticmethod
    def _gaps(spans: list[tuple[float, float]], minimum: float, widths: bool = False) -> list[float]:
        """Middles (or ``widths``) of the gaps between merged spans wider than ``minimum``,
        widest first."""
        spans.sort()
        gaps: list[tuple[float, float]] = []
        end = spans[0][1]
        for a, b in spans[1:]:
            if a - end >= minimum:
                gaps.append((a - end, (a + end) / 2))
            end = max(end, b)
        return [w if widths else x for w, x in sorted(gaps, reverse=True)]


def xy_cut(boxes: Sequence[Box], size: float, width: float) -> tuple[list[list[Box]], bool]:
    """Leaves of the page in reading order, and whether any column was found.

    Args:
        boxes: the page's words (and any other boxes to place: tables).
        size: the page's usual word height (a scale for gaps).
        width: the page's width.

    Raises:
        LayoutError: the analysis went wrong (the caller falls back to line order).
    """
    if not boxes:
        return [], False
    cutter = _Cutter(size, width)
    try:
        leaves = cutter.cut(list(boxes))
    except RecursionError as exc:  # a pathological page: give up on it, not on the file
        raise LayoutError("XY-cut recursion limit") from exc
    return leaves, cutter.split


def word_size(heights: list[float]) -> float:
    """The usual word height of a page (median), for the gap thresholds."""
    return statistics.median(heights) if heights else 10.0
