"""The corpus run, its index and the search over it (``adachunk run``), the analysis store."""

from __future__ import annotations

from ..analysis.store import use_store
from ..enrich.expand import expand_hits
from ..models.embedders import load_embedder
from ..runner.run import run_corpus
from ..sink.vectors import open_sink, read_index_meta

__all__ = ["expand_hits", "load_embedder", "open_sink", "read_index_meta", "run_corpus", "use_store"]
