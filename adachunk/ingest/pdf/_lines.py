"""Words → lines → reading order: baseline clustering, superscripts and two-column pages.

Backend-neutral: works on :class:`Word` boxes, whatever library produced them.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter

from ._model import Line, Word

# a footnote reference mark: a number or one of the classic symbols
MARK = re.compile(r"^(?:\d{1,3}|\*{1,3}|[\u2020\u2021\u00a7\u00b6]{1,2})$")
_GAP_SPLIT = 2.5  # a horizontal gap wider than this many font sizes separates two line segments


def _dominant_size(words: list[Word]) -> float:
    """The font size carrying most characters (ties: the larger size)."""
    weight: Counter[float] = Counter()
    for w in words:
        weight[round(w.size, 1)] += len(w.text)
    return max(weight.items(), key=lambda kv: (kv[1], kv[0]))[0]


def make_line(words: list[Word]) -> Line:
    """A line from its words (sorted left to right), with superscripts marked."""
    words = sorted(words, key=lambda w: w.x0)
    size = _dominant_size(words)
    normal = [w for w in words if w.size >= size * 0.85] or words
    baseline = max(w.bottom for w in normal)
    for prev, w in zip(words, words[1:]):
        w.sup = (w.size <= size * 0.8 and w.bottom < baseline - 0.12 * size
                 and w.x0 - prev.x1 <= 0.25 * size and bool(MARK.match(w.text)))
        # words split only where the font changes touch: "AGENCY" (small caps) + ":"
        w.glued = not w.sup and w.x0 - prev.x1 < 0.05 * size
    bold = all(w.bold for w in words if not w.sup)
    return Line(words, min(w.x0 for w in words), max(w.x1 for w in words), min(w.top for w in words),
                max(w.bottom for w in words), size, bold)


def cluster_rows(words: list[Word]) -> list[list[Word]]:
    """Words clustered by vertical overlap (one list per baseline, in no particular x order).

    A word joins a recent cluster when their boxes overlap vertically by at least half the
    smaller height; superscripts (smaller but inside the line's box) join their line this way.
    """
    clusters: list[list] = []  # [top, bottom, words]
    for w in sorted(words, key=lambda w: (w.top, w.x0)):
        for c in reversed(clusters[-3:]):
            overlap = min(c[1], w.bottom) - max(c[0], w.top)
            if overlap >= 0.5 * min(w.bottom - w.top, c[1] - c[0]):
                c[0], c[1] = min(c[0], w.top), max(c[1], w.bottom)
                c[2].append(w)
                break
        else:
            clusters.append([w.top, w.bottom, [w]])
    return [c[2] for c in clusters]


def group_lines(words: list[Word]) -> list[Line]:
    """Cluster words into lines (:func:`cluster_rows`), then split lines at wide horizontal gaps
    so that the columns of a two-column page stay apart."""
    lines: list[Line] = []
    for ws in cluster_rows(words):
        ws.sort(key=lambda w: w.x0)
        seg = [ws[0]]
        for prev, w in zip(ws, ws[1:]):
            if w.x0 - prev.x1 > _GAP_SPLIT * max(prev.size, w.size):
                lines.append(make_line(seg))
                seg = []
            seg.append(w)
        lines.append(make_line(seg))
    return lines


def _gutter(lines: list[Line], width: float) -> float | None:
    """The x of a column gutter, or None for a one-column page.

    A gutter is crossed by few lines (full-width titles and captions may cross it), has at least
    a quarter of the lines (and five) on each side, and both sides are text columns: their
    lines are wide. The width test keeps a ruling-free table of labels and numbers, whose
    number column is narrow, in row order.
    """
    if len(lines) < 10:
        return None
    best, best_x = len(lines) + 1, None
    for step in range(int(width * 0.3), int(width * 0.7), 2):
        crossing = sum(1 for ln in lines if ln.x0 < step < ln.x1)
        if crossing < best:
            best, best_x = crossing, float(step)
    if best_x is None or best > 0.15 * len(lines):
        return None
    left = [ln.x1 - ln.x0 for ln in lines if ln.x1 <= best_x]
    right = [ln.x1 - ln.x0 for ln in lines if ln.x0 >= best_x]
    if min(len(left), len(right)) < max(5, 0.25 * len(lines)):
        return None
    if min(statistics.median(left), statistics.median(right)) < 0.25 * width:
        return None
    return best_x


def _margin_notes(lines: list[Line], width: float) -> list[Line]:
    """Side notes: narrow lines wholly beyond the right (or left) edge of the main text.

    A right-aligned date ends on the text's right edge and stays in place; a note set in the
    margin starts past it (by half a font size at least) and no main line reaches it.
    """
    if len(lines) < 5:
        return []
    notes: dict[int, Line] = {}
    for right in (True, False):
        narrow = [ln for ln in lines if ln.x1 - ln.x0 <= 0.2 * width and id(ln) not in notes]
        for ln in sorted(narrow, key=lambda ln: -ln.x0 if right else ln.x1):
            x = ln.x0 if right else ln.x1
            side = {id(m): m for m in narrow if (m.x0 >= x if right else m.x1 <= x)}
            if len(side) > 0.25 * len(lines):
                break
            main = [m for m in lines if id(m) not in side and id(m) not in notes]
            if len(main) < 5:
                break
            edge = max(m.x1 for m in main) if right else min(m.x0 for m in main)
            if (x - edge if right else edge - x) >= 0.5 * ln.size:
                notes.update(side)
    return list(notes.values())


def _centred(line: Line, width: float, starts: Counter[int]) -> bool:
    """Centred on the page (a title over both columns) rather than starting at a column's edge."""
    return abs((line.x0 + line.x1) / 2 - width / 2) <= 2.0 and starts[round(line.x0)] <= 2


def reading_order(lines: list[Line], width: float) -> tuple[list[Line], float | None]:
    """Lines in reading order: top to bottom, and column by column on two-column pages.

    Lines that cross the gutter or are centred on the page (titles, full-width figures'
    captions) separate bands; within a band the left column is read before the right one. Side notes in a margin (beside the
    text, see :func:`_margin_notes`) are read after the body, and small lines below both
    columns (footnotes) last, so that footnotes stay the page's trailing run. Returns the lines
    and the gutter's x (None for a one-column page).
    """
    lines = sorted(lines, key=lambda ln: (ln.top, ln.x0))
    notes = _margin_notes(lines, width)
    if notes:
        noted = {id(ln) for ln in notes}
        notes.sort(key=lambda ln: (ln.top, ln.x0))
        lines = [ln for ln in lines if id(ln) not in noted]
    gx = _gutter(lines, width)
    if gx is None:
        return lines + notes, None
    size = statistics.median(ln.size for ln in lines)
    # the lowest body-size line of each side (small page numbers and footnotes do not count)
    left = [ln.bottom for ln in lines if ln.x1 <= gx and ln.size >= size - 0.6]
    right = [ln.bottom for ln in lines if ln.x0 >= gx and ln.size >= size - 0.6]
    low = {True: max(right, default=0.0), False: max(left, default=0.0)}
    foot = [ln for ln in lines if (ln.x1 <= gx or ln.x0 >= gx) and ln.size < size - 0.6
            and ln.top > low[ln.x1 <= gx]]
    footed = {id(ln) for ln in foot}
    starts = Counter(round(ln.x0) for ln in lines)
    out: list[Line] = []
    left, right = [], []
    for ln in lines:
        if id(ln) in footed:
            continue
        if ln.x0 < gx < ln.x1 or _centred(ln, width, starts):
            out += left + right + [ln]
            left, right = [], []
        elif ln.x1 <= gx:
            left.append(ln)
        else:
            right.append(ln)
    return out + left + right + notes + foot, gx


def anchor(ordered: list[Line], top: float, x0: float, x1: float, gutter: float | None) -> Line | None:
    """The line a box (a table) is read before: the first line below its top, in its column.

    On a one-column page any line below counts (a centred table precedes the heading under it
    even though they do not overlap); on a two-column page only lines on the box's side of the
    gutter, or crossing it, do. None: the box comes after every line.
    """
    for ln in ordered:
        if ln.top < top:
            continue
        if gutter is None or x0 < gutter < x1 or ln.x0 < gutter < ln.x1:
            return ln
        if (ln.x1 <= gutter) == (x1 <= gutter):
            return ln
    return None
