"""Run the registered metrics on one chunking: :func:`score_chunking` and :func:`context_for`.

A metric that is not registered, whose model cannot load, or that fails, yields
``MetricResult(None, reason)``: one missing embedding model must not cost the user the other
four scores. Failures are logged as warnings so they are not silent.
"""

from __future__ import annotations

import logging
from typing import Any, Iterable

from ..components.registry import metrics
from ..datatypes import METRIC_KEYS, Chunk, Document
from .base import MetricContext, MetricResult

log = logging.getLogger("adachunk.metrics")

DEFAULT_KEYS: tuple[str, ...] = METRIC_KEYS
# One instance per registered metric class and process, so models load once.
_instances: dict[Any, Any] = {}


def _ensure_registered() -> None:
    from ..components.builtins import ensure_builtins

    ensure_builtins()
    # our own metrics register on import; import them even if components.py does not list them
    from . import blocks, per_cut, references, retrieval, size  # noqa: F401


def metric_name(key: str) -> str | None:
    """Registered name of the metric with ``key``: ``<key>.v1`` if present, else the first name
    (sorted) whose class declares that key; None when no metric has it."""
    _ensure_registered()
    if f"{key}.v1" in metrics:
        return f"{key}.v1"
    for name in metrics.names():
        if getattr(metrics.get(name), "key", None) == key:
            return name
    return None


def embeds(key: str) -> bool:
    """Whether the metric with ``key`` runs the metrics embedder (its class's ``embeds`` flag)."""
    name = metric_name(key)
    return name is not None and bool(getattr(metrics.get(name), "embeds", False))


def _instance(name: str):
    cls = metrics.get(name)
    if cls not in _instances:
        _instances[cls] = cls()
    return _instances[cls]


def score_one(key: str, chunks: list[Chunk], ctx: MetricContext) -> MetricResult:
    """One metric's result; never raises (see module docstring)."""
    name = metric_name(key)
    if name is None:
        return MetricResult(None, f"no metric registered for '{key}'")
    try:
        metric = _instance(name)
    except Exception as exc:
        log.warning("metric %s unavailable: %s", name, exc)
        return MetricResult(None, f"{name} unavailable: {type(exc).__name__}: {exc}")
    try:
        return metric.score(chunks, ctx)
    except Exception as exc:
        log.warning("%s: metric %s failed: %s", ctx.doc.id, name, exc, exc_info=log.isEnabledFor(logging.DEBUG))
        return MetricResult(None, f"{name} failed: {type(exc).__name__}: {exc}")


def score_chunking(chunks: list[Chunk], ctx: MetricContext,
                   keys: Iterable[str] = DEFAULT_KEYS) -> dict[str, MetricResult]:
    """Score one chunking of ``ctx.doc`` with every wanted metric.

    Args:
        chunks: the chunks, with exact offsets into ``ctx.doc.text``.
        ctx: the document's metric context (share it across candidates of the document).
        keys: metric keys to compute, in output order.

    Returns:
        key → :class:`MetricResult` for every wanted key.
    """
    return {key: score_one(key, chunks, ctx) for key in keys}


def context_for(doc: Document, policy: Any = None, *, counter=None) -> MetricContext:
    """The metric context of ``doc`` under a :class:`~adachunk.policy.Policy` (or a resolved
    profile; None: default settings).

    The settings are the profile's ``metrics`` section plus ``chunk_tokenizer``, the tokenizer
    that counted the chunks' own ``tokens`` (the solver's), so SC recounts only when the metric
    tokenizer differs, and the ``retrieval`` regime with the index embedder it may name (``rf``).
    """
    policy = getattr(policy, "policy", policy)
    solver = getattr(policy, "solver", None)
    index = getattr(policy, "index", None)
    return MetricContext(doc, getattr(policy, "metrics", None), counter=counter,
                         chunk_tokenizer=solver.tokenizer if solver is not None else None,
                         retrieval=getattr(policy, "retrieval", None),
                         index_embedder=getattr(index, "embedder", None))
