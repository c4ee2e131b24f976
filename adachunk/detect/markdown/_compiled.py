"""The top level of a Markdown parse read by compiled loops (``engine: auto``, long texts).

:func:`adachunk.detect.markdown._fast.tokenize_top` then
:func:`~adachunk.detect.markdown._fast.walk_top` read a document's top level with a Python step per
line and per block. Here the line table of :mod:`adachunk.detect.markdown._line_table` (one compiled
pass over the code points) and the block reader of :mod:`adachunk.detect.markdown._block_reader`
(one compiled call per stretch of blocks it knows) do that work; the Python loop only visits the
lines where the reader stops, where it runs the very same step as ``tokenize_top``
(:func:`~adachunk.detect.markdown._fast.step`: mistletoe's readers at the same position of the same
``FileWrapper``), and calls the reader again after the block.

A block read by such a step is walked with the line the loop reads next as its bound: every
line between that one and the next block is blank (a non-blank line always starts a block:
mistletoe's ``Paragraph.start``), so ``last_nonblank`` finds the same last line as with the next
block's line. ``tests/test_md_compiled_parity.py`` checks that the spans are mistletoe's.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from ..._jit import compiled, numba_loaded
from . import _fast as mf
from . import _block_reader as K
from . import _line_table as L
from . import _offsets as mo
from ..text_units._scan import JIT_MIN_CHARS, code_points

# the kernel's label codes, in order
LABELS = ("paragraph", "heading", "html_block", "list", "list_item", "code", "table", "table_row",
          "table_cell")

# Below this many code points the Python loop of _fast is as fast as calling the loops
# (package READMEs cut to 1.5 K characters: 144 against 123 us a parse; at 3 K, 190 against
# 241); before Numba is loaded, only a long text pays for loading it (_scan's threshold).
MIN_CHARS = 2_000


log = logging.getLogger("adachunk.detect")
_LOOPS: list = []  # once decided: [(line_table, advance)] compiled, or [None] (they cannot be)


def wanted(n: int) -> bool:
    """Whether a text of ``n`` code points should be read by the compiled loops (compiling
    them on the first such text; never where they do not compile)."""
    return n >= MIN_CHARS and (numba_loaded() or n >= JIT_MIN_CHARS) and loops() is not None


def loops():
    """The compiled ``(line_table, advance)``, compiled and run once on a small text on first
    use; None where Numba cannot compile them: the Python fast path then reads every text, with
    the same blocks (a failure inside a parse would have sent the text to the line scan)."""
    if not _LOOPS:
        try:
            line_table = compiled(L.line_table, helpers=L.HELPERS)
            advance = compiled(K.advance, helpers=K.HELPERS)
            table = LineTable("- a\n\n| b |\n|---|\n\n```\nc\n```\n", deep=100,
                              made=(line_table, advance))
            table.advance(0, len(table.starts), np.empty((16, 4), np.int64), 0)
            _LOOPS.append((line_table, advance))
        except Exception as exc:  # a Numba that cannot type or build them
            log.warning("the compiled Markdown reader is unavailable (%s: %s); the Python one "
                        "reads every text", type(exc).__name__, exc)
            _LOOPS.append(None)
    return _LOOPS[0]


class LazyLines(list):
    """mistletoe's lines of a text (each with its ``\\n``), each made on first access.

    A list, so that mistletoe's ``FileWrapper`` keeps it as it is; its items are None until
    read. Indexing, slicing (a plain list of the lines) and iterating give the lines themselves;
    :meth:`copy` and :meth:`view` share what was made so far. For texts without NUL or a BOM
    (whose lines mistletoe reads with replacements).
    """

    def __init__(self, text: str, starts: list[int], ends: list[int], lo: int = 0,
                 items: list | None = None):
        super().__init__([None] * (len(starts) - lo) if items is None else items)
        self._text, self._starts, self._ends, self._lo = text, starts, ends, lo

    def __getitem__(self, i):
        if type(i) is slice:
            return [self[k] for k in range(*i.indices(len(self)))]
        line = list.__getitem__(self, i)
        if line is None:
            j = (i if i >= 0 else i + len(self)) + self._lo
            line = self._text[self._starts[j] : self._ends[j]] + "\n"
            list.__setitem__(self, i, line)
        return line

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def copy(self) -> "LazyLines":
        """A copy that makes its lines on its own (items set so far are kept)."""
        return LazyLines(self._text, self._starts, self._ends, self._lo,
                         list.__getitem__(self, slice(None)))

    def view(self, lo: int, hi: int) -> "LazyLines":
        """Lines ``[lo, hi)`` as a list of their own (what ``lines[lo:hi]`` would be)."""
        return LazyLines(self._text, self._starts, self._ends, self._lo + lo,
                         list.__getitem__(self, slice(lo, hi)))


class LineTable:
    """The compiled line table of one text (:func:`._line_table.line_table`).

    ``deep``: the run of container-marker characters that makes a line a candidate for
    :func:`._offsets.deep_lines`. ``memo``: the document's memo, to share the code points with the
    text-unit scan (:func:`adachunk.detect.text_units._scan.code_points`).

    Attributes:
        codes: the text's code points.
        flags: the property table the loops read (``str.isspace`` in bit 1).
        bom: whether the text opens with a byte-order mark.
        starts: start of each line.
        ends: end of each line, terminator excluded.
        bits: each line's bits (``_line_table.PLAIN`` ...).
        levels: each line's ATX heading level (0: none).
        pipes: how many ``|`` each line holds.
        markers: where a list marker's content starts in each line (0: none, -1: a marker
            left to mistletoe).
        leads: where that marker's leader ends.
    """

    def __init__(self, text: str, jit: bool = True, deep: int = 100, memo=None,
                 made: tuple | None = None):
        self.jit = jit
        self._made = made  # the compiled loops while loops() makes them
        self.codes, self.flags = code_points(text, memo)
        self.bom = text.startswith("\ufeff")
        table = self._loop(L.line_table, 0)(self.codes, self.flags, self.bom, np.int64(deep))
        (self.starts, self.ends, self.bits, self.levels, self.pipes, self.markers,
         self.leads) = table

    def _loop(self, fn, which: int):
        """Loop ``which`` (0: the line table, 1: the block reader): compiled or plain Python."""
        if not self.jit:
            return fn
        return (self._made or loops())[which]

    def line_map_fields(self) -> tuple[list[int], list[int], list[bool]]:
        """``LineMap``'s starts, ends and blank flags, as lists."""
        blank = (self.bits & L.LBLANK) != 0
        return self.starts.tolist(), self.ends.tolist(), blank.tolist()

    def lines_with(self, bit: int) -> list[int]:
        """The lines whose bits hold ``bit``, in order."""
        return np.flatnonzero(self.bits & bit).tolist()

    def force(self, lines: Any) -> None:
        """Mark ``lines`` (HTML wrappers' opening lines) as read by mistletoe."""
        for i in lines:
            self.bits[i] |= L.FORCED

    def mistletoe_lines(self, lm: mo.LineMap, lo: int, wrappers: dict) -> tuple[list[str], list[str]]:
        """:func:`._offsets.mistletoe_lines`, each line made when mistletoe first reads it
        (:class:`LazyLines`): mistletoe reads only the lines of the blocks the compiled reader
        leaves to it."""
        text = lm.text
        if "\0" in text or text.startswith("\ufeff"):  # replaced characters: made at once
            return mo.mistletoe_lines(lm, lo, wrappers)
        return mo.mistletoe_lines(lm, lo, wrappers, LazyLines(text, lm.starts, lm.ends))

    def advance(self, pos: int, hi: int, rows: np.ndarray, k: int) -> tuple[int, int]:
        """:func:`._block_reader.advance` on this table: ``(the line where it defers, or hi; rows
        written)``."""
        return self._loop(K.advance, 1)(
            self.codes, self.flags, self.starts, self.ends, self.bits, self.levels, self.pipes,
            self.markers, self.leads, self.bom, np.int64(pos), np.int64(hi), rows, np.int64(k))

    def read_top(self, walker: Any, lines: list[str], lo: int, hi: int) -> None:
        """``walk_top(walker, tokenize_top(lines, lo, hi), hi)``: the same rows in ``walker.out``.

        Runs inside ``mistletoe_state``, like the loop it replaces.
        """
        if hi <= lo:
            return
        # rows: a list item makes three, a table row two and one more per pipe
        cap = 3 * (hi - lo) + int(self.pipes[lo:hi].sum()) + 1
        rows = np.empty((cap, 4), np.int64)
        bits, buf = self.bits, []
        reader = mf._Reader(lines, lo, hi, buf)
        pos, k = lo, 0
        while True:
            pos, k = self.advance(pos, hi, rows, k)
            if pos >= hi:
                break
            wrap = walker.wrappers.get(pos) if bits[pos] & L.FORCED else None
            if wrap is not None and wrap[0] < hi:
                # mistletoe reads the masked wrapper (an HTML comment) to its closing line,
                # and the walk makes it one block: what _html does with that block
                walker._html(pos, wrap[0], (), 0, 0)
                pos = wrap[0] + 1
                continue
            # a safe line opens a paragraph: what probing every token type there finds too
            pos = mf.step(reader, pos, None if bits[pos] & L.SAFE else lines[pos])
            for entry in buf:  # the next block starts after blank lines only (module docstring)
                mf.walk_top(walker, [entry], pos)
            buf.clear()
        if k:
            rows = rows[:k]
            walker.out.extend(zip(rows[:, 0].tolist(), rows[:, 1].tolist(),
                                  map(LABELS.__getitem__, rows[:, 2].tolist()),
                                  rows[:, 3].tolist()))
