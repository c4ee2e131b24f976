"""The compiled text-unit scan finds exactly what the reference scans find.

:mod:`adachunk.detect.text_units._scan` replaces three Python scans (``split_sentences_reference``,
``word_arrays_reference``, ``_line_break_reference``) with one Numba pass; every span must be
the same on the CLAIR corpus, the shipped examples and generated text full of the cases the
sentence rules treat specially (abbreviations, enumerators, decimals, quotes, brackets, CRLF,
lone CR, CJK, astral code points, lone surrogates).
"""

from __future__ import annotations


import numpy as np
import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from adachunk.detect.text_units import _scan
from adachunk.detect.text_units import _scan_kernel as K
from adachunk.detect.text_units import _scan_tables as T
from adachunk.detect import text_units as tu
from adachunk.detect.base import DetectContext
from adachunk.detect.text_units.line_break import LineBreakDetector, line_break_reference
from adachunk.detect.text_units import SentenceDetector, WordDetector
from adachunk.datatypes import Document

from .corpus import example_text, examples


LINE_BREAK = r"\S[ \t]*\r?\n\s*"
EXTRA = ("Cl.", "Sch", "Abs.", "The", "Annex", "e.g")


def pairs(arrays) -> list[tuple[int, int]]:
    return list(zip(arrays[0].tolist(), arrays[1].tolist()))


def assert_parity(text: str, extras=((), EXTRA)) -> None:
    scan = _scan.scan(text)
    for extra in extras:
        got = pairs(scan.sentences(text, tu._extra_set(extra)))
        assert got == tu.split_sentences_reference(text, extra), extra
    ws, we = tu.word_arrays_reference(text)
    assert np.array_equal(scan.words[0], ws) and np.array_equal(scan.words[1], we)
    assert pairs(scan.line_breaks) == line_break_reference(text)


# ------------------------------------------------------------------------- the tables' premises
def test_kernel_bits_are_the_tables_bits():
    for name in ("SPACE", "WORDC", "DEC", "UPPER", "LOWER", "DIGIT", "SINGLE", "RXSPACE", "CLOSER",
                 "OPENER", "TERM", "MARK", "TITLE", "STARTER", "NEVER_END", "NUMBERED", "SOMETIMES"):
        assert getattr(K, name) == getattr(T, name), name


def test_only_ascii_and_the_kelvin_sign_lowercase_to_ascii():
    """The scan lowercases a token by ASCII rules plus U+212A (``_lower_ascii``)."""
    for c in range(0x110000):
        low = chr(c).lower()
        if len(low) == 1 and low.isascii():
            assert K._lower_ascii(c) == ord(low), hex(c)
        else:
            assert not low.isascii() and K._lower_ascii(c) == K.NO_ASCII, hex(c)


def test_flags_match_the_python_predicates_on_astral_code_points():
    text = "\U0001d400\U0001d41a\U0001d7ce\U00010400\U00010428\U0001f600\U00020000\u00b2"
    flags = T.flags_for(_scan.codes_of(text))
    for ch in text:
        f = int(flags[ord(ch)])
        assert bool(f & T.UPPER) == ch.isupper() and bool(f & T.LOWER) == ch.islower()
        assert bool(f & T.DEC) == ch.isdecimal() and bool(f & T.DIGIT) == ch.isdigit()
        assert bool(f & T.WORDC) == (ch.isalnum() or ch == "_") and not f & T.SPACE


# ------------------------------------------------------------------------------------ corpora
def test_parity_on_clair(clair_docs):
    for name, doc in clair_docs:
        text = doc["full_text"]
        assert_parity(text)
        # and the line breaks are still the regex module's matches
        if name == clair_docs[0][0]:
            want = [m.span() for m in regex.compile(LINE_BREAK, regex.MULTILINE).finditer(text)]
            assert pairs(_scan.scan(text).line_breaks) == want


@pytest.mark.parametrize("path", examples(".md", ".jsonl"),
                         ids=lambda p: p.name)
def test_parity_on_examples(path):
    assert_parity(path.read_text(encoding="utf-8"))


def test_empty_and_blank_texts():
    for text in ("", " ", "\n", "\r\n\r\n", ".", "。", "\u3000"):
        assert_parity(text)


# ---------------------------------------------------------------------------------- generated
_TOKENS = [
    "word", "Word", "The", "This", "however", "e.g.", "i.e.", "E.g.", "etc.", "Art.", "art.", "No.",
    "p.", "pp.", "Fig.", "Mr.", "Dr.", "St.", "Inc.", "Ltd.", "U.S.", "U.S.C.", "a.m.", "al.", "v.",
    "vs.", "Cl.", "Sch.", "J.", "A.", "1.", "12.", "1.2.", "1.2.3", "1234.", "iv.", "IV.", "XII.",
    "mix.", "a.", "(a)", "(iv)", "a)", "12)", "3.14", "5,000.00", "§", "Annex", "I.", "II",
    "end.", "end!", "end?", "end...", "end\u2026", "why?!", "(?)", "Yahoo!", '."', ".)", '".',
    ".\u201d", ". \u00bb", ".\u00a0\u00bb", "\u00ab", "\u201c", "(", "[", "\u00bf", "\u00a1",
    "\u300c", "\u5b57\u6f22", "\u3002", "\uff01", "\uff1f\u300d", "\u0964", "\u061f", "\u0e01\u0e32",
    "\uac00", "\U0001f600", "\U0001d400.", "\U00020000", "\U0001d7ce.", "\u212ao.", "\u0130.",
    "#", "##", "|", "```", "~~~", "<div>", "<!--", ">", "-", "*", "+", "\ud800", "_", "x\u0301",
]
_SEPS = [" ", "  ", "\n", "\n\n", "\r\n", "\r", "\r\n\r\n", "\t", "\u00a0", "\u202f", "\u3000",
         "\x1c", "\x85", "\u2028", " \n", "\n   ", "\n    ", ""]
_texts = st.lists(st.tuples(st.sampled_from(_TOKENS), st.sampled_from(_SEPS)), max_size=40).map(
    lambda parts: "".join(t + s for t, s in parts))
_chars = st.lists(st.sampled_from(sorted({c for t in _TOKENS + _SEPS for c in t})), max_size=60).map("".join)


@settings(max_examples=600, deadline=None)
@given(text=_texts)
def test_parity_on_generated_sentences(text):
    assert_parity(text)


@settings(max_examples=400, deadline=None)
@given(text=_chars | st.text(max_size=60))
def test_parity_on_generated_characters(text):
    assert_parity(text)


def test_long_token_windows_and_runs():
    """The 48-character token window, leader dots, long digit runs and list prefixes."""
    texts = [
        "x" * 60 + ". The end.",
        "\n" + "1." * 30 + "2. The end.",
        "--- " + "1.2.3. The list.",
        "Contents " + "." * 200 + " 5\nIntro" + "." * 50 + "x. Next.",
        "1234567890. The number. 123456789) item\n123456789) Item\n1234567890) no",
        "(" * 10 + "Art. 5 (" * 3 + "e.g. (ii) here. (b) in writing. (c) The rule.",
        # more cuts, terminators and line breaks than the scan's first buffers hold
        "One. Two!\n# H. x\n\nThree\u3002" * 3000,
    ]
    for text in texts:
        assert_parity(text)


# ---------------------------------------------------------------------------------- detectors
def _detect_all(text: str, fast: bool, monkeypatch) -> tuple[list, dict]:
    monkeypatch.setattr(_scan, "wanted", lambda n: fast and n > 0)
    calls = []
    real = _scan.scan
    monkeypatch.setattr(_scan, "scan", lambda t, **kw: calls.append(1) or real(t, **kw))
    dets = [SentenceDetector(SentenceDetector.Params(), name="sentence"),
            SentenceDetector(SentenceDetector.Params(extra_abbreviations=["Cl."]), name="sentence"),
            WordDetector(WordDetector.Params(), name="word"),
            LineBreakDetector(LineBreakDetector.Params(), name="line_break")]
    ctx = DetectContext(text, Document(id="d", text=text))
    out = [(pairs(d.detect_arrays(ctx)), d.detect(ctx)) for d in dets]
    return out, {"scans": len(calls)}


def test_detectors_share_one_scan_and_match_the_reference(monkeypatch):
    text = example_text("regulation_excerpt.md") + "\nSee Cl. 5. The end.\n"
    fast, stats = _detect_all(text, True, monkeypatch)
    assert stats["scans"] == 1  # sentences (both), words and line breaks from one pass
    slow, stats = _detect_all(text, False, monkeypatch)
    assert stats["scans"] == 0
    assert fast == slow


def test_split_functions_dispatch_to_the_scan(monkeypatch):
    text = "Mr. Smith went. The end.\r\nNext line\n\n1. Item"
    monkeypatch.setattr(_scan, "wanted", lambda n: n > 0)
    assert tu.split_sentences(text, ["Smith"]) == tu.split_sentences_reference(text, ["Smith"])
    assert pairs(tu.word_arrays(text)) == pairs(tu.word_arrays_reference(text))
    ctx = DetectContext(text)
    got = LineBreakDetector(LineBreakDetector.Params(), name="line_break").detect_arrays(ctx)
    assert pairs(got) == line_break_reference(text)


def test_kernel_runs_uncompiled_too():
    """The loop is plain Python as well (``adachunk.runtime.jit``): both give the same arrays."""
    from adachunk.runtime.jit import compiled

    text = "Mr. J. Smith (b) in Art. 5. The end\u2026 Next!\r\n# H\n1. Item e.g. U.S. \u5b57\u3002\U0001f600"
    codes = _scan.codes_of(text)
    args = (codes, T.flags_for(codes), *T.word_tables())
    fast = compiled(K.fused_scan, helpers=K.HELPERS)(*args, np.int64(K.MAPPED_CHARS))
    slow = K.fused_scan(*args, K.MAPPED_CHARS)
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow):
        assert np.array_equal(np.asarray(a), np.asarray(b))


def test_word_arrays_as_views_equal_the_trimmed_copies():
    """Long texts get the scan's word arrays as views (no copy faulted in): the same spans."""
    text = example_text("regulation_excerpt.md") + " tail word"
    copied, viewed = _scan.scan(text), _scan.scan(text, view_from=0)
    assert viewed.words[0].flags.c_contiguous and viewed.words[1].flags.c_contiguous
    for a, b in zip(copied.words + copied.line_breaks + copied.default_sentences,
                    viewed.words + viewed.line_breaks + viewed.default_sentences):
        assert a.tolist() == b.tolist()
    codes = _scan.codes_of(text)  # the uncompiled twin takes the same branch
    args = (codes, T.flags_for(codes), *T.word_tables(), 0)
    for a, b in zip(K.fused_scan(*args), copied.words + copied.line_breaks):
        assert np.asarray(a).tolist() == b.tolist()
