"""Resolved profiles cached per process: :func:`load_profile`, the loader every command uses.

A profile is resolved once per name (or path) and overrides, and resolved again only when one
of its files changed on disk (their modification times and sizes are the cache stamp). It lives
with the profile layer, not in :mod:`adachunk.api` (which re-exports it), so that the runner,
the reports and the evaluation load profiles without importing the command line's door.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .resolve import ResolvedProfile, resolve

_SOLVER_KEYS = ("max_size", "min_size", "granularity", "tokenizer", "overlap", "chunk_cost", "target_size")
_cache: dict[Any, tuple[tuple, ResolvedProfile]] = {}


def _stamp(files: list[Path]) -> tuple:
    out = []
    for f in files:
        try:
            st = os.stat(f)
            out.append((str(f), st.st_mtime_ns, st.st_size))
        except OSError:
            out.append((str(f), None, None))
    return tuple(out)


def load_profile(name_or_path: str | os.PathLike | ResolvedProfile = "default", **overrides: Any) -> ResolvedProfile:
    """Load a builtin profile by name or a YAML file, with solver overrides (cached).

    Args:
        name_or_path: builtin name (``default``, ``darn``, ...) or a path, or an already
            resolved profile (returned as is when there are no overrides).
        **overrides: solver settings by their CLI names (``max_size``, ``min_size``,
            ``granularity``, ``tokenizer``, ``overlap``, ``chunk_cost``, ``target_size``).

    Raises:
        ProfileErrors: the profile is invalid (every error, each with its location).
    """
    if isinstance(name_or_path, ResolvedProfile):
        if not any(v is not None for v in overrides.values()):
            return name_or_path
        name_or_path = name_or_path.files[-1]
    unknown = set(overrides) - set(_SOLVER_KEYS) - {"backend"}
    if unknown:
        raise TypeError(f"unknown override(s) {sorted(unknown)}; allowed: {list(_SOLVER_KEYS)}")
    key = (str(name_or_path), tuple(sorted((k, v) for k, v in overrides.items() if v is not None)))
    hit = _cache.get(key)
    if hit is not None and _stamp(hit[1].files) == hit[0]:
        return hit[1]
    rp = resolve(name_or_path, **overrides)
    _cache[key] = (_stamp(rp.files), rp)
    return rp
