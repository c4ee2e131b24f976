"""One compiled pass over the code points for words, line breaks and sentences.

``word.v1``, ``sentence.v1`` and the ``line_break`` structure of ``rules/text.layout.yaml``
all walk every character of every document. :func:`scan` walks it once, in a Numba loop
(``nogil``: threads can detect in parallel), over the text as a ``uint32`` array of code points
and the property table of :mod:`adachunk.detect.text_units._scan_tables`, and finds:

* the words of :func:`~adachunk.detect.text_units.word_arrays_reference`;
* the matches of ``\\S[ \\t]*\\r?\\n\\s*`` (:func:`~.line_break.line_break_reference`);
* the pieces of :func:`~adachunk.detect.text_units.split_sentences_reference`: the cuts that
  need no decision (line feeds, line-blocks, CJK full stops), every match of the Latin
  terminator pattern with the boundary decision of ``_is_boundary`` taken in the loop, and
  for each cut the first visible character after it and the end of the last one before it,
  so that the sentence spans for any ``extra_abbreviations`` are a sort away
  (:meth:`UnitScan.sentences`).

The Python functions are the reference twins; ``tests/parity/test_text_units_fast_parity.py``
checks that the spans are identical on the corpus, the examples and generated text. The loop
and its helpers (:mod:`adachunk.detect.text_units._scan_kernel`) are plain Python too, compiled
together; each helper names the piece of the reference it mirrors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...runtime.jit import compiled, numba_loaded
from . import _scan_tables as T
from ._scan_kernel import HELPERS, MAPPED_CHARS, fused_scan, sentence_spans

# Loading Numba costs ~0.5 s of CPU once (plus ~0.15 s for this loop from the disk cache) and
# the reference scans run at ~12 MB/s: the compiled pass starts with the first long text, once
# the reference has scanned JIT_AFTER_CHARS in this process, or when Numba is loaded anyway.
# Below SCAN_MIN_CHARS the ~20 us of calling the loop cost more than the reference sentence
# scan of so short a text (a sentence of an embedder's span, a tiny file).
JIT_MIN_CHARS = 500_000
JIT_AFTER_CHARS = 2_000_000
SCAN_MIN_CHARS = 1_000
SCAN_KEY = ("text_units.scan",)  # memo key of the shared scan of a document
_reference_chars = [0]


def wanted(n: int) -> bool:
    """Whether a text of ``n`` code points should go through :func:`scan`."""
    return n >= SCAN_MIN_CHARS and (numba_loaded() or n >= JIT_MIN_CHARS
                                    or _reference_chars[0] >= JIT_AFTER_CHARS)


def note_reference(n: int) -> None:
    """Count ``n`` code points scanned by a reference twin (towards :data:`JIT_AFTER_CHARS`)."""
    _reference_chars[0] += n


@dataclass(frozen=True)
class UnitScan:
    """What :func:`scan` found in one text (offsets are code points).

    Attributes:
        words: word starts and ends.
        line_breaks: starts and ends of the ``line_break`` matches.
        default_sentences: sentence starts and ends without extra abbreviations.
        cuts: sentence cuts that need no decision (in order), with ``cut_next`` (first visible character
            at or after the cut) and ``cut_prev`` (end of the last visible character before).
        term_ends: ends of the Latin terminator matches outside line-blocks, with
            ``term_cut`` (the reference's decision without extra abbreviations), the token
            before each (``tok_start``/``tok_end``; -1 when the decision did not look at it)
            and their ``term_next``/``term_prev``.
        n: length of the text.
        n_prev: end of the last visible character of the text (0: none).
    """

    words: tuple[np.ndarray, np.ndarray]
    line_breaks: tuple[np.ndarray, np.ndarray]
    default_sentences: tuple[np.ndarray, np.ndarray]
    cuts: np.ndarray
    cut_next: np.ndarray
    cut_prev: np.ndarray
    term_ends: np.ndarray
    term_cut: np.ndarray
    tok_start: np.ndarray
    tok_end: np.ndarray
    term_next: np.ndarray
    term_prev: np.ndarray
    n: int
    n_prev: int

    def sentences(self, text: str, extra: frozenset[str] = frozenset()) -> tuple[np.ndarray, np.ndarray]:
        """Sentence starts and ends, as ``split_sentences_reference(text, extra)`` finds them.

        ``extra`` holds the extra abbreviations without their final period. A token in it
        makes the reference say "no boundary" before anything else it checks, so only the
        cuts that looked at their token and said "boundary" can change.
        """
        if not extra:
            return self.default_sentences
        keep = self.term_cut.copy()
        span = self.tok_end - self.tok_start
        maybe = (keep != 0) & (self.tok_start >= 0) & np.isin(span, sorted({len(a) for a in extra}))
        for i in np.flatnonzero(maybe).tolist():
            if text[self.tok_start[i]:self.tok_end[i]] in extra:
                keep[i] = 0
        merge = compiled(sentence_spans)
        return merge(np.int64(self.n), self.cuts, self.cut_next, self.cut_prev, self.term_ends,
                     self.term_next, self.term_prev, keep, np.int64(self.n_prev))


def codes_of(text: str) -> np.ndarray:
    """The code points of ``text`` (lone surrogates included) as a ``uint32`` array."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def code_points(text: str, memo=None) -> tuple[np.ndarray, np.ndarray]:
    """``text``'s code points and the property table filled for them, made once per detection
    when ``memo`` (a document's memo) is given (:data:`adachunk.analysis.CODE_POINTS`)."""
    if memo is None:
        codes = codes_of(text)
        return codes, T.flags_for(codes)
    from ...analysis import CODE_POINTS

    return memo(CODE_POINTS, lambda: code_points(text))


def scan(text: str, view_from: int = MAPPED_CHARS, memo=None) -> UnitScan:
    """Words, line breaks and sentence pieces of ``text`` in one compiled pass.

    ``view_from``: the length from which the word arrays stay views of the scan's own arrays
    (the same values; see :data:`~adachunk.detect.text_units._scan_kernel.MAPPED_CHARS`).
    ``memo``: the document's memo, to share the code points (:func:`code_points`).
    """
    codes, flags = code_points(text, memo)
    kernel = compiled(fused_scan, helpers=HELPERS)
    out = kernel(codes, flags, *T.word_tables(), np.int64(view_from))
    (ws, we, ls, le, cuts, cnx, cpv, tends, tcut, tks, tke, tnx, tpv, end_prev, ss, se) = out
    return UnitScan((ws, we), (ls, le), (ss, se), cuts, cnx, cpv, tends, tcut, tks, tke, tnx, tpv,
                    len(codes), int(end_prev))
