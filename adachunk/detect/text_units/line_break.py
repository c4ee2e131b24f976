"""``line_break.v1``: the end of every visible line, through its line break and the blank lines
that follow.

A span runs from the last visible character of a line through ``[ \\t]*\\r?\\n`` and the whole
whitespace run after it: exactly the matches of the regular expression ``\\S[ \\t]*\\r?\\n\\s*``
under the ``regex`` module (whose ``\\s`` is the reference). The layout rule pack
(``rules/text.layout.yaml``) uses it with every shipped profile, so it runs over every character
of every document: it is its own detector, read from the compiled text-unit scan that
``sentence.v1`` and ``word.v1`` share (:mod:`adachunk.detect.text_units._scan`) on long texts, and
from :func:`line_break_reference` (a literal scan for line feeds) otherwise. A profile that
writes the pattern as a ``regex.v1`` structure gets the same spans, more slowly.
"""

from __future__ import annotations

import numpy as np

from ...components.registry import detectors
from .._re_fast import _regex_space
from ..base import DetectorParams
from . import ScannedUnitDetector

PATTERN = r"\S[ \t]*\r?\n\s*"  # what the spans equal (tests/parity/test_detect_re_fast.py)


def line_break_reference(text: str) -> list[tuple[int, int]]:
    """The matches of :data:`PATTERN` under the ``regex`` module, found from the line feeds.

    A match is a maximal whitespace run that opens with ``[ \\t]*\\r?\\n``, plus the visible
    character before it. Searching for the line feed is a fast literal scan; the regex engine
    instead tries the pattern at every visible character. From the first line feed of a run
    (what the run pattern finds), step back over one ``\\r`` and any spaces and tabs: the
    character there must be visible (else the run starts otherwise, or the text does).
    """
    from . import _scan

    _scan.note_reference(len(text))
    space, run = _regex_space()
    out: list[tuple[int, int]] = []
    for m in run.finditer(text):
        f, end = m.span()
        g = f - 1 if f > 0 and text[f - 1] == "\r" else f
        while g > 0 and text[g - 1] in " \t":
            g -= 1
        if g > 0 and text[g - 1] not in space:
            out.append((g - 1, end))
    return out


@detectors.register("line_break.v1")
class LineBreakDetector(ScannedUnitDetector):
    """Line ends: the last visible character of a line, its line break and the blank lines after."""

    unit, memo_key = "line_breaks", ("line_break.v1",)

    class Params(DetectorParams):
        """``line_break.v1`` has no fields."""

    def reference(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """:func:`line_break_reference` as arrays."""
        arr = np.array(line_break_reference(text), dtype=np.int64).reshape(-1, 2)
        return arr[:, 0].copy(), arr[:, 1].copy()
