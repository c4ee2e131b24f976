"""Locate the shipped data folders (``profiles/``, ``rules/``, ``grammar/``).

In a wheel they are force-included under ``adachunk/_data/``; in a source checkout (editable
install, tests) they sit at the repository root beside the package.
"""

from __future__ import annotations

import importlib.resources as resources
import os
from functools import lru_cache
from pathlib import Path
from typing import Iterable

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


def is_inside(path: Path | str, roots: Iterable[Path | str]) -> bool:
    """Whether ``path``, symlinks resolved, is one of ``roots`` or below one of them (the test
    behind every confinement of what a profile may read or write: :mod:`adachunk.profile.confine`,
    a grammar's imports)."""
    real = os.path.realpath(path)
    for root in roots:
        base = os.path.realpath(root)
        if real == base or real.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False
