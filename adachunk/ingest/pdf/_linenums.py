"""Line numbers in the margin (court transcripts, pleadings, bills): found and left out.

A transcript numbers its lines 1 to 25 in a column left of the text. Read as text, the
numbers end up inside sentences ("on behalf 19 of the Respondent") and turn lines into list
items ("13. argument before ..."). They are the first word of their row, stand alone (digits
only), sit in one narrow column left of all the text, and count up by one from top to bottom.
"""

from __future__ import annotations

from ._lines import cluster_rows
from ._model import Word

_MIN_NUMBERS = 5  # fewer numbered rows than this is a list or a table, not numbering
_ALIGN = 3.0  # points: the numbers' right (or left) edges line up within this


def strip_line_numbers(words: list[Word]) -> list[Word]:
    """``words`` without the margin line numbers, when the page has them (else unchanged)."""
    candidates = _row_starts(words)
    if len(candidates) < _MIN_NUMBERS:
        return words
    column = _aligned(candidates)
    if len(column) < _MIN_NUMBERS or not _counts_up(column):
        return words
    drop = {id(w) for w in column}
    rest = [w for w in words if id(w) not in drop]
    if rest and max(w.x1 for w in column) > min(w.x0 for w in rest) - column[0].size:
        return words  # numbers inside the text's margin: a numbered list, not line numbering
    return rest


def _row_starts(words: list[Word]) -> list[Word]:
    """The first word of each row when it is a bare number set apart from the rest of its row
    (by one and a half font sizes at least) or alone on it."""
    out = []
    for row in cluster_rows(words):
        row.sort(key=lambda w: w.x0)
        first = row[0]
        if not first.text.isdigit() or len(first.text) > 3:
            continue
        if len(row) == 1 or row[1].x0 - first.x1 >= 1.5 * first.size:
            out.append(first)
    return out


def _aligned(numbers: list[Word]) -> list[Word]:
    """The largest group of numbers whose right edges (or left edges) line up."""
    best: list[Word] = []
    for edge in (lambda w: w.x1, lambda w: w.x0):
        for ref in numbers:
            group = [w for w in numbers if abs(edge(w) - edge(ref)) <= _ALIGN]
            if len(group) > len(best):
                best = group
    return sorted(best, key=lambda w: w.top)


def _counts_up(column: list[Word]) -> bool:
    """Most steps from one number to the next, top to bottom, add one."""
    values = [int(w.text) for w in column]
    ones = sum(1 for a, b in zip(values, values[1:]) if b == a + 1)
    return ones >= 0.8 * (len(values) - 1)
