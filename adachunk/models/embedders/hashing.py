"""``hash.v1``: a deterministic hashed bag-of-words embedder for tests and smoke runs.

Each lower-cased word (``\\w+``) adds ±1 to one of ``dim`` buckets chosen by its CRC-32 (stable
across processes, unlike Python's ``hash``); the counts are L2-normalised. Two texts with the
same words get the same vector; texts without a shared word are nearly orthogonal. It needs no
model and no download, so unit tests of ICC, DCC and the semantic splitter can compute expected
values by hand. ``max_tokens`` (in words) simulates a model input limit to exercise pooling.
"""

from __future__ import annotations

import re
import zlib
from typing import Sequence

import numpy as np
from pydantic import Field

from ...components.registry import embedders
from .base import Embedder, EmbedderParams, normalise

_WORD = re.compile(r"\w+")


class HashParams(EmbedderParams):
    """Options of ``hash.v1``."""

    dim: int = Field(default=256, ge=2, le=65536, description="vector dimension (hash buckets)")
    max_tokens: int | None = Field(
        default=None, ge=1, description="simulated input limit in words (None: unlimited); longer texts are pooled")


@embedders.register("hash.v1")
class HashEmbedder(Embedder):
    """Hashed bag of words → normalised vector; no model needed."""

    Params = HashParams
    type_name = "hash.v1"

    @property
    def dim(self) -> int:
        """Vector dimension: the number of hash buckets."""
        return self.params.dim

    @property
    def max_tokens(self) -> int | None:
        """The simulated input limit, in words (None: unlimited, nothing is pooled)."""
        return self.params.max_tokens

    @classmethod
    def declared_limit(cls, params: HashParams) -> int | None:
        """The simulated limit (``max_tokens``, in words)."""
        return params.max_tokens

    def word_vector(self, word: str) -> tuple[int, float]:
        """Bucket and sign of one (already lower-cased) word."""
        h = zlib.crc32(word.encode("utf-8", "surrogatepass"))
        return h % self.dim, (1.0 if (h >> 31) & 1 else -1.0)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """The L2-normalised signed bucket counts of each text's lower-cased words."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for m in _WORD.finditer(text.lower()):
                bucket, sign = self.word_vector(m.group())
                out[i, bucket] += sign
        return normalise(out)

    def token_starts(self, text: str) -> np.ndarray:
        """Where each word starts: this embedder's "tokens" are words (see :attr:`max_tokens`)."""
        return np.fromiter((m.start() for m in _WORD.finditer(text)), dtype=np.int64)
