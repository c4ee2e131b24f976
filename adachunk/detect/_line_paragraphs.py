"""Paragraphs written one per line: a Markdown paragraph whose lines are long and end sentences
is several paragraphs.

Markdown joins consecutive lines into one paragraph: a soft line break is not a boundary, which
is right for hard-wrapped text (lines of 60-100 characters that end mid-sentence). Much text is
written the other way: one paragraph per line with no blank line between (WikiText, plain-text
exports, chat logs, many converted documents). Read as Markdown, a whole article is then one
paragraph, the block model sees one unit, every cut inside it costs the same, and the DP cuts at
any sentence end instead of between paragraphs (chroma-dev's WikiText corpus: dense recall within
1,000 tokens at 128 tokens, 79.4 -> 84.8, ``bench/RESULTS.md``, "DP at small sizes").

A paragraph block is read as line paragraphs when it has at least two non-blank lines and its
lines average :data:`LONG_LINE` characters or more (hard-wrapped text stays far below); it is then
cut after every line, except a short line (under :data:`TITLE_LINE` characters) that does not end
a sentence (``.``, ``!``, ``?``, ``:`` or ``;``, closing quotes and brackets allowed): such a line
is a title (``= = History = =``) and stays with the lines after it, as a heading is bound to its
paragraph.
"""

from __future__ import annotations

import re
from typing import Sequence

LONG_LINE = 150  # mean characters per line from which a paragraph's lines are its paragraphs
TITLE_LINE = 80  # a shorter line that ends no sentence is a title, bound to the lines after it
_ENDS_SENTENCE = re.compile(r"[.!?:;][\"'\u201d\u2019)\]\u00bb]*[ \t]*\Z")
_LINE = re.compile(r"[^\n]*\n?")

Row = tuple[int, int, str, int]


def _lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Non-blank lines of ``text[start:end]`` as ``(first, last + 1)`` of their visible characters."""
    out = []
    for m in _LINE.finditer(text, start, end):
        line = m.group()
        if not line:
            break
        body = line.rstrip()
        lead = len(body) - len(body.lstrip())
        if body.strip():
            out.append((m.start() + lead, m.start() + len(body)))
    return out


def split_row(text: str, row: Row) -> list[Row]:
    """``row`` as one row per line paragraph, or ``[row]`` when it is not written that way."""
    start, end, label, level = row
    if label != "paragraph" or text.find("\n", start, end) < 0:
        return [row]
    lines = _lines(text, start, end)
    if len(lines) < 2 or sum(b - a for a, b in lines) < LONG_LINE * len(lines):
        return [row]
    out: list[Row] = []
    first = None
    for a, b in lines:
        first = a if first is None else first
        if b - a >= TITLE_LINE or _ENDS_SENTENCE.search(text, a, b):
            out.append((first, b, label, level))
            first = None
    if first is not None:
        out.append((first, lines[-1][1], label, level))
    if len(out) < 2:
        return [row]
    # the block's own first and last offsets stay as they were (its leading and trailing
    # whitespace belong to the first and the last unit)
    out[0] = (start, *out[0][1:])
    out[-1] = (out[-1][0], end, label, level)
    return out


def split_line_paragraphs(text: str, rows: Sequence[Row]) -> list[Row]:
    """Top-level ``rows`` with every one-paragraph-per-line paragraph split (see module docstring)."""
    out: list[Row] = []
    for row in rows:
        out.extend(split_row(text, row))
    return out
