"""``regex.v1``: every match of a regular expression (or of one of its groups) is a structure.

The pattern is compiled once, when the profile is resolved, with the PyPI ``regex`` module rather
than ``re``: it accepts the same syntax (plus Unicode properties such as ``\\p{Lu}``) and, above
all, its matching functions take a ``timeout``, so a catastrophic pattern written in a profile
cannot hang a batch run. Patterns that provably match the same without it and cannot need the
timeout run on ``re`` instead (:mod:`adachunk.detect._re_fast`), several times faster. (The
layout pack's line ends are their own detector, ``line_break.v1``.)
"""

from __future__ import annotations

import re

from typing import Literal, Sequence

import numpy as np
import regex as _regex
from pydantic import Field

from ..errors import InputError, ProfileError
from ..components.registry import detectors
from ..datatypes import Structure
from . import _re_fast
from .base import DetectContext, Detector, DetectorParams, finalize

# ADA306 = detector time limit exceeded (a pattern or parser ran past its bound on one input).
TIMEOUT_CODE = "ADA306"

_FLAGS = {
    "IGNORECASE": _regex.IGNORECASE,
    "MULTILINE": _regex.MULTILINE,
    "DOTALL": _regex.DOTALL,
    "VERBOSE": _regex.VERBOSE,
}

FlagName = Literal["IGNORECASE", "MULTILINE", "DOTALL", "VERBOSE"]


_COUNTED = re.compile(r"\{(\d+)(?:,(\d*))?\}")
_MAX_REPEAT = 100_000
# regex.v1 works out a fast plan on the first text at least this long: the plan costs ~20 ms once
# (tables of both engines' whitespace), which a one-page command-line run would not win back.
_FAST_MIN_CHARS = 32_768


def compile_pattern(pattern: str, flags: Sequence[str] = ()) -> _regex.Pattern:
    """Compile ``pattern`` with the named ``flags`` or raise ``ADA207`` pointing at the error.

    Args:
        pattern: a regular expression in ``re``/``regex`` syntax.
        flags: names among ``IGNORECASE``, ``MULTILINE``, ``DOTALL``, ``VERBOSE``.

    Raises:
        ProfileError: ``ADA207`` with the regex module's message and the character position.
    """
    value = 0
    for name in flags:
        value |= _FLAGS[name]
    for m in _COUNTED.finditer(pattern):
        # compiling 'a{10000000}' takes ~30 s and GBs: refuse absurd counts before compiling
        if max(int(x) for x in m.groups() if x) > _MAX_REPEAT:
            raise ProfileError(code="ADA207", message=f"counted repeat {m.group(0)} exceeds {_MAX_REPEAT}",
                               hint="use + or * instead of a huge explicit count")
    try:
        return _regex.compile(pattern, value)
    except _regex.error as exc:
        pos = getattr(exc, "pos", None)
        where = f" at position {pos}" if pos is not None else ""
        pointer = ""
        if pos is not None and "\n" not in pattern and len(pattern) <= 120:
            pointer = f": {pattern!r} near {pattern[max(0, pos - 10):pos + 10]!r}"
        raise ProfileError(
            code="ADA207",
            message=f"invalid regular expression ({getattr(exc, 'msg', str(exc))}{where}){pointer}",
            hint="Check brackets and escapes; write backslashes in single-quoted YAML strings "
            "('\\d+') so YAML does not interpret them",
        ) from None


@detectors.register("regex.v1")
class RegexDetector(Detector):
    """Spans of the matches of a regular expression (zero-length matches are skipped)."""

    class Params(DetectorParams):
        """Fields of a ``regex.v1`` structure."""

        pattern: str = Field(
            ...,
            description="Regular expression (Python 're' syntax, plus the 'regex' module's "
            "extensions such as \\p{Lu}); each non-empty match is one structure.",
        )
        flags: list[FlagName] = Field(
            default_factory=lambda: ["MULTILINE"],
            description="Regex flags by name; MULTILINE (the default) makes ^ and $ match at "
            "every line.",
        )
        group: int | str = Field(
            default=0,
            description="Which group's span becomes the structure: 0 for the whole match, a "
            "group number or a group name. Matches where the group did not take part are "
            "skipped.",
        )
        timeout_s: float = Field(
            default=5.0,
            gt=0,
            description="Upper bound in seconds on matching one megabyte of text (documents under "
            "1 MB get the full bound); exceeding it is error ADA306.",
        )

    def __init__(self, params: DetectorParams, *, name: str, base_dirs: Sequence = ()):
        super().__init__(params, name=name, base_dirs=base_dirs)
        p = self.params
        self.pattern = compile_pattern(p.pattern, p.flags)  # type: ignore[attr-defined]
        group = p.group  # type: ignore[attr-defined]
        if isinstance(group, str) and group.isdigit():
            group = int(group)  # YAML authors sometimes quote numbers
        # Check the group now: a typo should fail when the profile loads, not mid-batch.
        if isinstance(group, str) and group not in self.pattern.groupindex:
            raise ProfileError(
                code="ADA207",
                message=f"the pattern has no group named '{group}'",
                allowed=sorted(self.pattern.groupindex) or None,
            )
        if isinstance(group, int) and not 0 <= group <= self.pattern.groups:
            raise ProfileError(
                code="ADA207",
                message=f"group {group} does not exist: the pattern has {self.pattern.groups} "
                "group(s)",
            )
        self.group = group
        self._fast: _re_fast.FastPlan | None | bool = False  # False: not planned yet

    def _fast_plan(self) -> _re_fast.FastPlan | None:
        """The ``re`` plan of this pattern, worked out on the first long text (None: none)."""
        if self._fast is False:
            p = self.params
            self._fast = _re_fast.plan(p.pattern, p.flags)  # type: ignore[attr-defined]
        return self._fast  # type: ignore[return-value]

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Return the non-empty spans of the selected group, in text order.

        Raises:
            InputError: ``ADA306`` when matching takes longer than ``timeout_s``.
        """
        group = self.group
        # the bound is per megabyte of text (at least timeout_s): a linear pattern on a 100 MB
        # document legitimately runs longer than on a page; a catastrophic one still stops
        timeout = self.params.timeout_s * max(1.0, len(text) / 1_000_000)  # type: ignore[attr-defined]
        out: list[tuple[int, int]] = []
        # a plan is worked out on the first long text; from then on short texts use it too
        planned = self._fast is not False
        fast = self._fast_plan() if planned or len(text) >= _FAST_MIN_CHARS else None
        if fast is not None and fast.usable(text):
            return fast.spans(text, group)  # linear by construction: the bound cannot be reached
        try:
            for m in self.pattern.finditer(text, timeout=timeout):
                s, e = m.span(group)
                if e > s:  # also skips groups that did not participate (-1, -1)
                    out.append((s, e))
        except TimeoutError:
            raise InputError(
                code=TIMEOUT_CODE,
                message=f"the pattern of structure '{self.name}' did not finish matching within "
                f"{timeout:g} s ({self.pattern.pattern!r})",
                hint="Avoid nested quantifiers such as (a+)+ or raise timeout_s",
            ) from None
        return out

    def _memo_spans(self, ctx: DetectContext) -> list[tuple[int, int]]:
        p = self.params
        key = ("regex.v1", p.pattern, tuple(p.flags), self.group)  # type: ignore[attr-defined]
        return ctx.memo(key, lambda: self.spans(ctx.text))

    def detect(self, ctx: DetectContext) -> list[Structure]:
        """Return one ``Structure`` per non-empty match (level 0)."""
        return finalize([Structure(s, e, self.name, 0) for s, e in self._memo_spans(ctx)])

    def detect_arrays(self, ctx: DetectContext) -> tuple[np.ndarray, np.ndarray]:
        """Starts and ends of the matches as arrays (no Structure per match).

        Successive matches do not overlap, so the spans are already in the order ``detect``
        sorts them into.
        """
        arr = np.array(self._memo_spans(ctx), dtype=np.int64).reshape(-1, 2)
        return arr[:, 0].copy(), arr[:, 1].copy()
