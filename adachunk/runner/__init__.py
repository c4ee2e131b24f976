"""The corpus runner behind ``adachunk run``: per-document jobs, resumable state, backends; and one
file to its records (:mod:`.file_records`, ``adachunk chunk``'s work as a library).

The run's names (:func:`run_corpus`, :class:`RunSummary`, :func:`process_path`...) are imported
on first use: ``adachunk chunk`` reads a file through :mod:`.file_records` without paying for the
corpus run's modules (its pool, store, manifest and outputs).
"""

from __future__ import annotations

from typing import Any

_LAZY = {"DocResult": ".job", "JobOptions": ".job", "process_path": ".job", "RunSummary": ".run",
         "run_corpus": ".run"}

__all__ = ["DocResult", "JobOptions", "process_path", "RunSummary", "run_corpus"]


def __getattr__(name: str) -> Any:
    """The run's names, imported from their modules on first use (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value
