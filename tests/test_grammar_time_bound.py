"""grammar.lark.v1's time bound: ADA306 on any grammar, in the parser, its lexer and pre-filters.

Every input below takes hours without the bound (2**64 backtracking steps, or a cubic parse of
hundreds of long lines); a test returning at all proves the bound, so none of them times anything.
The ambiguous-grammar regression tests live in ``test_fuzz_detectors.py``.
"""

from __future__ import annotations

import re
import threading

import pytest

from adachunk.detect import grammar
from adachunk.detect._timebound import guard
from adachunk.detect.base import DetectContext
from adachunk.detect.grammar import GrammarDetector
from adachunk.errors import InputError

BOUND_S = 0.2
AMBIGUOUS = 'x: x x | "a"'
# (a|aa)+c backtracks through every way of splitting a run of a's: 2**64 steps on 64 of them.
CATASTROPHIC_TERMINAL = 'x: "b" A\nA: /(a|aa)+c/'  # reached by the lexer after "b"
CATASTROPHIC_FIRST = "x: A\nA: /(a|aa)+c/"  # also the pre-filter's first terminal


def make(tmp_path, text: str, **fields) -> GrammarDetector:
    path = tmp_path / "g.lark"
    path.write_text(text, encoding="utf-8")
    params = GrammarDetector.Params(grammar=str(path), start="x", **fields)
    return GrammarDetector(params, name="g", base_dirs=(tmp_path,))


def timed_out(det: GrammarDetector, text: str) -> InputError:
    with pytest.raises(InputError) as info:
        det.detect(DetectContext(text))
    return info.value


@pytest.mark.parametrize("parser", ["earley", "lalr"])
@pytest.mark.parametrize("mode", ["lines", "text"])
@pytest.mark.parametrize("source, text", [
    (CATASTROPHIC_TERMINAL, "b" + "a" * 64),
    (CATASTROPHIC_FIRST, "a" * 64),
])
def test_catastrophic_terminal_regex_is_time_bounded(tmp_path, parser, mode, source, text):
    det = make(tmp_path, source, parser=parser, mode=mode, timeout_s=BOUND_S)
    err = timed_out(det, text + "\n")
    assert err.code == "ADA306"
    assert "'g'" in err.message and f"parser {parser}" in err.message
    assert err.render().startswith("ADA306")


def test_bound_holds_on_a_worker_thread(tmp_path):
    """The deadline is checked by the parser itself, not by a signal: any thread is bounded,
    and each thread has its own deadline (a bounded detection does not stop another one)."""
    slow = make(tmp_path, AMBIGUOUS, timeout_s=BOUND_S)
    (tmp_path / "ok").mkdir()
    fast = make(tmp_path / "ok", 'x: "(" INT ")"\n%import common.INT', timeout_s=60)
    results: dict[str, object] = {}

    def run(name, det, text):
        try:
            results[name] = [(s.start, s.end) for s in det.detect(DetectContext(text))]
        except InputError as exc:
            results[name] = exc.code

    threads = [
        threading.Thread(target=run, args=("slow", slow, ("a" * 256 + "\n") * 200)),
        threading.Thread(target=run, args=("fast", fast, "(1) one\nno\n(22) two\n" * 2000)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results["slow"] == "ADA306"
    assert len(results["fast"]) == 4000 and results["fast"][:2] == [(0, 7), (11, 19)]


def test_bound_is_per_megabyte(tmp_path, monkeypatch):
    """Like regex.v1: at least timeout_s, and timeout_s per megabyte of text beyond that."""
    seen = []
    real = grammar.time_bound

    def spy(seconds):
        seen.append(seconds)
        return real(seconds)

    monkeypatch.setattr(grammar, "time_bound", spy)
    det = make(tmp_path, 'x: "§" INT\n%import common.INT', mode="text", timeout_s=0.5)
    assert det.detect(DetectContext("see §12")) != []
    big = "plain words, no section sign\n" * 100_000  # 2.9 M characters
    assert det.detect(DetectContext(big)) == []
    assert seen == [0.5, 0.5 * len(big) / 1_000_000]


def test_timeout_must_be_positive(tmp_path):
    with pytest.raises(Exception):
        GrammarDetector.Params(grammar="common", start="enumerator", timeout_s=0)


@pytest.mark.parametrize("pattern, degree, timed", [
    (r"[a-z]+[ \t]+\d+", 3, False),  # three unbounded repeats: at most ~n**3 steps in a segment
    (r"a+b+c+d+", 3, True),  # one more than a segment allows
    (r"\d{1,3}(?:[a-z]|bis)?(?![\w])", 0, False),  # bounded repeats, an optional group
    (r"(?:[0-9])+", 0, True),  # unbounded: may be quadratic when scanning the whole text
    (r"(a|aa)+c", 3, True),  # a repeated group: exponential
    (r"(\w)\1", 3, True),  # a backreference
    (r"(?P<A>Article)|(?P<B>[ \t]+)|(?P<C>\d+)", 1, False),  # a lexer's union: the worst branch
])
def test_patterns_that_may_backtrack_are_timed(pattern, degree, timed):
    """Only patterns whose backtracking is not provably small pay for the regex module's
    timeout; the others keep their re compilation and are checked between calls."""
    compiled = re.compile(pattern)
    guarded = guard(compiled, degree)
    assert guarded._timed is timed
    for sample in ("Article 12", "abcd", "aaac", "12bis ", "xx", "  7"):  # same matches as re
        expected = compiled.match(sample)
        got = guarded.match(sample, 0)
        assert (got and got.span()) == (expected and expected.span()), sample
