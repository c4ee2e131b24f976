"""Offline token counters: bundled vocabularies, exact boundaries, and fast-backend parity."""

from __future__ import annotations

import socket

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adachunk.tokens import CharCounter, TiktokenCounter, get_counter, offline_encoding


def test_loads_offline_without_network(monkeypatch):
    def refuse(*_a, **_k):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    offline_encoding.cache_clear()
    for name in ("o200k_base", "cl100k_base"):
        enc = offline_encoding(name)
        assert enc.name == name and enc.encode_ordinary("hello world") == enc.encode("hello world")


def test_special_token_strings_are_ordinary_text():
    c = get_counter("o200k_base")
    assert c.count("<|endoftext|>") > 1
    pos, sizes = c.boundaries("a <|endoftext|> b")
    assert pos[-1] == len("a <|endoftext|> b")


def test_unknown_encoding_is_coded():
    from adachunk.errors import ProfileError

    with pytest.raises(ProfileError) as exc:
        offline_encoding("p50k_base")
    assert exc.value.code == "ADA205"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_boundaries_are_char_boundaries_and_sizes_consistent(text):
    c = get_counter("o200k_base")
    pos, sizes = c.boundaries(text)
    assert pos[0] == 0 and pos[-1] == len(text) and sizes[0] == 0
    assert np.all(np.diff(pos) > 0) or len(text) == 0
    assert sizes[-1] == c.count(text)
    # cutting at any candidate and counting both sides never loses text
    for p in pos[1:-1][:5]:
        assert text[:p] + text[p:] == text


def _boundaries_by_running_count(c, text):
    """The per-byte formulation: a running count of character-start bytes (the reference)."""
    ids = c._ids(text)
    decode = offline_encoding(c.name).decode_single_token_bytes  # tiktoken's bytes of each id
    byte_ends = np.cumsum([len(decode(i)) for i in ids.tolist()]).astype(np.int64)
    raw = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    is_start = (raw & 0xC0) != 0x80
    cp_before = np.concatenate(([0], np.cumsum(is_start)))
    keep = np.concatenate((is_start, [True]))[byte_ends]
    return (np.concatenate(([0], cp_before[byte_ends[keep]])).tolist(),
            np.concatenate(([0], np.nonzero(keep)[0] + 1)).tolist())


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("ab .\n") + ["é", "東", "京", "\U0001f600", "\U0001f469\u200d\U0001f4bb",
                                                 "\u0301", "ß", "Ω"]), min_size=1, max_size=200).map("".join))
def test_boundaries_equal_the_running_count_formulation(text):
    """Tokens ending inside a multi-byte character (emoji, CJK) get no offset of their own."""
    c = get_counter("cl100k_base")
    pos, sizes = c.boundaries(text)
    if not text.isascii():
        assert (pos.tolist(), sizes.tolist()) == _boundaries_by_running_count(c, text)


def test_boundaries_equal_the_running_count_formulation_on_clair(clair_docs):
    c = get_counter("o200k_base")
    for _name, doc in clair_docs[:10]:
        text = doc["full_text"]
        pos, sizes = c.boundaries(text)
        if not text.isascii():
            assert (pos.tolist(), sizes.tolist()) == _boundaries_by_running_count(c, text)


def test_char_counter():
    pos, sizes = CharCounter().boundaries("héllo")
    assert pos.tolist() == sizes.tolist() == [0, 1, 2, 3, 4, 5]


def test_fast_backend_identical_ids_on_clair(clair_docs, monkeypatch):
    """quicktok is used only because it gives tiktoken's exact ids on the whole corpus."""
    monkeypatch.setenv("ADACHUNK_TOKENIZER_BACKEND", "quicktok")
    for name in ("o200k_base", "cl100k_base"):
        fast = TiktokenCounter(name)
        if fast.fast is None:
            pytest.skip("quicktok not installed")
        ref = offline_encoding(name)
        for fname, obj in clair_docs:
            text = obj["full_text"]
            assert fast.encode(text) == ref.encode_ordinary(text), (name, fname)
        assert fast.counts(["<|endoftext|> x", "", "y"]) == [len(ref.encode_ordinary("<|endoftext|> x")), 0, 1]
        for fname, obj in clair_docs[:8]:  # count() and boundaries() read quicktok without lists
            text = obj["full_text"]
            assert fast.count(text) == len(ref.encode_ordinary(text)), (name, fname)


def test_auto_backend_moves_to_quicktok_after_enough_text(monkeypatch):
    """Short runs stay on the pure-Python encoder (cheapest to load); long ones move to
    quicktok, same ids."""
    import adachunk.tokens as tk

    monkeypatch.delenv("ADACHUNK_TOKENIZER_BACKEND", raising=False)
    monkeypatch.setitem(tk.QUICKTOK_AFTER_CHARS, "o200k_base", 10_000)
    c = TiktokenCounter("o200k_base")
    text = "Chunking «exactly» at token boundaries: naïve café, 東京, <|endoftext|>.\n" * 2
    assert c.backend == "python"
    before = (c.encode(text), c.count(text), [a.tolist() for a in c.boundaries(text)])
    c.encode("x" * 10_000)
    if c.fast is None:
        pytest.skip("quicktok not installed")
    assert c.backend == "quicktok"
    assert (c.encode(text), c.count(text), [a.tolist() for a in c.boundaries(text)]) == before


def test_boundaries_of_ascii_text_are_token_byte_ends():
    """ASCII text takes a shortcut (one byte per code point): every token end is a candidate."""
    from itertools import accumulate

    c = get_counter("o200k_base")
    text = "Plain ASCII text, with numbers 12,345.67 and code `x = y`.\n\n| a | b |\n"
    ids = c.encode(text)
    pos, sizes = c.boundaries(text)
    ref = offline_encoding("o200k_base")
    assert pos.tolist() == [0, *accumulate(len(ref.decode_single_token_bytes(t)) for t in ids)]
    assert sizes.tolist() == list(range(len(ids) + 1))


def test_tiktoken_backend_forced(monkeypatch):
    monkeypatch.setenv("ADACHUNK_TOKENIZER_BACKEND", "tiktoken")
    c = TiktokenCounter("cl100k_base")
    assert c.backend == "tiktoken" and c.count("hello world") == 2
    assert c.counts(["hello world", ""]) == [2, 0]


def test_tiktoken_pieces_keep_ids_on_long_text(monkeypatch):
    """The tiktoken path encodes >64k-character texts in pieces; ids must equal a single pass."""
    monkeypatch.setenv("ADACHUNK_TOKENIZER_BACKEND", "tiktoken")
    c = TiktokenCounter("o200k_base")
    text = ("end.\n/path/to/file and more words\n" * 1500) + ("Plain line of text.\n" * 2500)
    assert len(text) > 1 << 16
    assert c.encode(text) == c.enc.encode_ordinary(text)


# Characters that matter to the pre-tokenizers around a split: newlines, spaces, "/", ASCII
# punctuation, apostrophes (contractions), digits, upper/lower case, non-Latin letters, marks.
_SPLIT_ALPHABET = st.sampled_from(list("\n\n \r\t/.,;:!?')\"-#|*aZe3 ")
                                  + ["é", "\u0301", "中", "😀", "Ab", "'s", "  ", ".\n"])


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@settings(max_examples=300, deadline=None)
@given(parts=st.lists(_SPLIT_ALPHABET, min_size=1, max_size=40))
def test_splits_at_means_the_ids_split_exactly(name, parts):
    """Where ``splits_at`` holds, the two sides encoded on their own are the whole text's ids:
    the DP splitter then takes a chunk's own count from the whole text's counts."""
    text = "".join(parts)
    counter = TiktokenCounter(name)
    enc = offline_encoding(name)
    whole = enc.encode_ordinary(text)
    for pos in range(len(text) + 1):
        if counter.splits_at(text, pos):
            assert enc.encode_ordinary(text[:pos]) + enc.encode_ordinary(text[pos:]) == whole, (text, pos)


def test_splits_at_the_common_chunk_edges():
    counter = TiktokenCounter("cl100k_base")
    text = "End of a sentence. Next one\n\nNew paragraph\n/path x. y"
    assert counter.splits_at(text, text.index(" Next"))  # after punctuation, before a space
    assert counter.splits_at(text, text.index("New"))  # after a newline, before a word
    assert not counter.splits_at(text, text.index("/path"))  # o200k glues ".\n/" together
    assert not counter.splits_at(text, text.index("Next"))  # inside the " Next" piece
    assert not counter.splits_at(text, text.index("\nNew"))  # inside the newline run
    assert counter.splits_at(text, 0) and counter.splits_at(text, len(text))


def test_one_encoder_thread_gives_the_same_ids(monkeypatch):
    """Pool workers encode with one thread (``worker_init``); ids and counts are the same."""
    import os

    import adachunk.tokens as tk
    from adachunk.runner.job import worker_init

    monkeypatch.setenv("ADACHUNK_TOKENIZER_BACKEND", "tiktoken")
    line = "Article 12. The provider «shall» keep logs; naïve café, 東京.\n"
    text = line * (3 * tk._PIECE_TARGET // len(line))  # several pieces for tiktoken's threads
    c = tk.TiktokenCounter("o200k_base")
    monkeypatch.delenv(tk.THREADS_ENV, raising=False)
    assert tk._threads() == 0 and len(tk._pieces(text)) > 1
    threaded = (c.encode(text), c.counts([text, line, ""]), [a.tolist() for a in c.boundaries(text)])
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS",
                "TOKENIZERS_PARALLELISM", "HF_HUB_OFFLINE"):
        monkeypatch.setenv(var, os.environ.get(var, ""))  # restored after the test
    worker_init(1)
    assert tk._threads() == 1
    assert (c.encode(text), c.counts([text, line, ""]), [a.tolist() for a in c.boundaries(text)]) == threaded
    monkeypatch.setenv(tk.THREADS_ENV, "many")
    assert tk._threads() == 0  # unreadable: the library's default


_TOKEN_CODES = st.lists(st.tuples(st.integers(0, 4), st.booleans()), min_size=1, max_size=300)


@settings(max_examples=200, deadline=None)
@given(_TOKEN_CODES)
def test_token_edges_loop_equals_its_numpy_twin(tokens):
    """The compiled boundary pass, its plain-Python run and the numpy passes agree on any
    sequence of token codes (characters begun, opening continuation byte), the codes read from
    a table by the tokens' ids (ids 0..n-1 map to the codes in reverse order)."""
    from adachunk.runtime.jit import compiled
    from adachunk.tokens import _token_edges_numpy, token_edges_of_ids

    codes = np.array([2 * begun + cont for begun, cont in tokens], dtype=np.int64)
    want = [a.tolist() for a in _token_edges_numpy(codes, False)]
    table = np.concatenate((codes[::-1], [-1]))
    ids = np.arange(len(codes) - 1, -1, -1, dtype=np.int64)
    for fn in (token_edges_of_ids, compiled(token_edges_of_ids)):
        known, positions, sizes = fn(ids, table)
        assert known and [positions.tolist(), sizes.tolist()] == want
        assert not fn(np.append(ids, len(codes)), table)[0]  # an id without a code yet
        assert not fn(np.append(ids, len(table)), table)[0]  # an id past the table
    if not any(cont for _begun, cont in tokens):  # the ASCII shortcut: every end is kept
        assert [a.tolist() for a in _token_edges_numpy(codes, True)] == want


def test_boundaries_same_with_and_without_the_compiled_pass(monkeypatch):
    from pathlib import Path

    import adachunk.tokens as tk

    c = get_counter("o200k_base")
    examples = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.md"))
    texts = [p.read_text(encoding="utf-8") for p in examples] + ["héllo 東京 \U0001f600 wörld\n" * 50]
    assert examples
    for text in texts:
        monkeypatch.setattr(tk, "numba_loaded", lambda: True)
        fast = c.boundaries(text)
        monkeypatch.setattr(tk, "numba_loaded", lambda: False)
        slow = c.boundaries(text)
        assert fast[0].dtype == slow[0].dtype == np.int64
        assert fast[0].tolist() == slow[0].tolist() and fast[1].tolist() == slow[1].tolist()
