"""Make the built-in components known to their registries.

The engine's own modules (tokenizers, shapes, Markdown/text/regex detectors, the DP splitter,
the text readers) are imported: every command needs them. The others are declared lazily (name
-> module, :meth:`~adachunk.components.registry.Registry.lazy`; the PDF reader in ``adachunk.ingest``): a
profile may name them, validation and "did you mean" know them, and their module (Lark, the metrics, the other splitters) is imported only
when a profile uses one, which keeps ``adachunk chunk`` start-up short.
``tests/test_registry.py`` checks that each module registers exactly the names declared here.
"""

from __future__ import annotations

import importlib

_EAGER_MODULES = (
    "adachunk.tokens",
    "adachunk.cost.punishments",
    "adachunk.detect.markdown",
    "adachunk.detect.text_units",
    "adachunk.detect.regex",
    "adachunk.detect.text_units.line_break",
    "adachunk.detect.document",
    "adachunk.detect.tables",
    "adachunk.split.dp",
)
# registry name -> {component name -> module that registers it}
LAZY: dict[str, dict[str, str]] = {
    "detectors": {"grammar.lark.v1": "adachunk.detect.grammar", "coref.pair.v1": "adachunk.detect.coref",
                  "semantic.shift.v1": "adachunk.detect.semantic_shift",
                  "section.v1": "adachunk.detect.sections"},
    "splitters": {
        "fixed.v1": "adachunk.split.fixed", "recursive.v1": "adachunk.split.recursive",
        "page.v1": "adachunk.split.page", "sentence.v1": "adachunk.split.sentence",
        "semantic.v1": "adachunk.split.semantic", "llm_regex.v1": "adachunk.split.llm_regex",
    },
    "metrics": {
        "sc.v1": "adachunk.metrics.size", "bi.v1": "adachunk.metrics.blocks", "rc.v1": "adachunk.metrics.references",
        "icc.v1": "adachunk.metrics.cohesion", "dcc.v1": "adachunk.metrics.coherence",
        "rf.v1": "adachunk.metrics.retrieval", "bi_cut.v1": "adachunk.metrics.per_cut",
        "rc_cut.v1": "adachunk.metrics.per_cut",
    },
    "embedders": {
        "hash.v1": "adachunk.models.embedders", "model2vec.v1": "adachunk.models.embedders",
        "sentence_transformers.v1": "adachunk.models.embedders",
    },
    "coref": {
        "precomputed.v1": "adachunk.models.coref.precomputed", "heuristic.v1": "adachunk.models.coref.heuristic",
        "maverick.v1": "adachunk.models.coref.maverick",
    },
}
_loaded = False


def ensure_builtins() -> None:
    """Register every built-in detector, shape, tokenizer, splitter, metric, embedder and
    coreference backend: the engine's eagerly, the rest lazily (idempotent)."""
    global _loaded
    if _loaded:
        return
    from . import registry

    for name in _EAGER_MODULES:
        importlib.import_module(name)
    for reg_name, names in LAZY.items():
        reg = getattr(registry, reg_name)
        for name, module in names.items():
            reg.lazy(name, module)
    _loaded = True


def load_all() -> None:
    """Import every built-in module (what :func:`ensure_builtins` did before it was lazy)."""
    ensure_builtins()
    for names in LAZY.values():
        for module in dict.fromkeys(names.values()):
            importlib.import_module(module)
