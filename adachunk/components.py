"""Import the built-in component modules so their registrations run (cheap: heavy libraries are
imported lazily inside the components themselves)."""

from __future__ import annotations

import importlib

_BUILTIN_MODULES = (
    "adachunk.tokenize",
    "adachunk.cost.punishments",
    "adachunk.detect.markdown",
    "adachunk.detect.text_units",
    "adachunk.detect.regex",
    "adachunk.detect.grammar",
    "adachunk.split.dp",
    "adachunk.ingest.pdf",
    "adachunk.metrics.embedders", "adachunk.metrics.cohesion", "adachunk.metrics.coherence", "adachunk.split.semantic",
    "adachunk.split.llm_regex",
    "adachunk.split.fixed", "adachunk.split.recursive", "adachunk.split.page", "adachunk.split.sentence",
    "adachunk.metrics.size", "adachunk.metrics.blocks", "adachunk.metrics.references", "adachunk.metrics.coref.precomputed",
    "adachunk.metrics.coref.heuristic", "adachunk.metrics.coref.maverick",
)
_loaded = False


def ensure_builtins() -> None:
    """Register every built-in detector, shape, tokenizer and splitter (idempotent)."""
    global _loaded
    if _loaded:
        return
    for name in _BUILTIN_MODULES:
        importlib.import_module(name)
    _loaded = True
