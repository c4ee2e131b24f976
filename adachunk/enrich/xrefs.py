"""Cross-references: "Article 6(1)(a)", "point (b) of paragraph 2", "Note 12" → the chunk that
holds the target.

Each span of a structure marked ``emit: reference`` is parsed into a target: an article with
its paragraph and point, or divisions (annex, chapter, section, note) with a numbered item.
Missing outer levels come from where the reference stands ("paragraph 2" inside Article 5 is
Article 5(2); "point 3" inside Annex VII is Annex VII point 3; "Section 2 of this Chapter" is
in the current chapter). The words just after a span are read too, so that "points (c) and (e)
of paragraph 1" is one reference to paragraph 1, "Article 9(2), point (g)" is Article 9(2)(g),
and "Article 5 of Directive 95/46/EC" or "Article 16 TFEU" is another act's (``other_act``).
A target not found in the document stays unresolved (``external``). A span that is a unit's
own label (the "Article 5" of the heading "## Article 5 — ...") is not a reference.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from .paths import PathIndex, Unit

_PART = re.compile(
    r"(?P<kind>Articles?|Art\.|Arts\.|articles?|paragraphs?|Paragraphs?|para\.|paras\.|points?|Points?|"
    r"Annex(?:es)?|ANNEX|Chapters?|CHAPTER|Sections?|section|Notes?|NOTE)\s*"
    r"(?P<num>\(\w{1,5}\)|\d{1,4}(?:\.\d{1,3})*[a-z]?|[IVXLC]{1,8}\b|[A-Z]\b)(?P<sub>(?:\(\w{1,5}\))*)")
_ITEM = r"(?:\(\w{1,5}\)|\d{1,3}[a-z]?)"
_OUTER = (r"(?:paragraph|Article|Annex|Chapter|Section|Note)\s+(?:\d{1,3}[a-z]?|[IVXLC]{1,8}\b)(?:\(\w{1,5}\))*"
          r"(?:,\s*Section\s+(?:\d{1,2}|[A-Z]\b))?")
_SUBPARAGRAPH = r"(?:,?\s*(?:first|second|third|fourth|fifth|last)\s+subparagraph)?"
# what may follow a reference: more items ("and (e)", "to 8"), "point (g)" after a comma, then
# "of paragraph 1" / "of Annex III" (repeatable: "of Chapter III, Section 2")
_TAIL = re.compile(rf"(?:\(\w{{1,5}}\))*(?:\s*(?:,|and|or|to)\s*{_ITEM})*(?:,\s*Section\s+(?:\d{{1,2}}|[A-Z]\b))?"
                   rf"(?:{_SUBPARAGRAPH},?\s+points?\s+{_ITEM}(?:\s*(?:,|and|or|to)\s*{_ITEM})*,?)?"
                   rf"(?P<outer>(?:,?\s+(?:of|in)\s+{_OUTER})*)")
# what may stand just before a span and belongs to it: "Article 60(4), " before "point (c)",
# "point (3) of " before "Article 4" (when the grammar matched only the article)
_BEFORE = re.compile(rf"(?:(?:Article|Chapter|paragraph|Annex)\s+(?:\d{{1,3}}[a-z]?|[IVXLC]{{1,8}})(?:\(\w{{1,5}}\))*"
                     rf"{_SUBPARAGRAPH},\s*|(?:points?|paragraphs?)\s+{_ITEM}(?:\(\w{{1,5}}\))*\s+of\s+)$")
_EXTERNAL = re.compile(
    r"(?:,?\s*(?:of|in)\s+(?:Title|Part|Chapter|Section)\s+[\w()]+)*"
    r"\s*,?\s*(?:of|in|to|under)?\s*(?:the\s+)?(?:(?:Council\s+|Commission\s+(?:Delegated\s+|Implementing\s+)?)?"
    r"(?:Regulation|Directive|Decision|Framework Decision)\s+(?:\((?:EU|EC|EEC|Euratom)\)\s+)?(?:No\s+)?\d"
    r"|TFEU|TEU|Treaty|Charter|Convention\b|Protocol\b|thereof\b)")
_NAMES_ACT = re.compile(r"\b(?:Regulation|Directive|Decision)\s+(?:\((?:EU|EC|EEC|Euratom)\)\s+)?(?:No\s+)?\d{1,4}/\d"
                        r"|\b(?:TFEU|TEU|Treaty)\b")
_THIS = re.compile(r"\s*,?\s*(?:of|in)\s+(?:this|the present)\s+(?:Regulation|Directive|Decision|Act|Agreement|Convention|Code)\b")
_THAT = re.compile(r"\s+of\s+(?:that|the same)\s+(?P<level>paragraph|Article)\b")
_LEVELS = ("article", "paragraph", "point")
_DIVISIONS = ("annex", "chapter", "section", "note")


@dataclass
class Target:
    """A parsed reference target (None: not named)."""

    article: str | None = None
    paragraph: str | None = None
    point: str | None = None
    divisions: list = field(default_factory=list)  # [("chapter", "III"), ("section", "2")]
    external: bool = False
    other_act: bool = False

    def text(self) -> str:
        """The target as a citation (``Article 6(1)(a)``, ``Annex III point 2``)."""
        if self.article is None:
            out = ", ".join(f"{k.title()} {v}" for k, v in self.divisions)
            item = self.paragraph or self.point
            return f"{out} point {item}".strip() if item else out
        out = f"Article {self.article}"
        for x in (self.paragraph, self.point):
            if x is not None:
                out += f"({x})"
        return out


def _kind(word: str) -> str:
    w = word.lower().rstrip(".")
    for prefix, kind in (("art", "article"), ("para", "paragraph"), ("point", "point"), ("annex", "annex"),
                         ("chapter", "chapter"), ("section", "section")):
        if w.startswith(prefix):
            return kind
    return "note"


def parse(ref: str) -> Target:
    """Parse a reference text ("point (b) of paragraph 2", "Article 5(2)(b)") into a target."""
    t = Target()
    divisions = []
    for m in _PART.finditer(ref):
        kind, num = _kind(m.group("kind")), m.group("num").strip("()")
        subs = re.findall(r"\((\w{1,5})\)", m.group("sub") or "")
        if kind in _DIVISIONS:
            divisions.append((kind, num))
            continue
        levels = _LEVELS[_LEVELS.index(kind):]
        for level, value in zip(levels, [num] + subs):
            if getattr(t, level) is None:
                setattr(t, level, value)
    # "Section 2 of Chapter III": outermost first
    t.divisions = sorted(dict.fromkeys(divisions), key=lambda d: _DIVISIONS.index(d[0]) if d[0] != "annex" else -1)
    return t


class XrefResolver:
    """Resolves references of one document against its structure units."""

    def __init__(self, text: str, index: PathIndex):
        self.text, self.index = text, index
        self.last: Target | None = None  # the previous reference: "of that paragraph" names its paragraph
        self.by_key: dict[tuple, list[Unit]] = {}
        self.labels = sorted(u.label_span for u in index.units)
        for unit, chain in zip(index.units, index.chains([u.start for u in index.units])):
            if chain and chain[-1] is unit:
                self.by_key.setdefault(_key(chain), []).append(unit)

    def is_label(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` lies in a unit's own label (a heading, not a reference)."""
        i = bisect.bisect_right(self.labels, (start, 10**18)) - 1
        return i >= 0 and self.labels[i][0] <= start < self.labels[i][1]

    def resolve(self, start: int, end: int) -> tuple[str, Target, Unit | None]:
        """``(reference text, target, unit holding the target or None)`` of one span."""
        ref = self.text[start:end]
        before = _BEFORE.search(self.text, max(0, start - 60), start)
        if before:
            ref = self.text[before.start():start] + ref
        after = self.text[end:end + 160]
        tail = _TAIL.match(after)
        if tail and tail.end():
            ref, after = ref + after[:tail.end()], after[tail.end():]
        target = parse(ref)
        if (_NAMES_ACT.search(ref) or _EXTERNAL.match(after)) and not _THIS.match(after):
            target.external = target.other_act = True
            return ref, target, None
        that = _THAT.match(after)
        if that and self.last is not None and self.last.article is not None and target.article is None:
            target.article = self.last.article
            if that.group("level") == "paragraph" and target.paragraph is None:
                target.paragraph = self.last.paragraph
        _complete(target, self.index.chain(start))
        self.last = target
        found = self._find(target, start)
        target.external = found is None  # not in this document (another part of the act, or unparsed)
        return ref, target, found

    def _get(self, key: tuple, pos: int) -> Unit | None:
        """The unit of ``key``; of several points (two lists in one paragraph both have a point
        (a)), the last one before ``pos``."""
        found = self.by_key.get(key)
        if not found:
            return None
        if key[-1][0] != "point":
            return found[0]  # a paragraph number seen twice is a footnote "(1)" after the real one
        before = [u for u in found if u.start <= pos]
        return before[-1] if before else found[0]

    def _find(self, t: Target, pos: int) -> Unit | None:
        if t.article is not None:
            key: tuple = (("article", t.article),)
        elif t.divisions:
            key = tuple(t.divisions)
        else:
            return None
        found = self._get(key, pos)
        if found is None and len(key) > 1:  # "Chapter III, Section 2" written in a document without chapters
            found = self._get(key[-1:], pos)
            key = key[-1:] if found is not None else key
        if found is None:
            return None
        for level in ("paragraph", "point"):
            value = getattr(t, level)
            if value is None:
                continue
            # "point (3) of Article 4" is a numbered definition; "point 3 of Annex VII" a numbered item
            other = "paragraph" if level == "point" else "point"
            for k in (key + ((level, value),), key + ((other, value),)):
                if k in self.by_key:
                    key, found = k, self._get(k, pos)
                    break
            else:
                break
        return found


def _complete(t: Target, here: list[Unit]) -> None:
    """Fill the outer levels a relative reference leaves out from where it stands."""
    if t.article is not None:
        return
    by_kind = {u.kind: u.number for u in here}
    if t.divisions:
        kind = t.divisions[0][0]
        if kind == "section" and "chapter" in by_kind:  # "Section 2 of this Chapter"
            t.divisions.insert(0, ("chapter", by_kind["chapter"]))
        return
    if "article" in by_kind:
        t.article = by_kind["article"]
    elif "annex" in by_kind:
        t.divisions = [("annex", by_kind["annex"])]
    else:
        return
    if t.paragraph is None and t.point is not None and "paragraph" in by_kind and t.article is not None:
        t.paragraph = by_kind["paragraph"]
    if t.paragraph is None and t.point is None and "paragraph" in by_kind:
        t.paragraph = by_kind["paragraph"]  # "the first subparagraph": the paragraph it stands in


def _key(chain: list[Unit]) -> tuple:
    """Lookup key of a unit: its chain from the article down (articles are unique in an act), or
    from the innermost annex / chapter / note down."""
    art = next((i for i, u in enumerate(chain) if u.kind in ("article", "clause")), None)
    if art is not None:
        return tuple((("article" if u.kind == "clause" else u.kind), u.number) for u in chain[art:]
                     if u.kind in ("article", "clause", "paragraph", "point"))
    top = max((i for i, u in enumerate(chain) if u.kind in ("annex", "chapter", "note")), default=0)
    return tuple((u.kind, u.number) for u in chain[top:])


__all__ = ["XrefResolver", "Target", "parse"]
