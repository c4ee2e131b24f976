"""regex.v1's fast path (``re`` plans) and ``line_break.v1`` find what ``regex`` finds.

A pattern leaves the ``regex`` module (and its match timeout) only when the result cannot change
and matching cannot blow up; these tests compare both engines on random texts full of the
characters where they differ (U+001C-U+001F, CR, U+2028, U+3000 ...) and check that risky
patterns keep ``regex``.
"""

from __future__ import annotations

import re

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from adachunk.detect import _re_fast
from adachunk.detect.base import DetectContext
from adachunk.detect.text_units.line_break import LineBreakDetector
from adachunk.detect.regex import _FAST_MIN_CHARS, RegexDetector


LINE_BREAK = r"\S[ \t]*\r?\n\s*"  # what line_break.v1 (rules/text.layout.yaml) finds
TRICKY = ["a", "é", "字", ".", " ", "\t", "\r", "\n", "\x0b", "\x0c", "\x1c", "\x1f", "\x85",
          "\xa0", "\u2028", "\u3000", "\u200b"]
_texts = st.lists(st.sampled_from(TRICKY), max_size=60).map("".join) | st.text(max_size=60)


def regex_spans(pattern: str, text: str, flags=regex.MULTILINE) -> list[tuple[int, int]]:
    return [m.span() for m in regex.compile(pattern, flags).finditer(text) if m.end() > m.start()]


def _line_breaks(text: str) -> list[tuple[int, int]]:
    starts, ends = LineBreakDetector(LineBreakDetector.Params(), name="line_break").detect_arrays(DetectContext(text))
    return list(zip(starts.tolist(), ends.tolist()))


@settings(max_examples=400, deadline=None)
@given(text=_texts)
def test_line_break_detector_equals_regex_module(text):
    assert _line_breaks(text) == regex_spans(LINE_BREAK, text)


def test_line_break_detector_on_clair(clair_docs):
    for name, doc in clair_docs[::4]:
        text = doc["full_text"]
        assert _line_breaks(text) == regex_spans(LINE_BREAK, text), name


def test_the_line_break_pattern_as_regex_gets_the_same_spans_on_re():
    # a profile that still writes the pattern as a regex.v1 structure: a `re` plan, same spans
    plan = _re_fast.plan(LINE_BREAK, ["MULTILINE"])
    text = "a  \r\nb\n\n\u3000c\x1c\nd"
    assert plan is not None and plan.features == ("s",)
    assert not plan.usable(text)  # U+001C: the engines disagree on it, regex runs
    assert plan.spans(text.replace("\x1c", "x"), 0) == regex_spans(LINE_BREAK, text.replace("\x1c", "x"))


ELIGIBLE = [r"x[ ]*y", r"^[ \t]*#", r"\S\s*\S", r"ab?c*", r"(a)+", r"x(a)?y", r"[^\n]+",
            r"-{3,}", r"\.\s+[A-Z]", r"\|[^|\n]*\|"]
RISKY = [r"(a+)+", r"(a|aa)+", r"(.*)*", r"a*a*b", r".*.*x", r"[ \t]*\n", r"(x+x+)+y",
         r"\d+", r"\w+", r"\bfoo", r"(?i)abc", r"(a)\1", r"a(?=b)", r"[[:alpha:]]x", r"a|bc",
         r"\p{Lu}", r"x*", r"(?:ab)+"]


@pytest.mark.parametrize("pattern", ELIGIBLE)
def test_linear_patterns_get_a_plan(pattern):
    assert _re_fast.plan(pattern, ["MULTILINE"]) is not None


@pytest.mark.parametrize("pattern", RISKY)
def test_risky_or_different_patterns_keep_regex(pattern):
    """Nested or adjacent overlapping quantifiers, escapes whose meaning differs, lookarounds,
    backreferences, alternations, case folding, empty matches: regex and its timeout."""
    assert _re_fast.plan(pattern, ["MULTILINE"]) is None


def test_flags_beyond_multiline_dotall_verbose_keep_regex():
    assert _re_fast.plan(r"x[ ]*y", ["IGNORECASE"]) is None
    assert _re_fast.plan(r"x[ ]*y", ["MULTILINE", "DOTALL", "VERBOSE"]) is not None


_atoms = st.sampled_from(["a", "b", " ", r"\n", r"\t", r"\s", r"\S", ".", "[ab]", r"[^\n]",
                          r"[ \t]", r"\.", "x"])
_quants = st.sampled_from(["", "", "*", "+", "?", "{0,3}", "*?", "+?"])
_patterns = st.lists(st.tuples(_atoms, _quants).map("".join), min_size=1, max_size=5).map("".join)


@settings(max_examples=400, deadline=None)
@given(pattern=_patterns, text=_texts, dotall=st.booleans())
def test_re_plans_find_what_regex_finds(pattern, text, dotall):
    flags = ["MULTILINE"] + (["DOTALL"] if dotall else [])
    plan = _re_fast.plan(pattern, flags)
    if plan is None or not plan.usable(text):
        return
    want = regex_spans(pattern, text, regex.MULTILINE | (regex.DOTALL if dotall else 0))
    assert plan.spans(text, 0) == want


def test_whitespace_disagreement_sends_the_text_back_to_regex():
    """re counts U+001C-U+001F as whitespace, regex does not: such texts keep regex."""
    plan = _re_fast.plan(r"a\s+b", ["MULTILINE"])
    assert plan is not None and plan.usable("a  b") and not plan.usable("a\x1cb")
    every = _re_fast._all_code_points()
    for feature, probe in (("s", r"\s"), (".", ".")):
        ours = {m.start() for m in re.finditer(probe, every)} if feature == "s" else None
        if ours is not None:  # the whole table, computed another way
            theirs = {m.start() for m in regex.finditer(probe, every)}
            assert _re_fast._disagreement(feature) == frozenset(ours ^ theirs)
        for point in _re_fast._disagreement(feature):
            ch = chr(point)
            assert (regex.fullmatch(probe, ch) is None) != (re.fullmatch(probe, ch) is None)


def test_detector_on_long_text_uses_the_plan_and_matches_regex():
    base = "Visible line.  \r\n\n  next\x1c\n\u3000\nlast\t\n"
    text = base * (_FAST_MIN_CHARS // len(base) + 2)
    det = RegexDetector(RegexDetector.Params(pattern=LINE_BREAK), name="line_break")
    starts, ends = det.detect_arrays(DetectContext(text))
    assert det._fast is not None and det._fast is not False  # the plan was worked out
    assert list(zip(starts.tolist(), ends.tolist())) == regex_spans(LINE_BREAK, text)
    short = "a\nb \n\nc"  # after the first long text, short texts use the plan too
    got = [(s.start, s.end) for s in det.detect(DetectContext(short))]
    assert got == regex_spans(LINE_BREAK, short)


def test_detect_arrays_equal_detect():
    det = RegexDetector(RegexDetector.Params(pattern=r"(?P<n>\d+)\.", group="n"), name="num")
    ctx = DetectContext("1. a\n22. b 333.\n")
    starts, ends = det.detect_arrays(ctx)
    assert list(zip(starts.tolist(), ends.tolist())) == [(s.start, s.end) for s in det.detect(ctx)]
