"""Lines of a page → Markdown blocks: headings, paragraphs, lists, footnotes (tables stay raw).

Document-wide statistics come first (:func:`doc_stats`): the body font size is the size that
carries most characters; every distinct larger size used on short lines is a heading size,
ranked largest first (level 1, 2, ...); a bold line at body size that stands alone and is short
is a heading one level below the smallest heading size. Paragraph breaks come from vertical
gaps larger than the usual line gap, first-line indents, short last lines and changes of font
size; list items start at a bullet or an enumerator.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass

from . import _text as tx
from ._breaks import LABEL_LINE, PageLines, isolated_headings, run_in_label, runs_on, share_size, spaced_paragraph
from ._lines import MARK
from ._model import Block, Line, RawPage, RawTable
from .._table_cells import is_period_phrase

_END_SENTENCE = (".", "!", "?", ":", "\u2026")
_NOT_A_HEADING_END = (".", ",", ";")
_LONE_MARK = re.compile(r"^(?:\d{1,3}|[a-z])$")
FOOT_ZONE = 0.4  # footnotes start below this share of the page's height (a gazette's run high)
_RUNNING_LINES = 4  # lines in a row that make a size one of running text
# a heading's number: "1", "1.", "1.1", "2.3.1", "A.", "Note 5", "Article 12a"
HEADING_NUMBER = re.compile(r"^(?:(\d{1,3}(?:\.\d{1,3})*)\.?|[A-Z]\.|(?:Note|NOTE|Article|ARTICLE|Section|SECTION|"
                            r"Chapter|CHAPTER|Part|PART|Schedule|Appendix|Annex)\s+\d{1,3}[A-Za-z]?)(?=\s|$)")


@dataclass
class DocStats:
    """Font facts of one document."""

    body: float
    heading_sizes: list[float]
    gap: float
    text_sizes: tuple[float, ...] = ()  # larger sizes that set running text (never headings)

    def heading_level(self, size: float) -> int:
        """1-based level of a heading set in ``size`` points; 0 when it is not a heading size."""
        for i, s in enumerate(self.heading_sizes):
            if size >= s - 0.3:
                return min(i + 1, 6)
        return 0

    @property
    def bold_level(self) -> int:
        """Level of a bold heading at body size: one below the smallest heading size."""
        return min(len(self.heading_sizes) + 1, 6)

    def text_size(self, size: float) -> bool:
        """Set in the body size or another size that sets running text (a bold line there may
        be a heading one level below the smallest heading size)."""
        return any(abs(size - s) < 0.6 for s in (self.body, *self.text_sizes))

    def small(self, line: Line) -> bool:
        """Set smaller than the body (footnotes, captions)."""
        return line.size < self.body - 0.6


def doc_stats(pages: list[RawPage]) -> DocStats:
    """Body size, ranked heading sizes and the typical gap between body lines."""
    weight: Counter[float] = Counter()
    for p in pages:
        for ln in p.lines:
            weight[round(ln.size * 2) / 2] += len(ln.text)
    if not weight:
        return DocStats(10.0, [], 2.0)
    body = max(weight, key=lambda s: (weight[s], -s))
    floor = body + max(0.5, 0.08 * body)
    running = _running_sizes(pages)
    sizes = sorted({round(ln.size * 2) / 2 for p in pages for ln in p.lines
                    if ln.size >= floor and len(ln.text) <= 200} - running, reverse=True)
    merged: list[float] = []
    for s in sizes:  # sizes within 0.6 pt are one class (rounding noise of scaled fonts)
        if not merged or merged[-1] - s > 0.6:
            merged.append(s)
    gaps = [b.top - a.bottom for p in pages for a, b in zip(p.lines, p.lines[1:])
            if abs(a.size - body) < 0.6 and abs(b.size - body) < 0.6 and 0 <= b.top - a.bottom < body * 1.5]
    gap = statistics.median(gaps) if gaps else 0.2 * body
    return DocStats(body, merged, gap, tuple(sorted(s for s in running if s >= floor)))


def _running_sizes(pages: list[RawPage]) -> set[float]:
    """Sizes (rounded to half points) that set running text somewhere: four lines or more in a
    row, not bold (a second body size, such as an agenda's item text above its fine print)."""
    out: set[float] = set()
    for p in pages:
        run, size = 0, None
        for ln in p.lines:
            s = round(ln.size * 2) / 2
            run = run + 1 if s == size and not ln.bold else (0 if ln.bold else 1)
            size = s
            if run >= _RUNNING_LINES:
                out.add(s)
    return out


def split_footnotes(lines: list[Line], stats: DocStats,
                    height: float) -> tuple[list[Line], list[tuple[str, list[Line]]]]:
    """Separate the footnotes: the trailing run of small lines in the lower 60% of the page,
    from the first one that starts with a note mark (a number, *, †, ...)."""
    i = len(lines)
    while i > 0 and stats.small(lines[i - 1]) and lines[i - 1].top > FOOT_ZONE * height:
        i -= 1
    zone = lines[i:]
    start = next((j for j, ln in enumerate(zone) if MARK.match(ln.words[0].text.rstrip(".)"))), None)
    if start is None:
        return lines, []
    notes: list[tuple[str, list[Line]]] = []
    for ln in zone[start:]:
        label = ln.words[0].text.rstrip(".)")
        # a note starts at the margin of the notes before it, or at the top of the next column
        if MARK.match(label) and (not notes or ln.x0 <= notes[-1][1][0].x0 + 1.0
                                  or ln.top < notes[-1][1][-1].top - 1.0):
            notes.append((label, [ln]))
        else:
            notes[-1][1].append(ln)
    return lines[: i + start], notes


def _centred(line: Line, width: float) -> bool:
    """Centred on the page (within 3 points), not just short."""
    return width > 0 and abs((line.x0 + line.x1) / 2 - width / 2) <= 3.0 and line.x1 - line.x0 < 0.8 * width


def _set_level(block: Block, level: int) -> None:
    block.level = level
    block.text = "#" * level + " " + block.text.lstrip("#").lstrip()


def refine_levels(pages: list[list]) -> None:
    """Document-wide heading levels, after the per-size ranking of :class:`DocStats`.

    * The title: when the document's first heading is unnumbered, on page 1, and shares the top
      level with later headings that are numbered or is centred while they are not, it stays
      level 1 and every other heading moves one level down ("# Annual Report" over
      "## 1. Liquidity Position").
    * Numbering: a heading numbered "1.1" is one level below the last "1." heading, however
      their sizes compare (bold body-size "1.1" and "1.1.1" headings are told apart this way).
    """
    heads = [b for items in pages for b in items if isinstance(b, Block) and b.kind == "heading"]
    if not heads:
        return
    first = heads[0]
    on_first_page = any(first is b for b in pages[0]) if pages else False
    peers = [h for h in heads[1:] if h.level == first.level]
    if (on_first_page and peers and not first.meta.get("numbered")
            and (all(h.meta.get("numbered") for h in peers)
                 or first.meta.get("centred") and not any(h.meta.get("centred") for h in peers))):
        for h in heads[1:]:
            _set_level(h, min(h.level + 1, 6))
    parents: dict[int, int] = {}  # numbering depth -> level of the last heading at that depth
    for h in heads:
        depth = h.meta.get("depth", 0)
        if not depth:
            continue
        if depth - 1 in parents and h.level <= parents[depth - 1]:
            _set_level(h, min(parents[depth - 1] + 1, 6))
        parents[depth] = h.level
        for d in [d for d in parents if d > depth]:
            del parents[d]


def _spaced_marker(line: Line) -> str | None:
    """A bare number or letter set apart from the text by a wide gap (a list laid out with a
    hanging indent, such as "1    text"); returned as a Markdown marker ("1." or "a.")."""
    if len(line.words) < 2 or not _LONE_MARK.match(line.words[0].text):
        return None
    if line.words[1].x0 - line.words[0].x1 < line.size:
        return None
    return line.words[0].text + "."


def _kind(line: Line, stats: DocStats) -> tuple[str, int]:
    """``("heading", level)``, ``("bold", level)`` (a heading candidate), ``("item", 0)`` or
    ``("text", 0)``."""
    level = stats.heading_level(line.size)
    if level and not stats.small(line):
        return "heading", level
    if line.bold and stats.text_size(line.size) and HEADING_NUMBER.match(line.text) and len(line.words) <= 12:
        return "bold", stats.bold_level  # "1. CALL TO ORDER": a numbered bold line heads, it is no list item
    if tx.list_marker(line.text) or _spaced_marker(line):
        return "item", 0
    if line.bold and stats.text_size(line.size):
        return "bold", stats.bold_level
    return "text", 0


class _Run:
    """Lines being collected into one block."""

    def __init__(self, line: Line, kind: tuple[str, int]):
        self.lines = [line]
        self.kind = kind

    def _column(self) -> list[Line]:
        """The run's lines since it last went back up the page (into the next column): a
        paragraph's margins are those of the column it is in."""
        k = len(self.lines) - 1
        while k > 0 and self.lines[k].top > self.lines[k - 1].top:
            k -= 1
        return self.lines[k:]

    def breaks_before(self, line: Line, kind: tuple[str, int], stats: DocStats, width: float = 0.0,
                      page: PageLines | None = None) -> bool:
        prev = self.lines[-1]
        if kind != self.kind and not (self.kind[0] == "item" and kind[0] == "text"):
            return True
        if kind[0] in ("heading", "bold") and (HEADING_NUMBER.match(line.text) or _centred(line, width)
                                               != _centred(prev, width)):
            return True  # "1. Liquidity" under a title of its size, or a centred title over a left one
        if kind[0] == "item" or (abs(line.size - prev.size) > 0.6 and not share_size(line, prev)):
            return True
        if kind[0] == "text" and run_in_label(line):
            return True  # "AGENCY: Federal Aviation ...": a labelled paragraph of its own
        gap = line.top - prev.bottom
        wide = stats.gap + 0.35 * stats.body
        if gap > wide and not (page is not None and spaced_paragraph(self.lines, line, gap, wide, stats.body, page)):
            return True
        if LABEL_LINE.match(prev.text):
            return True  # "APPEARANCES:" alone on its line heads what follows
        if line.top < prev.top - 1.0:  # went back up: the next column
            return prev.text.rstrip().endswith(_END_SENTENCE) or not line.text[:1].islower()
        column = self._column()
        if len(column) >= 2 and self.kind[0] != "item":
            left = min(ln.x0 for ln in column)
            right = max(ln.x1 for ln in column)
            if (line.x0 > prev.x0 + 0.8 * line.size and prev.x0 <= left + 1.0
                    and not runs_on(prev.text)):
                return True  # a first-line indent opens the next paragraph (not a hanging indent)
            if (prev.x0 > left + 0.8 * line.size and line.x0 < prev.x0 - 0.8 * line.size
                    and prev.text.rstrip().endswith(_END_SENTENCE)):
                return True  # back out of a hanging indent after a full stop: the next entry
            if (prev.x1 < right - 0.25 * (right - left) and prev.text.rstrip().endswith(_END_SENTENCE)
                    and line.text[:1].isupper()):
                return True  # a short last line closes the paragraph
        if self.kind[0] == "item" and prev.text.rstrip().endswith(_END_SENTENCE):
            if line.x0 < self.lines[0].x0 - 1.0 and len(self.lines) == 1:
                return True  # text to the left of the bullet, after a full stop, is no longer the item
            if line.x0 > prev.x0 + 0.8 * line.size and prev.x0 < self.lines[0].x0 - 1.0:
                return True  # the item ran on at the margin; an indented line opens a paragraph
        return False


class PageLayout:
    """Turns one page's body lines into blocks (tables are passed through raw)."""

    def __init__(self, stats: DocStats, vocab: Counter[str]):
        self.stats = stats
        self.vocab = vocab

    def line_text(self, line: Line, labels: set[str]) -> str:
        """A line's text; superscript marks that have a footnote on the page become ``[^n]``."""
        out: list[str] = []
        for w in line.words:
            if w.sup and out:
                out[-1] += f"[^{w.text}]" if w.text in labels else w.text
            elif w.glued and out:
                out[-1] += w.text
            else:
                out.append(w.text)
        return tx.clean(" ".join(out))

    def page(self, raw: RawPage, lines: list[Line]) -> list[Block | RawTable]:
        """Blocks of one page in reading order, footnotes after the paragraph citing them."""
        body, notes = split_footnotes(lines, self.stats, raw.height)
        labels = {label for label, _ in notes}
        runs: list[_Run] = []
        context = PageLines(body)
        for line, kind in zip(body, isolated_headings(body, [_kind(ln, self.stats) for ln in body])):
            if runs and not runs[-1].breaks_before(line, kind, self.stats, raw.width, context):
                runs[-1].lines.append(line)
            else:
                runs.append(_Run(line, kind))
        blocks = self._blocks(runs, labels, raw.width)
        items = self._place_tables(blocks, raw.tables)
        return self._place_notes(items, notes, labels)

    def _blocks(self, runs: list[_Run], labels: set[str], width: float = 0.0) -> list[tuple[Block, set[int]]]:
        """Each run → a block, with the ids of its lines (tables are placed by them); list items
        that follow each other merge into one list block."""
        out: list[tuple[Block, set[int]]] = []
        for run in runs:
            texts = [self.line_text(ln, labels) for ln in run.lines]
            ids = {id(ln) for ln in run.lines}
            kind, level = run.kind
            text = tx.join_lines(texts, self.vocab)
            if kind == "bold" and (len(run.lines) > (2 if HEADING_NUMBER.match(text) else 1)
                                   or len(text.split()) > 16 or text.endswith(_NOT_A_HEADING_END)):
                kind = "text"  # a numbered bold heading may wrap once ("1.2.1 Document flow ... / certificate")
            if kind == "heading" and (len(run.lines) > 3 or len(text) > 250):
                kind = "text"
            if kind in ("heading", "bold") and not any(ch.isalnum() for ch in text):
                kind = "text"  # a stray mark (a lone backtick) is no heading
            if kind in ("heading", "bold") and is_period_phrase(text):
                kind = "text"  # "2022", "Year Ended December 31,": a column header, never a section
            if kind in ("heading", "bold"):
                m = HEADING_NUMBER.match(text)
                block = Block("heading", "#" * level + " " + text, level=level,
                              meta={"centred": _centred(run.lines[0], width), "numbered": bool(m),
                                    "depth": m.group(1).count(".") + 1 if m and m.group(1) else 0})
            elif kind == "item":
                block = self._item(run, texts)
                if out and out[-1][0].kind == "list":
                    prev, prev_ids = out[-1]
                    x0 = run.lines[0].x0
                    if run.lines[0].top < prev.meta.get("top", 0.0):  # the list goes on in the next column
                        shift = x0 - prev.meta["x"][-1]
                        prev.meta["x"] = [x + shift for x in prev.meta["x"]]
                    prev.meta["top"] = run.lines[0].top
                    out[-1] = (Block("list", prev.text + "\n" + self._indent(prev, block, x0), meta=prev.meta),
                               prev_ids | ids)
                    continue
            else:
                block = Block("paragraph", tx.escape_block_start(text))
            out.append((block, ids))
        return out

    def _item(self, run: _Run, texts: list[str]) -> Block:
        spaced = _spaced_marker(run.lines[0])
        if spaced:
            marker, rest = spaced, texts[0].split(" ", 1)[1]
        else:
            marker, rest = tx.list_marker(texts[0]) or ("-", texts[0])
        body = tx.join_lines([rest] + texts[1:], self.vocab)
        md = tx.item_markdown(marker, body)
        return Block("list", md, meta={"x": [run.lines[0].x0], "pad": [md.index(" ") + 1], "top": run.lines[0].top})

    @staticmethod
    def _indent(prev: Block, item: Block, x0: float) -> str:
        """Nest an item under the previous ones when its marker sits further right."""
        xs, pads = prev.meta["x"], prev.meta["pad"]
        depth = 0
        while depth < len(xs) and x0 > xs[depth] + 4.0:
            depth += 1
        del xs[depth + 1:], pads[depth + 1:]
        if depth == len(xs):
            xs.append(x0)
            pads.append(item.meta["pad"][0])
        else:
            xs[depth], pads[depth] = x0, item.meta["pad"][0]
        return " " * sum(pads[:depth]) + item.text

    @staticmethod
    def _place_tables(blocks: list[tuple[Block, set[int]]], tables: list[RawTable]) -> list:
        """Insert each table before the block holding its anchor line (the first line read after
        it); a table whose anchor left the body (a footer, a footnote) ends the body."""
        items: list = [b for b, _ in blocks]
        owners = [ids for _, ids in blocks]
        for t in tables:
            key = id(t.anchor) if t.anchor is not None else None
            at = next((i for i, ids in enumerate(owners) if key in ids), len(items))
            items.insert(at, t)
            owners.insert(at, set())
        return items

    def _place_notes(self, items: list, notes: list[tuple[str, list[Line]]], labels: set[str]) -> list:
        """Put each footnote right after the paragraph that cites it, else at the page's end."""
        for label, lines in notes:
            first = lines[0]
            words = first.words[1:]
            texts = [tx.clean(" ".join(w.text for w in words))] + [self.line_text(ln, labels) for ln in lines[1:]]
            note = Block("footnote", f"[^{label}]: {tx.join_lines(texts, self.vocab)}", bind_prev=True,
                         meta={"label": label})
            ref = f"[^{label}]"
            at = next((i for i, b in enumerate(items) if isinstance(b, Block) and b.kind != "footnote"
                       and ref in b.text), None)
            if at is None:
                items.append(note)
                continue
            at += 1
            while at < len(items) and isinstance(items[at], Block) and items[at].kind == "footnote":
                at += 1
            items.insert(at, note)
        return items

