"""Lookup tables of the compiled text-unit scan (:mod:`adachunk.detect.text_units._scan`).

The compiled loop cannot call ``str.isspace`` or look a token up in a ``frozenset``, so what
the reference segmenter (:mod:`adachunk.detect.text_units`) asks of a character or a token is
tabulated here once per process:

* :func:`char_flags`: one ``uint16`` of property bits per code point, each bit exactly the
  Python predicate or regex class the reference uses (``str.isspace``, ``re``'s ``\\w``/``\\d``,
  ``str.isupper``/``islower``/``isdigit``, the ``regex`` module's ``\\s`` for line breaks, the
  closer/opener/terminator sets). The BMP is filled at once (~30 ms); supplementary code points
  only when a text holds them (:func:`flags_for`), a handful per text at most.
* :func:`word_tables`: the abbreviation and sentence-opener lists as sorted rows of code points
  for a binary search, with a bit per list.
"""

from __future__ import annotations

import threading
from functools import lru_cache

import numpy as np

from . import _charsets as tu

# property bits (constants: the compiled loop reads them as literals)
SPACE = 1  # str.isspace (also what re's \s, str.strip and str.split use)
WORDC = 2  # re's \w (str.isalnum() or "_")
DEC = 4  # re's \d (str.isdecimal)
UPPER = 8  # str.isupper
LOWER = 16  # str.islower
DIGIT = 32  # str.isdigit
SINGLE = 64  # a word on its own (scripts written without spaces)
RXSPACE = 128  # the regex module's \s (what the line_break pattern means by whitespace)
CLOSER = 256
OPENER = 512
TERM = 1024  # a Latin terminator (first character of text_units._TERM)
MARK = 2048  # a CJK / Indic / Arabic ... full stop (text_units._MARK_FIRST)

# exact-match table bits
TITLE = 1
STARTER = 2
# lowercased-token table bits
NEVER_END = 1
NUMBERED = 2
SOMETIMES = 4

_BMP = 0x10000
_MAX = 0x110000
_lock = threading.Lock()
_known_astral: set[int] = set()


def _predicate_bits(chars: str) -> np.ndarray:
    """The bits that depend on Unicode properties, for each character of ``chars``."""
    cols = (
        (SPACE, str.isspace), (WORDC, lambda c: c.isalnum() or c == "_"), (DEC, str.isdecimal),
        (UPPER, str.isupper), (LOWER, str.islower), (DIGIT, str.isdigit),
    )
    out = np.zeros(len(chars), dtype=np.uint16)
    for bit, pred in cols:
        out[np.fromiter(map(pred, chars), dtype=bool, count=len(chars))] |= bit
    return out


@lru_cache(maxsize=1)
def char_flags() -> np.ndarray:
    """Property bits per code point (supplementary planes: only the set-based bits so far)."""
    from .._re_fast import _regex_space

    table = np.zeros(_MAX, dtype=np.uint16)
    table[:_BMP] = _predicate_bits("".join(map(chr, range(_BMP))))
    table[tu._char_classes() == tu._SINGLE] |= SINGLE
    table[[ord(c) for c in _regex_space()[0]]] |= RXSPACE
    for chars, bit in ((tu._CLOSERS, CLOSER), (tu._OPENERS, OPENER), (tu._TERM_FIRST, TERM),
                       (tu._MARK_FIRST, MARK)):
        table[[ord(c) for c in chars]] |= bit
    return table


def flags_for(codes: np.ndarray) -> np.ndarray:
    """:func:`char_flags`, with the supplementary code points of ``codes`` filled in."""
    table = char_flags()
    if codes.size and int(codes.max()) >= _BMP:
        missing = [c for c in np.unique(codes[codes >= _BMP]).tolist() if c not in _known_astral]
        if missing:
            with _lock:
                idx = np.array(missing, dtype=np.int64)
                table[idx] |= _predicate_bits("".join(map(chr, missing)))
                _known_astral.update(missing)
    return table


def _rows(entries: dict[str, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Words sorted by code points, as (padded rows, lengths, bits) for a binary search."""
    words = sorted(entries, key=lambda w: [ord(c) for c in w])
    width = max(map(len, words), default=1)
    rows = np.zeros((max(len(words), 1), width), dtype=np.int64)
    lens = np.zeros(max(len(words), 1), dtype=np.int64)
    bits = np.zeros(max(len(words), 1), dtype=np.int64)
    for i, w in enumerate(words):
        rows[i, : len(w)] = [ord(c) for c in w]
        lens[i], bits[i] = len(w), entries[w]
    if not words:
        lens[0] = -1  # never equal to a token's length
    return rows, lens, bits


@lru_cache(maxsize=1)
def word_tables() -> tuple[np.ndarray, ...]:
    """(exact rows, lengths, bits, lowercase rows, lengths, bits) of the reference's word lists.

    The lowercase lists are ASCII, and no code point but U+212A (Kelvin sign) lowercases to
    ASCII without being ASCII (``tests/parity/test_text_units_fast_parity.py`` checks both), so the
    scan lowercases a token by ASCII rules plus that one sign and compares it with these rows.
    """
    exact: dict[str, int] = {}
    for words, bit in ((tu._TITLES, TITLE), (tu._STARTERS, STARTER)):
        for w in words:
            exact[w] = exact.get(w, 0) | bit
    low: dict[str, int] = {}
    for words, bit in ((tu._NEVER_END, NEVER_END), (tu._NUMBERED, NUMBERED), (tu._SOMETIMES, SOMETIMES)):
        for w in words:
            assert w.isascii() and w == w.lower(), w  # what the scan's lowercasing relies on
            low[w] = low.get(w, 0) | bit
    return _rows(exact) + _rows(low)
