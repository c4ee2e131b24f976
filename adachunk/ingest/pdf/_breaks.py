"""Line-level evidence for the PDF layout: where a paragraph breaks, and which larger lines
are headings (visibly one: bold, or set apart from the text around it)."""

from __future__ import annotations

import re

from ._model import Line

LABEL_LINE = re.compile(r"^[A-Z][A-Z .&/-]{2,40}:$")  # "APPEARANCES:" on a line of its own


def runs_on(text: str) -> bool:
    """The line stops mid-sentence (a lower-case word or a comma last): the next line, even
    indented, goes on with it (a hanging indent, as in a list of counsel)."""
    last = text.rstrip()[-1:]
    return last == "," or last.isalpha() and last.islower()


def share_size(a: Line, b: Line) -> bool:
    """One line holds words of the other's size (a label in small caps inside a body line)."""
    return any(abs(w.size - b.size) <= 0.6 for w in a.words) or any(abs(w.size - a.size) <= 0.6 for w in b.words)


def run_in_label(line: Line) -> bool:
    """The line opens with a bold label ending in a colon, then plain text ("DATES: The FAA ...")."""
    words = line.words
    n = next((i for i, w in enumerate(words) if not w.bold), len(words))
    if n == 0 or n == len(words):
        return False
    return words[n - 1].text.endswith(":")


def isolated_headings(lines: list[Line], kinds: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Lines set larger but not bold head only when they stand apart: a gap of half their size
    above and below the group they form (a larger address line inside a letterhead, or an item's
    text set a point above the body, is text)."""
    out = list(kinds)
    i = 0
    while i < len(lines):
        j = i + 1
        while j < len(lines) and kinds[j] == kinds[i]:
            j += 1
        if kinds[i][0] == "heading" and not any(ln.bold for ln in lines[i:j]):
            size = lines[i].size
            above = _gap(lines[i - 1], lines[i]) if i > 0 else size
            below = _gap(lines[j - 1], lines[j]) if j < len(lines) else size
            if min(above, below) < 0.5 * size:
                out[i:j] = [("text", 0)] * (j - i)
        i = j
    return out


def _gap(upper: Line, lower: Line) -> float:
    """Vertical white space between two lines read one after the other (ample when the second
    one is not below the first: the next column)."""
    return lower.top - upper.bottom if lower.top > upper.top else float("inf")


class PageLines:
    """The body lines of a page, for the questions a run of lines asks about its neighbours."""

    def __init__(self, lines: list[Line]):
        self.lines = lines
        self._next = {id(a): b for a, b in zip(lines, lines[1:])}

    def gap_after(self, line: Line) -> float:
        """White space from ``line`` down to the line read after it (ample when there is none,
        or when that one is up the page: the next column)."""
        nxt = self._next.get(id(line))
        return _gap(line, nxt) if nxt is not None else float("inf")

    def column(self, line: Line) -> tuple[float, float]:
        """The left and right edges of the column ``line`` is in (the lines that overlap it
        across)."""
        near = [ln for ln in self.lines if ln.x0 < line.x1 and ln.x1 > line.x0]
        return min(ln.x0 for ln in near), max(ln.x1 for ln in near)

    def fills(self, line: Line) -> bool:
        """``line`` reaches its column's right edge within two and a half characters or a tenth
        of the column (ragged text wrapped by hand: an exhibit's hard line breaks)."""
        left, right = self.column(line)
        return line.x1 >= right - max(2.5 * line.size, 0.1 * (right - left))


def spaced_paragraph(run: list[Line], line: Line, gap: float, wide: float, body: float, page: PageLines) -> bool:
    """``line`` goes on the paragraph of ``run`` across a ``gap`` wider than the document's
    usual (``wide``): the paragraph is set wider than the rest (a press release's quote at one
    and a half lines, an exhibit at two, its tables tight). The line before stops mid-sentence
    and fills its column, the lines around are as far apart (no tight block starts or ends here:
    a list of items keeps its breaks), and the next line goes on in lower case or the gap is the
    run's own pitch so far. Else each line of it would be a paragraph of its own, cut apart
    mid-sentence."""
    prev = run[-1]
    if not runs_on(prev.text) or gap > 1.6 * max(line.size, prev.size):
        return False
    if page.gap_after(line) <= wide or not page.fills(prev):
        return False
    if len(run) >= 2:
        before = prev.top - run[-2].bottom
        return before > wide and abs(gap - before) <= 0.15 * body
    return line.text[:1].islower()
