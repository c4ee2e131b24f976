"""The embedder contract shared by ``sentence_transformers.v1``, ``model2vec.v1`` and ``hash.v1``.

An embedder turns texts into L2-normalised float32 vectors. Subclasses implement only
:meth:`Embedder.encode` (texts that fit the model) and, when the model has an input limit,
:meth:`Embedder.token_starts` (where the model's tokens start, used to measure texts in the
model's own tokens). Everything else (long texts, span caching, batching) is shared: long texts
go through :class:`~adachunk.metrics.embedders.spans.SpanEmbeddings`, which pools them.
"""

from __future__ import annotations

import json
from typing import ClassVar, Sequence

import numpy as np
from pydantic import Field

from ...params import ComponentParams


class EmbedderParams(ComponentParams):
    """Options every embedder accepts."""

    batch_size: int = Field(default=32, ge=1, le=65536, description="texts per model batch")


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (all-zero rows stay zero), as float32."""
    v = np.asarray(vectors, dtype=np.float32)
    if v.ndim == 1:
        v = v[None, :]
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return np.divide(v, norms, out=np.zeros_like(v), where=norms > 0)


class Embedder:
    """Base class of registered embedders.

    Attributes:
        params: the validated :class:`EmbedderParams` (subclasses extend them).
        type_name: the registered name (set by each subclass).
    """

    Params: ClassVar[type[EmbedderParams]] = EmbedderParams
    type_name: ClassVar[str] = ""
    # Tokens kept free under max_tokens when pooling: a subword tokenizer may cut a slice one
    # or two tokens longer at its edges than the whole text's tokenisation says.
    token_slack: ClassVar[int] = 0

    def __init__(self, params: EmbedderParams | None = None):
        self.params = params or self.Params()

    @property
    def fingerprint(self) -> str:
        """Identity of the embedding function (type + parameters): a cache key."""
        return json.dumps({"type": self.type_name, **self.identity()}, sort_keys=True, default=str)

    def identity(self) -> dict:
        """What determines the vectors (batch size does not): subclasses may add a model path."""
        return self.params.model_dump(exclude={"batch_size"})

    @property
    def dim(self) -> int:  # pragma: no cover - interface
        """Vector dimension."""
        raise NotImplementedError

    @property
    def max_tokens(self) -> int | None:
        """Longest input in the model's own tokens (special tokens excluded); None: unlimited."""
        return None

    @property
    def batch_size(self) -> int:
        return self.params.batch_size

    def encode(self, texts: Sequence[str]) -> np.ndarray:  # pragma: no cover - interface
        """One model call: ``(len(texts), dim)`` normalised float32 for texts that fit."""
        raise NotImplementedError

    def token_starts(self, text: str) -> np.ndarray:  # pragma: no cover - interface
        """Sorted code-point offsets where the model's tokens of ``text`` start."""
        raise NotImplementedError

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed arbitrary texts: short ones in one batched call, long ones pooled.

        A text longer than :attr:`max_tokens` is cut along sentence, then whitespace, boundaries
        into pieces that fit; the pieces are embedded and mean-pooled weighted by their token
        counts, then renormalised (see :mod:`adachunk.metrics.embedders.spans`).
        """
        from .spans import SpanEmbeddings

        texts = list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        short = [i for i, t in enumerate(texts) if fits_quickly(t, self.max_tokens)]
        if short:
            out[short] = self.encode([texts[i] for i in short])
        for i in sorted(set(range(len(texts))) - set(short)):
            out[i] = SpanEmbeddings(texts[i], self).get([(0, len(texts[i]))])[0]
        return out


def fits_quickly(text: str, limit: int | None) -> bool:
    """True when ``text`` surely fits ``limit`` model tokens without tokenising it.

    Every subword token (WordPiece, byte-level BPE, SentencePiece with byte fallback) covers at
    least one UTF-8 byte; SentencePiece may add one leading word-boundary token.
    """
    return limit is None or len(text.encode("utf-8", "surrogatepass")) + 1 <= limit
