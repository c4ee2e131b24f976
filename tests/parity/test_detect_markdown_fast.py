"""The Markdown detector's speed-ups change no block, and mistletoe still works for everyone.

* mistletoe is imported with its Unicode punctuation table computed lazily: the table must be
  mistletoe's own, and span parsing (rendering) must give what a plain import gives.
* The plain-line fast path of the block tokenizer must give the blocks of the full probe.
* Line bookkeeping (split-based line map, literal-led scans) must equal the regex versions.
"""

from __future__ import annotations

import ast
import re
import os
import subprocess
import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import adachunk.detect.markdown._mistletoe as mm
from adachunk.detect.markdown import _offsets as mo
from adachunk.detect.markdown._mistletoe_import import LazySet, _make_lazy
from adachunk.detect.markdown import parse_blocks


RENDER = "import sys, mistletoe; sys.stdout.write(mistletoe.markdown(sys.argv[1]))"
SAMPLE = "# T\n\n*«a»*, **“b”**! _x_—y and `code` [link](http://x) <b>h</b>\n\n- *i*\n"


def test_importing_the_detector_leaves_the_table_pending():
    code = ("import adachunk.detect.markdown\nfrom mistletoe import core_tokens\n"
            "print(repr(core_tokens.punctuation))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         timeout=120).stdout
    assert out.strip() == "LazySet(pending)"


def test_transformed_module_code_is_cached_and_reused(tmp_path):
    """The first process stores the transformed code; the next loads it (and stays lazy)."""
    env = {**os.environ, "ADACHUNK_CACHE_DIR": str(tmp_path)}
    code = ("import adachunk.detect.markdown\nfrom mistletoe import core_tokens\n"
            "from adachunk.detect.markdown import _mistletoe_import as mi\n"
            "src = open(core_tokens.__file__, encoding='utf-8').read()\n"
            "print(repr(core_tokens.punctuation), mi._cached_code(mi._entry_name(src, core_tokens.__file__)) is not None)")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           timeout=120, env=env).stdout.split() for _ in range(2)]
    assert runs == [["LazySet(pending)", "True"]] * 2
    entries = list((tmp_path / "startup").glob("mistletoe-core-tokens-*"))
    assert len(entries) == 1
    # a damaged entry is a miss: the module is transformed again and the entry rewritten
    entries[0].write_bytes(b"x" * 40)
    again = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           timeout=120, env=env).stdout.split()
    assert again == ["LazySet(pending)", "True"]


def test_lazy_punctuation_is_mistletoes_table():
    from mistletoe import core_tokens

    expected = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~") | {
        chr(i) for i in range(sys.maxunicode + 1) if unicodedata.category(chr(i)).startswith("P")
    }
    assert set(core_tokens.punctuation) == expected
    assert "«" in core_tokens.punctuation and "a" not in core_tokens.punctuation


def test_mistletoe_renders_as_after_a_plain_import():
    import mistletoe

    parse_blocks(SAMPLE)  # our parser state is swapped in and restored around this
    plain = subprocess.run(
        [sys.executable, "-c", RENDER, SAMPLE],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout
    assert mistletoe.markdown(SAMPLE) == plain


def test_only_one_top_level_punctuation_assignment_is_made_lazy():
    one = ast.parse("import sys\npunctuation = set.union({'!'}, {c for c in 'ab'})\n")
    assert _make_lazy(one)
    namespace = {"_adachunk_lazy_set": LazySet}
    exec(compile(one, "<t>", "exec"), namespace)
    assert set(namespace["punctuation"]) == {"!", "a", "b"}
    assert not _make_lazy(ast.parse("punctuation = 1\npunctuation = 2\n"))
    assert not _make_lazy(ast.parse("other = 1\n"))


_PIECES = st.sampled_from(
    ["# Head", "Setext", "===", "---", "***", "para text", "Plain line", "", "", "- item",
     "  - sub", "1. one", "2) two", "> quote", "| a | b |", "|---|:-:|", "a | b", "```", "~~~",
     "    code", "\tcode", "<!-- c -->", "<div>", "<Table>", "</Table>", "   indented", "_x_",
     "=x", "+ plus", "9) nine", "Text with | pipe", "é accent", "\u3000wide", "\x0bvt"]
)
_LINE = st.one_of(_PIECES, _PIECES.flatmap(lambda p: st.text(max_size=10).map(lambda t: p + t)))


def _without_fast_path(monkeypatch, text):
    monkeypatch.setattr(mm, "_plain", lambda line: False)
    try:
        return parse_blocks(text)
    finally:
        monkeypatch.undo()


@settings(max_examples=250, deadline=None)
@given(lines=st.lists(_LINE, min_size=1, max_size=25), eol=st.sampled_from(["\n", "\r\n"]))
def test_plain_line_fast_path_gives_the_same_blocks(lines, eol):
    text = eol.join(lines) + eol
    fast = parse_blocks(text)
    with pytest.MonkeyPatch.context() as mp:
        assert _without_fast_path(mp, text) == fast


def test_plain_line_fast_path_on_clair(clair_docs):
    for name, doc in clair_docs[::3]:
        text = doc["full_text"]
        with pytest.MonkeyPatch.context() as mp:
            assert _without_fast_path(mp, text) == parse_blocks(text), name


_EOL = re.compile(r"\r\n|\r|\n")


def _reference_line_map(text):
    spans = [m.span() for m in _EOL.finditer(text)]
    ends, starts = [a for a, _ in spans], [0] + [b for _, b in spans]
    if starts[-1] < len(text):
        ends.append(len(text))
    else:
        starts.pop()
    return starts, ends


_LM_TEXT = st.lists(st.sampled_from(["a", " ", "\t", "\n", "\r", "\x0b", "\u2028", "é", ">", "-"]),
                    max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=_LM_TEXT, depth=st.integers(0, 2))
def test_line_map_equals_regex_line_splitting(text, depth):
    lm = mo.LineMap(text)
    assert (lm.starts, lm.ends) == _reference_line_map(text)
    for i in range(len(lm)):  # precomputed blank flags agree with the regex definition
        pos, end = mo._WS.match(text, lm.starts[i], lm.ends[i]).end(), lm.ends[i]
        for _ in range(depth):
            if pos < end and text[pos] == ">":
                pos = mo._WS.match(text, pos + 1, end).end()
        assert lm.is_blank(i, depth) == (pos >= end)


@settings(max_examples=200, deadline=None)
@given(text=st.lists(st.sampled_from(["a", " ", "\t", "\n", "\r", "\0", "\ufeff", "é", "<table>", "</table>"]),
                     max_size=40).map("".join))
def test_mistletoe_lines_from_the_line_maps_split(text):
    """The lines the LineMap keeps (texts without CR) are the ones split again from the text."""
    lm = mo.LineMap(text)
    wrappers = mo.find_wrappers(lm, 0)
    got = mo.mistletoe_lines(lm, 0, wrappers)
    assert lm.take_lines() is None  # handed over once
    again = mo.mistletoe_lines(lm, 0, wrappers)  # nothing left to take: split from the text
    assert got == again
    assert [len(x) - 1 for x in got[1]] == [e - s for s, e in zip(lm.starts, lm.ends)]


@settings(max_examples=300, deadline=None)
@given(text=st.lists(st.sampled_from(["x", " ", "\n", "\r", "\r\n", "```", "~~~", "<table>",
                                      "<Figure ", "- ", "> "]), max_size=30).map("".join),
       lo=st.integers(0, 3))
def test_literal_led_line_scans_equal_class_scans(text, lo):
    lm = mo.LineMap(text)
    for tail, flags in ((mo._WRAP_SCAN, re.IGNORECASE), (mo._DEEP_CANDIDATE % 2, 0)):
        old = re.compile(r"[\r\n]" + tail, flags)
        want = []
        if lo < len(lm):
            begin = lm.starts[lo]
            want = [lo] if old.match("\n" + text[begin : begin + 16]) else []
            want += [lm.line_of(m.end() - 1) for m in old.finditer(text, begin)]
        assert mo._lines_opening_with(lm, tail, lo, flags) == want
