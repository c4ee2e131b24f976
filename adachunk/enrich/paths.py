"""Structure paths: the chain of legal or financial units around a position.

A retrieved ``(b)`` means something only as "Chapter II > Article 5 > paragraph 2 > point (b)".
Each span of a structure marked ``emit: path`` becomes a *unit* whose label is read from the
matched text (``## Article 5 — Title`` → ``Article 5``, ``2. The ...`` → ``paragraph 2``); point
lists are split into their points (``(b) ...`` → ``point (b)``). Units nest by rank (a part
holds chapters, a chapter articles, an article paragraphs, a paragraph points): a new unit
closes every open unit of its rank or below, and paragraphs and points also close where their
span ends.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

# rank of a unit by the keyword of its label: lower ranks enclose higher ones (a note of the
# accounts is not inside the statement before it: both rank 1)
RANKS = {"part": 0, "title": 1, "annex": 1, "appendix": 1, "schedule": 1, "statement": 1,
         "note": 1, "chapter": 2, "recitals": 2, "section": 3, "article": 4, "clause": 4, "recital": 4,
         "paragraph": 5, "point": 6}
_CONTAINER_RANK = 5  # paragraphs and points end where their span ends; headings last until replaced

_MARKUP = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+)?(?:\*\*|__|\*|_)?[ \t]*")
_HEADING = re.compile(
    r"(?P<kind>Article|ARTICLE|Art\.|Artikel|Articolo|Artículo|Chapter|CHAPTER|Chapitre|CHAPITRE|Section|SECTION|"
    r"Title|TITLE|Part|PART|Annex|ANNEX|Appendix|APPENDIX|Schedule|SCHEDULE|Recital|RECITAL|Clause|CLAUSE|"
    r"Note|NOTE)[ \t]+(?P<num>\d{1,5}(?:\.\d{1,4})*[a-z]?|[IVXLC]{1,8}\b|[A-Z]\b)")
_WHEREAS = re.compile(r"(?:Whereas|WHEREAS)[ \t]*:")
_PARAGRAPH = re.compile(r"[ \t]*(?:(?P<a>\d{1,3})\.[ \t]|\((?P<b>\d{1,3})\)[ \t]|(?P<c>\d{1,3})[ \t]+(?=[A-Z]))")
_POINT = re.compile(r"(?m)^[ \t]*\(?(?P<label>[a-z]{1,2}|[ivx]{1,5})\)[ \t]+\S")
_KIND_NAMES = {"art.": "Article", "artikel": "Article", "articolo": "Article", "artículo": "Article",
               "chapitre": "Chapter"}


@dataclass(frozen=True)
class Unit:
    """One structural unit: where it starts, where its span ends, its rank and label.

    Attributes:
        start: first code point of the unit (its heading or number).
        end: end of the detected span.
        rank: nesting rank (see :data:`RANKS`).
        label: display label, e.g. ``Article 5``, ``paragraph 2``, ``point (b)``.
        kind: the label's keyword in lower case (``article``, ``paragraph``, ...).
        number: the label's number as written (``5``, ``2``, ``b``, ``III``).
        label_span: where the label was read in the text (a cross-reference there is the label).
    """

    start: int
    end: int
    rank: int
    label: str
    kind: str
    number: str
    label_span: tuple[int, int]


def read_label(text: str, start: int, end: int) -> tuple[str, str, tuple[int, int]] | None:
    """``(kind, number, label span)`` read from the first line of a span, or None."""
    line_end = text.find("\n", start, end)
    line = text[start:line_end if line_end >= 0 else end]
    off = _MARKUP.match(line).end()
    m = _HEADING.match(line, off)
    if m:
        word = m.group("kind")
        kind = _KIND_NAMES.get(word.lower(), word.title()).lower()
        return kind, m.group("num"), (start + m.start(), start + m.end())
    m = _WHEREAS.match(line, off)
    if m:
        return "recitals", "", (start + m.start(), start + m.end())
    m = _PARAGRAPH.match(line, off)
    if m:
        num = m.group("a") or m.group("c") or "(" + m.group("b") + ")"
        return "paragraph", num, (start + m.start(), start + m.end())
    if line_end < 0 and line[off:off + 1].isalpha():
        # a one-line unit without a keyword (a statement heading): its text is its label
        title = line[off:].strip().rstrip("*_ ").strip()
        return "statement", title[:80], (start + off, start + len(line))
    return None


def _display(kind: str, number: str, parent: "Unit | None") -> str:
    if kind == "paragraph":
        if number.startswith("("):
            # "(4) ..." is a recital in a preamble, a point elsewhere ("point (4) of Article 3"):
            # EU drafting numbers paragraphs "4." and the items of a definitions article "(4)"
            return f"recital {number}" if parent is not None and parent.kind == "recitals" else f"point {number}"
        return f"paragraph {number}"
    if kind == "point":
        return f"point ({number})"
    if kind == "recitals":
        return "Recitals"
    if kind == "statement":
        return number
    return f"{kind.title()} {number}"


def build_units(text: str, spans: dict[str, list[tuple[int, int]]]) -> list[Unit]:
    """Every unit of the marked structures, in document order, with the points inside them."""
    raw: list[tuple[int, int, str, str, tuple[int, int]]] = []
    points: dict[int, tuple[int, str, tuple[int, int]]] = {}
    for items in spans.values():
        for start, end in items:
            got = read_label(text, start, end)
            if got is not None:
                raw.append((start, end, got[0], got[1], got[2]))
            for p_start, p_end, label, lspan in _points(text, start, end):
                # a point ends at the next point or where the narrowest span holding it ends
                if p_start not in points or p_end < points[p_start][0]:
                    points[p_start] = (p_end, label, lspan)
    raw.extend((s, e, "point", label, lspan) for s, (e, label, lspan) in points.items())
    raw.sort(key=lambda u: (u[0], RANKS.get(u[2], 3), -u[1]))
    units: list[Unit] = []
    stack: list[Unit] = []
    seen = set()
    for start, end, kind, number, lspan in raw:
        rank = RANKS.get(kind, 3)
        if (start, kind) in seen:
            continue  # two structures saw the same unit (an article and its heading): the widest wins
        seen.add((start, kind))
        stack = [u for u in stack if u.rank < rank and not (u.rank >= _CONTAINER_RANK and start >= u.end)]
        parent = stack[-1] if stack else None
        unit = Unit(start, end, rank, _display(kind, number, parent), kind, number.strip("()"), lspan)
        units.append(unit)
        stack.append(unit)
    return units


def _points(text: str, start: int, end: int):
    """The points ``(a)``, ``(b)``, ``iv)`` inside one span, each up to the next."""
    if text.find("\n", start, end) < 0:
        return
    found = list(_POINT.finditer(text, start, end))
    for i, m in enumerate(found):
        stop = found[i + 1].start() if i + 1 < len(found) else end
        yield m.start(), stop, m.group("label"), (m.start("label") - 1, m.end("label") + 1)


class PathIndex:
    """Answers "which units enclose position p" for one document (units in document order)."""

    def __init__(self, units: list[Unit]):
        self.units = units
        self.starts = [u.start for u in units]
        # the stack of units open after each unit, made in one sweep: chain() looks one up
        # instead of replaying every unit before its position (a document's xrefs and covered
        # units ask for thousands of chains)
        self._stacks: list[tuple[Unit, ...]] = []
        stack: tuple[Unit, ...] = ()
        for u in units:
            stack = (*(s for s in stack if s.rank < u.rank), u)
            self._stacks.append(stack)

    def chain(self, pos: int) -> list[Unit]:
        """The open units at ``pos``, outermost first."""
        k = bisect.bisect_right(self.starts, pos)
        stack = self._stacks[k - 1] if k else ()
        return [u for u in stack if not (u.rank >= _CONTAINER_RANK and pos >= u.end)]

    def chains(self, positions: list[int]) -> list[list[Unit]]:
        """:meth:`chain` of many positions."""
        return [self.chain(pos) for pos in positions]

    def between(self, lo: int, hi: int) -> list[Unit]:
        """Units starting in ``[lo, hi)``."""
        return self.units[bisect.bisect_left(self.starts, lo): bisect.bisect_left(self.starts, hi)]


def citation(chain: list[Unit]) -> str:
    """A unit chain as a legal citation: ``Article 5(2)(b)``; a chain without an article: labels."""
    art = next((i for i, u in enumerate(chain) if u.kind in ("article", "clause", "note")), None)
    if art is None:
        return " > ".join(u.label for u in chain)
    out = chain[art].label
    for u in chain[art + 1:]:
        if u.kind in ("paragraph", "point"):
            out += f"({u.number})"
    return out
