"""Locate the shipped data folders (``profiles/``, ``rules/``, ``grammar/``).

In a wheel they are force-included under ``adachunk/_data/``; in a source checkout (editable
install, tests) they sit at the repository root beside the package.
"""

from __future__ import annotations

import importlib.resources as resources
from functools import lru_cache
from pathlib import Path

KINDS = ("profiles", "rules", "grammar")


@lru_cache(maxsize=None)
def data_dir(kind: str) -> Path:
    """Return the folder holding the shipped ``kind`` files (one of :data:`KINDS`)."""
    if kind not in KINDS:
        raise ValueError(f"unknown data kind {kind!r}")
    packaged = Path(str(resources.files("adachunk"))) / "_data" / kind
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / kind
