"""The compiled side of ``grammar.lark.v1``: a Lark grammar wrapped to find the prefixes its
start rule derives, every terminal under the matching deadline, cached by file content.

:mod:`adachunk.detect.grammar` (the detector a profile names) resolves the file and scans the
text line by line or window by window; this module builds and caches what matches at one
position. A grammar's own ``%import`` goes through :class:`ConfinedImports` (never a bare
folder, which Lark would open unchecked).
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import defaultdict
from pathlib import Path
from typing import Sequence

import regex as _regex
from lark import Lark
from lark.exceptions import LarkError, UnexpectedInput
from lark.load_grammar import FromPackageLoader
from lark.parsers.earley_forest import SymbolNode

from ..datafiles import data_dir
from ..errors import ProfileError, did_you_mean
from ._grammar_imports import ConfinedImports
from ._timebound import SEGMENT_DEGREE, guard

_WRAPPER = """
adachunk__scan: adachunk__match ADACHUNK__REST?
adachunk__match: {start}
ADACHUNK__REST: /.+/s
"""
_LARK_STDLIB = FromPackageLoader("lark", ("grammars",))
_CACHE: dict[tuple, "_Matcher"] = {}
_CACHE_LOCK = threading.Lock()
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
