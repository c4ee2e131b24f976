"""Retrievers for the evaluation and the ``rf.v1`` metric: BM25 (``bm25s``), dense (a registered
embedder), hybrid (RRF).

Each retriever ranks a list of texts for each query and returns, per query, chunk numbers
(indices into the texts) best first. Ties break by the text's position, so every ranking is
deterministic. ``bm25s`` and the embedder are imported on first use.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

# Numbers keep their inner separators ("412,860", "9.7") so that figures match as one term.
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+|\d+", re.UNICODE)
# A short English stop list: BM25's IDF already discounts them, but dropping them keeps
# question words ("what", "which") from matching every chunk that happens to contain them.
STOPWORDS = frozenset("""
a about after all also an and any are as at be been before being between both but by can could
did do does each for from had has have how i if in into is it its just may might more most must
no not of on one only or other our out over same shall should so such than that the their them
then there these they this those to under until up very was we were what when where which while
who whom why will with would you your
""".split())


def tokenize(text: str) -> list[str]:
    """Case-folded words and numbers of ``text`` without stop words (deterministic, no stemmer)."""
    return [t for t in map(str.casefold, _TOKEN.findall(text)) if t not in STOPWORDS]


_DOC_TOKENS: dict[tuple[str, int], tuple[np.ndarray, np.ndarray, list[str]]] = {}
_MAX_DOCS = 4096


def _doc_tokens(text: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Starts, ends and terms of the kept tokens of a whole document (cached per text)."""
    key = (text[:64], hash(text))  # str caches its hash: cheap for the same document object
    hit = _DOC_TOKENS.get(key)
    if hit is None:
        starts, ends, terms = [], [], []
        for m in _TOKEN.finditer(text):
            t = m.group().casefold()
            if t not in STOPWORDS:
                starts.append(m.start())
                ends.append(m.end())
                terms.append(t)
        if len(_DOC_TOKENS) >= _MAX_DOCS:
            _DOC_TOKENS.clear()
        hit = _DOC_TOKENS[key] = (np.asarray(starts, np.int64), np.asarray(ends, np.int64), terms)
    return hit


def span_tokens(text: str, spans: Sequence[tuple[int, int]]) -> list[list[str]]:
    """``tokenize(text[s:e])`` for each span, from one tokenisation of the whole text.

    A token wholly inside a span is the same token in the span's own tokenisation (tokens are
    maximal runs of letters, or of digits with inner separators); only the span's two edges,
    where a token may be cut, are tokenised again. ``adachunk tune`` evaluates many chunkings
    of the same documents, so the document is tokenised once, not once per chunking.
    """
    starts, ends, terms = _doc_tokens(text)
    out = []
    for s, e in spans:
        i0 = int(np.searchsorted(starts, s, "left"))
        i1 = int(np.searchsorted(ends, e, "right"))
        if i1 <= i0:
            out.append(tokenize(text[s:e]))
            continue
        out.append(tokenize(text[s:int(starts[i0])]) + terms[i0:i1] + tokenize(text[int(ends[i1 - 1]):e]))
    return out


def _order(scores: np.ndarray, top: int | None) -> np.ndarray:
    """Indices by descending score, ties by index; the first ``top`` (all when None)."""
    order = np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")
    return order if top is None else order[:top]


class BM25Retriever:
    """Okapi BM25 (``bm25s``, Lucene variant, k1 = 1.5, b = 0.75) over :func:`tokenize` terms."""

    name = "bm25"

    def __init__(self, k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b

    def rank(self, texts: Sequence[str], queries: Sequence[str], top: int | None = None,
             tokens: Sequence[list[str]] | None = None) -> list[np.ndarray]:
        """Per query, the text numbers best first (``top`` of them when given); ``tokens``:
        the texts already tokenised by :func:`tokenize` (e.g. by :func:`span_tokens`)."""
        if not texts:
            return [np.zeros(0, np.int64) for _ in queries]
        import bm25s

        index = bm25s.BM25(k1=self.k1, b=self.b)
        index.index(list(tokens) if tokens is not None else [tokenize(t) for t in texts], show_progress=False)
        return [_order(index.get_scores(tokenize(q)), top) for q in queries]


_VECTORS: dict[tuple[str, str], np.ndarray] = {}  # (embedder fingerprint + mode, text) -> vector
_MAX_CACHED = 200_000  # texts; `adachunk tune` re-embeds the same chunks across trials
#: How a dense retriever embeds a text longer than the model's input.
LONG_TEXT = ("pool", "truncate")


def embed_cached(embedder, texts: Sequence[str], long_text: str = "pool", store: Any = None) -> np.ndarray:
    """Normalised vectors of ``texts``, each distinct text embedded once per process.

    ``long_text``: ``pool`` embeds a text over the model's input limit as the mean of pieces
    that fit (:meth:`~adachunk.models.embedders.base.Embedder.embed`); ``truncate`` lets the
    model read its first tokens only (:meth:`~adachunk.models.embedders.base.Embedder.encode`),
    as a vector store that hands chunks to the model as they are does.

    ``store``: a persistent cache (:class:`adachunk.retrieval.store.VectorStore`, or any object
    with ``get(key, texts) -> {text: vector}`` and ``put(key, texts, vectors)``): texts missing
    from the process cache are looked up there first, and what is embedded is added to it.
    """
    fp = embedder.fingerprint + ("" if long_text == "pool" else "|" + long_text)
    missing = list(dict.fromkeys(t for t in texts if (fp, t) not in _VECTORS))
    if missing:
        if len(_VECTORS) + len(missing) > _MAX_CACHED:
            _VECTORS.clear()
        if store is not None:
            for t, v in store.get(fp, missing).items():
                _VECTORS[(fp, t)] = np.asarray(v, dtype=np.float32)
            missing = [t for t in missing if (fp, t) not in _VECTORS]
    if missing:
        vecs = embedder.embed(missing) if long_text == "pool" else embedder.encode(missing)
        vecs = np.asarray(vecs, dtype=np.float32)
        for t, v in zip(missing, vecs):
            _VECTORS[(fp, t)] = v
        if store is not None:
            store.put(fp, missing, vecs)
    if not texts:
        return np.zeros((0, embedder.dim), np.float32)
    return np.stack([_VECTORS[(fp, t)] for t in texts])


class DenseRetriever:
    """Cosine similarity of normalised embeddings (the profile's index embedder by default)."""

    name = "dense"

    def __init__(self, embedder: Any = None, long_text: str = "pool", store: Any = None):
        from ..models.embedders import load_embedder

        if long_text not in LONG_TEXT:
            raise ValueError(f"unknown long_text {long_text!r}; allowed: {', '.join(LONG_TEXT)}")
        self.embedder = load_embedder(embedder)
        self.long_text = long_text
        self.store = store  # a persistent vector cache (adachunk.retrieval.store.VectorStore) or None

    def rank(self, texts: Sequence[str], queries: Sequence[str], top: int | None = None) -> list[np.ndarray]:
        """Per query, the text numbers best first (``top`` of them when given)."""
        if not texts:
            return [np.zeros(0, np.int64) for _ in queries]
        c = embed_cached(self.embedder, list(texts), self.long_text, self.store)
        q = embed_cached(self.embedder, list(queries), self.long_text, self.store)
        scores = q @ c.T
        return [_order(row, top) for row in scores]


def rrf(rankings: Sequence[Sequence[int]], k: int = 60, top: int | None = None) -> np.ndarray:
    """Reciprocal rank fusion: score(d) = Σ_r 1 / (k + rank_r(d)), ranks from 1.

    A text absent from a ranking gets nothing from it. Ties break by the text's number.
    """
    score: dict[int, float] = {}
    for ranking in rankings:
        for r, d in enumerate(ranking, 1):
            score[int(d)] = score.get(int(d), 0.0) + 1.0 / (k + r)
    order = sorted(score, key=lambda d: (-score[d], d))
    return np.asarray(order if top is None else order[:top], dtype=np.int64)


class HybridRetriever:
    """BM25 and dense fused by reciprocal rank fusion over their full rankings."""

    name = "hybrid"

    def __init__(self, embedder: Any = None, rrf_k: int = 60, long_text: str = "pool", store: Any = None):
        self.bm25, self.dense, self.rrf_k = BM25Retriever(), DenseRetriever(embedder, long_text, store), rrf_k

    def rank(self, texts: Sequence[str], queries: Sequence[str], top: int | None = None,
             tokens: Sequence[list[str]] | None = None) -> list[np.ndarray]:
        """Per query, the fused text numbers best first (``top`` of them when given)."""
        a, b = self.bm25.rank(texts, queries, tokens=tokens), self.dense.rank(texts, queries)
        return [rrf([x, y], self.rrf_k, top) for x, y in zip(a, b)]


RETRIEVERS = ("bm25", "dense", "hybrid")


def make_retriever(name: Any, embedder: Any = None, rrf_k: int = 60, long_text: str = "pool", store: Any = None):
    """A retriever by name (``bm25``, ``dense``, ``hybrid``); an object with ``rank`` as is.

    ``long_text`` (``pool`` or ``truncate``): how the dense side embeds texts longer than the
    model's input (see :func:`embed_cached`); ``store``: the dense side's persistent vector cache
    (see :func:`embed_cached`; None: the process cache only).

    Raises:
        ValueError: an unknown name.
    """
    if hasattr(name, "rank"):
        return name
    if name == "bm25":
        return BM25Retriever()
    if name == "dense":
        return DenseRetriever(embedder, long_text, store)
    if name == "hybrid":
        return HybridRetriever(embedder, rrf_k, long_text, store)
    raise ValueError(f"unknown retriever {name!r}; allowed: {', '.join(RETRIEVERS)}")
