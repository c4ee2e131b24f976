"""Lines of a table → its rows: wrapped cells joined into their row.

A table row often takes several lines: a label or a description wraps, and its figures sit on
the first line (top-aligned cells) or on the last (bottom-aligned). Lines are grouped into rows
from three facts, none enough alone:

* **Anchors.** A line holding a figure (a short cell with a digit) outside the label column is
  a row of its own; the other lines are labels, section labels or continuations.
* **The row-label column.** A line with nothing in the first column continues the row above
  (a description's second line), as does one that starts in lower case.
* **The vertical rhythm.** Where rows are set further apart than the lines inside one cell, a
  line closer than half-way between the two spacings belongs to its neighbour. The row spacing
  is measured before anchors only, so a statement whose groups are set apart by blank space
  (most rows tight, a few far) is not read as one long wrapped row.

Backend-neutral: works on cell texts and line boxes, whatever found the columns.
"""

from __future__ import annotations

import bisect
import re
import statistics
from dataclasses import replace

from ._model import Word
from .._table_cells import is_currency, is_figure, is_period_phrase

_DIGIT = re.compile(r"\d")
_FIGURE_LEN = 24  # characters: a longer cell with digits is text ("AIRFARE FOR ... 3/21 ...")
_SIGN_GAP = 20.0  # font sizes: a currency sign at most this far left of its figure belongs to it
_CLOSER_GAP = 1.5  # font sizes: a lone "%" or ")" at most this far right of its figure closes it
_BIMODAL = 0.25   # line heights: row gaps this much wider than the tightest gap show a rhythm
# dot leaders: a run of three dots or more (spaced or not) ending a label
LEADER = re.compile(r"(?:\s*[.\u2024\u2026\u00b7]){3,}\s*$")
# the last dots of a spaced leader the figures' column cut off ("etc. .", "violations . ."),
# each dot a space after the text: "No." and "etc." keep theirs
_SPACED_TAIL = re.compile(r"(?:\s+[.\u2024\u00b7])+$")
_DOTS = re.compile(r"^[.\u2024\u2026\u00b7]+$")
_LEADER_RUN = re.compile(r"[.\u2024\u00b7]{4,}$")  # an unbroken dot leader ending a word


def strip_leader(text: str) -> str:
    """A label without the dot leader that runs from it to its figures (``Total . . . .``, or
    its last dots ``etc. .``). A
    cell of dots alone is a nil marker ("..." for not available), printed content: kept."""
    if not text.endswith((".", "\u2024", "\u2026", "\u00b7")):
        return text
    m = LEADER.search(text) or _SPACED_TAIL.search(text)
    return text if m is None or m.start() == 0 else text[:m.start()]


def without_leaders(words: list[Word], cell_gap: float) -> list[Word]:
    """Words (left to right) without dot leaders: runs of three dot-only words or more, each a
    word space from the next, are the space between a label and its figures, not text, as is
    an unbroken leader ending a word (:func:`_leader_cut`). Dots set a cell gap apart
    ("...  ...  ...") are nil markers, one per cell: printed content.

    Args:
        words: one line's words, left to right.
        cell_gap: font sizes: a wider gap between two dot words separates two cells.
    """
    out: list[Word] = []
    run: list[Word] = []
    for w in map(_leader_cut, words):
        if w is None:  # an unbroken leader: the gap it fills separates two cells
            continue
        if _DOTS.match(w.text):
            if run and w.x0 - run[-1].x1 >= cell_gap * w.size:  # a new cell: the run so far ends
                out += run if len(run) < 3 else []
                run = []
            run.append(w)
            continue
        out += run if len(run) < 3 else []
        run = []
        out.append(w)
    out += run if len(run) < 3 else []
    return out or words


def _leader_cut(w: Word) -> Word | None:
    """A word without the unbroken dot leader it ends in ("Injury.........": the label, its
    right edge where the dots start, supposing glyphs of even width); None for a word that is
    all leader (four dots or more: three are a nil marker, "...")."""
    if not w.text.endswith((".", "\u2024", "\u00b7")):  # most words: no regex search
        return w
    m = _LEADER_RUN.search(w.text)
    if m is None:
        return w
    if m.start() == 0:
        return None
    x1 = w.x0 + (w.x1 - w.x0) * m.start() / len(w.text)
    return replace(w, text=w.text[:m.start()], x1=x1)


def _joined(a: Word, b: Word, text: str) -> Word:
    """One word from two on a line (``a`` left of ``b``)."""
    size = b.size if is_currency(a.text) else a.size  # the figure's size, not the sign's
    return Word(text, a.x0, b.x1, min(a.top, b.top), max(a.bottom, b.bottom), size, a.bold and b.bold,
                glued=a.glued)


def glue_signs(words: list[Word]) -> list[Word]:
    """Words of one line (left to right), each sign joined to its figure as printed.

    A statement sets ``$`` at the left edge of its figure's column, the figure right-aligned,
    and a negative's ``)`` or a ``%`` just after it: as separate words, the ``$`` aligns with
    other signs into a column of its own, or falls into the column before (``100.0% $``). A
    currency sign followed within a few font sizes by a figure is one word with it
    (``$ 1,184``); a lone ``%`` or ``)`` right after a figure it completes joins it (``15.6%``,
    ``(4,378)``).
    """
    out: list[Word] = []
    for w in words:
        prev = out[-1] if out else None
        if prev is not None and w.text in ("%", ")", "%)") and w.x0 - prev.x1 <= _CLOSER_GAP * w.size \
                and is_figure(prev.text + w.text) and not is_period_phrase(prev.text):  # "2021  % Change"
            out[-1] = _joined(prev, w, prev.text + w.text)
        elif (prev is not None and is_currency(prev.text) and w.x0 - prev.x1 <= _SIGN_GAP * w.size
              and (is_figure(w.text) or is_figure(w.text + ")")) and not is_currency(w.text[:1])):
            out[-1] = _joined(prev, w, f"{prev.text} {w.text}")
        else:
            out.append(w)
    return out


def is_anchor(cells: list[str]) -> bool:
    """A line holding a figure outside the label column: it starts or carries a row."""
    return any(c and len(c) <= _FIGURE_LEN and _DIGIT.search(c) for c in cells[1:])


def _tight_gap(gaps: list[float], anchors: list[bool], height: float) -> float | None:
    """The largest gap between two lines of one row, or None when rows and lines inside rows
    are set alike (no rhythm to read)."""
    if not gaps:
        return None
    before_anchor = [g for g, a in zip(gaps, anchors[1:]) if a]
    if not before_anchor:
        return None
    row_gap, line_gap = statistics.median(before_anchor), min(gaps)
    if row_gap - line_gap < _BIMODAL * height:
        return None
    return (row_gap + line_gap) / 2


def _continues(cells: list[str], tight: bool) -> bool:
    """Does this line continue a row (no label of its own, a lower-case start, or set tight)?"""
    first = next((c for c in cells if c), "")
    return not cells[0] or first[:1].islower() or tight


def _filled(cells: list[str]) -> int:
    return sum(1 for c in cells if c)


def _joins_above(line: list[str], row: list[list[str]], has_anchor: bool, tight: bool) -> bool:
    """Does a line without figures continue the row above? When set tight under it, or starting
    in lower case under a row with figures or as a label's next line; with no label of its own
    under a row with figures only when it fills at most half as many columns as the row's
    fullest line (a description's second line), not nearly all of them (a row of a group whose
    label is given once, on the group's first row)."""
    first = next((c for c in line if c), "")
    if tight or (first[:1].islower() and (has_anchor or line[0])):
        return True
    return not line[0] and has_anchor and 2 * _filled(line) <= max(_filled(c) for c in row)


def row_groups(cells: list[list[str]], tops: list[float], bottoms: list[float]) -> list[list[int]]:
    """Indices of the lines of each row, top to bottom (module docstring).

    Args:
        cells: per line, its cell texts (the first column holds the row labels).
        tops: per line, its top.
        bottoms: per line, its bottom.
    """
    n = len(cells)
    if n == 0:
        return []
    anchors = [is_anchor(c) for c in cells]
    gaps = [tops[i] - bottoms[i - 1] for i in range(1, n)]
    height = statistics.median(b - t for t, b in zip(tops, bottoms))
    tight_gap = _tight_gap(gaps, anchors, height)
    groups: list[list[int]] = [[0]]
    for i in range(1, n):
        cur = groups[-1]
        tight = tight_gap is not None and gaps[i - 1] <= tight_gap
        has_anchor = any(anchors[j] for j in cur)
        if anchors[i]:
            # a label set on the lines above its figures (bottom-aligned) takes them in
            join = not has_anchor and all(not any(cells[j][1:]) for j in cur) and _continues(cells[i], tight)
        else:
            join = _joins_above(cells[i], [cells[j] for j in cur], has_anchor, tight)
        if join:
            cur.append(i)
        else:
            groups.append([i])
    return groups


def join_cells(lines: list[list[str]]) -> list[str]:
    """The cells of one row from the cells of its lines, each column's texts in line order."""
    return [" ".join(c for c in col if c) for col in zip(*lines)]


def phrases(words: list[Word], space: float) -> list[list[Word]]:
    """Words of a line (left to right) grouped at gaps wider than ``space``: a cell's text. A
    currency sign (alone or with its figure, :func:`glue_signs`) starts a cell however close it
    is set to the figure before it (``3,226.8  $ 2,729.4``)."""
    out = [[words[0]]] if words else []
    for a, b in zip(words, words[1:]):
        if b.x0 - a.x1 < space and not (is_currency(b.text.split()[0]) and is_figure(a.text)):
            out[-1].append(b)
        else:
            out.append([b])
    return out


def best_column(p: list[Word], lo: list[float], hi: list[float], inner: list[float], nearest: bool = False) -> int:
    """The column whose one-column cells (spanning ``lo[c]..hi[c]``) a phrase overlaps most: a
    header wider than its figures, a description running past its column's rule. When it
    overlaps none: the column nearest to it (``nearest``: a header set beside its figures, a
    left-aligned "Labor cost" over right-aligned hours), else the one holding its centre."""
    x0, x1 = p[0].x0, p[-1].x1
    overlaps = [max(0.0, min(x1, h) - max(x0, low)) for low, h in zip(lo, hi)]
    best = max(range(len(overlaps)), key=lambda c: overlaps[c])
    if overlaps[best] > 0:
        return best
    filled = [c for c in range(len(lo)) if lo[c] <= hi[c]]
    if nearest and filled:
        return min(filled, key=lambda c: max(lo[c] - x1, x0 - hi[c]))
    return min(bisect.bisect(inner, (x0 + x1) / 2), len(lo) - 1)


_AMOUNT = re.compile(r"\d[,.]\d|^\(\d|%$")  # 1,184  12.5  (78)  3%: an amount, not a code


def _figures_apart(p: list[Word], inner: list[float]) -> list[list[Word]]:
    """A phrase whose label runs up to the figures of the next column ("... noncontrolling
    interests $ 2,210.8", set one point apart) as two: the label and its trailing figures, when
    a column boundary falls between them. Otherwise the phrase as it is."""
    k = len(p)
    while k > 0 and (is_figure(p[k - 1].text) or is_currency(p[k - 1].text)):
        k -= 1
    if k == 0 or k == len(p) or not any(is_figure(w.text) for w in p[k:]):
        return [p]
    first = next(w for w in p[k:] if is_figure(w.text))
    if not (is_currency(p[k].text) or _AMOUNT.search(first.text)):  # "Rent 000": a code, a year
        return [p]
    if bisect.bisect(inner, first.x0 + 0.5) <= bisect.bisect(inner, p[k - 1].x1 - 0.5):
        return [p]
    out = [p[:k]]
    for w in p[k:]:  # each figure on its own (a sign with the figure after it): the columns decide
        if out[-1] is not p[:k] and len(out[-1]) == 1 and is_currency(out[-1][0].text):
            out[-1].append(w)
        else:
            out.append([w])
    return out


def place(lines: list[list[Word]], inner: list[float], spaces: list[float], head: int = 0) -> list[list[list[Word]]]:
    """Each line's words (left to right) put into the columns that ``inner`` boundaries divide,
    a phrase (words less than the line's ``spaces`` apart) whole into one column: by where it
    lies, or by :func:`best_column` when a boundary cuts it. The ``head`` leading lines (the
    header) are placed over the body's cells: a header is set over its column, not always
    aligned with it, so the body decides where the columns are."""
    n = len(inner) + 1
    lo, hi = [float("inf")] * n, [float("-inf")] * n
    cut: list[tuple[int, list[Word]]] = []
    out: list[list[list[Word]]] = []
    for k, (words, space) in enumerate(zip(lines, spaces)):
        parts: list[list[Word]] = [[] for _ in range(n)]
        for p in (q for ph in phrases(words, space) for q in _figures_apart(ph, inner)):
            a, b = bisect.bisect(inner, p[0].x0 + 0.5), bisect.bisect(inner, p[-1].x1 - 0.5)
            if a == b and k >= head:
                parts[a] += p
                lo[a], hi[a] = min(lo[a], p[0].x0), max(hi[a], p[-1].x1)
            else:
                cut.append((k, p))
        out.append(parts)
    for k, p in cut:
        out[k][best_column(p, lo, hi, inner, nearest=k < head)] += p
    for parts in out:
        for part in parts:
            part.sort(key=lambda w: w.x0)
    return out
