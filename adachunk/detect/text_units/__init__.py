"""Text-unit detectors: ``sentence.v1`` and ``word.v1`` (the word reference is :mod:`.words`).

Both are regex-driven scans: the C regex engine finds the few *candidate* positions (a ``.``
followed by whitespace, a blank line, a CJK full stop ...) and Python only looks at those, so
the cost is proportional to the number of candidates, not to the number of characters. This is
what keeps the segmenter in the megabytes-per-second range without a compiled extension.

These Python scans are the reference twins of one compiled pass over the code points
(:mod:`adachunk.detect.text_units._scan`) that finds words, sentences and the ``line_break``
structure together, once per document; it runs for long texts or once Numba is loaded
(:func:`~adachunk.detect.text_units._scan.wanted`) and returns the same spans
(``tests/parity/test_text_units_fast_parity.py``).

The sentence rules are deliberately conservative (a missed boundary only makes a "sentence"
longer; a wrong boundary can cut "Art. 6(1)(a)" in two, which the cost model would then treat as
a good place to split).
"""

from __future__ import annotations

import re
from typing import ClassVar, Iterable, Iterator

import numpy as np
from pydantic import Field

from ...models import structure as _models
from ...components.registry import detectors
from ...datatypes import Structure
from ..base import DetectContext, Detector, DetectorParams, finalize
from ._charsets import (_CLOSERS, _MARK_FIRST, _NEVER_END, _NUMBERED, _OPENERS, _SOMETIMES, _STARTERS,
                        _TERM_FIRST, _TITLES)
from .words import WORD_RE, split_words, word_arrays, word_arrays_reference

# the word functions live in .words and stay importable from here
__all__ = ["split_sentences", "split_sentences_reference", "split_words", "word_arrays",
           "word_arrays_reference", "WORD_RE", "unit_scan", "SentenceDetector", "WordDetector", "ScannedUnitDetector"]

# Three scans, each starting with a literal or a character set so that the regex engine can
# skip ahead in C: one alternation over all of them would be ~5x slower (no prefix search).
_NEWLINE = re.compile(
    r"""
    \n(?:
        (?P<para>(?=[^\S\n]*\n))                          # followed by a blank line
      | (?=[^\S\n]{0,3}(?:
            (?P<line>[#|]|```|~~~|<[A-Za-z/!?])          # heading, table row, fence, HTML: one line
          | [>]|[-*+](?=[^\S\n])|\d{1,9}[.)](?=[^\S\n])  # a quote or list item starts a block
        ))
    )
    """,
    re.VERBOSE,
)
_MARK = re.compile(f"[{_MARK_FIRST}]+[{re.escape(_CLOSERS)}]*")
_TERM = re.compile(
    f"[{re.escape(_TERM_FIRST)}]+(?:[{re.escape(_CLOSERS)}]|[ \u00a0\u202f][\u00bb\u203a])*(?=\\s|\\Z)"
)
_TRAILER = _CLOSERS + " \u00a0\u202f"
# A line-block (heading, table row, fence, HTML) as the very first line of the text.
_FIRST_LINE_BLOCK = re.compile(r"[^\S\n]{0,3}(?:[#|]|```|~~~|<[A-Za-z/!?])")
# What follows a terminator: spaces, opening quotes/brackets, then the next word.
_NEXT = re.compile(r"\s*([" + re.escape(_OPENERS) + r"]*)(\w*)")
# A token that is a list enumerator when it is the first thing on its line: "1." "1.2." "iv." "a."
_ENUMERATOR = re.compile(r"(?:\d{1,3}(?:\.\d{1,3})*|[ivxlcdmIVXLCDM]{1,6}|[A-Za-z])\Z")
# Only whitespace and Markdown markers between the line start and the enumerator.
_LINE_PREFIX = re.compile(r"[\s#>*+|-]*\Z")
# Dotted abbreviations such as "U.S", "U.S.C", "a.m" (the final period is the candidate).
_DOTTED = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]\Z")
_ROMAN = re.compile(r"[IVXLCDM]{1,7}\Z")
# A lowercase enumerator opening the next sentence: "(a) in writing", "iv) the ...".
_ENUM_START = re.compile(r"\(?(?:[a-z]{1,2}|[ivxlc]{1,6}|\d{1,3})\)\s")



def _is_boundary(text: str, start: int, end: int, punct: str, extra: frozenset[str]) -> bool:
    """Decide whether the Latin terminator run ``punct`` at ``text[start:end]`` ends a sentence.

    ``end`` is after any closing quotes/brackets; whitespace or the end of text follows it.
    """
    nxt = _NEXT.match(text, end)
    after = nxt.end(1)
    if after >= len(text):
        return True
    word = nxt.group(2)
    first = text[after]
    if first.islower() and _ENUM_START.match(text, nxt.start(1)):
        first = "A"  # "(a) in writing" starts like a capitalised sentence
    if "?" in punct or "!" in punct:
        # "(?) is", "Yahoo! is", "Why? because" continue the sentence; anything else ends it.
        return not first.islower()
    if len(punct) > 1 or "\u2026" in punct:
        # An ellipsis ends a sentence only when a capitalised word follows.
        return first.isupper()
    if first.islower():
        # "etc. and", "i.e. the", "p. xii": a lowercase continuation is never a new sentence.
        return False
    # The token before the period, without opening brackets/quotes: "(e.g" -> "e.g".
    seg = text[max(0, start - 48) : start]
    if not seg or seg[-1].isspace():
        return True
    tok = seg.rsplit(None, 1)[-1].lstrip(_OPENERS)
    if not tok:
        return True
    if tok in extra or tok in _TITLES:
        return False
    low = tok.lower()
    if low in _NEVER_END:
        return False
    if low in _NUMBERED:
        # "Art. 5", "p. (iv)", "§", "Annex. IV", "No. A": the reference goes on.
        opened = nxt.group(1)[:1] in ("(", "[")
        if first.isdigit() or first == "\u00a7" or opened or _ROMAN.match(word) or len(word) == 1:
            return False
        return True
    if _ENUMERATOR.match(tok):
        line_start = text.rfind("\n", 0, start) + 1
        prefix_end = start - len(tok)
        if _LINE_PREFIX.match(text[line_start:prefix_end]):
            return False  # "1. The Commission shall ..." is a list item, not "1." + sentence
        if len(tok) == 1 and tok.isupper():
            return word in _STARTERS  # an initial: "J. Smith" but "Annex I. The ..."
        return True
    if low in _SOMETIMES or _DOTTED.match(tok):
        if low == "etc":
            return first.isupper()
        return word in _STARTERS
    return True


def _extra_set(extra_abbreviations: Iterable[str]) -> frozenset[str]:
    return frozenset(a.strip().rstrip(".") for a in extra_abbreviations if a.strip().rstrip("."))


def split_sentences(text: str, extra_abbreviations: Iterable[str] = ()) -> list[tuple[int, int]]:
    """Split ``text`` into sentence spans (compiled or reference scan: the same spans).

    See :func:`split_sentences_reference` for the arguments and the result.
    """
    from . import _scan

    if not _scan.wanted(len(text)):
        return split_sentences_reference(text, extra_abbreviations)
    starts, ends = _scan.scan(text).sentences(text, _extra_set(extra_abbreviations))
    return list(zip(starts.tolist(), ends.tolist()))


def split_sentences_reference(text: str, extra_abbreviations: Iterable[str] = ()) -> list[tuple[int, int]]:
    """Split ``text`` into sentence spans (the readable Python scan).

    Args:
        text: any text; offsets are code points into it.
        extra_abbreviations: additional abbreviations (with or without the final period, e.g.
            ``"Cl."``) that never end a sentence; matched case-sensitively.

    Returns:
        Sorted, non-overlapping ``(start, end)`` pairs; each span is non-empty and neither starts
        nor ends with whitespace. Text between two spans is whitespace only.
    """
    from . import _scan

    _scan.note_reference(len(text))
    extra = _extra_set(extra_abbreviations)
    cuts: list[int] = [0]
    # Line-blocks (headings, table rows ...) are sentences of their own: their inner periods
    # are not boundaries. ``blocks`` holds their (start, end) in text order.
    blocks: list[tuple[int, int]] = []
    if _FIRST_LINE_BLOCK.match(text):
        blocks.append((0, _line_end(text, 0)))
    for m in _NEWLINE.finditer(text):
        pos = m.start()
        cuts.append(pos)
        if m.lastgroup == "line":
            blocks.append((pos, _line_end(text, pos + 1)))
    cuts.extend(e for _, e in blocks)
    blocks.append((len(text) + 1, len(text) + 1))  # sentinel
    for scan, firsts, check in ((_TERM, _TERM_FIRST, True), (_MARK, _MARK_FIRST, False)):
        j = 0
        b_start, b_end = blocks[0]
        for m in _matches(scan, firsts, text):
            pos = m.start()
            while b_end <= pos:  # advance to the first block that ends after pos
                j += 1
                b_start, b_end = blocks[j]
            if b_start <= pos:
                continue
            end = m.end()
            if check and not _is_boundary(text, pos, end, m.group().rstrip(_TRAILER), extra):
                continue
            cuts.append(end)
    cuts.sort()
    cuts.append(len(text))
    spans: list[tuple[int, int]] = []
    for a, b in zip(cuts, cuts[1:]):
        if b <= a:
            continue
        seg = text[a:b]
        stripped = seg.lstrip()
        if not stripped:
            continue
        lead = len(seg) - len(stripped)
        spans.append((a + lead, a + len(seg.rstrip())))
    return spans


def _matches(pattern: re.Pattern, firsts: str, text: str) -> Iterator[re.Match]:
    """``pattern.finditer(text)`` for a pattern whose every match starts with a char of ``firsts``.

    ``str.find`` locates those characters several times faster than the regex engine scans
    for them (a character class has no fast prefix search), and a character the text does not
    hold (a CJK full stop in a Latin document) costs a single ``find``. Trying the pattern only
    there, from left to right and never inside the previous match, finds the same matches.
    """
    starts: list[int] = []
    for ch in firsts:
        i = text.find(ch)
        while i >= 0:
            starts.append(i)
            i = text.find(ch, i + 1)
    starts.sort()
    last = 0
    for pos in starts:
        if pos >= last and (m := pattern.match(text, pos)) is not None:
            yield m
            last = m.end()  # never equal to pos: both patterns need at least one character


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


@detectors.register("sentence.v1")
class SentenceDetector(Detector):
    """Sentences, with abbreviation, number, quote, CJK and Markdown-aware boundaries."""

    class Params(DetectorParams):
        """Fields of a ``sentence.v1`` structure."""

        extra_abbreviations: list[str] = Field(
            default_factory=list,
            description="More abbreviations that never end a sentence, e.g. ['Cl.', 'Sch.']; "
            "matched case-sensitively, the final period is optional.",
        )
        language: str | None = Field(
            default=None,
            description="Language hint (ISO 639-1 such as 'en', 'fr'); informational only: "
            "the English, French and German abbreviation lists are always active.",
        )

    def detect(self, ctx: DetectContext) -> list[Structure]:
        """Return one ``Structure`` per sentence (level 0)."""
        name = self.name
        return finalize([Structure(s, e, name, 0) for s, e in self._spans(ctx)])

    def detect_arrays(self, ctx: DetectContext) -> tuple[np.ndarray, np.ndarray]:
        """Sentence starts and ends as arrays (no per-sentence objects)."""
        abbrevs = tuple(self.params.extra_abbreviations)  # type: ignore[attr-defined]
        scan = unit_scan(ctx)
        if scan is not None:
            return ctx.memo(("sentence.v1.arrays", abbrevs),
                            lambda: scan.sentences(ctx.text, _extra_set(abbrevs)))
        arr = np.array(self._spans(ctx), dtype=np.int64).reshape(-1, 2)
        return arr[:, 0].copy(), arr[:, 1].copy()

    def _spans(self, ctx: DetectContext) -> list[tuple[int, int]]:
        """The ``(start, end)`` list under the memo key other components read too."""
        abbrevs = tuple(self.params.extra_abbreviations)  # type: ignore[attr-defined]

        def compute() -> list[tuple[int, int]]:
            if unit_scan(ctx) is None:
                return split_sentences_reference(ctx.text, abbrevs)
            starts, ends = self.detect_arrays(ctx)
            return list(zip(starts.tolist(), ends.tolist()))

        return ctx.memo(("sentence.v1", abbrevs), compute)


class ScannedUnitDetector(Detector):
    """A text unit the document's compiled scan finds (attribute :attr:`unit` of the scan) on
    long texts, and :meth:`reference` finds otherwise (memoised under :attr:`memo_key`)."""

    unit: ClassVar[str]
    memo_key: ClassVar[tuple]

    def reference(self, text: str) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - interface
        """Starts and ends of the units in ``text`` by the Python reference."""
        raise NotImplementedError

    def detect(self, ctx: DetectContext) -> list[Structure]:
        """Return one ``Structure`` per unit (level 0), in text order."""
        starts, ends = self.detect_arrays(ctx)
        name = self.name
        return [Structure(s, e, name, 0) for s, e in zip(starts.tolist(), ends.tolist())]

    def detect_arrays(self, ctx: DetectContext) -> tuple[np.ndarray, np.ndarray]:
        """Starts and ends as arrays (sorted, non-overlapping)."""
        scan = unit_scan(ctx)
        if scan is not None:
            return getattr(scan, self.unit)
        return ctx.memo(self.memo_key, lambda: self.reference(ctx.text))


@detectors.register("word.v1")
class WordDetector(ScannedUnitDetector):
    """Words: whitespace-separated runs; each CJK, kana, Hangul or Thai character alone."""

    unit, memo_key = "words", ("word.v1",)

    class Params(DetectorParams):
        """``word.v1`` has no fields."""

    def reference(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """:func:`~adachunk.detect.text_units.words.word_arrays_reference`."""
        return word_arrays_reference(text)


def unit_scan(ctx: DetectContext):
    """The document's compiled text-unit scan (:func:`adachunk.detect.text_units._scan.scan`), run
    once and shared by ``sentence.v1``, ``word.v1`` and ``line_break``; None when the
    reference scans should run instead (short text, Numba not loaded)."""
    from . import _scan

    if not _scan.wanted(len(ctx.text)):
        return None
    return ctx.memo(_scan.SCAN_KEY, lambda: _scan.scan(ctx.text, memo=ctx.memo))


# the embedders' pooling grid cuts long blocks at sentences; the models sit below detect, so the scanner is lent
_models.lend(_models.SENTENCES, split_sentences)
