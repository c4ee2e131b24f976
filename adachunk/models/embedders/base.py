"""The embedder contract shared by ``sentence_transformers.v1``, ``model2vec.v1`` and ``hash.v1``.

An embedder turns texts into L2-normalised float32 vectors. Subclasses implement only
:meth:`Embedder.encode` (texts that fit the model) and, when the model has an input limit,
:meth:`Embedder.token_starts` (where the model's tokens start, used to measure texts in the
model's own tokens). Everything else (long texts, span caching, batching) is shared: long texts
are pooled over pieces that fit (:mod:`~adachunk.models.embedders.pooling`; with a cache over
one document's spans: :class:`~adachunk.models.embedders.spans.SpanEmbeddings`), and
:func:`plan_batches` groups texts of similar length so that a model batch is not padded to its
longest text.
"""

from __future__ import annotations

import json
import math
from typing import ClassVar, Sequence

import numpy as np
from pydantic import Field

from ...components.params import ComponentParams


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

    @classmethod
    def declared_limit(cls, params: EmbedderParams) -> int | None:
        """The model's input limit in its own tokens as its files declare it, read without
        loading the model (profile resolution derives chunk sizes from it); None: unlimited."""
        return None

    @property
    def batch_size(self) -> int:
        """Most texts per model call (a speed and memory knob; it never changes the vectors)."""
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
        into pieces that fit (:mod:`adachunk.models.embedders.pooling`); the pieces are embedded
        and mean-pooled weighted by their token counts, then renormalised, as
        :class:`~adachunk.models.embedders.spans.SpanEmbeddings` pools a long span.
        """
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        short = [i for i, t in enumerate(texts) if fits_quickly(t, self.max_tokens)]
        if short:
            out[short] = self.encode([texts[i] for i in short])
        plans = {i: self._plan(texts[i]) for i in sorted(set(range(len(texts))) - set(short))}
        if plans:
            # every long text's pieces (or the text, where its tokens fit) in one model call: a
            # call per text pays a forward pass each (the index's plain table rows are such texts)
            distinct = list(dict.fromkeys(p for parts, _ in plans.values() for p in parts))
            vecs = dict(zip(distinct, normalise(self.encode(distinct))))
            for i, (parts, weights) in plans.items():
                out[i] = vecs[parts[0]] if weights is None else weighted_mean(weights, [vecs[t] for t in parts])
        return out

    def _plan(self, text: str) -> tuple[list[str], np.ndarray | None]:
        """What embeds one text that may not fit the model: the text itself (weights None) when
        its tokens fit, else its pieces and their token counts (the pooling weights)."""
        from .pooling import GridBuilder, ModelTokenCounter, pieces_of

        limit = max(1, self.max_tokens - self.token_slack)
        tokens = ModelTokenCounter(self.token_starts(text))
        if tokens.count(0, len(text)) <= limit:
            return [text], None
        parts = pieces_of(GridBuilder(text, tokens, limit).build(()), 0, len(text), tokens.count)
        if not parts:
            return [text], None
        return [text[a:b] for a, b in parts], np.array([tokens.count(*p) for p in parts], dtype=np.float32)


def weighted_mean(weights: np.ndarray, vectors) -> np.ndarray:
    """The normalised weighted mean of ``vectors`` (a long text's vector from its pieces')."""
    return normalise(weights @ np.stack(vectors))[0]


def fits_quickly(text: str, limit: int | None) -> bool:
    """True when ``text`` surely fits ``limit`` model tokens without tokenising it.

    Every subword token (WordPiece, byte-level BPE, SentencePiece with byte fallback) covers at
    least one UTF-8 byte; SentencePiece may add one leading word-boundary token.
    """
    return limit is None or len(text.encode("utf-8", "surrogatepass")) + 1 <= limit


def plan_batches(lengths: Sequence[int], max_texts: int, overhead: int = 64,
                 max_tokens: int | None = None) -> list[list[int]]:
    """Indices of ``lengths`` grouped into model batches, longest texts first.

    A transformer batch costs about ``count × longest`` tokens of compute (shorter texts are
    padded) plus a fixed cost per forward pass, ``overhead`` tokens' worth. Texts are sorted by
    length and the sorted run is cut where it minimises ``Σ (count × longest + overhead)`` (an
    exact dynamic programme, O(n · max_texts)). Unsorted batches of the span mixes ICC asks for
    spend about half their compute on padding; these plans about 5 %.

    Args:
        lengths: model tokens of each text (special tokens included).
        max_texts: most texts in one batch.
        overhead: the fixed cost of one forward pass, in tokens.
        max_tokens: most padded tokens (``count × longest``) in one batch, which bounds the
            activation memory of a forward pass; a single longer text still gets its own batch.

    Returns:
        Batches of indices into ``lengths``; every index appears exactly once.
    """
    order = sorted(range(len(lengths)), key=lambda i: -int(lengths[i]))
    sorted_len = [int(lengths[i]) for i in order]
    n, cap = len(order), max(1, max_texts)
    best = [0.0] + [math.inf] * n  # best[j]: cheapest cover of the j longest texts
    cut = [0] * (n + 1)
    for j in range(1, n + 1):
        for i in range(j - 1, max(0, j - cap) - 1, -1):  # batch (i, j] is padded to sorted_len[i]
            padded = (j - i) * sorted_len[i]
            if max_tokens is not None and padded > max_tokens and j - i > 1:
                break  # earlier starts only pad more
            cost = best[i] + padded + overhead
            if cost < best[j]:
                best[j], cut[j] = cost, i
    batches, j = [], n
    while j:
        batches.append(order[cut[j]:j])
        j = cut[j]
    return batches[::-1]
