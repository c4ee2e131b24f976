"""Word list numbering (``word/numbering.xml``) rendered as Word displays it.

Clause numbers of contracts ("1.2", "(a)", "Article 3") are not in the paragraph text: Word
generates them from numbering definitions. This module is adachunk's own renderer, pure (it
takes parsed XML, does no I/O) and used in document order by the ``.docx`` converter:

* ``w:num`` (a list instance, ``numId``) points at a ``w:abstractNum`` (the definition), possibly
  through a numbering style (``w:numStyleLink`` → style → ``w:numPr`` → the abstractNum that has
  the matching ``w:styleLink``), and may override levels (``w:lvlOverride``: ``w:startOverride``,
  a replacement ``w:lvl``).
* Counters belong to the abstractNum and are shared by all its list instances, except for an
  instance with overrides, which counts on its own from its override start (a restarted list).
* Using a level resets the counters of the deeper levels, unless their ``w:lvlRestart`` says to
  restart only after a shallower level (``0``: never).
* The label is ``w:lvlText`` with ``%1``..``%9`` replaced by the counters of those levels in each
  level's ``w:numFmt`` (all decimal where ``w:isLgl`` asks for legal numbering, the level's own
  number keeping its format); a level not used yet shows its start value.
* ``numId`` 0 means "no numbering" (it overrides a numbered style); ``w:suff`` says what follows
  the label (tab, space or nothing); a label whose run properties are hidden (``w:vanish``)
  counts but is not shown.

Bounds (a ``.docx`` is untrusted input): a number above :data:`MAX_NUMBER` (Word's own
``w:start`` maximum is 32767) is shown in decimal whatever its format, so a ``w:start`` of
10^18 in Roman numerals or letters costs no more than its digits; a format without a renderer
falls back to decimal; a level index (``w:ilvl``) that is not a number 0-8 in ``numbering.xml`` is
``ADA304`` (Word itself refuses such a file).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._package import malformed
from ._styles import Styles
from ._xml import W, int_val, on, val

_LEVELS = 9
# above this a number is shown in decimal: Roman numerals and letters grow linearly with the
# value (10^18 in lowerRoman would never finish); Word caps w:start at 32767 itself
MAX_NUMBER = 32767


@dataclass(frozen=True)
class Level:
    """One level (``w:lvl``) of a numbering definition.

    Attributes:
        start: the first number (``w:start``).
        fmt: the number format (``w:numFmt``: decimal, lowerLetter, upperRoman, bullet, ...).
        text: the label template (``w:lvlText``, e.g. ``"%1.%2"``, ``"(%3)"``, ``"Article %1"``).
        legal: ``w:isLgl``: the other levels' numbers in the template are shown as decimal.
        restart: ``w:lvlRestart`` (1-based level whose use restarts this one; 0: never; None: default).
        suffix: what follows the label: ``"tab"``, ``"space"`` or ``"nothing"``.
        pstyle: the paragraph style linked to this level (``w:pStyle``).
        hidden: the label is hidden (``w:rPr/w:vanish``).
    """

    start: int = 1
    fmt: str = "decimal"
    text: str = ""
    legal: bool = False
    restart: int | None = None
    suffix: str = "tab"
    pstyle: str | None = None
    hidden: bool = False


@dataclass(frozen=True)
class Label:
    """A paragraph's list label as Word displays it.

    Attributes:
        text: the label (``"1.2"``, ``"(a)"``, ``"Article 3"``, ``"•"``).
        bullet: the level is a bullet (``numFmt`` bullet).
        suffix: the separator Word puts after it: ``" "`` (tab or space) or ``""``.
        level: the list level (``ilvl``, 0-8).
    """

    text: str
    bullet: bool = False
    suffix: str = " "
    level: int = 0


def parse_level(lvl: Any) -> Level:
    """A :class:`Level` from a ``w:lvl`` element."""
    text = val(lvl, "lvlText")
    return Level(start=int_val(lvl, "start", 1), fmt=val(lvl, "numFmt") or "decimal", text=text or "",
                 legal=on(lvl, "isLgl"), restart=int_val(lvl, "lvlRestart"), suffix=val(lvl, "suff") or "tab",
                 pstyle=val(lvl, "pStyle"), hidden=on(lvl.find(W + "rPr"), "vanish"))


@dataclass
class _Num:
    abstract: str
    starts: dict[int, int] = field(default_factory=dict)
    levels: dict[int, Level] = field(default_factory=dict)


class Numbering:
    """The numbering definitions of a document and the counters of a pass over it.

    Call :meth:`paragraph` (or :meth:`label`) once per paragraph, in document order: each call
    advances the counters as Word does.

    Args:
        root: the parsed ``w:numbering`` element (None: the document has no lists).
        styles: the document's styles (numbering inherited from paragraph styles, numbering styles).
        source: the file's name in errors.

    Raises:
        InputError: ``ADA304`` for a level index that is not a number 0-8.
    """

    def __init__(self, root: Any = None, styles: Styles | None = None, source: str = "<input>"):
        self.styles = styles or Styles()
        self.abstracts: dict[str, dict[int, Level]] = {}
        self.style_link: dict[str, str] = {}  # abstractId → the numbering style it follows
        self.nums: dict[str, _Num] = {}
        self.counters: dict[str, list[int | None]] = {}
        if root is None:
            return
        for a in root.iter(W + "abstractNum"):
            aid = a.get(W + "abstractNumId")
            levels = {}
            for lvl in a.findall(W + "lvl"):
                ilvl = _ilvl(lvl, source)
                levels[ilvl] = parse_level(lvl)
            self.abstracts[aid] = levels
            link = val(a, "numStyleLink")
            if link:
                self.style_link[aid] = link
        for n in root.iter(W + "num"):
            num = _Num(val(n, "abstractNumId") or "")
            for o in n.findall(W + "lvlOverride"):
                ilvl = _ilvl(o, source)
                start = int_val(o, "startOverride")
                lvl = o.find(W + "lvl")
                if lvl is not None:
                    num.levels[ilvl] = parse_level(lvl)
                    if start is None:
                        start = num.levels[ilvl].start
                if start is not None:
                    num.starts[ilvl] = start
            self.nums[n.get(W + "numId")] = num

    def _abstract(self, num_id: str) -> str | None:
        """The abstractNum id of a list instance, following numbering-style links."""
        num = self.nums.get(num_id)
        if num is None:
            return None
        aid, seen = num.abstract, set()
        while aid in self.style_link and aid not in seen:  # numStyleLink → style → its num → abstract
            seen.add(aid)
            linked, _ = self.styles.numpr(self.style_link[aid])
            target = self.nums.get(linked) if linked else None
            if target is None:
                break
            aid = target.abstract
        return aid

    def level(self, num_id: str, ilvl: int) -> Level | None:
        """The level definition a list instance uses (its override, else the abstractNum's)."""
        num = self.nums.get(num_id)
        if num is None:
            return None
        if ilvl in num.levels:
            return num.levels[ilvl]
        return self.abstracts.get(self._abstract(num_id) or "", {}).get(ilvl)

    def resolve(self, ppr: Any, style_id: str | None) -> tuple[str, int] | None:
        """(numId, ilvl) of a paragraph: its own ``w:numPr``, else its style's; None when unnumbered."""
        direct = ppr.find(W + "numPr") if ppr is not None else None
        num_id, ilvl = val(direct, "numId"), int_val(direct, "ilvl")
        if num_id is None or ilvl is None:
            s_num, s_ilvl = self.styles.numpr(style_id)
            num_id = num_id if num_id is not None else s_num
            ilvl = ilvl if ilvl is not None else s_ilvl
        if num_id is None or num_id == "0" or num_id not in self.nums:
            return None
        if ilvl is None:  # a style linked to a level by the level's w:pStyle
            levels = self.abstracts.get(self._abstract(num_id) or "", {})
            ilvl = next((i for i, lv in sorted(levels.items()) if style_id and lv.pstyle == style_id), 0)
        return num_id, min(max(ilvl, 0), _LEVELS - 1)

    def paragraph(self, ppr: Any, style_id: str | None) -> Label | None:
        """Advance the counters for one paragraph and return its label (None: not numbered)."""
        found = self.resolve(ppr, style_id)
        return self.label(*found) if found else None

    def label(self, num_id: str, ilvl: int) -> Label | None:
        """Advance list ``num_id`` at level ``ilvl`` and return the label shown there."""
        lvl = self.level(num_id, ilvl)
        if lvl is None:
            return None
        num = self.nums[num_id]
        key = f"num:{num_id}" if num.starts or num.levels else f"abs:{self._abstract(num_id)}"
        counts = self.counters.setdefault(key, [None] * _LEVELS)
        counts[ilvl] = self._start(num_id, ilvl) if counts[ilvl] is None else counts[ilvl] + 1
        for deeper in range(ilvl + 1, _LEVELS):
            d = self.level(num_id, deeper)
            restart = d.restart if d is not None else None
            if restart is None or (restart > 0 and ilvl < restart):
                counts[deeper] = None
        if lvl.hidden:
            return None
        if lvl.fmt == "bullet":
            return Label(bullet_char(lvl.text), True, _suffix(lvl.suffix), ilvl)
        text = self._render(num_id, ilvl, lvl, counts)
        return Label(text, False, _suffix(lvl.suffix), ilvl) if text.strip() else None

    def _start(self, num_id: str, ilvl: int) -> int:
        num = self.nums[num_id]
        if ilvl in num.starts:
            return num.starts[ilvl]
        lvl = self.level(num_id, ilvl)
        return lvl.start if lvl is not None else 1

    def _render(self, num_id: str, ilvl: int, lvl: Level, counts: list[int | None]) -> str:
        out, i, t = [], 0, lvl.text
        while i < len(t):
            if t[i] == "%" and i + 1 < len(t) and t[i + 1] in "123456789":
                k = int(t[i + 1]) - 1
                other = self.level(num_id, k)
                n = counts[k] if counts[k] is not None else self._start(num_id, k)
                fmt = other.fmt if other is not None else "decimal"
                if lvl.legal and k != ilvl and fmt != "none":
                    fmt = "decimal"
                out.append(format_number(n, fmt))
                i += 2
            else:
                out.append(t[i])
                i += 1
        return "".join(out)


def _ilvl(el: Any, source: str) -> int:
    """The ``w:ilvl`` attribute of a ``w:lvl`` or ``w:lvlOverride``: 0-8, else ``ADA304``."""
    raw = (el.get(W + "ilvl") or "0").strip()
    if not (raw.isascii() and raw.isdecimal() and len(raw) <= 3 and int(raw) < _LEVELS):
        raise malformed(source, f"numbering.xml: list level w:ilvl={raw[:20]!r} is not a level 0-8")
    return int(raw)


def _suffix(suff: str) -> str:
    return "" if suff == "nothing" else " "


def bullet_char(text: str) -> str:
    """The bullet to show: symbol-font private-use glyphs (``\\uf0b7``) and empty text become "•"."""
    text = text.strip()
    if not text or any(0xE000 <= ord(c) <= 0xF8FF for c in text):
        return "•"
    return text


_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"),
          (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))
_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
         "fifteen sixteen seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_ORD = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
        "nine": "ninth", "twelve": "twelfth"}
_CJK = "〇一二三四五六七八九"


def roman(n: int) -> str:
    """Lower-case Roman numeral (empty for n < 1)."""
    out = []
    for value, sym in _ROMAN:
        while n >= value:
            out.append(sym)
            n -= value
    return "".join(out)


def letters(n: int) -> str:
    """Word's lettering: a..z, then aa..zz, aaa.. (the letter repeated), empty for n < 1."""
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1) if n >= 1 else ""


def cardinal_text(n: int) -> str:
    """English words for 0-999 (``twenty-one``); larger numbers as digits."""
    if n < 20:
        return _ONES[n] if n >= 0 else str(n)
    if n < 100:
        return _TENS[n // 10] + ("-" + _ONES[n % 10] if n % 10 else "")
    if n < 1000:
        rest = n % 100
        return _ONES[n // 100] + " hundred" + (" " + cardinal_text(rest) if rest else "")
    return str(n)


def ordinal_text(n: int) -> str:
    """English ordinal words (``twenty-first``)."""
    words = cardinal_text(n)
    if words.isdigit():
        return ordinal(n)
    head, _, last = words.rpartition("-") if "-" in words else words.rpartition(" ")
    sep = "-" if "-" in words else " "
    last = _ORD.get(last) or (last[:-1] + "ieth" if last.endswith("y") else last + "th")
    return (head + sep if head else "") + last


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``11th``, ``23rd``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def chinese_counting(n: int) -> str:
    """Chinese counting numerals for 0-99 (一, 十, 十一, 二十一); larger numbers as digits."""
    if n < 10:
        return _CJK[n] if n >= 0 else str(n)
    if n < 100:
        tens, ones = divmod(n, 10)
        return ("" if tens == 1 else _CJK[tens]) + "十" + (_CJK[ones] if ones else "")
    return str(n)


def format_number(n: int, fmt: str) -> str:
    """``n`` in the ``w:numFmt`` format ``fmt`` (unknown formats, and numbers above
    :data:`MAX_NUMBER` or below 0, fall back to decimal)."""
    if fmt == "none":
        return ""
    if not 0 <= n <= MAX_NUMBER:
        return str(n)
    if fmt == "decimalZero":
        return f"{n:02d}" if 0 <= n < 10 else str(n)
    if fmt in ("lowerLetter", "upperLetter"):
        s = letters(n)
        return s.upper() if fmt == "upperLetter" else s
    if fmt in ("lowerRoman", "upperRoman"):
        s = roman(n)
        return s.upper() if fmt == "upperRoman" else s
    if fmt == "ordinal":
        return ordinal(n)
    if fmt in ("cardinalText", "ordinalText"):
        s = cardinal_text(n) if fmt == "cardinalText" else ordinal_text(n)
        return s[:1].upper() + s[1:]
    if fmt in ("chineseCounting", "chineseCountingThousand", "japaneseCounting", "koreanCounting",
               "taiwaneseCounting"):
        return chinese_counting(n)
    if fmt == "decimalEnclosedCircle" and 1 <= n <= 20:
        return chr(0x2460 + n - 1)
    if fmt == "decimalEnclosedParen" and 1 <= n <= 20:
        return chr(0x2474 + n - 1)
    if fmt == "decimalFullWidth":
        return "".join(chr(0xFF10 + int(d)) for d in str(n)) if n >= 0 else str(n)
    return str(n)


__all__ = ["Label", "Level", "Numbering", "bullet_char", "format_number", "parse_level"]
