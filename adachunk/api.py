"""Public entry points: :func:`chunk_text`, :func:`chunk_file`, :func:`chunk_document`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .ingest import read_document
from .profile.resolve import ResolvedProfile, resolve
from .split.dp import dp_chunk
from .types import Chunk, Chunking, Document

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


def chunk_document(doc: Document, profile: str | os.PathLike | ResolvedProfile = "default", *,
                   explain: bool = False, **overrides: Any) -> Chunking:
    """Chunk a :class:`Document` with the optimal DP splitter of ``profile``."""
    rp = load_profile(profile, **overrides)
    return dp_chunk(doc, rp.policy, explain=explain)


def chunk_text(text: str, profile: str | os.PathLike | ResolvedProfile = "default", *,
               doc_id: str = "text", **overrides: Any) -> list[Chunk]:
    """Chunk a string; returns chunks with exact code-point offsets into ``text``.

    Example:
        >>> chunks = chunk_text("# Title\\n\\nSome text.", max_size=200)
        >>> chunks[0].text
        '# Title\\n\\nSome text.'
    """
    return chunk_document(Document(id=doc_id, text=text), profile, **overrides).chunks


def chunk_file(path: str | os.PathLike, profile: str | os.PathLike | ResolvedProfile = "default", *,
               errors: str = "strict", explain: bool = False, **overrides: Any) -> tuple[Document, Chunking]:
    """Read a file (``.md``, ``.txt``, paper ``.json``) and chunk it."""
    doc = read_document(path, errors=errors)
    return doc, chunk_document(doc, profile, explain=explain, **overrides)
