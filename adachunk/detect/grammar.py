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

import hashlib
import os
import re
import threading
from collections import defaultdict
from pathlib import Path
from typing import Literal, Sequence

import regex as _regex
from lark import Lark
from lark.exceptions import LarkError, UnexpectedInput
from lark.load_grammar import FromPackageLoader
from lark.parsers.earley_forest import SymbolNode
from pydantic import Field

from ..datafiles import data_dir
from ..errors import InputError, ProfileError, did_you_mean
from ..registry import detectors
from ..types import Structure
from .base import DetectContext, Detector, DetectorParams, finalize
from ._grammar_imports import ConfinedImports
from ._timebound import SEGMENT_DEGREE, guard, time_bound
from .regex import TIMEOUT_CODE

_LINE_WINDOW = 256  # code points of a line shown to the parser (the match must fit in them)
_TEXT_WINDOW = 128  # the same in text mode, where matches are short references and amounts
_WRAPPER = """
adachunk__scan: adachunk__match ADACHUNK__REST?
adachunk__match: {start}
ADACHUNK__REST: /.+/s
"""
_LARK_STDLIB = FromPackageLoader("lark", ("grammars",))
_CACHE: dict[tuple, "_Matcher"] = {}
_CACHE_LOCK = threading.Lock()


# Non-empty content of a line: from its first to its last non-whitespace character.
_LINE_CONTENT = re.compile(r"^[^\S\n]*(\S(?:[^\n]*\S)?)", re.MULTILINE)
_RULE_DEF = re.compile(r"^\s*[?!]?([_a-z][_a-z0-9]*)\s*(?:\{[^}]*\})?\s*(?:\.-?\d+)?\s*:", re.M)


def _shipped_loader(base_path, grammar_path: str):
    """Lark import loader serving ``%import adachunk.<name>.X`` from the shipped grammar folder."""
    parts = Path(grammar_path).parts
    if base_path is None and len(parts) == 2 and parts[0] == "adachunk":
        path = data_dir("grammar") / parts[1]
        if path.is_file():
            return str(path), path.read_text(encoding="utf-8")
    raise IOError(grammar_path)


def _guard_terminals(lark: Lark, parser: str) -> None:
    """Put every compiled terminal pattern of ``lark`` under the deadline.

    Earley's dynamic lexer matches terminals one by one from ``EarleyRegexpMatcher.regexps``;
    LALR's contextual lexer has one scanner per parser state (plus a root one for error
    messages), built lazily: they are built here so that all of them are guarded. Both match
    inside one segment (at most ``_LINE_WINDOW`` characters), where a few unbounded repeats
    stay cheap.
    """
    frontend = lark.parser
    if parser == "earley":
        regexps = frontend.parser.term_matcher.__self__.regexps
        for name, pattern in regexps.items():
            regexps[name] = guard(pattern, SEGMENT_DEGREE)
        return
    lexer = frontend.lexer
    basics = {id(b): b for b in (*lexer.lexers.values(), lexer.root_lexer)}
    for basic in basics.values():
        scanner = basic.scanner
        scanner._mres = [guard(m, SEGMENT_DEGREE) for m in scanner._mres]


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


class _Matcher:
    """A compiled grammar plus the machinery to find the prefixes its start rule derives."""

    def __init__(self, text: str, path: Path, start: str, parser: str, search: Sequence[Path]):
        self.start = start
        self.parser = parser
        # Files on disk are read only through the confined loader (never a bare folder, which
        # Lark would open unchecked): an import that resolves outside is ADA220, a missing one
        # ADA210, both located at the %import line.
        loader = ConfinedImports(path, text, search)
        import_paths = [_LARK_STDLIB, _shipped_loader, loader]
        try:
            if parser == "lalr":
                self.lark = Lark(text, start=start, parser="lalr", import_paths=import_paths,
                                 source_path=str(path))
            else:
                self.lark = Lark(
                    text + "\n" + _WRAPPER.format(start=start),
                    start="adachunk__scan",
                    parser="earley",
                    lexer="dynamic",
                    ambiguity="forest",
                    import_paths=import_paths,
                    source_path=str(path),
                )
        except (LarkError, re.error, _regex.error, AssertionError) as exc:
            # Lark measures terminal widths with the `regex` module when it is installed, so a
            # bad terminal pattern may surface as regex.error rather than re.error.
            raise _grammar_error(exc, text, path, start) from None
        except OSError as exc:  # an %import that lark could not find
            raise ProfileError(
                code="ADA210",
                message=f"grammar '{path}' imports a file that was not found ({exc})",
                hint="Use %import common.X for Lark's library, %import .file.X for a file next to "
                "the grammar, %import adachunk.common.X for the shipped rules",
            ) from None
        self.imports = tuple(loader.files)
        _guard_terminals(self.lark, parser)
        first = self._first_pattern()
        # MULTILINE: the pre-filters run on the whole text, where a terminal's ``$``/``^`` mean a
        # line end/start (each line is parsed on its own). Lines mode tries ``first`` at each
        # line start within the window the parser will see, so a few unbounded repeats are
        # cheap; text mode scans the whole text, where one may already be quadratic.
        self.first = guard(re.compile(first, re.MULTILINE), SEGMENT_DEGREE) if first else None
        # Text mode only tries positions where a word starts or a non-word character is; the
        # lookbehind/lookahead pair is the regex form of the alphanumeric test in ``find_text``
        # ([^\W_] is exactly str.isalnum), so the C engine skips mid-word positions for us.
        word_start = r"(?:(?<![^\W_])|(?![^\W_]))"
        self.first_text = guard(re.compile(word_start + (first or r"(?=\S)"), re.MULTILINE), 0)

    def _first_pattern(self) -> str | None:
        """Regex matching where a derivation of the start rule can begin (None: anywhere)."""
        lk = self.lark
        rules = defaultdict(list)
        for r in lk.rules:
            rules[r.origin.name].append(r.expansion)
        nullable: set[str] = set()
        first: dict[str, set[str]] = defaultdict(set)
        changed = True
        while changed:  # textbook fixpoint; grammars here have a few dozen rules
            changed = False
            for origin, expansions in rules.items():
                for exp in expansions:
                    before = len(first[origin])
                    all_nullable = True
                    for sym in exp:
                        if sym.is_term:
                            first[origin].add(sym.name)
                        else:
                            first[origin] |= first[sym.name]
                        if sym.is_term or sym.name not in nullable:
                            all_nullable = False
                            break
                    if all_nullable and origin not in nullable:
                        nullable.add(origin)
                        changed = True
                    changed |= len(first[origin]) != before
        top = "adachunk__match" if self.parser == "earley" else self.start
        patterns = {t.name: t.pattern.to_regexp() for t in lk.terminals}
        try:
            alts = "|".join(f"(?:{patterns[n]})" for n in sorted(first[top]))
            pattern = f"(?=(?:{alts}))"
            re.compile(pattern, re.MULTILINE)
            return pattern if alts else None
        except (re.error, KeyError):
            return None  # fall back to trying every position

    def prefix_ends(self, segment: str) -> list[int]:
        """Return the lengths of the prefixes of ``segment`` that the start rule derives."""
        if self.parser == "lalr":
            return self._lalr_ends(segment)
        try:
            forest = self.lark.parse(segment)
        except (UnexpectedInput, LarkError, RuntimeError, RecursionError):
            # lark's Earley raises RuntimeError on some degenerate grammars: no match here
            return []
        return sorted(_match_ends(forest))

    def _lalr_ends(self, segment: str) -> list[int]:
        ip = self.lark.parse_interactive(segment)
        tokens = ip.lexer_thread.lex(ip.parser_state)
        ends: list[int] = []
        while True:
            try:
                tok = next(tokens)
                ip.feed_token(tok)
            except (StopIteration, UnexpectedInput, LarkError, RuntimeError, RecursionError):
                return ends
            if "$END" in ip.choices():
                # LALR lookaheads can be merged states: confirm on a copy that EOF is accepted.
                try:
                    ip.copy().feed_eof(tok)
                    ends.append(tok.end_pos)
                except (UnexpectedInput, LarkError):
                    pass

    def longest(self, text: str, start: int, stop: int) -> int | None:
        """End of the longest match starting at ``start`` that ends before ``stop`` and not
        inside a word (``text[end-1]`` and ``text[end]`` both alphanumeric), or None."""
        for n in reversed(self.prefix_ends(text[start:stop])):
            end = start + n
            if n > 0 and not (end < len(text) and text[end - 1].isalnum() and text[end].isalnum()):
                return end
        return None


def _match_ends(root: SymbolNode) -> set[int]:
    """End offsets of the non-empty ``adachunk__match`` nodes among the root's families.

    Each family (packed node) of the ``adachunk__scan`` root is one split "match + free rest";
    Lark binarises ``adachunk__match ADACHUNK__REST`` through an intermediate node, so
    intermediate nodes are walked. A match node is never entered: its derivations do not change
    its end, and enumerating them is the exponential part. A match deriving the empty string
    (end 0) is no structure.
    """
    ends: set[int] = set()
    stack, seen = [root], {id(root)}
    while stack:
        for packed in stack.pop().children:
            for child in (packed.left, packed.right):
                if not isinstance(child, SymbolNode) or id(child) in seen:
                    continue
                seen.add(id(child))
                if child.is_intermediate:
                    stack.append(child)
                elif child.s.name == "adachunk__match" and child.end > 0:
                    ends.add(child.end)
    return ends


def _grammar_error(exc: Exception, text: str, path: Path, start: str) -> ProfileError:
    """Turn a Lark construction error into ``ADA208`` with the grammar file line when known."""
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    undefined = (
        f"NonTerminal('{start}')" in msg and "undefined rule" in msg
    ) or f"Rule '{start}' used but not defined (in rule adachunk__match)" in msg
    if undefined:
        found = _RULE_DEF.findall(text)
        rules = sorted({r for r in found if not r.startswith(("_", "adachunk__"))})
        return ProfileError(
            code="ADA208",
            message=f"unknown start rule '{start}' in grammar {path}",
            allowed=rules,
            hint=did_you_mean(start, rules),
        )
    # The location of the error is the profile's (the loader fills it in); the grammar file and
    # the line Lark reports go into the message: "grammar /p/g.lark:2:6: Expecting a value".
    where = str(path)
    pos = re.search(r"line (\d+)(?:,? col(?:umn)? (\d+))?", str(exc))
    if pos:
        where += f":{pos.group(1)}" + (f":{pos.group(2)}" if pos.group(2) else "")
    hint = None
    if "used but not defined" in msg or "Nothing was imported" in msg:
        hint = ("%import common.X is Lark's own common library; adachunk's shipped rules are "
                "%import adachunk.common.X and a file beside the grammar is %import .file.X")
    return ProfileError(code="ADA208", message=f"Lark grammar error in {where}: {msg}", hint=hint)


def get_matcher(path: Path, start: str, parser: str, search: Sequence[Path] = ()) -> _Matcher:
    """Return the cached matcher for (file content sha256, start, parser, import folders)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ProfileError(code="ADA208", message=f"cannot read grammar {path}: {exc}") from None
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    key = (digest, start, parser, tuple(str(p) for p in search))
    with _CACHE_LOCK:
        matcher = _CACHE.get(key)
    if matcher is None:
        matcher = _Matcher(text, path, start, parser, search)
        with _CACHE_LOCK:
            _CACHE[key] = matcher
    return matcher


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
