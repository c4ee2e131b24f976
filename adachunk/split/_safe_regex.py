"""Extract, repair and run a regular expression written by a language model, within a time bound.

A model's pattern is untrusted input: it may not compile, may be wrapped in quotes or code fences,
may match the empty string everywhere, or may backtrack catastrophically (``(a+)+$`` on a long run
of ``a``). Everything here turns those cases into an :class:`UnsafePattern` with a short reason
code instead of a hang or a crash.

Engines. The pattern must be valid Python ``re`` syntax (the prompt's contract), so it is first
validated with ``re``. It then runs on **RE2** (``google-re2``: linear time, no backtracking at
all) when RE2 accepts it *and* gives it the same meaning as ``re`` on this text; otherwise on the
PyPI ``regex`` module, whose matching takes a ``timeout`` that catastrophic backtracking cannot
defeat. RE2 and ``re`` disagree on a few constructs: ``\\s \\d \\w \\b`` are ASCII-only in RE2 but
Unicode-aware in ``re``; ``$`` also matches before a final newline in ``re``; ``{,n}`` is a
repetition in ``re`` but a literal in RE2; ``[:alpha:]`` is a POSIX class only in RE2. Patterns
using them go to ``regex`` unless the text is plain ASCII, where the classes agree.
"""

from __future__ import annotations

import re
import time
import warnings
from dataclasses import dataclass, field

_TAG = re.compile(r"<regex>(.*?)</regex>", re.IGNORECASE | re.DOTALL)
_FENCE = re.compile(r"^```[A-Za-z0-9_+-]*[ \t]*\n?(.*?)\n?```$", re.DOTALL)
_SLASHED = re.compile(r"^/(.+)/([gimsuy]*)$", re.DOTALL)
_QUOTED = re.compile(r"""^[rRbBuU]?(["'])(.*)\1$""", re.DOTALL)
# Escapes whose meaning is Unicode-aware in ``re`` but ASCII-only in RE2.
_CLASS_ESCAPES = frozenset("sSdDwWbB")
# Characters outside ASCII, plus the ASCII ones ``re`` counts as whitespace and RE2 does not.
_NOT_PLAIN = re.compile(r"[^\x00-\x0a\x0c-\x1b\x20-\x7f]")

MAX_PATTERN_CHARS = 2000


class UnsafePattern(Exception):
    """The model's pattern cannot be used; ``reason`` is a short code, ``detail`` says why."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def extract_tag(content: str | None) -> str | None:
    """Content of the first ``<regex>…</regex>`` (case-insensitive), or None without one."""
    m = _TAG.search(content or "")
    return None if m is None else m.group(1)


def unwrap(pattern: str) -> tuple[str, list[str]]:
    """Remove presentation around a pattern: whitespace, code fences, backticks, quotes, slashes.

    These wrappers are never part of a delimiter a model meant, so they are always removed.
    JavaScript-style ``/.../flags`` keeps its ``i``, ``m`` and ``s`` flags as an inline group.

    Returns:
        ``(pattern, repairs)`` where ``repairs`` names each wrapper removed.
    """
    repairs: list[str] = []
    p = pattern.strip()
    m = _FENCE.match(p)
    if m:
        p, _ = m.group(1).strip(), repairs.append("code_fence")
    if len(p) >= 2 and p[0] == p[-1] == "`":
        p, _ = p[1:-1].strip(), repairs.append("backticks")
    m = _QUOTED.match(p)
    if m and len(p) >= 2:
        p, _ = m.group(2), repairs.append("quotes")
    m = _SLASHED.match(p)
    if m and len(p) >= 3:
        flags = "".join(f for f in "ims" if f in m.group(2))
        p = (f"(?{flags})" if flags else "") + m.group(1)
        repairs.append("slashes")
    return p, repairs


def repair_escapes(pattern: str) -> tuple[str, list[str]]:
    """One attempt at fixing escaping mistakes; used only when the pattern as given failed.

    * Doubled backslashes (``\\\\n`` written for ``\\n``: the model escaped for a string literal).
    * A hyphen inside ``[...]`` that would form an invalid range (``[\\w-.]``) is escaped, the
      repair the paper's code applies.
    """
    repairs: list[str] = []
    p = pattern
    if "\\\\" in p:
        p, _ = p.replace("\\\\", "\\"), repairs.append("double_escape")
    fixed = _escape_class_hyphens(p)
    if fixed != p:
        p, _ = fixed, repairs.append("class_hyphen")
    return p, repairs


def _escape_class_hyphens(p: str) -> str:
    """Escape a ``-`` inside ``[...]`` when it cannot form a valid range.

    That is when a class escape stands on either side (``[\\w-.]``) or the range is reversed
    (``[z-a]``); a valid range such as ``[a-z]`` is left alone.
    """
    out, i = [], 0
    while i < len(p):
        c = p[i]
        if c == "\\":
            out.append(p[i : i + 2])
            i += 2
            continue
        if c != "[":
            out.append(c)
            i += 1
            continue
        head = "[^" if p[i + 1 : i + 2] == "^" else "["
        j, items = i + len(head), []
        if p[j : j + 1] == "]":  # a "]" right after the opening bracket is a literal
            items.append("]")
            j += 1
        while j < len(p) and p[j] != "]":
            step = 2 if p[j] == "\\" else 1
            items.append(p[j : j + step])
            j += step
        if j >= len(p):  # unterminated class: nothing sensible to repair
            out.append(p[i:])
            break
        out.append(head + "".join(_fix_ranges(items)) + "]")
        i = j + 1
    return "".join(out)


def _fix_ranges(items: list[str]) -> list[str]:
    def class_escape(s: str) -> bool:
        return len(s) == 2 and s[0] == "\\" and s[1] in "wWsSdD"

    res = list(items)
    for k in range(1, len(items) - 1):
        a, b = items[k - 1], items[k + 1]
        reversed_range = len(a) == len(b) == 1 and a > b
        if items[k] == "-" and (class_escape(a) or class_escape(b) or reversed_range):
            res[k] = "\\-"
    return res


def _python_only(pattern: str) -> set[str]:
    """Constructs of ``pattern`` whose meaning differs between RE2 and ``re`` (see module doc)."""
    found = set()
    if "{," in pattern:
        found.add("brace")
    if "[:" in pattern:
        found.add("posix")
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if pattern[i + 1 : i + 2] in _CLASS_ESCAPES:
                found.add("class_escape")
            i += 2
            continue
        if c == "$":
            found.add("dollar")
        i += 1
    return found


@dataclass
class SafePattern:
    """A validated pattern bound to the engine that will run it (``re2`` or ``regex``)."""

    pattern: str
    engine: str
    _compiled: object = field(repr=False)

    def matches_empty(self, timeout_s: float) -> bool:
        """Whether the pattern matches the empty string: it would then match at every position."""
        if self.engine == "re2":
            return self._compiled.search(b"") is not None
        try:
            return self._compiled.search("", timeout=timeout_s) is not None
        except TimeoutError:
            return True

    def match_starts(self, text: str, timeout_s: float, max_points: int) -> list[int]:
        """Start offsets (code points) of every match in ``text``.

        Raises:
            UnsafePattern: ``regex_timeout`` past ``timeout_s`` seconds in all;
                ``match_everywhere`` beyond ``max_points`` matches.
        """
        deadline = time.monotonic() + timeout_s
        if self.engine == "re2":
            return self._re2_starts(text, deadline, max_points)
        points: list[int] = []
        try:
            for m in self._compiled.finditer(text, timeout=timeout_s):
                points.append(m.start())
                _check(points, deadline, max_points, timeout_s)
        except TimeoutError:
            raise UnsafePattern("regex_timeout", f"matching ran past {timeout_s:g} s "
                                f"(catastrophic backtracking?) with the regex module") from None
        return points

    def _re2_starts(self, text: str, deadline: float, max_points: int) -> list[int]:
        # Bytes in, byte offsets out: the wrapper's per-match str decoding is the slow part.
        data = text.encode("utf-8", "surrogatepass")
        byte_points: list[int] = []
        for m in self._compiled.finditer(data):
            byte_points.append(m.start())
            _check(byte_points, deadline, max_points, None)
        if len(data) == len(text) or not byte_points:
            return byte_points
        import numpy as np

        raw = np.frombuffer(data, dtype=np.uint8)
        is_start = np.concatenate(((raw & 0xC0) != 0x80, [True]))
        char_index = np.concatenate(([0], np.cumsum(is_start[:-1])))
        b = np.asarray(byte_points, dtype=np.int64)
        b = b[is_start[b]]  # an empty match stepping byte by byte may land inside a character
        return [int(x) for x in char_index[b]]


def _check(points: list[int], deadline: float, max_points: int, timeout_s: float | None) -> None:
    if len(points) > max_points:
        raise UnsafePattern("match_everywhere", f"more than {max_points} matches: the pattern "
                            "matches almost everywhere")
    if len(points) % 1024 == 0 and time.monotonic() > deadline:
        raise UnsafePattern("regex_timeout", "matching ran past its time bound")


def compile_safe(pattern: str, text: str, timeout_s: float) -> SafePattern:
    """Validate ``pattern`` as Python ``re`` syntax and bind it to the safest faithful engine.

    Args:
        pattern: the unwrapped pattern.
        text: the text it will run on (decides whether RE2's ASCII classes are faithful).
        timeout_s: bound for the empty-string probe.

    Raises:
        UnsafePattern: ``invalid_regex`` when ``re`` rejects it (or it is absurdly long),
            ``zero_progress`` when it matches the empty string.
    """
    if not pattern:
        raise UnsafePattern("invalid_regex", "empty pattern")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise UnsafePattern("invalid_regex", f"pattern longer than {MAX_PATTERN_CHARS} characters")
    try:
        with warnings.catch_warnings():  # "possible nested set" and the like are not errors
            warnings.simplefilter("ignore")
            re.compile(pattern)
    except (re.error, OverflowError, RecursionError) as exc:
        raise UnsafePattern("invalid_regex", f"{exc} in {pattern[:200]!r}") from None
    safe = _bind(pattern, text)
    if safe.matches_empty(timeout_s):
        raise UnsafePattern("zero_progress", f"{pattern[:200]!r} matches the empty string, so it "
                            "would cut at every position")
    return safe


def _bind(pattern: str, text: str) -> SafePattern:
    differs = _python_only(pattern)
    # On plain ASCII text the class escapes agree; the other constructs never do.
    faithful = not differs or (differs == {"class_escape"} and not _NOT_PLAIN.search(text))
    if faithful:
        compiled = _re2_compile(pattern)
        if compiled is not None:
            return SafePattern(pattern, "re2", compiled)
    import regex

    try:
        return SafePattern(pattern, "regex", regex.compile(pattern, regex.VERSION0))
    except (regex.error, OverflowError, RecursionError) as exc:
        raise UnsafePattern("invalid_regex", f"{exc} in {pattern[:200]!r}") from None


def _re2_compile(pattern: str):
    """RE2 program for ``pattern`` (as UTF-8 bytes), or None when RE2 is absent or refuses it."""
    try:
        import re2
    except ImportError:  # google-re2 is optional: the regex module's timeout still bounds time
        return None
    options = re2.Options()
    options.log_errors = False  # refusals are expected (lookarounds) and handled, not logged
    try:
        return re2.compile(pattern.encode("utf-8"), options)
    except re2.error:
        return None
