"""Run a ``regex.v1`` pattern on the standard library's ``re`` engine when that is provably safe.

``regex.v1`` compiles patterns with the PyPI ``regex`` module for its match timeout, but that
engine is 3-4x slower than ``re`` on simple scans (the layout pack's line ends, written as a
pattern, ``\\S[ \\t]*\\r?\\n\\s*``, now their own detector ``line_break.v1``). :func:`plan` hands a pattern to ``re`` only when both engines must
return the same matches *and* ``re`` cannot need the timeout:

* **Same matches.** Flags among MULTILINE, DOTALL, VERBOSE (no IGNORECASE: case folding
  differs). No escape whose meaning differs between the engines: only ``\\s``, ``\\S``, control
  and hex escapes and escaped punctuation (``\\d``, ``\\w``, ``\\b``, ``\\p{..}``,
  backreferences ... keep ``regex``). No inline flags. ``re`` compiles it without a warning
  (``re`` warns on ``[[``, ``--``, ``&&``: set syntax that ``regex`` may read differently).
  ``\\s`` and ``.`` still differ on a few code points (``regex`` does not count U+001C-U+001F
  as whitespace): they are computed once from both engines, and a text holding any of them
  goes to ``regex``.
* **Linear time** (what the timeout guards against). The pattern is a sequence of single
  characters, classes, anchors and groups of those; every repetition repeats one character
  (no nested quantifier, no alternation, lookaround or backreference). A repetition that is
  not the last item must be entered from a required character (or a start anchor) that it
  cannot match, so no two match attempts scan the same run, and must be left through a
  required character it cannot match (optional characters it cannot match may come
  between), so giving back one character fails at once. The last item may be any
  repetition: it never backtracks. Under these rules each character is examined a bounded
  number of times, so the per-megabyte time bound of ``regex.v1`` cannot be reached.

Anything else, or any doubt, keeps the ``regex`` module and its timeout.
"""

from __future__ import annotations

import re
import threading
import warnings
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np
import regex as _regex

try:  # the parser behind re.compile; private, so any surprise only disables the fast path
    from re import _constants as _C
    from re import _parser as _P
except ImportError:  # pragma: no cover - every supported Python has them
    _P = _C = None

_RE_FLAGS = {"MULTILINE": re.MULTILINE, "DOTALL": re.DOTALL, "VERBOSE": re.VERBOSE}
# escapes with the same meaning in both engines (besides escaped punctuation)
_PLAIN_ESCAPES = set("tnrfvax0uU")
_CLASS_ESCAPES = set("sS")  # same meaning except on the code points of _disagreement()
_INLINE_FLAG = re.compile(r"(?<!\\)\(\?[aiLmsux-]")
_MAX = 0x10FFFF
_lock = threading.Lock()


@dataclass(frozen=True)
class FastPlan:
    """How to find a pattern's matches without the ``regex`` module.

    Attributes:
        pattern: the pattern compiled with ``re``.
        features: ``s`` / ``.`` when the pattern uses them: texts holding a code point on which
            the engines disagree for them go back to ``regex``.
    """

    pattern: re.Pattern
    features: tuple[str, ...] = ()

    def usable(self, text: str) -> bool:
        """Whether this plan finds exactly what ``regex`` would in ``text``."""
        points = _trouble(self.features)
        return not any(ch in text for ch in points)

    def spans(self, text: str, group: int | str) -> list[tuple[int, int]]:
        """Non-empty spans of ``group`` in the matches, in text order (as regex.v1 reports)."""
        out = []
        for m in self.pattern.finditer(text):
            s, e = m.span(group)
            if e > s:
                out.append((s, e))
        return out


def plan(pattern: str, flags: Sequence[str]) -> FastPlan | None:
    """A plan for ``pattern`` under ``flags``, or None when ``regex`` must run it."""
    if _P is None or any(f not in _RE_FLAGS for f in flags):
        return None
    escapes = _escapes(pattern)
    if escapes is None or _INLINE_FLAG.search(pattern):
        return None
    value = 0
    for name in flags:
        value |= _RE_FLAGS[name]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compiled = re.compile(pattern, value)
            parsed = _P.parse(pattern, value)
    except (re.error, Warning, RecursionError, OverflowError):
        return None
    try:
        if parsed.getwidth()[0] < 1 or not _linear(parsed, bool(value & re.DOTALL)):
            return None
    except Exception:  # noqa: BLE001 - a surprise in re's private parser: keep regex (correct)
        return None
    features = tuple(sorted(({"s"} if escapes & _CLASS_ESCAPES else set())
                            | ({"."} if "." in pattern else set())))
    return FastPlan(compiled, features)


def _escapes(pattern: str) -> set[str] | None:
    """Letters and digits escaped in ``pattern``; None if one of them is not known to be safe."""
    found: set[str] = set()
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\":
            if i + 1 >= len(pattern):
                return None
            e = pattern[i + 1]
            if e.isalnum() or not e.isascii():
                if e not in _PLAIN_ESCAPES and e not in _CLASS_ESCAPES:
                    return None
                found.add(e)
            i += 2
        else:
            i += 1
    return found


# ---------------------------------------------------------------------------- linear shape
def _items(sub) -> list | None:
    """Flatten capture groups into one sequence of (op, arg); None on any other construct."""
    out = []
    for op, av in sub.data:
        if op is _C.SUBPATTERN:
            _group, add_flags, del_flags, inner = av
            nested = None if add_flags or del_flags else _items(inner)
            if nested is None:
                return None
            out += nested
        elif op in _SINGLE:
            out.append((op, av))
        elif op is _C.AT and av in _ANCHORS:
            out.append((op, av))
        elif op in (_C.MAX_REPEAT, _C.MIN_REPEAT, _C.POSSESSIVE_REPEAT):
            lo, hi, body = av
            inner = _items(body)
            if inner is None or len(inner) != 1 or inner[0][0] not in _SINGLE:
                return None  # a repeated sequence, repetition or anchor: possibly super-linear
            out.append(("repeat", (lo, hi, inner[0])))
        else:
            return None  # alternation, lookaround, backreference, atomic group, conditional
    return out


if _C is not None:
    _SINGLE = (_C.LITERAL, _C.NOT_LITERAL, _C.IN, _C.ANY)
    _ANCHORS = {_C.AT_BEGINNING, _C.AT_BEGINNING_LINE, _C.AT_BEGINNING_STRING, _C.AT_END,
                _C.AT_END_LINE, _C.AT_END_STRING}
    _STARTS = {_C.AT_BEGINNING, _C.AT_BEGINNING_LINE, _C.AT_BEGINNING_STRING}


def _linear(parsed, dotall: bool) -> bool:
    """The shape rules of the module docstring, on the parsed pattern."""
    items = _items(parsed)
    if items is None:
        return False
    sets = [None if op in ("repeat", _C.AT) else _charset(op, av, dotall) for op, av in items]
    for i, (op, av) in enumerate(items):
        if op != "repeat" or av[1] <= 1 or i == len(items) - 1:
            continue
        own = _charset(*av[2], dotall)
        if own is None:
            return False
        if i == 0:
            return False
        p_op, p_av = items[i - 1]
        entered_by_anchor = p_op is _C.AT and p_av in _STARTS
        if not entered_by_anchor and not (sets[i - 1] is not None and _disjoint(sets[i - 1], own)):
            return False
        j = i + 1
        while j < len(items) and items[j][0] == "repeat" and items[j][1][:2] == (0, 1):
            opt = _charset(*items[j][1][2], dotall)
            if opt is None or not _disjoint(opt, own):
                return False
            j += 1
        if j == len(items):
            continue
        f_op, f_av = items[j]
        if f_op == "repeat":
            follower = _charset(*f_av[2], dotall) if f_av[0] >= 1 else None
        else:
            follower = sets[j]
        if follower is None or not _disjoint(follower, own):
            return False
    return True


def _charset(op, av, dotall: bool) -> np.ndarray | None:
    """Code points matched by one single-character item, as sorted ``[lo, hi]`` rows."""
    if op is _C.LITERAL:
        return np.array([[av, av]])
    if op is _C.NOT_LITERAL:
        return _complement(np.array([[av, av]]))
    if op is _C.ANY:
        return np.array([[0, _MAX]]) if dotall else _complement(np.array([[10, 10]]))
    if op is not _C.IN:
        return None
    negate, rows = False, []
    for kind, arg in av:
        if kind is _C.NEGATE:
            negate = True
        elif kind is _C.LITERAL:
            rows.append([arg, arg])
        elif kind is _C.RANGE:
            rows.append(list(arg))
        elif kind is _C.CATEGORY and arg is _C.CATEGORY_SPACE:
            rows.extend(_space_rows().tolist())
        elif kind is _C.CATEGORY and arg is _C.CATEGORY_NOT_SPACE:
            rows.extend(_complement(_space_rows()).tolist())
        else:
            return None
    merged = _merge(np.array(rows, dtype=np.int64).reshape(-1, 2))
    return _complement(merged) if negate else merged


def _merge(rows: np.ndarray) -> np.ndarray:
    out: list[list[int]] = []
    for lo, hi in sorted(rows.tolist()):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return np.array(out, dtype=np.int64).reshape(-1, 2)


def _complement(rows: np.ndarray) -> np.ndarray:
    out, nxt = [], 0
    for lo, hi in _merge(rows).tolist():
        if lo > nxt:
            out.append([nxt, lo - 1])
        nxt = hi + 1
    if nxt <= _MAX:
        out.append([nxt, _MAX])
    return np.array(out, dtype=np.int64).reshape(-1, 2)


def _disjoint(a: np.ndarray, b: np.ndarray) -> bool:
    return not any(max(x0, y0) <= min(x1, y1) for x0, x1 in a.tolist() for y0, y1 in b.tolist())


# ----------------------------------------------------------------- engine disagreements
@lru_cache(maxsize=1)
def _all_code_points() -> str:
    """Every code point once (lone surrogates included), to ask both engines what they match."""
    return np.arange(_MAX + 1, dtype=np.uint32).tobytes().decode("utf-32-le", "surrogatepass")


@lru_cache(maxsize=1)
def _space_rows() -> np.ndarray:
    """What ``re``'s ``\\s`` matches, as ``[lo, hi]`` rows."""
    with _lock:
        pts = [m.start() for m in re.finditer(r"\s", _all_code_points())]
    return _merge(np.array([[p, p] for p in pts], dtype=np.int64).reshape(-1, 2))


@lru_cache(maxsize=None)
def _disagreement(feature: str) -> frozenset[int]:
    """Code points on which ``re`` and ``regex`` disagree for ``\\s`` (``s``) or ``.``.

    Each engine deletes the runs that ``\\S`` (the complement of its ``\\s``), respectively
    ``.``, matches from a string of every code point: what is left is where the probe fails,
    and the two leftovers differ exactly on the disagreements.
    """
    probe = r"\S+" if feature == "s" else ".+"
    text = _all_code_points()
    with _lock:
        ours, theirs = set(re.sub(probe, "", text)), set(_regex.sub(probe, "", text))
    return frozenset(map(ord, ours ^ theirs))


@lru_cache(maxsize=None)
def _trouble(features: tuple[str, ...]) -> str:
    """Every code point on which the engines disagree for these features (a few at most)."""
    points = set().union(*(_disagreement(f) for f in features)) if features else set()
    return "".join(chr(p) for p in sorted(points))


# ------------------------------------------------------- the regex module's whitespace
@lru_cache(maxsize=1)
def _regex_space() -> tuple[frozenset[str], re.Pattern]:
    """The ``regex`` module's whitespace (``\\s``), and a line feed followed by a run of it (read
    by ``line_break.v1`` and the compiled text-unit scan's character table)."""
    text = _all_code_points()
    with _lock:
        chars = "".join(m.group() for m in _regex.finditer(r"\s", text))
    run = re.compile("\n[" + "".join(f"\\U{ord(c):08x}" for c in chars) + "]*")
    return frozenset(chars), run
