"""``grammar.lark.v1``: structures recognised by a Lark grammar (enumerators, legal references ...).

Lark parses a *whole* input, while a detector needs "does this line start with an enumerator?"
(mode ``lines``) or "where are the amounts in this text?" (mode ``text``). Both reduce to one
question, answered by :meth:`_Matcher.prefix_ends`: *which prefixes of this segment does the
start rule derive?* The longest of them that does not end inside a word is the match.

* ``parser: lalr`` uses Lark's interactive parser: tokens are fed one at a time and after each
  one we ask whether the input could end there (``$END`` acceptable and ``feed_eof`` succeeds).
  Lexing is lazy and contextual, so junk after the match never has to be tokenised.
* ``parser: earley`` (default; handles any context-free grammar, including ambiguous ones) has no
  interactive mode, so the grammar is wrapped internally::

      adachunk__scan: adachunk__match ADACHUNK__REST?
      adachunk__match: <start>
      ADACHUNK__REST: /.+/s

  and parsed with ``ambiguity="forest"``: the root of the shared packed parse forest has one
  family per way of splitting the segment into "a match of the start rule" + "free rest", and
  the end of each ``adachunk__match`` node is a prefix end. Only those few nodes are visited:
  turning the forest into trees (``ambiguity="explicit"``) enumerates every derivation, which is
  exponential in the line length on an ambiguous grammar (``x: x x | "a"``: 18 s on 30
  characters), while the forest itself is at most cubic. Choosing the longest end ourselves keeps
  the result deterministic and longest-match.

Time bound: parsing stays polynomial, but a cubic parse of long lines or a catastrophic terminal
regex (``/(a|aa)+c/``) can still run for hours, so every detection runs under a deadline
(``timeout_s`` per megabyte of text, as for ``regex.v1``; past it, ``ADA306``). Every compiled
terminal pattern of Lark's lexers and both pre-filters are wrapped by :mod:`._timebound`:
terminal matching is the inner step of both parsers (every Earley column, every LALR token), so
the deadline is checked all through the parse, without signals, on any thread. A pattern that
may backtrack for long (a repeated group, a backreference, many unbounded repeats: see
:func:`._timebound._backtracking`) is recompiled with the ``regex`` module, whose matching takes a
``timeout``, and given the time left; the others keep Lark's ``re`` patterns, so the usual
grammars keep their speed.

Candidates are pre-filtered with a regex of the start rule's FIRST terminals, so the parser only
runs where a match can begin. A match never crosses a line break and is looked for in the first
``_LINE_WINDOW`` (lines) / ``_TEXT_WINDOW`` (text) code points from its start.

Imports inside grammars: ``%import common.WORD`` is Lark's own common library;
``%import .name.RULE`` is relative to the grammar file; ``%import adachunk.common.RULE`` is a
shipped grammar (``grammar/`` folder); ``%import name.RULE`` is also searched in the grammar's
folder and the profile's folders. An imported file is confined as the grammar itself is
(:mod:`adachunk.detect._grammar_imports`: ``ADA220`` at the ``%import`` line).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal, Sequence

from pydantic import Field

from ..datafiles import data_dir
from ..errors import InputError, ProfileError, did_you_mean
from ..components.registry import detectors
from ..datatypes import Structure
from ._grammar_matcher import _Matcher, get_matcher
from ._timebound import time_bound
from .base import DetectContext, Detector, DetectorParams, finalize
from .regex import TIMEOUT_CODE

_LINE_WINDOW = 256  # code points of a line shown to the parser (the match must fit in them)
_TEXT_WINDOW = 128  # the same in text mode, where matches are short references and amounts


# Non-empty content of a line: from its first to its last non-whitespace character.
_LINE_CONTENT = re.compile(r"^[^\S\n]*(\S(?:[^\n]*\S)?)", re.MULTILINE)



def resolve_grammar(name: str, base_dirs: Sequence[Path] = ()) -> Path:
    """Find grammar file ``name`` (``.lark`` optional) in ``base_dirs``, then the shipped folder.

    Raises:
        ProfileError: ``ADA210`` listing the grammar files that exist.
    """
    dirs = [Path(d) for d in base_dirs] + [data_dir("grammar")]
    names = [name] if name.endswith(".lark") else [name, name + ".lark"]
    candidates = [Path(n) for n in names] if os.path.isabs(name) else [d / n for d in dirs for n in names]
    for cand in candidates:
        try:
            if cand.is_file():
                return cand
        except OSError:  # ENAMETOOLONG and the like: not a usable file name
            continue
    available = sorted({f.name for d in dirs if d.is_dir() for f in d.glob("*.lark")})
    raise ProfileError(
        code="ADA210",
        message=f"grammar file '{name}' not found in {', '.join(str(d) for d in dirs)}",
        allowed=available,
        hint=did_you_mean(Path(name).name, available)
        or did_you_mean(Path(name).name + ".lark", available),
    )


def find_lines(matcher: _Matcher, text: str) -> list[tuple[int, int]]:
    """Spans (indentation and trailing spaces excluded) of the lines that begin with a match."""
    out = []
    first = matcher.first
    for m in _LINE_CONTENT.finditer(text):
        s, e = m.span(1)
        stop = min(e, s + _LINE_WINDOW)
        # The pre-filter looks no further than the parser will: with the window as its end, a
        # terminal's lookahead cannot scan a 10 MB line.
        if first is not None and not first.match(text, s, stop):
            continue
        if matcher.longest(text, s, stop) is not None:
            out.append((s, e))
    return out


def find_text(matcher: _Matcher, text: str) -> list[tuple[int, int]]:
    """Leftmost-longest, non-overlapping matches that start at a word start and stay in a line."""
    out: list[tuple[int, int]] = []
    resume = 0  # matches do not overlap: skip candidates inside the previous one
    line_end = -1
    for m in matcher.first_text.finditer(text):
        s = m.start()
        if s < resume:
            continue
        if s >= line_end:
            line_end = text.find("\n", s)
            if line_end < 0:
                line_end = len(text)
        e = matcher.longest(text, s, min(line_end, s + _TEXT_WINDOW))
        if e is not None:
            out.append((s, e))
            resume = e
    return out


@detectors.register("grammar.lark.v1")
class GrammarDetector(Detector):
    """Lines starting with, or text spans matching, the start rule of a Lark grammar."""

    class Params(DetectorParams):
        """Fields of a ``grammar.lark.v1`` structure."""

        grammar: str = Field(
            ...,
            description="Grammar file: a name looked up in the profile's folders, then in "
            "adachunk's shipped grammar/ folder ('.lark' optional), or an absolute path.",
        )
        start: str = Field(..., description="Name of the grammar rule that a structure matches.")
        mode: Literal["lines", "text"] = Field(
            default="lines",
            description="'lines': every line that begins with a match of the start rule is a "
            "structure spanning the line; 'text': each leftmost-longest match anywhere (within "
            "one line) is a structure.",
        )
        parser: Literal["earley", "lalr"] = Field(
            default="earley",
            description="Lark parser: 'earley' accepts any context-free grammar; 'lalr' is much "
            "faster but needs an LALR(1) grammar.",
        )
        timeout_s: float = Field(
            default=60.0,
            gt=0,
            description="Upper bound in seconds on finding the structures in one megabyte of text "
            "(documents under 1 MB get the full bound); exceeding it is error ADA306. Larger "
            "than regex.v1's default because parsing is much slower than matching a regex.",
        )

    def __init__(self, params: DetectorParams, *, name: str, base_dirs: Sequence[Path] = ()):
        super().__init__(params, name=name, base_dirs=base_dirs)
        p = self.params
        self.path = resolve_grammar(p.grammar, self.base_dirs)  # type: ignore[attr-defined]
        search = [self.path.parent, *[Path(d) for d in self.base_dirs]]
        start, parser = p.start, p.parser  # type: ignore[attr-defined]
        self.matcher = get_matcher(self.path, start, parser, search)

    @property
    def source_files(self) -> list[Path]:
        """The grammar file and the files it imports (part of the profile's fingerprint)."""
        return [self.path, *self.matcher.imports]

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Return the spans of the matching lines or matches, in text order.

        Raises:
            InputError: ``ADA306`` when finding them takes longer than the time bound.
        """
        p: GrammarDetector.Params = self.params  # type: ignore[assignment]
        find = find_lines if p.mode == "lines" else find_text
        # per megabyte of text, like regex.v1: a 100 MB document legitimately takes longer than
        # a page, while an exponential grammar still stops
        timeout = p.timeout_s * max(1.0, len(text) / 1_000_000)
        try:
            with time_bound(timeout):
                return find(self.matcher, text)
        except TimeoutError:
            raise InputError(
                code=TIMEOUT_CODE,
                message=f"the grammar of structure '{self.name}' ({self.path.name}, start rule "
                f"'{p.start}', parser {p.parser}) did not finish within {timeout:g} s",
                hint="A highly ambiguous rule (x: x x) on long lines or a terminal with a repeated "
                "group (/(a|aa)+c/) can take very long: rewrite it, try parser: lalr, or raise "
                "timeout_s",
            ) from None

    def detect(self, ctx: DetectContext) -> list[Structure]:
        """Return one ``Structure`` (level 0) per matching line or match."""
        p = self.params
        key = ("grammar.lark.v1", id(self.matcher), p.mode)  # type: ignore[attr-defined]
        spans = ctx.memo(key, lambda: self.spans(ctx.text))
        return finalize([Structure(s, e, self.name, 0) for s, e in spans])
