"""The index's vectors of one document's chunk records (what ``adachunk run`` writes to the store).

When the index uses the metrics' embedder, the vectors come from the document's span cache
(the winner's chunks were embedded while scoring it): with ``embed_text: text`` they are
exactly those vectors; with a prefix (heading path, table header...) prepended, a chunk that
still fits the model is embedded whole, and a longer one is pooled over its prefix and its
cached pieces, so only the prefixes and the short chunks are new model input. With
``table_rows: plain`` a chunk holding a pipe table is embedded afresh as plain rows (a long one
pooled). Another index embedder embeds the texts afresh, cached by text like the metrics' vectors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..models.embedders.spans import document_span_embeddings, load_embedder, span_embeddings
from .records import embed_prefix, embed_text


def index_vectors(records: list[dict[str, Any]], policy, ctx) -> np.ndarray:
    """``(len(records), dim)`` float32 index vectors of the winner's chunk records.

    Args:
        records: the document's chunk records (with their ``start``/``end`` and metadata).
        policy: the resolved policy (its ``index`` and ``metrics`` sections).
        ctx: the document's metric context (its span cache and memo).
    """
    mode, rows = policy.index.embed_text, policy.index.table_rows
    spec = policy.index.embedder
    if spec is None or spec == policy.metrics.embedder:
        spans = span_embeddings(ctx)
        out = spans.get_prefixed([embed_prefix(r, mode) for r in records], [(r["start"], r["end"]) for r in records])
        if rows == "plain":
            _plain_tables(out, spans, records, mode)
        return out
    load_embedder(spec)  # fail early, with the index's own error, when the model is missing
    spans = document_span_embeddings(ctx.doc, spec, ctx.memo)
    return np.asarray(spans.get_texts([embed_text(r, mode, rows) for r in records]), dtype=np.float32)


def _plain_tables(out: np.ndarray, spans, records: list[dict[str, Any]], mode) -> None:
    """Re-embed, in place, the chunks whose embedded string changes with plain table rows (only
    those: a chunk without a table keeps its cached vector)."""
    from .table_rows import plain_rows

    texts = {}  # record number -> its plain string, where it differs from the pipe one
    for i, r in enumerate(records):
        piped = embed_text(r, mode)
        plain = plain_rows(piped)
        if plain != piped:
            texts[i] = plain
    if texts:
        out[list(texts)] = np.asarray(spans.get_texts(list(texts.values())), dtype=np.float32)
