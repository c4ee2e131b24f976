"""The sentence splitter's terminator scan (``str.find`` + anchored match) equals ``finditer``."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from adachunk.detect import text_units as tu


_CHARS = [".", "!", "?", "\u2026", "\u3002", "\uff01", "\u0964", '"', ")", "\u00bb", " ", "\u00a0",
          "\u202f", "\n", "a", "B", "1", "é"]
_texts = st.lists(st.sampled_from(_CHARS), max_size=80).map("".join) | st.text(max_size=80)


@settings(max_examples=500, deadline=None)
@given(text=_texts)
def test_matches_equal_finditer(text):
    for pattern, firsts in ((tu._TERM, tu._TERM_FIRST), (tu._MARK, tu._MARK_FIRST)):
        got = [(m.start(), m.end(), m.group()) for m in tu._matches(pattern, firsts, text)]
        assert got == [(m.start(), m.end(), m.group()) for m in pattern.finditer(text)]


def test_first_characters_are_the_patterns_first_class():
    """Every match must start with one of ``firsts``, else the scan would miss it: both
    patterns open with a repeated class of exactly those characters."""
    assert tu._TERM.pattern.startswith(f"[{re.escape(tu._TERM_FIRST)}]+")
    assert tu._MARK.pattern.startswith(f"[{tu._MARK_FIRST}]+")
