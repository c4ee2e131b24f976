"""Span embeddings of one document: each distinct span embedded once, in batches, pooled if long.

Candidates of a document share most of their blocks and many of their chunks, and DCC windows
overlap heavily, so ICC, DCC and the semantic splitter ask for embeddings by ``(start, end)``
span of the document text. :class:`SpanEmbeddings` keeps every vector it computed, embeds only
the spans it has not seen, all of them in one batched model call per request, and pools spans
longer than the model's input limit over the document's pooling grid
(:mod:`~adachunk.models.embedders.pooling`), whose pieces are themselves cached spans.

Identical texts at different spans (blank pieces, repeated page headers and footers) are
embedded once.

One instance lives in each document's :class:`~adachunk.metrics.base.MetricContext` (see
:func:`span_embeddings`); the embedder itself (the loaded model) is shared by all documents.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import Any, Callable, Sequence

import numpy as np

from .base import Embedder, fits_quickly, normalise, weighted_mean
from .pooling import GridBuilder, ModelTokenCounter, pieces_of

Span = tuple[int, int]
DEFAULT_EMBEDDER: dict[str, Any] = {"type": "sentence_transformers.v1"}


class SpanEmbeddings:
    """Cached, batched, pooled embeddings of spans of ``text``.

    Attributes:
        text: the text every span points into.
        embedder: the embedder.
        stats: ``model_calls`` (encode calls), ``embedded`` (texts sent to the model),
            ``pooled`` (spans pooled from pieces), ``requested`` and ``hits`` (spans asked for
            and found in the cache), ``text_requests`` (free texts asked for: questions,
            prefixed chunks).
    """

    def __init__(self, text: str, embedder: Embedder,
                 block_starts: Sequence[int] | Callable[[], Sequence[int]] = (), log: Any = None):
        self.text = text
        self.embedder = embedder
        self._block_starts = block_starts
        self._log = log  # persisted model outputs (a VectorLog of the analysis store), or None
        self._stored: dict[str, np.ndarray] | None = None
        self._vectors: dict[Span, np.ndarray] = {}
        self._by_text: dict[str, np.ndarray] = {}
        self._piece_texts: dict[str, np.ndarray] = {}  # text of every span that fits → its vector
        self._tokens: ModelTokenCounter | None = None
        self._grid: np.ndarray | None = None
        self.stats = {"model_calls": 0, "embedded": 0, "pooled": 0, "requested": 0, "hits": 0, "text_requests": 0}

    # -- measuring -----------------------------------------------------------------------------
    @property
    def limit(self) -> int | None:
        """Usable model tokens per piece (None: the model takes any length)."""
        lim = self.embedder.max_tokens
        return None if lim is None else max(1, lim - self.embedder.token_slack)

    def tokens(self) -> ModelTokenCounter:
        """Model token starts of the whole text (tokenised once, on first need)."""
        if self._tokens is None:
            self._tokens = ModelTokenCounter(self.embedder.token_starts(self.text))
        return self._tokens

    def grid(self) -> np.ndarray:
        """The pooling grid (computed once, on first long span)."""
        if self._grid is None:
            starts = self._block_starts() if callable(self._block_starts) else self._block_starts
            self._grid = GridBuilder(self.text, self.tokens(), self.limit).build(starts)
        return self._grid

    def fits(self, a: int, b: int) -> bool:
        """Whether ``text[a:b]`` fits the model in one piece."""
        lim = self.limit
        if lim is None or (b - a) * 4 + 1 <= lim:  # 4 UTF-8 bytes at most per code point
            return True
        if (b - a) + 1 <= lim and fits_quickly(self.text[a:b], lim):  # never true for longer spans
            return True
        return self.tokens().count(a, b) <= lim

    # -- embedding -----------------------------------------------------------------------------
    def get(self, spans: Sequence[Span]) -> np.ndarray:
        """``(len(spans), dim)`` normalised vectors; new spans embedded in one batched call."""
        spans = [(int(a), int(b)) for a, b in spans]
        self.stats["requested"] += len(spans)
        todo = [s for s in dict.fromkeys(spans) if s not in self._vectors]
        new = set(todo)
        self.stats["hits"] += sum(s not in new for s in spans)
        direct: dict[Span, None] = {}
        pooled: dict[Span, list[Span]] = {}
        for a, b in todo:
            if self.fits(a, b):
                direct[(a, b)] = None
                continue
            parts = pieces_of(self.grid(), a, b, self.tokens().count, self.text)
            if not parts:  # cannot happen for a span over the limit; embed it whole regardless
                direct[(a, b)] = None
                continue
            pooled[(a, b)] = parts
            direct.update((p, None) for p in parts if p not in self._vectors)
        self._encode_spans(list(direct))
        for span, parts in pooled.items():
            weights = np.array([self.tokens().count(*p) for p in parts], dtype=np.float32)
            self._vectors[span] = weighted_mean(weights, [self._vectors[p] for p in parts])
            self.stats["pooled"] += 1
        if not spans:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.stack([self._vectors[s] for s in spans])

    def _from_store(self, kind: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """Vectors another process already stored for ``keys`` (``kind``: piece or text)."""
        if self._log is None:
            return {}
        if self._stored is None:
            self._stored = self._log.load()
            self.stats["loaded"] = len(self._stored)
        found = {k: self._stored[kind + k] for k in keys if kind + k in self._stored}
        self.stats["stored_hits"] = self.stats.get("stored_hits", 0) + len(found)
        return found

    def _to_store(self, kind: str, keys: Sequence[str], vectors) -> None:
        if self._log is not None:
            self._log.append([kind + k for k in keys], vectors)

    def get_texts(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of free texts (not spans, e.g. a window with gaps), cached by content."""
        keys = [_digest(t) for t in texts]
        self.stats["text_requests"] += len(texts)
        new = {k: t for k, t in zip(keys, texts) if k not in self._by_text}
        if new:
            stored = self._from_store("t", list(new))
            self._by_text.update(stored)
            new = {k: t for k, t in new.items() if k not in stored}
        if new:
            vecs = self.embedder.embed(list(new.values()))
            self.stats["model_calls"] += 1
            self.stats["embedded"] += len(new)
            self._by_text.update(zip(new, vecs))
            self._to_store("t", list(new), vecs)
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.stack([self._by_text[k] for k in keys])

    def get_prefixed(self, prefixes: Sequence[str], spans: Sequence[Span]) -> np.ndarray:
        """Vectors of ``prefix + text[a:b]`` (e.g. a chunk with its heading path prepended).

        A pair that fits the model is embedded whole (cached by content). A longer one is pooled
        like any long span, over the prefix as one piece and the span's pieces of the document
        grid, which are already cached when the span's chunk was scored: only the prefixes cost
        a model call.
        """
        out = np.zeros((len(spans), self.embedder.dim), dtype=np.float32)
        whole: dict[int, str] = {}
        pooled: list[int] = []
        lim = self.limit
        prefix_tokens: dict[str, int] = {}  # heading paths repeat over a document's chunks

        def n_tokens(prefix: str) -> int:
            if prefix not in prefix_tokens:
                prefix_tokens[prefix] = len(self.embedder.token_starts(prefix))
            return prefix_tokens[prefix]

        for i, (prefix, (a, b)) in enumerate(zip(prefixes, spans)):
            if not prefix:
                continue
            text = prefix + self.text[a:b]
            # one token of margin: the junction of prefix and chunk may tokenise differently
            fits = lim is None or fits_quickly(text, lim) or (n_tokens(prefix) + self.tokens().count(a, b) + 1 <= lim)
            if fits:
                whole[i] = text
            else:
                pooled.append(i)
        plain = [i for i, p in enumerate(prefixes) if not p]
        if plain:
            out[plain] = self.get([spans[i] for i in plain])
        if whole:
            out[list(whole)] = self.get_texts(list(whole.values()))
        for i in pooled:
            a, b = spans[i]
            parts = pieces_of(self.grid(), a, b, self.tokens().count, self.text)
            weights = np.array([n_tokens(prefixes[i])] + [self.tokens().count(*p) for p in parts], dtype=np.float32)
            out[i] = weighted_mean(weights, np.concatenate([self.get_texts([prefixes[i]]), self.get(parts)]))
        return out

    def _encode_spans(self, spans: list[Span]) -> None:
        """Embed ``spans`` in one model call; a text already embedded at another span (blank
        pieces, repeated page footers) is not sent again."""
        if not spans:
            return
        texts = [self.text[a:b] for a, b in spans]
        new = [t for t in dict.fromkeys(texts) if t not in self._piece_texts]
        digests: dict[str, str] = {}
        if new and self._log is not None:  # texts are hashed only for a store
            digests = {t: _digest(t) for t in new}
            stored = self._from_store("p", list(digests.values()))
            self._piece_texts.update((t, stored[d]) for t, d in digests.items() if d in stored)
            new = [t for t in new if digests[t] not in stored]
        if new:
            vecs = normalise(self.embedder.encode(new))
            self._piece_texts.update(zip(new, vecs))
            self.stats["model_calls"] += 1
            self.stats["embedded"] += len(new)
            if digests:
                self._to_store("p", [digests[t] for t in new], vecs)
        self._vectors.update((s, self._piece_texts[t]) for s, t in zip(spans, texts))


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


# -- embedder resolution ---------------------------------------------------------------------
def _spec_dict(spec: Any) -> dict[str, Any]:
    if spec is None:
        return dict(DEFAULT_EMBEDDER)
    if hasattr(spec, "model_dump"):
        spec = spec.model_dump()
    return dict(spec)


def validate_spec(spec: Any) -> tuple[type, Any]:
    """The embedder class and its validated Params for ``{type: ..., **params}`` (no loading).

    Raises:
        ProfileError: ADA205 for an unknown type (with "did you mean"), ADA202/ADA203/ADA204 for
            bad params (:class:`~adachunk.errors.ProfileErrors` when there are several), through
            the one translator every registry shares (:func:`adachunk.components.build.component_params`).
    """
    from ...components.build import component_params
    from ...components.registry import embedders

    d = _spec_dict(spec)
    d.setdefault("type", DEFAULT_EMBEDDER["type"])
    return component_params(embedders, d, ("embedder",))


@lru_cache(maxsize=16)
def _load(spec_json: str) -> Embedder:
    cls, params = validate_spec(json.loads(spec_json))
    return cls(params)


def load_embedder(spec: Any = None) -> Embedder:
    """The embedder for a profile spec (``{type, model, ...}``, an ``EmbedderSpec`` or None for
    the default MiniLM), cached per process; an :class:`Embedder` instance is returned as is."""
    if isinstance(spec, Embedder):
        return spec
    return _load(json.dumps(_spec_dict(spec), sort_keys=True, default=str))


def document_span_embeddings(doc, spec: Any, memo) -> SpanEmbeddings:
    """The :class:`SpanEmbeddings` of ``doc`` for the embedder ``spec``, one per document and
    embedder in ``memo`` (the document's shared analysis: the metrics and the DP's
    ``semantic.shift.v1`` structures embed each span once between them)."""
    from .blocks import block_starts

    from ...analysis import analysis_of

    emb = load_embedder(spec)
    # with an analysis store, the vectors outlive the process (tune, ab, run --resume)
    log = analysis_of(doc).vector_log("emb." + hashlib.sha256(emb.fingerprint.encode()).hexdigest()[:24])
    return memo(("span_embeddings", emb.fingerprint), lambda: SpanEmbeddings(
        doc.text, emb, lambda: block_starts(doc, "auto", memo)[0], log=log))


def embedding_counts(doc, ctx=None) -> dict[str, int]:
    """What the document's embedders were asked and what they computed, over every stage that
    shared them (candidates, metrics, structures, and the retrieval-fit probes of ``ctx``, a
    :class:`~adachunk.metrics.base.MetricContext`): ``asked`` (spans and texts requested),
    ``embedded`` (texts sent to a model), ``model_calls`` and ``stored`` (vectors loaded from an
    analysis store). Empty when nothing was embedded."""
    from ...analysis import analysis_of

    caches = list(analysis_of(doc).cached("span_embeddings"))
    if ctx is not None:
        caches += [probe.spans for probe in ctx.cached("rf.index")]
    out = {"asked": 0, "embedded": 0, "model_calls": 0, "stored": 0}
    for emb in caches:
        st = emb.stats
        out["asked"] += st["requested"] + st["text_requests"]
        out["embedded"] += st["embedded"]
        out["model_calls"] += st["model_calls"]
        out["stored"] += st.get("stored_hits", 0)
    return out if caches else {}


def span_embeddings(ctx) -> SpanEmbeddings:
    """The document's :class:`SpanEmbeddings` for the profile's embedder (one per document)."""
    return document_span_embeddings(ctx.doc, ctx.embedder, ctx.memo)
