"""Fuzzing the user-programmable detectors: ``regex.v1`` patterns and ``grammar.lark.v1`` grammars.

Patterns come from a grammar of regex pieces (classes, groups, lookarounds, backreferences,
inline flags, possessive and lazy quantifiers, junk such as unbalanced brackets) plus a list of
catastrophic patterns; grammars from Lark pieces (rules, terminals, regex terminals, operators,
imports, directives, junk). Contract:

* construction either returns a detector or raises :class:`ProfileError` (ADA207 for a
  pattern, ADA208 for a grammar, ADA210 for a grammar import that does not exist);
* detection on random text returns sorted, non-empty, in-bounds spans labelled with the
  structure name, or raises :class:`InputError` ADA306 when its time bound is hit;
* nothing else is raised and nothing hangs (SIGALRM guard, ``time_limit``).

The bugs these fuzzers found have regression tests at the end (a huge counted repeat, a Lark
RuntimeError, an ambiguous Earley grammar that was exponential on one line). Counts stay small
(nested counted repeats multiply at compile time) so the fuzzers explore the rest.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adachunk.detect.base import DetectContext
from adachunk.detect.grammar import GrammarDetector
from adachunk.detect.regex import RegexDetector
from adachunk.errors import InputError, ProfileError

from .test_fuzz_profiles import HANG_S, check_known_bugs_pinned, check_profile_error, known_bug, time_limit

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TIMEOUT_S = 0.25  # regex time bound per document in these tests
# Known-bug signatures tolerated inside the random tests (see test_fuzz_profiles.known_bug).
KNOWN_BUGS: list = []  # the Lark RuntimeError is now contained (regression test below)

# ------------------------------------------------------------------------------------- regex
_LITERALS = ["a", "b", "x", "1", " ", "\\n", "\\.", "é", "字", "😀", "-", "\\t", "\\\\", "\\u00e9"]
_ESCAPES = ["\\d", "\\w", "\\s", "\\D", "\\W", "\\S", "\\b", "\\B", "\\A", "\\Z", "\\p{Lu}",
            "\\p{Han}", "\\P{L}", "\\N{LATIN SMALL LETTER A}", "\\X", "\\G", "\\K"]
_CLASSES = ["[a-z]", "[^\\s]", "[[:alpha:]]", "[\\d.]", "[ab]", "[^a]", "[-a]", "[a-]", "[]a]",
            "[\\p{L}&&[^a]]", "(?V1)[[a-z]--[aeiou]]", "."]
_ANCHORS = ["^", "$"]
_JUNK = ["(", ")", "[", "]", "{", "}", "*", "+", "?", "|", "\\", "(?P<", "(?<", "(?(1)a|b)",
         "(?R)", "(?1)", "\\1", "\\g<1>", "\\k<n>", "(?P=n)", "(?#comment)", "{2,1}", "(?z)",
         "\\p{Nope}", "[z-a]", "(?<n>a)(?<n>b)"]
CATASTROPHIC = ["(a+)+$", "(a|aa)+$", "(.*a){12}", "(\\w+\\s?)+$", "([a-z]+)*!", "(x+x+)+y",
                "(a*)*b", "^(([a-z])+.)+[A-Z]([a-z])+$", "(\\d+)*\\.", "(?:a|a)*c"]

_atom = st.sampled_from(_LITERALS + _ESCAPES + _CLASSES + _ANCHORS)
_quantifier = st.sampled_from(["*", "+", "?", "*?", "+?", "??", "*+", "++", "{2}", "{1,3}", "{0,}",
                               "{,2}", "{3,9}"])
_group_open = st.sampled_from(["(", "(?:", "(?P<n>", "(?=", "(?!", "(?<=", "(?<!", "(?>", "(?i)(?:",
                               "(?x:", "(?s:", "(?m:", "(?|"])


def _extend(inner):
    return (
        st.lists(inner, min_size=2, max_size=4).map("".join)
        | st.lists(inner, min_size=2, max_size=3).map("|".join)
        | st.tuples(_group_open, inner).map(lambda t: f"{t[0]}{t[1]})")
        | st.tuples(inner, _quantifier).map(lambda t: f"(?:{t[0]}){t[1]}")
    )


# Counts stay small: nested counted repeats multiply at compile time.
_patterns = (st.recursive(_atom, _extend, max_leaves=8)
             | st.lists(_atom | st.sampled_from(_JUNK), min_size=1, max_size=6).map("".join)
             | st.sampled_from(CATASTROPHIC))
_flags = st.lists(st.sampled_from(["IGNORECASE", "MULTILINE", "DOTALL", "VERBOSE"]), max_size=3, unique=True)
_groups = st.integers(0, 3) | st.sampled_from(["n", "x", "1"])
_texts = (st.text(max_size=300)
          | st.text(alphabet="ab x1.\n!é字😀", max_size=300)
          | st.integers(1, 40).map(lambda n: "a" * n + "!")
          | st.integers(1, 40).map(lambda n: "x" * n))


def build_regex(pattern: str, flags, group) -> RegexDetector | None:
    """A detector, or None after checking the ProfileError (ADA207) it raised."""
    params = RegexDetector.Params(pattern=pattern, flags=flags, group=group, timeout_s=TIMEOUT_S)
    try:
        with time_limit(HANG_S):
            return RegexDetector(params, name="r")
    except ProfileError as err:
        check_profile_error_unlocated(err, {"ADA207"})
        return None


def check_profile_error_unlocated(err: ProfileError, codes: set[str]) -> None:
    """Detector errors get their file location from the profile loader; standalone they have
    none, so only the code, the rendering and pickling are checked here."""
    assert err.code in codes, err.render()
    if err.location.file is None:
        err.location.file = "<profile>"  # what the loader would fill in
    check_profile_error(err)


def check_spans(spans, text: str, name: str) -> None:
    assert spans == sorted(spans)
    for s in spans:
        assert 0 <= s.start < s.end <= len(text) and s.label == name


def detect_or_timeout(det, text: str):
    """Spans, or None after an ADA306 time-bound error."""
    try:
        with time_limit(HANG_S):
            return det.detect(DetectContext(text))
    except InputError as err:
        assert err.code == "ADA306", err.render()
        assert err.render().startswith("ADA306")
        return None


def _fuzz_regex(pattern, flags, group, texts) -> None:
    det = build_regex(pattern, flags, group)
    if det is None:
        return
    for text in texts:
        spans = detect_or_timeout(det, text)
        if spans is not None:
            check_spans(spans, text, "r")


@FAST
@given(pattern=_patterns, flags=_flags, group=_groups, texts=st.lists(_texts, min_size=1, max_size=3))
def test_random_regex_patterns(pattern, flags, group, texts):
    _fuzz_regex(pattern, flags, group, texts)


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_catastrophic_patterns_are_time_bounded(pattern):
    """Each catastrophic pattern on its worst input: spans or ADA306, within the guard."""
    det = build_regex(pattern, ["MULTILINE"], 0)
    assert det is not None
    for text in ("a" * 5000 + "!", "x" * 5000, "aaaa aaaa " * 500 + "!"):
        spans = detect_or_timeout(det, text)
        if spans is not None:
            check_spans(spans, text, "r")


@pytest.mark.slow
@SLOW
@given(pattern=_patterns, flags=_flags, group=_groups, texts=st.lists(_texts, min_size=1, max_size=5))
def test_random_regex_patterns_many(pattern, flags, group, texts):
    _fuzz_regex(pattern, flags, group, texts)


# ----------------------------------------------------------------------------------- grammar
_RULES = ["x", "y", "item", "_hidden", "?inline", "!keep"]
_TERMS = ["A", "WORD", "NUMBER", "_WS", "INT", "LETTER"]
_expansion_atom = st.sampled_from([
    '"a"', '"b"', '"("', '")"', '"."', '"§"', '"字"', "/[a-z]+/", "/\\d+/", "/a|b/", "/(a+)+b/",
    "/[/", '"unterminated', "/./s", '""', "/x*/", "x", "y", "item", "_hidden", "A", "WORD", "NUMBER",
    "INT", "LETTER", "UNDEFINED", "undefined_rule",
])


def _grammar_extend(inner):
    return (
        st.lists(inner, min_size=2, max_size=3).map(" ".join)
        | st.lists(inner, min_size=2, max_size=3).map(" | ".join)
        | inner.map(lambda e: f"({e})")
        | inner.map(lambda e: f"[{e}]")
        | st.tuples(inner, st.sampled_from(["?", "*", "+", " ~ 2", " ~ 1..3"])).map(lambda t: f"({t[0]}){t[1]}")
        | inner.map(lambda e: f"{e} -> alias")
    )


_expansions = st.recursive(_expansion_atom, _grammar_extend, max_leaves=6)
_definition = (
    st.tuples(st.sampled_from(_RULES), st.sampled_from(["", ".2", ".-1"]), _expansions).map(
        lambda t: f"{t[0]}{t[1]}: {t[2]}")
    | st.tuples(st.sampled_from(_TERMS), _expansions).map(lambda t: f"{t[0]}: {t[1]}")
    | st.sampled_from([
        "%import common.WORD", "%import common.NUMBER", "%import common.INT", "%import common.LETTER",
        "%import common.WS -> _WS", "%ignore \" \"", "%ignore _WS", "%declare TOKEN", "%import common",
        "%import nonexistent.X", "%import .missing.X", "%import adachunk.common.enumerator",
        "%import adachunk.common.ROMAN", "%import adachunk.nope.X", "%override x: \"z\"",
        "%extend x: \"w\"", ": :", "x:", "-> ->", "x: |", "%", "{", "A: /[/", "x: \"a\"\nx: \"b\"",
    ])
)
_junk_grammars = st.lists(_definition, min_size=1, max_size=6).map("\n".join)
# Mostly valid grammars: only defined names, so most of them compile and actually get to parse.
_ok_atom = st.sampled_from(['"a"', '"b"', '"("', '")"', '"."', '"§"', '"字"', "/[a-z]+/", "/\\d+/",
                            "/a|b/", "A", "y", "x", "WORD", "INT", '" "'])
_ok_expansions = st.recursive(_ok_atom, _grammar_extend, max_leaves=6)
_ok_grammars = st.tuples(_ok_expansions, _ok_expansions, st.booleans()).map(lambda t: "\n".join([
    f"x: {t[0]}", f"y: {t[1]} | \"1\"", 'A: "a" | "b"', "%import common.WORD", "%import common.INT",
    *(['%ignore " "'] if t[2] else []),
]))
_grammars = _ok_grammars | _junk_grammars
# Lines of up to 20 characters: Earley is cubic in the line length on an ambiguous grammar.
_grammar_texts = st.lists(st.text(alphabet="ab(). 1§字x\n", max_size=20), min_size=1,
                          max_size=8).map("\n".join)


def build_grammar(tmp_path, text: str, start: str, mode: str, parser: str,
                  timeout_s: float = TIMEOUT_S) -> GrammarDetector | None:
    """A detector, or None after checking the ProfileError it raised."""
    path = tmp_path / "g.lark"
    path.write_text(text, encoding="utf-8")
    params = GrammarDetector.Params(grammar=str(path), start=start, mode=mode, parser=parser,
                                    timeout_s=timeout_s)
    try:
        with time_limit(HANG_S):
            return GrammarDetector(params, name="g", base_dirs=(tmp_path,))
    except ProfileError as err:
        check_profile_error_unlocated(err, {"ADA207", "ADA208", "ADA210"})
        return None


def _fuzz_grammar(tmp_path, grammar, start, mode, parser, texts) -> None:
    det = build_grammar(tmp_path, grammar, start, mode, parser)
    if det is None:
        return
    for text in texts:
        try:
            spans = detect_or_timeout(det, text)
        except Exception as exc:  # noqa: BLE001 - re-raised unless it is a pinned known bug
            if known_bug(exc, KNOWN_BUGS) is None:
                raise
            continue
        if spans is not None:
            check_spans(spans, text, "g")


@FAST
@given(grammar=_grammars, start=st.sampled_from(["x", "x", "x", "y", "item", "nope", "A"]),
       mode=st.sampled_from(["lines", "text"]), parser=st.sampled_from(["earley", "lalr"]),
       texts=st.lists(_grammar_texts, min_size=1, max_size=3))
def test_random_grammars(tmp_path_factory, grammar, start, mode, parser, texts):
    _fuzz_grammar(tmp_path_factory.mktemp("g"), grammar, start, mode, parser, texts)


@pytest.mark.slow
@SLOW
@given(grammar=_grammars, start=st.sampled_from(["x", "x", "x", "y", "item", "nope", "A"]),
       mode=st.sampled_from(["lines", "text"]), parser=st.sampled_from(["earley", "lalr"]),
       texts=st.lists(_grammar_texts, min_size=1, max_size=5))
def test_random_grammars_many(tmp_path_factory, grammar, start, mode, parser, texts):
    _fuzz_grammar(tmp_path_factory.mktemp("g"), grammar, start, mode, parser, texts)


# ---------------------------------------------------------------- known bugs (see module doc)
def test_known_bugs_are_pinned():
    check_known_bugs_pinned(KNOWN_BUGS, globals())


def test_huge_counted_repeat_is_refused():
    assert build_regex("a{4294967294}", ["MULTILINE"], 0) is None


def test_lark_runtime_error_is_contained(tmp_path):
    det = build_grammar(tmp_path, 'x: [" " "a"]\n%ignore " "', "x", "text", "earley")
    assert det is not None
    check_spans(det.detect(DetectContext(" ")), " ", "g")


def test_ambiguous_grammar_parses_in_polynomial_time(tmp_path):
    """'x: x x | "a"' has a Catalan number of parses of a line; enumerating them took 18 s on 30
    characters and hours on 64. The detector reads the match ends off the parse forest."""
    det = build_grammar(tmp_path, 'x: x x | "a"', "x", "lines", "earley", timeout_s=60)
    assert det is not None
    text = "a" * 64 + "\nb\n aaa"
    spans = det.detect(DetectContext(text))
    check_spans(spans, text, "g")
    assert [(s.start, s.end) for s in spans] == [(0, 64), (68, 71)]


def test_ambiguous_grammar_is_time_bounded(tmp_path):
    """The forest is still cubic to build: 200 lines of 256 'a' (the longest line the parser
    sees) take hours unbounded, so returning at all proves the bound."""
    det = build_grammar(tmp_path, 'x: x x | "a"', "x", "lines", "earley")
    assert det is not None
    with pytest.raises(InputError) as info:
        det.detect(DetectContext(("a" * 256 + "\n") * 200))
    assert info.value.code == "ADA306"
    assert "'g'" in info.value.message and "timeout_s" in info.value.hint
