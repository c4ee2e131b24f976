"""Where files named by a profile may be: profiles are shared between teams, so untrusted.

A file a profile refers to (``extends:``, ``rules.include``, a structure's ``grammar:``, an
embedder's model ``path``) must lie, after symlinks are resolved, inside one of the *read roots*:
the folder of the profile file that names it, the shipped ``profiles/``, ``rules/`` and
``grammar/`` folders, and the folders listed in ``ADACHUNK_PROFILE_PATH`` (``os.pathsep``-
separated). A folder a profile makes adachunk *write* to (the LLM splitter's ``cache_dir``) must
lie inside the profile's folder, a search folder, or the user cache (``$ADACHUNK_CACHE_DIR``,
default ``~/.cache/adachunk``). Anything else, an absolute path or a ``..`` escape, is ``ADA220``.

Paths given on the command line or through the API by the user are not confined: only what a
profile file says is.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Sequence

from ..datafiles import KINDS, data_dir, is_inside
from ..errors import ProfileError

SEARCH_PATH_ENV = "ADACHUNK_PROFILE_PATH"
__all__ = ["SEARCH_PATH_ENV", "CODE", "check", "is_inside", "outside_error", "place", "read_roots",
           "search_paths", "user_cache_dir", "write_roots"]
CODE = "ADA220"


def search_paths() -> list[Path]:
    """The folders of ``ADACHUNK_PROFILE_PATH`` (empty entries ignored), in order."""
    raw = os.environ.get(SEARCH_PATH_ENV, "")
    return [Path(p).expanduser() for p in raw.split(os.pathsep) if p.strip()]


def user_cache_dir() -> Path:
    """adachunk's per-user cache: ``$ADACHUNK_CACHE_DIR`` or ``~/.cache/adachunk``."""
    root = os.environ.get("ADACHUNK_CACHE_DIR")
    return Path(root).expanduser() if root else Path.home() / ".cache" / "adachunk"


def read_roots(profile_dirs: Iterable[Path]) -> list[Path]:
    """Folders a profile may read files from (its own folders first)."""
    return [*profile_dirs, *search_paths(), *(data_dir(k) for k in KINDS)]


def write_roots(profile_dirs: Iterable[Path]) -> list[Path]:
    """Folders a profile may make adachunk write into (never the shipped data)."""
    return [*profile_dirs, *search_paths(), user_cache_dir()]


def outside_error(what: str, path: Path | str, roots: Sequence[Path]) -> ProfileError:
    """``ADA220`` for ``path`` (the loader or resolver adds the key path and file:line)."""
    shown = ", ".join(str(r) for r in dict.fromkeys(str(r) for r in roots))
    return ProfileError(
        code=CODE,
        message=f"{what} '{path}' is outside the folders a profile may use",
        allowed=[shown] if shown else None,
        hint=f"put the file beside the profile or in a folder listed in {SEARCH_PATH_ENV}",
    )


def check(path: Path, roots: Sequence[Path], what: str) -> Path:
    """Return ``path`` when it lies inside ``roots``; raise ``ADA220`` otherwise."""
    if not is_inside(path, roots):
        raise outside_error(what, path, roots)
    return path


def place(value: str, base: Path, roots: Sequence[Path], what: str) -> Path:
    """Resolve a path written in a profile (``~`` expanded, relative to ``base``) and confine it.

    Returns:
        The absolute path, symlinks resolved, so later use cannot be redirected elsewhere.
    """
    path = Path(os.path.expanduser(value))
    path = path if path.is_absolute() else base / path
    check(path, roots, what)
    return Path(os.path.realpath(path))
