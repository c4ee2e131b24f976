"""Markdown block detector (``markdown.block.v1``) with exact code-point offsets.

:func:`parse_blocks` runs mistletoe's *block* tokenizer only (no inline parsing) and turns its
parse buffers into :class:`~adachunk.datatypes.Structure` spans. mistletoe reports just the line on
which a block starts, so ends are derived: a block ends on the last non-blank line before its
next sibling (or before the end of its container), and starts at its first line's content once
the container prefixes (``>``, list markers, indentation) are skipped. Offsets always point into
the original text, whatever its line endings (``\\n``, ``\\r\\n``, ``\\r``).

Span convention: ``start`` is the first content character of the block's first line (a list
item starts at its marker, a blockquote at its ``>``); ``end`` is the end of its last non-blank
line, line terminator excluded. Containers (list, list item, blockquote, table, and the
``<Table>``/``<Figure>`` wrappers of the paper's parsed documents) span all their children.

Differences from plain mistletoe, on purpose:

* HTML blocks are recognised (mistletoe only does so while its HTML renderer is active).
* Ordered list markers need 1-9 digits as CommonMark says (mistletoe also accepts a bare
  ``.`` or ``)``, which turns the dotted leaders of tables of contents into lists).
* Link reference definitions are reported as paragraphs: they are text worth keeping with its
  neighbours, and mistletoe's reader for them is quadratic in the number of definitions.
* ``<Table>``…``</Table>`` and ``<Figure>``…``</Figure>`` on lines of their own are one
  ``html_block`` even across blank lines; Markdown inside them is parsed and nested.
* YAML front matter at the very start is one ``front_matter`` block.

If mistletoe fails (a 10,000-deep nested list exhausts the recursion limit), the text is
re-parsed piece by piece and only the failing pieces fall back to a line-based scan.

Engines: ``mistletoe`` runs mistletoe's block tokenizer for every block (the reference).
``auto`` (the default) reads the top level of the document and of each wrapper with
:func:`adachunk.detect.markdown._fast.tokenize_top`: mistletoe's own loop, in which plain paragraphs,
ATX headings, one-line HTML blocks and lists of one-paragraph plain items are read from a bulk line
classification, and every other block with mistletoe's readers at the same position
(``tests/parity/test_md_fast_parity.py``, and the Markdown spec cases of
``tests/parity/cases/markdown_blocks.yaml``). Both give the same spans. Which line can open which
block is one table, :mod:`adachunk.detect.markdown._block_starts`.
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_left
from itertools import starmap
from typing import Any, Literal

import numpy as np
from pydantic import Field

from ...analysis import MARKDOWN_BLOCKS, MARKDOWN_ROWS
from ...models import structure as _models
from ...components.registry import detectors
from ...datatypes import SpanArrays, Structure
from . import _fast, _line_scan
from . import _mistletoe as mm
from . import _offsets as mo
from ._mistletoe import bt
from ..base import DetectContext, Detector, DetectorParams, finalize

# Memo keys of one document's parse: its blocks as rows (what the detectors read) and as
# Structures (made from the rows when a consumer asks for them); the document's analysis
# answers both from its own parse.
ROWS_KEY, BLOCKS_KEY = MARKDOWN_ROWS, MARKDOWN_BLOCKS

log = logging.getLogger("adachunk.detect")

BlockLabel = Literal[
    "heading", "paragraph", "list", "list_item", "table", "table_row", "table_cell", "code",
    "blockquote", "thematic_break", "html_block", "front_matter",
]
BLOCK_LABELS: tuple[str, ...] = BlockLabel.__args__  # type: ignore[attr-defined]
Engine = Literal["auto", "mistletoe"]
ENGINES: tuple[str, ...] = Engine.__args__  # type: ignore[attr-defined]

# Deeper container nesting goes to the line scan: mistletoe needs several stack frames per
# level and fails near 300 levels from a shallow stack (fewer under a deep caller).
MAX_DEPTH = 100

_EOL = re.compile(r"\r\n|\r|\n")
_ATX_OPEN = re.compile(r"#{1,6}(?=[ \t]|$)")
_ATX_CLOSE = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
# the block tokenizer; a module global so that tests can make mistletoe fail on purpose
_tokenize_block = mm.tokenize_block


class _Walker:
    """Turns mistletoe parse buffers into spans (see the module docstring for the rules)."""

    def __init__(self, lm: mo.LineMap, lines: tuple[list[str], list[str]], wrappers: dict,
                 engine: str = "auto"):
        (self.lines, self.plain), self.lm, self.wrappers = lines, lm, wrappers
        self.out: list[mo.Row] = []
        # only the top level (of the text and of each wrapper) has a fast path: nested blocks
        # are always tokenized by mistletoe's readers
        self._fast = engine == "auto"
        self._tokenize = _fast.tokenize_top if self._fast else _tokenize_mistletoe

    def run(self, lo: int, hi: int) -> None:
        """Parse lines ``[lo, hi)`` and collect their blocks."""
        with mm.mistletoe_state(_tokenize_block):
            self._top(self.lines, lo, hi)

    def _top(self, lines: list[str], lo: int, hi: int) -> None:
        """The blocks of ``lines[lo:hi]``, read at the top level (of the text or a wrapper)."""
        self._walk_top(self._tokenize(lines, lo, hi), hi)

    def _walk_top(self, buf, bound: int) -> None:
        """:meth:`walk` outside any container; engine auto inlines the common blocks."""
        if self._fast:
            _fast.walk_top(self, buf, bound)
        else:
            self.walk(buf, bound)

    def walk(self, buf, bound: int, chain: tuple = (), lists: int = 0, quotes: int = 0,
             shift: int = 0) -> None:
        """Emit the blocks of one parse buffer whose container ends before line ``bound``.

        ``shift`` corrects mistletoe's line numbers inside list items whose marker line holds
        no content: it numbers their children from the marker line, one line too early.
        """
        lm, out = self.lm, self.out
        for k, (kind, res, ln) in enumerate(buf):
            first = ln - 1 + shift
            stop = buf[k + 1][2] - 1 + shift if k + 1 < len(buf) else bound
            last = lm.last_nonblank(first, stop, quotes)
            if kind is mm.Heading:
                out.append(lm.span("heading", first, first, chain, res[0]))
            elif kind is mm.Paragraph and isinstance(res, mm.Setext):
                out.append(lm.span("heading", first, last, chain, res.level))
            elif kind is mm.Paragraph:
                out.append(lm.span("paragraph", first, last, chain))
            elif kind is bt.BlockCode or kind is bt.CodeFence:
                # an indented block may open on a whitespace-only line ("\t"): its span starts
                # at its first line with content, never on a line break
                while first < last and lm.is_blank(first, quotes):
                    first += 1
                out.append(lm.span("code", first, last, chain))
            elif kind is bt.ThematicBreak:
                out.append(lm.span("thematic_break", first, first, chain))
            elif kind is mm.Html:
                self._html(first, last, chain, lists, quotes)
            elif kind is mm.GfmTable:
                self._table(len(res[0]), first, last, chain)
            elif kind is bt.Quote:
                out.append(lm.span("blockquote", first, last, chain, quotes + 1))
                self.walk(res, last + 1, chain + ((mo.QUOTE,),), lists, quotes + 1, shift)
            elif kind is bt.List:
                self._list(res, first, last, chain, lists, quotes, shift)

    def _list(self, items, first, last, chain, lists, quotes, shift) -> None:
        lm, depth = self.lm, lists + 1
        self.out.append(lm.span("list", first, last, chain, depth))
        starts = [item[4] - 1 + shift for item in items]
        for k, (buf, _indent, _prepend, leader, _line) in enumerate(items):
            ifirst = starts[k]
            ilast = lm.last_nonblank(ifirst, starts[k + 1] if k + 1 < len(items) else last + 1,
                                     quotes)
            self.out.append(lm.span("list_item", ifirst, ilast, chain, depth))
            inner = chain + ((mo.ITEM, ifirst, leader),)
            blank_marker_line = lm.content_start(ifirst, inner) >= lm.ends[ifirst]
            self.walk(buf, ilast + 1, inner, depth, quotes, shift + (1 if blank_marker_line else 0))

    def _table(self, n_lines: int, first: int, last: int, chain: tuple) -> None:
        lm = self.lm
        last = min(last, first + n_lines - 1)
        self.out.append(lm.span("table", first, last, chain))
        # a body line of only pipes and dashes can still be a row; only line first+1 is the
        # delimiter row
        for row in [first] + list(range(first + 2, last + 1)):
            start = lm.content_start(row, chain)
            self.out.append((start, lm.ends[row], "table_row", 0))
            self.out.extend(mo.table_cells(lm, row, start))

    def _html(self, first, last, chain, lists, quotes) -> None:
        wrap = self.wrappers.get(first)
        if wrap is None:
            self.out.append(self.lm.span("html_block", first, last, chain))
            return
        close, inside = wrap
        self.out.append(self.lm.span("html_block", first, close, chain))
        if inside and close > first + 1:
            if chain or lists or quotes:
                self.walk(self._tokenize(self.plain, first + 1, close), close, chain, lists, quotes)
            else:
                self._top(self.plain, first + 1, close)


def _tokenize_mistletoe(lines: list[str], lo: int, hi: int) -> list:
    # tokenize_block stops before span parsing: buffers of (class, read result, line).
    return _tokenize_block(lines[lo:hi], bt._token_types, start_line=lo + 1)


def parse_blocks(text: str, engine: Engine = "auto") -> list[Structure]:
    """Parse ``text`` into Markdown blocks with exact code-point offsets.

    Args:
        text: the document text, any line endings.
        engine: ``auto`` (the fast top-level tokenizer) or ``mistletoe`` (the reference); both
            give the same blocks.

    Returns:
        Every block (containers and their children) as ``Structure(start, end, label, level)``,
        sorted; labels are those of :data:`BLOCK_LABELS`. ``level`` is the heading level, the
        nesting depth for ``list``/``list_item``/``blockquote`` (1 = outermost), else 0.
    """
    return as_structures(parse_block_rows(text, engine))


def as_structures(rows: list[mo.Row]) -> list[Structure]:
    """One :class:`Structure` per ``(start, end, label, level)`` row, in order."""
    return list(starmap(Structure, rows))


def shared_rows(ctx: Any) -> list[mo.Row]:
    """The document's parse as rows, made once per document for every consumer of ``ctx``
    (a detection or metric context, or a document analysis)."""
    return ctx.memo(ROWS_KEY, lambda: parse_block_rows(ctx.text))


def shared_blocks(ctx: Any) -> list[Structure]:
    """The document's parse as Structures, made from :func:`shared_rows` (one parse)."""
    return ctx.memo(BLOCKS_KEY, lambda: as_structures(shared_rows(ctx)))


def parse_block_rows(text: str, engine: Engine = "auto") -> list[mo.Row]:
    """:func:`parse_blocks` as ``(start, end, label, level)`` tuples (same order), without a
    Structure per block."""
    if engine not in ENGINES:
        raise ValueError(f"unknown Markdown engine {engine!r}: use one of {', '.join(ENGINES)}")
    lm = mo.LineMap(text)
    out: list[mo.Row] = []
    lo = 0
    fm = mo.front_matter_end(lm)
    if fm >= 0:
        out.append(lm.span("front_matter", 0, fm))
        lo = fm + 1
    wrappers = mo.find_wrappers(lm, lo)
    walker = _Walker(lm, mo.mistletoe_lines(lm, lo, wrappers), wrappers, engine)
    deep = mo.deep_lines(lm, lo, MAX_DEPTH)
    if not deep:
        try:
            walker.run(lo, len(lm))
        except Exception as exc:  # RecursionError despite the depth check, or a mistletoe bug
            log.debug("mistletoe failed on the whole text (%r); parsing it piece by piece", exc)
            walker.out, deep = [], [len(lm)]
    if deep:  # pieces holding a too deep line, or failing in mistletoe, get the line scan
        for a, b in _line_scan.segments(lm, lo, len(lm), wrappers):
            mark, k = len(walker.out), bisect_left(deep, a)
            try:
                if k < len(deep) and deep[k] < b:
                    raise RecursionError(f"container nesting deeper than {MAX_DEPTH}")
                walker.run(a, b)
            except Exception as exc:
                log.debug("lines %d-%d fall back to the line scan (%r)", a + 1, b, exc)
                del walker.out[mark:]
                walker.out.extend(_line_scan.fallback_blocks(lm, a, b, wrappers))
    out.extend(walker.out)
    # a row is its Structure's fields in order: sorted as finalize sorts Structures
    return sorted([r for r in out if r[1] > r[0]])


def heading_title(text: str, s: Structure) -> str:
    """The title of the heading ``s``: no ``#`` markers or closing sequence, no setext underline.

    Args:
        text: the text the span points into.
        s: a ``heading`` span from :func:`parse_blocks` (or a detector relabelling of one).

    Returns:
        The heading text, stripped; the lines of a multi-line setext heading joined by spaces.
    """
    lines = _EOL.split(text[s.start : s.end])
    if len(lines) > 1:  # setext: ATX headings are single lines
        return " ".join(line.strip() for line in lines[:-1] if line.strip())
    body = lines[0].strip()
    m = _ATX_OPEN.match(body)
    if m is None:
        return body
    rest = body[m.end() :]
    # the body is stripped: a closing sequence can only be there when it ends in "#" (the
    # substitution alone tries its pattern at every blank of the title)
    return _ATX_CLOSE.sub("", rest).strip() if rest.endswith("#") else rest.strip()


@detectors.register("markdown.block.v1")
class MarkdownBlockDetector(Detector):
    """Markdown blocks of one kind (headings, list items, tables, ...) parsed by mistletoe."""

    class Params(DetectorParams):
        """Profile fields of ``markdown.block.v1``."""

        block: BlockLabel = Field(
            description="Which Markdown block to report: heading, paragraph, list, list_item, "
            "table, table_row, table_cell, code, blockquote, thematic_break, html_block or "
            "front_matter."
        )
        levels: list[int] | None = Field(
            default=None,
            description="Keep only these levels: heading levels 1-6 for headings, nesting "
            "depths (1 = outermost) for lists, list items and blockquotes. Null keeps all.",
        )
        engine: Engine = Field(
            default="auto",
            description="Block parser: 'auto' reads the common top-level blocks itself "
            "(plain paragraphs, ATX headings, one-line HTML blocks, lists of one-paragraph "
            "items) and hands every other block to mistletoe; "
            "'mistletoe' parses everything with mistletoe (the reference). Both give the same "
            "blocks; 'auto' is faster.",
        )

    def _blocks(self, ctx: DetectContext) -> list[mo.Row]:
        engine = self.params.engine
        if engine == "auto":  # the parse every other consumer of the document's blocks shares
            return shared_rows(ctx)
        return ctx.memo(ROWS_KEY + (engine,), lambda: parse_block_rows(ctx.text, engine))

    def detect(self, ctx: DetectContext) -> list[Structure]:
        """Spans of the configured block kind, labelled with this structure's name."""
        block, levels = self.params.block, self.params.levels
        keep = None if levels is None else set(levels)
        return finalize([Structure(start, end, self.name, level) for start, end, label, level in self._blocks(ctx)
                         if label == block and (keep is None or level in keep)])

    def detect_arrays(self, ctx: DetectContext) -> SpanArrays:
        """Starts and ends of :meth:`detect`'s spans, without a Structure per span.

        Every ``markdown.block.v1`` structure of a profile (eleven in ``markdown.core``) reads
        the same parse: it is split by label once per document.
        """
        table = ctx.memo(("markdown.block_arrays", self.params.engine),
                         lambda: _rows_by_label(self._blocks(ctx)))
        rows = table.get(self.params.block)
        if rows is None:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        if self.params.levels is not None:
            rows = rows[np.isin(rows[:, 2], self.params.levels)]
        return rows[:, 0].copy(), rows[:, 1].copy()


def _rows_by_label(blocks: list[mo.Row]) -> dict[str, np.ndarray]:
    """``label -> int64 rows (start, end, level)``, in ``blocks``' order.

    ``parse_block_rows`` sorts by ``(start, end, label, level)``, so each label's rows are in
    the ``(start, end, level)`` order that ``detect`` produces. The columns are made by C-level
    transposition and each label's rows by one mask (a Python append per row cost 3x more).
    """
    if not blocks:
        return {}
    starts, ends, labels, levels = zip(*blocks)
    table = np.empty((len(blocks), 3), dtype=np.int64)
    table[:, 0], table[:, 1], table[:, 2] = starts, ends, levels
    codes = {label: k for k, label in enumerate(dict.fromkeys(labels))}
    of = np.fromiter(map(codes.__getitem__, labels), dtype=np.int64, count=len(labels))
    return {label: table[of == k] for label, k in codes.items()}


# the embedders' pooling grid cuts at block starts; the models sit below detect, so the reader is lent
_models.lend(_models.MARKDOWN_BLOCKS, parse_blocks)
