"""``rf.v1``: Retrieval Fit, the share of the answers a reader retrieves from a chunking.

The paper's five metrics describe chunks; none says whether the chunks can be *found*, and four
of them grow with chunk size, so a selection on them picks the largest candidate whatever the
reader can use (chroma-dev: 43.5% of the evidence within 1,000 tokens, against 89-91% for a
plain 200-token splitter). This metric asks each document questions made from its own text
(:mod:`adachunk.metrics._probes`) and retrieves, among the candidate's chunks of that document,
as the profile's ``retrieval`` section says the reader will:

* **retrievers**: ``dense`` ranks chunks by the cosine between the query's embedding and the
  chunk's, with the regime's embedder; ``bm25`` by Okapi BM25 over the chunk's words
  (:class:`adachunk.retrieval.retrievers.BM25Retriever`); ``hybrid`` fuses both rankings (RRF, k = 60).
* **what the embedder reads**: with ``long_chunks: truncate`` only the chunk's first
  ``max_tokens`` model tokens (the rest is invisible to dense retrieval, as in a vector store
  that hands chunks to the model as they are); with ``pool``, all of it.
* **budgets**: chunks are read in rank order while they fit, the last one truncated (no more
  than ``retrieval.k`` chunks when set); the probe scores the share of its answer passage read.
  The probes retrieve among their own document's chunks only, while the index ranks them among
  every document's, so each budget is scaled by ``retrieval.document_share`` (0.25 by default):
  the part of the reader's budget a document's chunks get next to the others'. Read in full
  within one document, a budget is generous enough that large chunks lose little; scaled, the
  measure prefers the sizes that retrieve better corpus-wide (``bench/RESULTS.md``, "Retrieval
  fit", the budget share).

The value is the mean over probes, then over (retriever, budget) pairs; ``detail`` gives each
pair. None when the document has no prose sentence to ask about.

**Cost.** A chunk's dense vector is the token-weighted mean of the embeddings of the sentences
its visible part covers (a grid of sentence and line starts, pieces within the model's input
limit, :mod:`adachunk.models.embedders.pooling`), so the document is embedded about once for
every candidate of the pool together. The selection names its pool ahead
(:attr:`MetricContext.pool`): the grid then also cuts at every candidate's chunk edges and
where the model stops reading each chunk, and no text is embedded twice (CLAIR, sampled: 383,000
model tokens against 496,000 with pieces cut per chunk). A chunking outside the pool makes new
pieces only where its edges fall inside a sentence (:meth:`ProbeIndex._snap`).
The mean of sentence vectors approximates the vector of their concatenation; on chroma-dev its
ordering of 16 candidates agrees with the exact vectors' (``bench/RESULTS.md``, "Retrieval fit").
"""

from __future__ import annotations

import math
import re
from typing import Any, Sequence

import numpy as np

from ..components.registry import metrics
from ..datatypes import Chunk
from ._sample import meets, share_of, windows, within
from .base import Metric, MetricContext, MetricResult
from ..models.embedders.base import weighted_mean

Span = tuple[int, int]
RRF_K = 60
_NEWLINE = re.compile("\n")


def regime_embedder(ctx: MetricContext) -> Any:
    """The embedder the regime names: its own spec, else the index's, else the metrics'."""
    chosen = ctx.retrieval.embedder
    if chosen != "index":
        return chosen
    return ctx.index_embedder if ctx.index_embedder is not None else ctx.embedder


def stand_in(regime: Any, reader: Any = None) -> Any:
    """The embedder spec that ranks chunks for the dense reader while choosing, or None where the
    reader's own embedder does (``estimate: exact``, or ``bm25``, which needs no model).

    ``estimate: int8`` is the reader's own sentence-transformers model quantised to int8 (another
    kind of reader has no int8 form: it ranks exactly). A quantised stand-in is a CPU speed-up:
    where this run's models go to a GPU (``--device cuda``, or ``auto`` with one) the reader ranks
    exactly instead: the int8 graph runs on the CPU only, and moving the choice back to the CPU
    beside a GPU would make it slower, not cheaper (unmeasured here: no GPU).

    Args:
        regime: the profile's ``retrieval`` section.
        reader: the reader's embedder (a spec, None for the default model, or an instance).

    Returns:
        The stand-in's ``EmbedderSpec``, or None.
    """
    from ..models.embedders.base import Embedder
    from ..models.embedders.spans import _spec_dict

    est = regime.estimate
    if est == "int8":
        if isinstance(reader, Embedder):
            params = getattr(reader, "params", None)
            reader = {"type": reader.type_name, **(params.model_dump() if params is not None else {})}
        spec = _spec_dict(reader)
        if spec.get("type", "sentence_transformers.v1") != "sentence_transformers.v1" \
                or spec.get("quantize", "none") != "none":
            return None
        spec = {**spec, "type": "sentence_transformers.v1", "quantize": "int8"}
    elif hasattr(est, "model_dump"):
        spec = _spec_dict(est)
    else:
        return None
    if spec.get("quantize", "none") != "none":
        from ..errors import ProfileError
        from ..models.device import requested, resolve

        try:
            if resolve(requested(str(spec.get("device", "cpu")))) != "cpu":
                return None
        except ProfileError:  # CUDA asked for and missing: the reader's own load says so, located
            return None
    from ..policy_types import EmbedderSpec

    return EmbedderSpec(**spec)


def stand_in_label(regime: Any, reader: Any = None) -> str | None:
    """What stood in for the dense reader, as decisions.jsonl says it: ``bm25``, the stand-in
    embedder's type (with its quantisation), or None (the reader itself)."""
    if regime.estimate == "bm25":
        return "bm25"
    spec = stand_in(regime, reader)
    if spec is None:
        return None
    quantize = spec.model_dump().get("quantize", "none")
    return spec.type if quantize == "none" else f"{spec.type} ({quantize})"


def probe_index(ctx: MetricContext) -> "ProbeIndex":
    """The document's :class:`ProbeIndex` for the regime (one per document, embedder and mode)."""
    import hashlib

    from ..analysis import analysis_of
    from ..models.embedders.spans import load_embedder

    reader_spec = regime_embedder(ctx)
    reader = load_embedder(reader_spec)
    spec = stand_in(ctx.retrieval, reader_spec)
    # a stand-in model ranks what the reader's embedder would read of each chunk (its tokenizer only)
    emb = reader if spec is None else load_embedder(spec)
    mode = ctx.retrieval.long_chunks
    # the vectors are keyed by text, so they share the analysis store's log with ICC/DCC's
    log = analysis_of(ctx.doc).vector_log("emb." + hashlib.sha256(emb.fingerprint.encode()).hexdigest()[:24])
    # the int8 stand-in is the reader's own model quantised: the same tokenizer, read once
    same = ctx.retrieval.estimate == "int8"
    return ctx.memo(("rf.index", emb.fingerprint, reader.fingerprint, mode),
                    lambda: ProbeIndex(ctx.doc.text, emb, mode, log, reader=None if emb is reader else reader,
                                       same_tokens=same, pool=ctx.pool))


class ProbeIndex:
    """Dense retrieval over chunkings of one document, sharing sentence embeddings between them."""

    def __init__(self, text: str, embedder: Any, long_chunks: str, log: Any = None, reader: Any = None,
                 same_tokens: bool = False, pool: Sequence[Span] = ()):
        from ..detect.text_units import split_sentences
        from ..models.embedders.pooling import GridBuilder
        from ..models.embedders.spans import SpanEmbeddings, load_embedder

        self.embedder = load_embedder(embedder)
        self.spans = SpanEmbeddings(text, self.embedder, log=log)
        # the reader's embedder decides what of a chunk is visible; only its tokenizer runs when a
        # stand-in model (retrieval.estimate) embeds
        self.reader = self.embedder if reader is None else load_embedder(reader)
        self._seen = self.spans if reader is None or same_tokens else SpanEmbeddings(text, self.reader)
        self.truncate = long_chunks == "truncate"
        if self.spans.limit is not None:
            starts = {s for s, _ in split_sentences(text)}
            starts.update(m.end() for m in _NEWLINE.finditer(text))
            # the pool's chunk edges and where the reader stops reading each (the grid is not built
            # yet: visible() does not snap): every chunk of the pool is then whole pieces, embedded
            # once for all candidates, and read exactly as far as the model reads it
            starts.update(x for a, b in pool for x in (a, b, self.visible(a, b)))
            self.spans._grid = GridBuilder(text, self.spans.tokens(), self.spans.limit).build(sorted(starts))

    def visible(self, a: int, b: int) -> int:
        """End of what the embedder reads of ``[a, b)``."""
        lim = self.reader.max_tokens
        if not self.truncate or lim is None or self._seen.fits(a, b):
            return b
        starts = self._seen.tokens().starts
        r = int(np.searchsorted(starts, a, side="left")) + lim
        return b if r >= len(starts) else self._snap(a, max(a + 1, min(b, int(starts[r]))))

    def _snap(self, a: int, end: int) -> int:
        """``end`` moved back to the last grid point (sentence or line start) after ``a``.

        For a chunk outside the pool the grid was cut for (the pool's own read ends are grid
        points: nothing moves). The model stops reading a truncated chunk inside a sentence;
        embedding that sentence's head would make a piece no other chunk shares. Read to the
        sentence edge before it, the chunk's vector is the mean of whole grid pieces that other
        chunks also cover, and it still holds nothing the model would not read. A chunk whose
        head is one sentence longer than the model reads keeps that head.
        """
        grid = self.spans._grid
        if grid is None:
            return end
        i = int(np.searchsorted(grid, end, side="right"))
        return int(grid[i - 1]) if i > 0 and grid[i - 1] > a else end

    def chunk_vectors(self, spans: Sequence[Span]) -> np.ndarray:
        """One normalised vector per chunk span (see the module docstring, "Cost")."""
        from ..models.embedders.pooling import pieces_of

        if self.spans.limit is None:  # a model without an input limit reads what the reader's would
            return self.spans.get([(a, self.visible(a, b)) for a, b in spans])
        grid, count = self.spans.grid(), self.spans.tokens().count
        per = []
        for a, b in spans:
            end = self.visible(a, b)
            per.append(pieces_of(grid, a, end, count, self.spans.text) or [(a, end)])
        flat = list(dict.fromkeys(p for parts in per for p in parts))
        vecs = dict(zip(flat, self.spans.get(flat)))
        out = np.zeros((len(spans), self.embedder.dim), dtype=np.float32)
        for i, parts in enumerate(per):
            w = np.array([max(1, count(*p)) for p in parts], dtype=np.float32)
            out[i] = weighted_mean(w, [vecs[p] for p in parts])
        return out

    def rank(self, spans: Sequence[Span], queries: Sequence[str]) -> list[np.ndarray]:
        """Per query, chunk numbers best first."""
        scores = self.spans.get_texts(list(queries)) @ self.chunk_vectors(spans).T
        return [np.argsort(-row.astype(np.float64), kind="stable") for row in scores]


def rankings(ctx: MetricContext, spans: Sequence[Span], queries: Sequence[str]) -> dict[str, list[np.ndarray]]:
    """Per retriever of the regime, per query, the chunk numbers best first. With ``estimate:
    bm25`` BM25's ranking stands in for the dense and hybrid readers (no model pass)."""
    regime = ctx.retrieval
    ranked: dict[str, list[np.ndarray]] = {}
    if regime.fit_uses_bm25():
        ranked["bm25"] = _bm25(ctx.doc.text, spans, queries)
    if regime.estimate == "bm25":
        return {r: ranked["bm25"] for r in regime.retrievers}
    if regime.fit_embeds():
        ranked["dense"] = probe_index(ctx).rank(spans, queries)
    if "hybrid" in regime.retrievers:
        ranked["hybrid"] = _hybrid(ranked["bm25"], ranked["dense"])
    return ranked


def _bm25(text: str, spans: Sequence[Span], queries: Sequence[str]) -> list[np.ndarray]:
    from ..retrieval.retrievers import BM25Retriever, span_tokens

    return BM25Retriever().rank([text[a:b] for a, b in spans], list(queries), tokens=span_tokens(text, spans))


def _hybrid(a: list[np.ndarray], b: list[np.ndarray]) -> list[np.ndarray]:
    from ..retrieval.retrievers import rrf

    return [rrf([x, y], RRF_K) for x, y in zip(a, b)]


def document_budget(budget: int, share: float) -> int:
    """The tokens of ``budget`` that one document's own chunks get (``retrieval.document_share``):
    in the index, the other documents' chunks take the rest of the reader's budget."""
    return max(1, round(budget * share))


def read_share(order: Sequence[int], starts: Sequence[int], ends: Sequence[int], tokens: Sequence[int],
               evidence: Sequence[Span], budget: int, k: int | None) -> float:
    """The share of ``evidence`` characters in the chunks (``starts``, ``ends``) read in ``order``
    within ``budget``."""
    from ..retrieval.measures import covered_chars, take

    taken = take(order, starts, ends, tokens, k, budget)
    size = sum(b - a for a, b in evidence)
    return covered_chars(evidence, [(s, e) for _, s, e, _ in taken]) / size if size else 0.0


@metrics.register("rf.v1")
class RetrievalFit(Metric):
    """Mean share of probe answers read within the regime's budgets (see the module docstring)."""

    key = "rf"

    def score(self, chunks: list[Chunk], ctx: MetricContext) -> MetricResult:
        """Score one chunking; detail holds the recall per (retriever, budget)."""
        if not chunks:
            return MetricResult(None, "no chunks")
        regime = ctx.retrieval
        sample = ctx.memo(("rf.sample", regime.sample), lambda: windows(len(ctx.doc.text), regime.sample))
        probes = ctx.memo(("rf.probes", regime.queries, regime.sample), lambda: _probes(ctx.doc.text, regime.queries, sample))
        if not probes:
            return MetricResult(None, "no prose sentence to ask about")
        if sample is not None:  # only the chunks that meet the sample compete (module _sample)
            chunks = [c for c in chunks if meets(c.start, c.end, sample)]
        spans = [(c.start, c.end) for c in chunks]
        tokens = [max(0, int(c.tokens)) for c in chunks]
        starts, ends = [a for a, _ in spans], [b for _, b in spans]
        queries = [p.query for p in probes]
        ranked = rankings(ctx, spans, queries)
        by = stand_in_label(regime, regime_embedder(ctx))  # what stood in for the dense reader, said in each of its entries
        detail = []
        for r in regime.retrievers:
            for budget in regime.budgets:
                read = document_budget(budget, regime.document_share)
                shares = [read_share(order, starts, ends, tokens, p.evidence, read, regime.k)
                          for p, order in zip(probes, ranked[r])]
                entry = {"retriever": r, "budget": budget, "read": read, "recall": round(float(np.mean(shares)), 6)}
                if by and r != "bm25":
                    entry["estimated_by"] = by
                detail.append(entry)
        value = float(np.mean([d["recall"] for d in detail]))
        note = f"{len(probes)} probes" + ("" if sample is None else
                                          f" in {share_of(sample, len(ctx.doc.text)):.0%} of the text")
        return MetricResult(value, note, detail)


def _probes(text: str, queries: int, sample: list[Span] | None) -> list:
    """The document's probes, or with a sample about as many inside it: probes spread over the
    whole text, as many more as the sample is smaller, keeping those whose passage it holds."""
    from ._probes import document_probes

    if sample is None:
        return document_probes(text, queries)
    n = math.ceil(queries / share_of(sample, len(text)))
    return document_probes(text, n, keep=lambda evidence: within(evidence, sample))
