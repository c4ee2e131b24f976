"""Words: whitespace-separated runs, with each CJK, kana, Hangul or Thai character a word alone.

The reference twin of the word units of the compiled text-unit scan
(:mod:`adachunk.detect.text_units._scan`): :func:`word_arrays_reference` classifies the code points
with one lookup table and finds the words where the class changes (numpy, no Python loop per
character). ``word.v1`` (:mod:`adachunk.detect.text_units`) reads the compiled scan on long
texts and this otherwise; ``tests/parity/test_text_units_fast_parity.py`` holds them equal.
"""

from __future__ import annotations

import re

import numpy as np

from ._charsets import _NO_SPACE, _SINGLE, _SPACE, _char_classes

# Reference definition of a word; split_words computes the same spans with numpy.
WORD_RE = re.compile(f"[{_NO_SPACE}]|[^\\s{_NO_SPACE}]+")


def word_arrays(text: str) -> tuple[np.ndarray, np.ndarray]:
    """Word starts and ends as int64 arrays (see :func:`split_words`; compiled or reference)."""
    from . import _scan

    if _scan.wanted(len(text)):
        return _scan.scan(text).words
    return word_arrays_reference(text)


def word_arrays_reference(text: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`word_arrays` with numpy (the reference twin of the compiled scan)."""
    from . import _scan

    _scan.note_reference(len(text))
    if not text:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    cls = _char_classes()[codes]
    n = len(cls)
    word = cls != _SPACE
    single = cls == _SINGLE
    # cut[i] is True when a word may not continue from code point i-1 to code point i.
    cut = np.empty(n + 1, dtype=bool)
    cut[0] = cut[n] = True
    cut[1:n] = (word[1:] != word[:-1]) | single[1:] | single[:-1]
    starts = np.flatnonzero(cut[:n] & word).astype(np.int64)
    ends = (np.flatnonzero(cut[1:] & word) + 1).astype(np.int64)
    return starts, ends


def split_words(text: str) -> list[tuple[int, int]]:
    """Return word spans: maximal non-whitespace runs, but CJK/kana/Hangul/Thai characters alone.

    Vectorised: the text is viewed as an array of code points, classified with a lookup table,
    and word starts/ends are where the class changes. Equivalent to ``WORD_RE.finditer`` but
    about twice as fast, most of the remaining time being the creation of the tuples.
    """
    starts, ends = word_arrays(text)
    return list(zip(starts.tolist(), ends.tolist()))
