"""The reader's block model of a Markdown or plain-text document: what is read as one unit.

The paper's parser (and adachunk's PDF converter) binds a heading to the block that follows it,
a footnote to the paragraph that cites it, a table to its caption; Markdown itself only knows
paragraphs, lists and tables. :func:`bound_blocks` starts from the top-level Markdown blocks of
:func:`adachunk.detect.markdown.parse_blocks` and binds neighbours into *units*:

* **headings**: a run of headings with the first block after it (as Block Integrity counts
  Markdown blocks, :func:`adachunk.metrics.blocks.markdown_blocks`);
* **lead-ins**: a paragraph ending in ``:`` with the list, table, code block or point run it
  introduces;
* **point runs**: consecutive paragraphs that each open with a point enumerator the Markdown
  parser does not see as a list (``(a)``, ``b)``, ``(iv)``, ``•``, ``–``) are one unit, like a
  list;
* **captions and unit lines**: a short ``Table 3 …``/``Figure 2 …`` or ``(in EUR million)``
  paragraph with the table or figure right after it, a short ``Source: …``/``Note: …``
  paragraph with the table right before it;
* **line paragraphs**: a paragraph written one paragraph per line (long lines that end
  sentences, no blank line between) is first cut into its lines
  (:mod:`adachunk.detect._line_paragraphs`);
* **footnotes**: a paragraph made of footnote definitions (``[^1]: …``, ``(¹) …``, ``¹ …``,
  ``<sup>1</sup> …``, ``* …``) with the paragraph that cites its first note, and every block
  in between, when the citation lies within ``reach`` characters (``cite``); otherwise, or with
  ``previous``, with the block just before it: the end of its section.

Units are ``(start, end)`` spans from the first content character of their first block to the
end of their last block's last non-blank line, exactly as the blocks themselves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from operator import itemgetter
from typing import Literal, Sequence

import numpy as np

from ..datatypes import Structure
from ._line_paragraphs import split_line_paragraphs

FootnoteMode = Literal["cite", "previous", "none"]

# a point enumerator the Markdown parser leaves in a paragraph: (a) b) (iv) • – ‒ — ▪ ◦
_POINT = re.compile(r"[ \t]*(?:\((?:[a-z]{1,2}|[ivxlc]{1,6})\)|(?:[a-z]|[ivxlc]{1,6})\)|[•▪◦‣–‒—·])[ \t]+\S")
_SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹"
# one footnote definition line
_NOTE_LINE = re.compile(
    r"[ \t]*(?:\[\^[^\]\s]+\]:|\([" + _SUPERSCRIPT + r"]+\)|[" + _SUPERSCRIPT + r"]+(?=[ \t])"
    r"|<sup>[^<]{1,8}</sup>|\\?\*{1,3}(?=[ \t])|[†‡](?=[ \t]))")
_CAPTION = re.compile(
    r"[ \t]*[*_]{0,2}(?:Table|TABLE|Figure|FIGURE|Fig\.|Chart|Exhibit|Graph|Diagram|Tableau|Tabelle|Abbildung"
    r"|Schedule)[ \t]+(?:\d|[IVXL]+\b|[A-Z]\d*\b)[^\n]*$")
_UNIT_LINE = re.compile(
    r"[ \t]*[*_(\[]{0,3}(?:(?i:amounts?|figures?|all)\b[^\n]{0,40}\b)?(?i:in)[ \t]+"
    r"(?:[A-Z]{3}\b|[€$£¥]|(?i:thousands?|millions?|billions?)\b|(?:k|m|bn)\b)[^\n]*$")
_AFTER_TABLE = re.compile(r"[ \t]*[*_]{0,2}(?i:sources?|notes?|quelle|anmerkung)[ \t]*:[^\n]*$")
_TABLE_LIKE = frozenset({"table", "html_block", "code"})
_LIST_LIKE = frozenset({"list", "table", "code", "html_block"})
SHORT = 300  # a caption or unit line is a short paragraph


@dataclass(frozen=True)
class BlockModel:
    """Which bindings :func:`bound_blocks` makes (see the module docstring).

    Attributes:
        headings: bind a run of headings to the block after it.
        lead_in: bind a paragraph ending in ':' to the list, table or point run it introduces.
        points: bind consecutive point paragraphs ((a), (b), ...) into one unit.
        captions: bind captions, unit lines and source notes to their table or figure.
        footnotes: ``cite``, ``previous`` or ``none`` (see the module docstring).
        reach: how far back (characters) a footnote's citation may lie for ``cite``.
        line_paragraphs: read a paragraph written one paragraph per line as its lines.
    """

    headings: bool = True
    lead_in: bool = True
    points: bool = True
    captions: bool = True
    footnotes: FootnoteMode = "cite"
    reach: int = 3000
    line_paragraphs: bool = True


_START, _END = itemgetter(0), itemgetter(1)
Row = tuple[int, int, str, int]  # a block as the Markdown parser makes it: start, end, label, level


def _rows(blocks: Sequence[Structure] | Sequence[Row]) -> Sequence[Row]:
    """``blocks`` as ``(start, end, label, level)`` rows (Structures are converted)."""
    if blocks and isinstance(blocks[0], Structure):
        return [(b.start, b.end, b.label, b.level) for b in blocks]  # type: ignore[union-attr]
    return blocks  # type: ignore[return-value]


def top_level(blocks: Sequence[Row]) -> list[Row]:
    """The blocks not nested in an earlier block, in document order."""
    if not blocks:
        return []
    # a stable sort on (start, -end), as sorted() with that key, without a Python key per block
    starts = np.fromiter(map(_START, blocks), dtype=np.int64, count=len(blocks))
    ends = np.fromiter(map(_END, blocks), dtype=np.int64, count=len(blocks))
    order = np.lexsort((-ends, starts)).tolist()
    out: list[Row] = []
    last_end = None
    for k in order:
        b = blocks[k]
        if last_end is None or b[0] >= last_end:
            out.append(b)
            last_end = b[1]
    return out


# the line boundaries of str.splitlines() (of "\r\n", the "\n" ends the break)
_LINE_BREAK = re.compile(r"[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_NON_SPACE = re.compile(r"\S")  # \S is "not str.isspace()", as str.strip() sees it
# Prefilters on a block's first (last) character: a block can only match a pattern when its
# first character may begin a match. _POINT: [ \t]* then "(", a letter or a bullet; a note's
# first line: any whitespace (skipped to the first non-blank line), then "[", "(", a
# superscript digit, "<", "\", "*", "†" or "‡"; a lead-in: ":" or whitespace (stripped) last.
_MAY_POINT = re.compile(r"[ \t(a-z•▪◦‣–‒—·]")
_MAY_NOTE = re.compile(r"[\s\[(<\\*†‡" + _SUPERSCRIPT + r"]")
# ... and for four of those first characters, what a note's second character must be: "[^",
# "(" and a superscript digit, "<sup>", "\\*" (CLAIR: of 5,738 candidate paragraphs a pass,
# 2,636 fail here, and the regex ran on them: 55 -> 35 ms of bound_blocks per pass)
_NOTE_SECOND = {"[": "^", "(": _SUPERSCRIPT, "<": "s", "\\": "*"}
_MAY_COLON = re.compile(r"[:\s]")
_NOT_A_CHAR = "\0"  # stands for the first and last character of an empty block (matches no prefilter)


class _Units:
    """Top-level blocks and the glue between neighbours: glued blocks form one unit.

    Each test runs once per block that passes its prefilter, on the document text between the
    block's offsets (``pattern.match(text, start, end)`` sees what it sees on the block's
    slice: no pattern looks behind its start), so no block body is copied.
    """

    def __init__(self, text: str, blocks: list[Row]):
        self.text = text
        self.blocks = blocks
        self.labels = [b[2] for b in blocks]
        self.starts = [b[0] for b in blocks]
        self.ends = [b[1] for b in blocks]
        n = len(blocks)
        self.glue = np.zeros(max(n - 1, 0), dtype=bool)  # glue[k]: blocks k and k+1 are one unit
        # one character per block: the prefilters run over these strings in one regex pass
        self.firsts = "".join([text[a] if b > a else _NOT_A_CHAR for a, b in zip(self.starts, self.ends)])
        self.lasts = "".join([text[b - 1] if b > a else _NOT_A_CHAR for a, b in zip(self.starts, self.ends)])
        self.paragraph = np.array([lbl == "paragraph" for lbl in self.labels], dtype=bool)
        self._points: list[bool] | None = None

    def join(self, i: int, j: int) -> None:
        """Blocks ``i..j`` (and the units they belong to) become one unit."""
        self.glue[i:j] = True

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """One ``(start, end)`` per unit, as start and end arrays (int64): from its first block's
        start to its last block's end."""
        first = np.flatnonzero(np.concatenate(([True], ~self.glue)))
        last = np.append(first[1:] - 1, len(self.blocks) - 1)
        return (np.array(self.starts, dtype=np.int64)[first],
                np.array(self.ends, dtype=np.int64)[last])

    def candidates(self, prefilter: re.Pattern, chars: str) -> list[int]:
        """Paragraphs whose character in ``chars`` (``firsts`` or ``lasts``) passes ``prefilter``."""
        para = self.paragraph
        return [k for k in (m.start() for m in prefilter.finditer(chars)) if para[k]]

    def match(self, pattern: re.Pattern, k: int) -> bool:
        """Whether ``pattern`` matches at the start of block ``k`` (as on its body)."""
        return pattern.match(self.text, self.starts[k], self.ends[k]) is not None

    def contains(self, needle: str, k: int) -> bool:
        """Whether block ``k``'s body contains ``needle``."""
        return self.text.find(needle, self.starts[k], self.ends[k]) >= 0

    def ends_with_colon(self, k: int) -> bool:
        """``body(k).rstrip().endswith(":")`` without copying the body."""
        text, start, e = self.text, self.starts[k], self.ends[k]
        while e > start and text[e - 1].isspace():
            e -= 1
        return e > start and text[e - 1] == ":"

    def first_line_match(self, pattern: re.Pattern, k: int) -> re.Match | None:
        """``pattern.match`` on the first line of block ``k`` with a non-blank character (the
        first ``ln`` of ``body.splitlines()`` with ``ln.strip()``); None when all is blank.

        The line's end is looked for only when a match on the rest of the block runs past it:
        the patterns have no end anchors or negative lookarounds, so a shorter string only
        makes matches fail, and a match within the line is the one the line alone gives.
        """
        text, start, end = self.text, self.starts[k], self.ends[k]
        i = line_start = start
        if start < end and text[start].isspace():  # blocks usually open on their content
            m = _NON_SPACE.search(text, start, end)
            if m is None:
                return None
            i = m.start()
            for br in _LINE_BREAK.finditer(text, start, i):  # only whitespace lies before i
                line_start = br.end()
        elif start >= end:
            return None
        found = pattern.match(text, line_start, end)
        if found is None or _LINE_BREAK.search(text, i, found.end()) is None:
            return found
        br = _LINE_BREAK.search(text, i, end)
        return pattern.match(text, line_start, br.start())

    def points(self) -> list[bool]:
        """Per block: a paragraph opening with a point enumerator."""
        if self._points is None:
            self._points = [False] * len(self.blocks)
            for k in self.candidates(_MAY_POINT, self.firsts):
                self._points[k] = self.match(_POINT, k)
        return self._points

    def notes(self) -> list[int]:
        """The paragraphs whose first non-blank line is a footnote definition, in order."""
        text, starts, ends, second = self.text, self.starts, self.ends, _NOTE_SECOND.get
        out = []
        for k in self.candidates(_MAY_NOTE, self.firsts):
            a = starts[k]
            need = second(text[a])
            if need is not None and (a + 1 >= ends[k] or text[a + 1] not in need):
                continue  # the block opens with its first character: no note can match there
            if self.first_line_match(_NOTE_LINE, k) is not None:
                out.append(k)
        return out


def _short(units: _Units, k: int) -> bool:
    return units.labels[k] == "paragraph" and units.ends[k] - units.starts[k] <= SHORT


def _bind_points(units: _Units) -> None:
    points = units.points()
    n = len(points)
    k = 0
    while k < n:
        if not points[k]:
            k += 1
            continue
        j = k
        while j + 1 < n and points[j + 1]:
            j += 1
        if j > k:
            units.join(k, j)
        k = j + 1


_ENUMERATED = re.compile(r"[ \t]*(?:\(?\d{1,3}[.)]|\(\d{1,3}\))[ \t]+\S")


def _introduces(units: _Units, k: int) -> bool:
    """Whether block ``k`` ends in ':' and the block after it is what it introduces: a list, a
    table, a point run or a numbered paragraph."""
    nxt = k + 1
    if nxt >= len(units.blocks) or units.labels[k] == "heading":
        return False
    if not units.ends_with_colon(k):
        return False
    if units.labels[nxt] in _LIST_LIKE or units.points()[nxt]:
        return True
    return units.labels[nxt] == "paragraph" and units.match(_ENUMERATED, nxt)


def _bind_lead_ins(units: _Units) -> None:
    # only a block whose last character is ':' or whitespace can end in ':' once stripped
    for k in [m.start() for m in _MAY_COLON.finditer(units.lasts)]:
        if _introduces(units, k):
            units.join(k, k + 1)


def _table_follows(units: _Units, k: int) -> int | None:
    """Index of the table or figure that caption ``k`` introduces (right after it, or after one
    unit line), else None."""
    labels = units.labels
    if k + 1 < len(labels) and labels[k + 1] in _TABLE_LIKE:
        return k + 1
    if (k + 2 < len(labels) and labels[k + 2] in _TABLE_LIKE and _short(units, k + 1)
            and units.match(_UNIT_LINE, k + 1)):
        return k + 2
    return None


def _bind_captions(units: _Units) -> None:
    labels = units.labels
    lengths = np.asarray(units.ends) - np.asarray(units.starts)
    # A caption binds only beside a table: to block k + 1 or k + 2 (_table_follows) or to k - 1.
    # A short paragraph with none of those table-like needs none of the three matches below.
    tabular = np.fromiter((lbl in _TABLE_LIKE for lbl in labels), dtype=bool, count=len(labels))
    near = np.zeros(len(labels), dtype=bool)
    near[:-1] |= tabular[1:]
    near[:-2] |= tabular[2:]
    near[1:] |= tabular[:-1]
    for k in np.flatnonzero(units.paragraph & (lengths <= SHORT) & near).tolist():  # short, by a table
        caption = units.match(_CAPTION, k)
        table = _table_follows(units, k) if (caption or units.match(_UNIT_LINE, k)) else None
        if table is not None:
            units.join(k, table)
        elif k > 0 and labels[k - 1] in _TABLE_LIKE and (caption or units.match(_AFTER_TABLE, k)):
            units.join(k - 1, k)


_CITED = re.compile(r"[ \t]*(?:\[\^([^\]\s]+)\]:|\(([" + _SUPERSCRIPT + r"]+)\)|([" + _SUPERSCRIPT + r"]+)"
                    r"|<sup>([^<]{1,8})</sup>)")


def _citations(units: _Units, k: int) -> tuple[str, ...]:
    """How the text cites the first note of footnote block ``k``: ``[^a]`` for ``[^a]:``, ``(¹)``
    or ``¹`` for ``(¹)``, ``¹`` for ``¹``, ``<sup>1</sup>`` for ``<sup>1</sup>`` (none for other
    note styles, whose citations cannot be told from ordinary text)."""
    m = units.first_line_match(_CITED, k)
    if m is None:
        return ()
    ref, paren, sup, html_sup = m.groups()
    if ref:
        return (f"[^{ref}]",)
    if paren:
        return (f"({paren})", paren)
    if sup:
        return (sup,)
    return (f"<sup>{html_sup}</sup>",)


def _bind_footnotes(units: _Units, model: BlockModel) -> None:
    found = units.notes()
    notes, starts = set(found), units.starts
    for k in found:
        if k == 0:
            continue
        target = k - 1
        while target > 0 and target in notes:  # a run of note paragraphs: look above it
            target -= 1
        needles = _citations(units, k) if model.footnotes == "cite" else ()
        j = target
        while needles and j >= 0 and starts[k] - starts[j] <= model.reach:
            if any(units.contains(n, j) for n in needles):
                target = j
                break
            j -= 1
        units.join(target, k)


def _bind_headings(units: _Units) -> None:
    labels, n = units.labels, len(units.labels)
    after = 0  # the next heading run starts at or after this block
    for k in [k for k, lbl in enumerate(labels) if lbl == "heading"]:
        if k < after:
            continue
        j = k
        while j + 1 < n and labels[j + 1] == "heading":
            j += 1
        units.join(k, min(j + 1, n - 1))
        after = j + 2


def bound_blocks(text: str, blocks: Sequence[Structure] | Sequence[Row],
                 model: BlockModel = BlockModel()) -> list[tuple[int, int]]:
    """Units of ``text`` (see the module docstring) from its Markdown ``blocks``.

    Args:
        text: the document text.
        blocks: every block of :func:`adachunk.detect.markdown.parse_blocks` (nested ones too),
            as Structures or as the rows of ``parse_block_rows``.
        model: which bindings to make.

    Returns:
        Sorted, disjoint ``(start, end)`` spans, one per unit.
    """
    starts, ends = bound_block_arrays(text, blocks, model)
    return list(zip(starts.tolist(), ends.tolist()))


def bound_block_arrays(text: str, blocks: Sequence[Structure] | Sequence[Row],
                       model: BlockModel = BlockModel()) -> tuple[np.ndarray, np.ndarray]:
    """:func:`bound_blocks` as start and end arrays (int64), as the cost lattice takes them."""
    top = top_level(_rows(blocks))
    if not top:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if model.line_paragraphs:
        top = split_line_paragraphs(text, top)
    units = _Units(text, [b for b in top if b[2] != "thematic_break"] or top)
    if model.points:
        _bind_points(units)
    if model.lead_in:
        _bind_lead_ins(units)
    if model.captions:
        _bind_captions(units)
    if model.footnotes != "none":
        _bind_footnotes(units, model)
    if model.headings:
        _bind_headings(units)
    return units.arrays()
