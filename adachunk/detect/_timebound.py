"""Time bound of grammar detection: a per-thread deadline and terminal patterns that respect it.

Lark's parsers have no timeout. Both match terminals one at a time through compiled patterns,
so :func:`_guard` wraps each pattern: the deadline is checked on every call, and a pattern whose
backtracking may be exponential (a repeated group, a backreference) or of high polynomial degree
is recompiled with the ``regex`` module and given the time left, because one call of it can run
for hours on its own. No signals: this works on any thread.
"""

from __future__ import annotations

import contextlib
import re
import sys
import threading
import time
from re import _constants as _sre, _parser as _sre_parser  # the stdlib's regex parser (3.11+)

import regex as _regex

# Patterns with at most this many unbounded single-character repeats (~256**3 steps at worst)
# match a segment fast enough to need only a deadline check between calls; the pre-filters scan
# the whole text, where one unbounded repeat may already be quadratic.
SEGMENT_DEGREE = 3
_SMALL_REPEAT = 16  # a repeat of at most this many more characters than its minimum is bounded
_REPEATS = frozenset({_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT})
_SINGLE_CHARACTER = frozenset({_sre.LITERAL, _sre.NOT_LITERAL, _sre.ANY, _sre.IN, _sre.CATEGORY})


class _Deadline(threading.local):
    """``time.monotonic()`` value at which this thread's detection must stop (None: never).

    Thread-local because matchers are cached and shared by every thread that detects.
    """

    at: float | None = None


_DEADLINE = _Deadline()


@contextlib.contextmanager
def time_bound(seconds: float):
    """Run the block under a deadline ``seconds`` from now (see :func:`time_left`)."""
    previous = _DEADLINE.at
    _DEADLINE.at = time.monotonic() + seconds
    try:
        yield
    finally:
        _DEADLINE.at = previous


def time_left() -> float | None:
    """Seconds left before this thread's deadline (None: no deadline).

    Raises:
        TimeoutError: the deadline has passed.
    """
    at = _DEADLINE.at
    if at is None:
        return None
    left = at - time.monotonic()
    if left <= 0:
        raise TimeoutError("grammar detection ran past its time bound")
    return left


def _backtracking(parsed) -> int | None:
    """Worst-case backtracking of a parsed ``re`` pattern, as the number of unbounded repeats of
    single characters on one path (matching n characters then costs at most ~n**degree steps);
    None when a repeated group or a backreference may make it exponential."""
    degree = 0
    for op, av in parsed:
        if op in _REPEATS:
            low, high, item = av
            if len(item) == 1 and item[0][0] in _SINGLE_CHARACTER:
                degree += high - low > _SMALL_REPEAT  # a{1,3} backtracks a constant amount
                continue
            if high > 1:  # (a|aa)+, (a+)+: exponential
                return None
            sub = _backtracking(item)  # an optional group: (...)?
        elif op is _sre.SUBPATTERN:
            sub = _backtracking(av[3])
        elif op is _sre.ATOMIC_GROUP:
            sub = _backtracking(av)
        elif op in (_sre.ASSERT, _sre.ASSERT_NOT):
            sub = _backtracking(av[1])
        elif op is _sre.BRANCH:
            subs = [_backtracking(branch) for branch in av[1]]
            sub = None if None in subs else max(subs)
        elif op in (_sre.GROUPREF, _sre.GROUPREF_EXISTS):
            return None
        else:  # a character, a class, an anchor
            sub = 0
        if sub is None:
            return None
        degree += sub
    return degree


class _GuardedPattern:
    """A compiled pattern whose matching stops at the thread's deadline (``TimeoutError``).

    ``timed`` patterns are compiled with the ``regex`` module and each call is given the time
    left; the others keep their ``re`` compilation (the semantics and speed Lark has without
    the bound) and the deadline is checked before each call.
    """

    __slots__ = ("_pattern", "_timed")

    def __init__(self, pattern, timed: bool):
        self._pattern = pattern
        self._timed = timed

    def match(self, string, pos=0, endpos=sys.maxsize):
        """``Pattern.match`` under the deadline."""
        left = time_left()
        if left is not None and self._timed:
            # by position (string, pos, endpos, concurrent, partial, timeout): this is the
            # lexers' innermost call and the regex module parses keywords slowly
            return self._pattern.match(string, pos, endpos, None, False, left)
        return self._pattern.match(string, pos, endpos)

    def finditer(self, string):
        """``Pattern.finditer`` under the deadline."""
        left = time_left()
        if left is not None and self._timed:
            return self._pattern.finditer(string, timeout=left)
        return self._pattern.finditer(string)

    def __getattr__(self, name):  # groupindex, pattern, flags ... of the wrapped pattern
        if name.startswith("_"):  # copy/pickle probing an instance whose slots are not set yet
            raise AttributeError(name)
        return getattr(self._pattern, name)


def guard(compiled: re.Pattern, max_degree: int) -> _GuardedPattern:
    """Put ``compiled`` under the deadline, timed when its backtracking may exceed
    ``max_degree`` (see :func:`_backtracking`)."""
    try:
        degree = _backtracking(_sre_parser.parse(compiled.pattern, compiled.flags))
    except Exception:  # noqa: BLE001 - a pattern that cannot be analysed is not proven safe
        degree = None
    if degree is not None and degree <= max_degree:
        return _GuardedPattern(compiled, timed=False)
    flags = 0
    for name in ("IGNORECASE", "MULTILINE", "DOTALL", "VERBOSE", "ASCII", "UNICODE"):
        if compiled.flags & getattr(re, name):
            flags |= getattr(_regex, name)  # same names, not all the same values (ASCII)
    try:
        return _GuardedPattern(_regex.compile(compiled.pattern, flags), timed=True)
    except _regex.error:  # a few patterns re accepts and regex does not: checked between calls
        return _GuardedPattern(compiled, timed=False)
