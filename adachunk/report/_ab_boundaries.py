"""Side-by-side boundary view of one document: the text once, A's cuts on the left, B's on the right.

Both columns show the same lines (numbered like the source file), so a cut that moved is seen
at a glance: each cut is a marker ``✂n`` (``n``: the chunk that starts there), highlighted when
only that side cuts there. Long documents show only windows of lines around the differing cuts;
very long lines (PDF paragraphs, minified text) show only stretches around the cuts. Every piece
of document text is HTML-escaped.
"""

from __future__ import annotations

import bisect
import html
from typing import Sequence

CONTEXT_LINES = 1  # non-blank lines shown above and below a line with a differing cut
WHOLE_MAX_LINES = 40  # documents up to this many lines (and WHOLE_MAX_CHARS) are shown whole
WHOLE_MAX_CHARS = 8000
LONG_LINE = 1200  # longer lines are shown only around cuts
LINE_RADIUS = 240  # characters kept on each side of a cut in a long line
MAX_ROWS = 400  # rows per document before the view is truncated (the page must stay light)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    pos = text.find("\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)
    if starts[-1] == len(text) and len(starts) > 1:
        starts.pop()  # a final newline does not open an empty last line
    return starts


def _line_of(starts: list[int], pos: int) -> int:
    return bisect.bisect_right(starts, pos) - 1


def _visible_lines(blank: list[bool], diff_lines: set[int], whole: bool) -> list[int]:
    """Lines to show: all of a short document, else each differing line with its context.

    The context counts non-blank lines (Markdown separates blocks with blank lines, so two
    lines of context would otherwise often be one line of text); the blank lines in between
    are shown too.
    """
    n_lines = len(blank)
    if whole:
        return list(range(n_lines))
    keep = set()
    for line in diff_lines:
        keep.add(line)
        for step in (-1, 1):
            i, seen = line + step, 0
            while 0 <= i < n_lines and seen < CONTEXT_LINES:
                keep.add(i)
                seen += not blank[i]
                i += step
    return sorted(keep)


def _ranges(start: int, end: int, cuts: Sequence[int]) -> list[tuple[int, int]]:
    """Stretches of the line ``[start, end)`` to show (all of it unless it is very long)."""
    if end - start <= LONG_LINE:
        return [(start, end)]
    spans = sorted((max(start, c - LINE_RADIUS), min(end, c + LINE_RADIUS)) for c in cuts)
    spans = spans or [(start, start + 2 * LINE_RADIUS)]
    merged = [spans[0]]
    for lo, hi in spans[1:]:
        if lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def _render_cell(text: str, ranges: list[tuple[int, int]], line_start: int, line_end: int,
                 cuts: dict[int, tuple[int, bool]], side: str) -> str:
    """One column of one line: escaped text with this side's cut markers."""
    out = []
    for k, (lo, hi) in enumerate(ranges):
        if k or lo > line_start:
            out.append('<span class="gap">…</span>')
        pos = lo
        for c in sorted(p for p in cuts if lo <= p <= hi and (p < hi or hi == line_end)):
            out.append(html.escape(text[pos:c]))
            number, only = cuts[c]
            cls = f"cut diff {side}" if only else "cut same"
            what = f"only {side.upper()} cuts here" if only else "both cut here"
            out.append(f'<span class="{cls}" title="{what}: chunk {number} starts at offset {c}">✂{number}</span>')
            pos = c
        out.append(html.escape(text[pos:hi]))
    if ranges[-1][1] < line_end:
        out.append('<span class="gap">…</span>')
    return "".join(out)


def _marks(cuts: Sequence[int], other: set[int]) -> dict[int, tuple[int, bool]]:
    """Cut position → (number of the chunk that starts there, whether only this side cuts)."""
    return {c: (i + 1, c not in other) for i, c in enumerate(cuts)}


def render_boundaries(text: str, cuts_a: Sequence[int], cuts_b: Sequence[int], label_a: str, label_b: str) -> str:
    """HTML table of the document with A's and B's cuts side by side (see the module docstring)."""
    sa, sb = set(cuts_a), set(cuts_b)
    marks_a, marks_b = _marks(sorted(sa), sb), _marks(sorted(sb), sa)
    starts = _line_starts(text)
    n_lines = len(starts)
    ends = [s - 1 if s > 0 and text[s - 1] == "\n" else s for s in starts[1:]] + [len(text) - text.endswith("\n")]
    diff_lines = {_line_of(starts, c) for c in sa ^ sb}
    whole = n_lines <= WHOLE_MAX_LINES and len(text) <= WHOLE_MAX_CHARS
    blank = [not text[a:b].strip() for a, b in zip(starts, ends)]
    lines = _visible_lines(blank, diff_lines, whole)
    rows = [f'<table class="sbs"><thead><tr><th class="ln">line</th><th>A: {html.escape(label_a)}</th>'
            f'<th>B: {html.escape(label_b)}</th></tr></thead><tbody>']
    prev = -1
    for count, i in enumerate(lines):
        if count >= MAX_ROWS:
            rows.append(f'<tr class="skip"><td colspan="3">… view truncated after {MAX_ROWS} lines '
                        f'({len(lines) - MAX_ROWS} more lines with or around differing cuts)</td></tr>')
            break
        if i > prev + 1:
            rows.append(_skip_row(prev + 1, i - 1))
        rows.append(_row(text, starts[i], ends[i], i, marks_a, marks_b))
        prev = i
    if not whole and prev < n_lines - 1 and len(lines) <= MAX_ROWS:
        rows.append(_skip_row(prev + 1, n_lines - 1))
    rows.append("</tbody></table>")
    return "".join(rows)


def _skip_row(first: int, last: int) -> str:
    what = f"line {first + 1}" if first == last else f"lines {first + 1}–{last + 1}"
    return f'<tr class="skip"><td colspan="3">⋯ {what} without differing cuts</td></tr>'


def _row(text: str, start: int, end: int, index: int, marks_a: dict, marks_b: dict) -> str:
    # a cut at the newline ending this line belongs to this line (the next line starts after it)
    here = [c for c in list(marks_a) + list(marks_b) if start <= c <= end]
    ranges = _ranges(start, end, here)
    a = _render_cell(text, ranges, start, end, {c: v for c, v in marks_a.items() if start <= c <= end}, "a")
    b = _render_cell(text, ranges, start, end, {c: v for c, v in marks_b.items() if start <= c <= end}, "b")
    changed = any(marks_a.get(c, (0, False))[1] or marks_b.get(c, (0, False))[1] for c in here)
    cls = ' class="changed"' if changed else ""
    return f'<tr{cls}><td class="ln">{index + 1}</td><td class="a">{a}</td><td class="b">{b}</td></tr>'
