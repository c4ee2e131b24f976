"""adachunk: chunking as a policy — YAML profiles, optimal boundaries, adaptive selection.

Curated public API::

    import adachunk
    chunks = adachunk.chunk_text(text, profile="default", max_size=512)
    profile = adachunk.load_profile("legal")

Attributes are imported on first use (PEP 562) so that ``adachunk --help`` and light imports
such as :mod:`adachunk.errors` do not pay for numba, pydantic and the tokenizers.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "chunk_text": "adachunk.api", "chunk_file": "adachunk.api", "chunk_document": "adachunk.api",
    "load_profile": "adachunk.api",
    "Chunk": "adachunk.datatypes", "Chunking": "adachunk.datatypes", "Document": "adachunk.datatypes",
    "Page": "adachunk.datatypes", "Structure": "adachunk.datatypes",
    "AdachunkError": "adachunk.errors", "ProfileError": "adachunk.errors",
    "ProfileErrors": "adachunk.errors", "InputError": "adachunk.errors",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'adachunk' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
