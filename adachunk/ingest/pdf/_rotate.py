"""Pages set in rotated text: characters and rulings turned into their reading frame.

A landscape table printed on a portrait page (``/Rotate 90``, or text drawn with a rotated text
matrix) has every glyph running down or up the page. Its words are turned here into the frame
in which they read left to right, top to bottom, so that the rest of the pipeline (words,
lines, tables, layout) sees an upright page of swapped width and height: the same word and line
model as for any upright page.

Directions are named by where the glyphs' baseline runs on the page as displayed without
rotation, in pdfplumber's top-down coordinates: ``0`` left to right (upright), ``1`` top to
bottom, ``2`` right to left (upside down), ``3`` bottom to top.
"""

from __future__ import annotations

from collections import Counter

UPRIGHT, DOWN, UPSIDE_DOWN, UP = 0, 1, 2, 3


def direction(matrix: tuple) -> int:
    """Direction of a glyph's baseline from its text-rendering matrix ``(a, b, c, d, e, f)``.

    ``(a, b)`` is the baseline's vector in PDF space (y up); its dominant axis and sign give
    the direction (a skewed or slightly tilted glyph counts as the nearest quarter turn).
    """
    a, b = matrix[0], matrix[1]
    if abs(a) >= abs(b):
        return UPRIGHT if a > 0 else UPSIDE_DOWN
    return UP if b > 0 else DOWN


def dominant(counts: Counter[int]) -> int:
    """The page's reading direction: the direction of most glyphs (upright on a tie), so that
    rotated margin stamps on an upright page stay out and an upright caption on a rotated table
    page does too."""
    if not counts:
        return UPRIGHT
    best = max(counts.items(), key=lambda kv: (kv[1], kv[0] == UPRIGHT))[0]
    return best if counts[best] > counts.get(UPRIGHT, 0) else UPRIGHT


def frame_size(turn: int, width: float, height: float) -> tuple[float, float]:
    """Width and height of the page in the reading frame of ``turn``."""
    return (height, width) if turn in (DOWN, UP) else (width, height)


def _box(turn: int, x0: float, x1: float, top: float, bottom: float,
         width: float, height: float) -> tuple[float, float, float, float]:
    """A top-down box ``(x0, x1, top, bottom)`` in the reading frame of ``turn``."""
    if turn == DOWN:  # baseline runs down the page; the next line lies to the left
        return top, bottom, width - x1, width - x0
    if turn == UP:  # baseline runs up the page; the next line lies to the right
        return height - bottom, height - top, x0, x1
    if turn == UPSIDE_DOWN:
        return width - x1, width - x0, height - bottom, height - top
    return x0, x1, top, bottom


def _point(turn: int, x: float, y: float, width: float, height: float) -> tuple[float, float]:
    nx0, _, ntop, _ = _box(turn, x, x, y, y, width, height)
    return nx0, ntop


def turn_char(ch: dict, turn: int, width: float, height: float) -> dict:
    """A char dict (pdfplumber's keys) moved into the reading frame; its size is its extent
    across the baseline there, as pdfminer gives for upright glyphs."""
    x0, x1, top, bottom = _box(turn, ch["x0"], ch["x1"], ch["top"], ch["bottom"], width, height)
    return {**ch, "x0": x0, "x1": x1, "top": top, "bottom": bottom, "upright": True,
            "size": round(bottom - top, 2)}


def turn_shape(shape: dict, turn: int, width: float, height: float) -> dict:
    """A ruling shape (line, rect, curve) moved into the reading frame."""
    x0, x1, top, bottom = _box(turn, shape["x0"], shape["x1"], shape["top"], shape["bottom"], width, height)
    new_h = frame_size(turn, width, height)[1]
    out = {**shape, "x0": x0, "x1": x1, "top": top, "doctop": top, "bottom": bottom,
           "y0": new_h - bottom, "y1": new_h - top, "width": x1 - x0, "height": bottom - top}
    if "pts" in shape:
        out["pts"] = [_point(turn, x, y, width, height) for x, y in shape["pts"]]
    return out
