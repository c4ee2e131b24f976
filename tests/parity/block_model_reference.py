"""Reference copy of adachunk.detect._block_model.bound_blocks before its speed-up (per-block slices,
str.splitlines per note test): the fast version must give the very same units. Test-only."""
from __future__ import annotations

import re
from typing import Sequence

from adachunk.detect._block_model import (_AFTER_TABLE, _CAPTION, _LIST_LIKE, _NOTE_LINE, _POINT,  # noqa: F401
                                          _SUPERSCRIPT, _TABLE_LIKE, _UNIT_LINE, SHORT, BlockModel)
from adachunk.datatypes import Structure


def top_level(blocks: Sequence[Structure]) -> list[Structure]:
    """The blocks not nested in an earlier block, in document order."""
    out: list[Structure] = []
    for b in sorted(blocks, key=lambda s: (s.start, -s.end)):
        if not out or b.start >= out[-1].end:
            out.append(b)
    return out


class _Units:
    """Top-level blocks and the glue between neighbours: glued blocks form one unit."""

    def __init__(self, text: str, blocks: list[Structure]):
        self.text = text
        self.blocks = blocks
        self.glue = [False] * max(len(blocks) - 1, 0)  # glue[k]: blocks k and k+1 are one unit

    def join(self, i: int, j: int) -> None:
        """Blocks ``i..j`` (and the units they belong to) become one unit."""
        for k in range(i, j):
            self.glue[k] = True

    def spans(self) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for k, b in enumerate(self.blocks):
            if k and self.glue[k - 1]:
                out[-1] = (out[-1][0], b.end)
            else:
                out.append((b.start, b.end))
        return out

    def body(self, k: int) -> str:
        b = self.blocks[k]
        return self.text[b.start:b.end]


def _is_point(units: _Units, k: int) -> bool:
    return units.blocks[k].label == "paragraph" and _POINT.match(units.body(k)) is not None


def _is_note(units: _Units, k: int) -> bool:
    if units.blocks[k].label != "paragraph":
        return False
    lines = [ln for ln in units.body(k).splitlines() if ln.strip()]
    return bool(lines) and _NOTE_LINE.match(lines[0]) is not None


def _short(units: _Units, k: int) -> bool:
    b = units.blocks[k]
    return b.label == "paragraph" and b.end - b.start <= SHORT


def _bind_points(units: _Units) -> None:
    n = len(units.blocks)
    k = 0
    while k < n:
        if not _is_point(units, k):
            k += 1
            continue
        j = k
        while j + 1 < n and _is_point(units, j + 1):
            j += 1
        if j > k:
            units.join(k, j)
        k = j + 1


_ENUMERATED = re.compile(r"[ \t]*(?:\(?\d{1,3}[.)]|\(\d{1,3}\))[ \t]+\S")


def _introduces(units: _Units, k: int) -> bool:
    """Whether block ``k`` ends in ':' and the block after it is what it introduces: a list, a
    table, a point run or a numbered paragraph."""
    nxt = k + 1
    if nxt >= len(units.blocks) or units.blocks[k].label == "heading":
        return False
    if not units.body(k).rstrip().endswith(":"):
        return False
    if units.blocks[nxt].label in _LIST_LIKE or _is_point(units, nxt):
        return True
    return units.blocks[nxt].label == "paragraph" and _ENUMERATED.match(units.body(nxt)) is not None


def _bind_lead_ins(units: _Units) -> None:
    for k in range(len(units.blocks) - 1):
        if _introduces(units, k):
            units.join(k, k + 1)


def _table_follows(units: _Units, k: int) -> int | None:
    """Index of the table or figure that caption ``k`` introduces (right after it, or after one
    unit line), else None."""
    blocks = units.blocks
    if k + 1 < len(blocks) and blocks[k + 1].label in _TABLE_LIKE:
        return k + 1
    if (k + 2 < len(blocks) and blocks[k + 2].label in _TABLE_LIKE and _short(units, k + 1)
            and _UNIT_LINE.match(units.body(k + 1))):
        return k + 2
    return None


def _bind_captions(units: _Units) -> None:
    blocks = units.blocks
    for k in range(len(blocks)):
        if not _short(units, k):
            continue
        body = units.body(k)
        table = _table_follows(units, k) if (_CAPTION.match(body) or _UNIT_LINE.match(body)) else None
        if table is not None:
            units.join(k, table)
        elif k > 0 and blocks[k - 1].label in _TABLE_LIKE and (_AFTER_TABLE.match(body) or _CAPTION.match(body)):
            units.join(k - 1, k)


def _citations(units: _Units, k: int) -> tuple[str, ...]:
    """How the text cites the first note of footnote block ``k``: ``[^a]`` for ``[^a]:``, ``(¹)``
    or ``¹`` for ``(¹)``, ``¹`` for ``¹``, ``<sup>1</sup>`` for ``<sup>1</sup>`` (none for other
    note styles, whose citations cannot be told from ordinary text)."""
    first = next(ln for ln in units.body(k).splitlines() if ln.strip())
    m = re.match(r"[ \t]*(?:\[\^([^\]\s]+)\]:|\(([" + _SUPERSCRIPT + r"]+)\)|([" + _SUPERSCRIPT + r"]+)"
                 r"|<sup>([^<]{1,8})</sup>)", first)
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
    blocks = units.blocks
    for k in range(1, len(blocks)):
        if not _is_note(units, k):
            continue
        target = k - 1
        while target > 0 and _is_note(units, target):  # a run of note paragraphs: look above it
            target -= 1
        needles = _citations(units, k) if model.footnotes == "cite" else ()
        j = target
        while needles and j >= 0 and blocks[k].start - blocks[j].start <= model.reach:
            if any(n in units.body(j) for n in needles):
                target = j
                break
            j -= 1
        units.join(target, k)


def _bind_headings(units: _Units) -> None:
    blocks = units.blocks
    k = 0
    while k < len(blocks):
        if blocks[k].label != "heading":
            k += 1
            continue
        j = k
        while j + 1 < len(blocks) and blocks[j + 1].label == "heading":
            j += 1
        units.join(k, min(j + 1, len(blocks) - 1))
        k = j + 2


def bound_blocks(text: str, blocks: Sequence[Structure], model: BlockModel = BlockModel()) -> list[tuple[int, int]]:
    """Units of ``text`` (see the module docstring) from its Markdown ``blocks``.

    Args:
        text: the document text.
        blocks: every block of :func:`adachunk.detect.markdown.parse_blocks` (nested ones too).
        model: which bindings to make.

    Returns:
        Sorted, disjoint ``(start, end)`` spans, one per unit.
    """
    top = top_level(blocks)
    if not top:
        return []
    units = _Units(text, [b for b in top if b.label != "thematic_break"] or top)
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
    return units.spans()
