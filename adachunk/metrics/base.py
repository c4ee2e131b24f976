"""The metric contract shared by SC, BI, RC, ICC and DCC.

A metric is a class registered in :data:`adachunk.components.registry.metrics` under a versioned name
(``sc.v1``) with a short ``key`` (``sc``) used in profile weights and outputs. ``score(chunks,
ctx)`` returns a :class:`MetricResult`: a value in [0, 1], or ``None`` with the reason, plus
per-chunk detail for reports.

One :class:`MetricContext` is made per document and shared by every candidate chunking of that
document, so expensive per-document work (coreference, embeddings of spans that several
candidates share) runs once: use :meth:`MetricContext.memo`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Mapping

from ..datatypes import Chunk, Document, Memo


@dataclass
class MetricResult:
    """A metric's outcome for one chunking.

    Attributes:
        value: score in [0, 1], or None when the metric is undefined for this input.
        reason: why the value is None (or a note, e.g. how many pairs were dropped).
        detail: per-chunk (or per-item) records for reports.
    """

    value: float | None
    reason: str | None = None
    detail: list[dict[str, Any]] = field(default_factory=list)


# Memo keys (first element) that are pure functions of the document and the key's own parameters.
SHARED_KEYS = frozenset({"markdown.blocks", "markdown.block_rows", "coref.pairs", "span_embeddings"})


class MetricContext(Memo):
    """Per-document state shared across candidates.

    Attributes:
        doc: the document.
        settings: the profile's ``metrics`` section (:class:`~adachunk.policy_types.MetricsSpec`).
        counter: the o200k token counter (or the one given).
        chunk_tokenizer: the tokenizer that counted the chunks' own ``tokens`` (None: unknown,
            the counts are taken as they are).
        embedder: an embedder instance to use instead of ``settings.embedder`` (tests,
            benchmarks), or None.
        retrieval: the profile's retrieval regime (:class:`~adachunk.policy_types.RetrievalSpec`;
            the default regime when none is given), read by ``rf``.
        index_embedder: the index's embedder spec (None: the metrics embedder), which the regime's
            ``embedder: index`` means.
        pool: the chunk spans of every chunking about to be scored in this context (set by the
            selection before it scores its candidates; empty: not known). ``rf`` cuts its
            sentence grid at their edges too, so that the candidates share every piece it embeds.
    """

    def __init__(self, doc: Document, settings: Any = None, counter=None, *,
                 chunk_tokenizer: str | None = None, embedder: Any = None, retrieval: Any = None,
                 index_embedder: Any = None):
        from ..analysis import analysis_of
        from ..policy_types import DEFAULT_RETRIEVAL, EmbedderSpec, RetrievalSpec, metrics_section
        from ..tokens import get_counter

        super().__init__()
        self.doc = doc
        if isinstance(settings, Mapping):  # a hand-made context: the section's keys, maybe an embedder instance
            settings = dict(settings)
            chunk_tokenizer = settings.pop("chunk_tokenizer", chunk_tokenizer)
            given = settings.get("embedder")
            if given is not None and not isinstance(given, (Mapping, EmbedderSpec)):
                embedder = settings.pop("embedder")
        self.settings = metrics_section(settings)
        self.chunk_tokenizer = chunk_tokenizer
        self.embedder = embedder if embedder is not None else self.settings.embedder
        self.counter = counter or get_counter("o200k_base")
        if retrieval is None or isinstance(retrieval, RetrievalSpec):
            self.retrieval = retrieval or DEFAULT_RETRIEVAL
        else:
            self.retrieval = RetrievalSpec.model_validate(retrieval)
        self.index_embedder = index_embedder
        self.pool: tuple[tuple[int, int], ...] = ()
        self._shared = analysis_of(doc)

    def memo(self, key: Any, compute: "Callable[[], Any]") -> Any:
        """Like :meth:`Memo.memo`; facts of the document alone (its Markdown parse, its
        coreference pairs and span embeddings under a given spec) live in the document's shared
        analysis, so the detectors of the DP and the metrics compute them once between them."""
        if isinstance(key, tuple) and key and key[0] in SHARED_KEYS:
            return self._shared.memo(key, compute)
        return super().memo(key, compute)


class Metric:
    """Base class: subclasses set ``key`` and implement :meth:`score`; ``embeds`` says whether
    scoring runs the metrics embedder (the run loads the model only where one does)."""

    key: ClassVar[str] = ""
    embeds: ClassVar[bool] = False

    def score(self, chunks: list[Chunk], ctx: MetricContext) -> MetricResult:  # pragma: no cover
        """Score one chunking (chunks with exact offsets into ``ctx.doc.text``)."""
        raise NotImplementedError
