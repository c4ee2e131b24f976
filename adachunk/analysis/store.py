"""The on-disk store of document analyses, shared by processes (``tune``, ``ab``, ``run --resume``).

Layout: ``ROOT/v1/<document key[:2]>/<document key>/<entry>.npz``, one file per entry (a
detector's spans, a tokenizer's boundaries, the Markdown parse, a batch of embedding vectors),
written once, atomically (temporary file + rename), never rewritten once readable: two
processes analysing the same document write the same bytes, so whichever rename lands last is
as good as the first. Entries are plain numpy
arrays (``allow_pickle=False``): loading a store cannot run code. An unreadable entry (a
truncated file, another version's layout) is ignored, recomputed and replaced.

The store is chosen per process with :func:`use_store` or the ``ADACHUNK_ANALYSIS_CACHE``
environment variable (inherited by worker processes); analyses made while none is set stay in
memory only.
"""

from __future__ import annotations

import os
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import numpy as np

ENV = "ADACHUNK_ANALYSIS_CACHE"
VERSION = "v1"  # bump when an entry's meaning changes: old entries are then never read
_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


class AnalysisStore:
    """Entries of document analyses under one folder (see module docstring).

    Attributes:
        root: the folder (created on first write).
    """

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)

    def _path(self, doc_key: str, name: str) -> Path:
        return self.root / VERSION / doc_key[:2] / doc_key / (_SAFE.sub("_", name) + ".npz")

    def get(self, doc_key: str, name: str) -> dict[str, np.ndarray] | None:
        """The arrays of one entry, or None when it is absent or unreadable."""
        path = self._path(doc_key, name)
        try:
            with np.load(path, allow_pickle=False) as npz:
                return {k: npz[k] for k in npz.files}
        except (OSError, ValueError, EOFError, KeyError):
            return None

    def put(self, doc_key: str, name: str, arrays: dict[str, Any]) -> bool:
        """Write one entry (atomically); False when the store cannot be written (never raises)."""
        path = self._path(doc_key, name)
        if path.exists() and self.get(doc_key, name) is not None:
            return False  # written once; an unreadable one (a truncated write) is replaced
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".npz")
            try:
                with os.fdopen(fd, "wb") as fh:
                    np.savez(fh, **{k: np.asarray(v) for k, v in arrays.items()})
                os.replace(tmp, path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        except OSError:
            return False  # a cache that cannot be written only costs the recomputation
        return True

    def names(self, doc_key: str, prefix: str) -> list[str]:
        """Names of the stored entries of one document that start with ``prefix`` (sorted)."""
        folder = self._path(doc_key, "x").parent
        if not folder.is_dir():
            return []
        stem = _SAFE.sub("_", prefix)
        return sorted(p.name[:-4] for p in folder.glob(stem + "*.npz"))

    def retain(self, keep: set[str]) -> int:
        """Delete every document's entries except those of ``keep``; returns how many went.

        Used by ``run`` on the store inside its output folder, whose documents are known; a
        shared store (``--analysis-cache``) is never pruned.
        """
        import shutil

        base = self.root / VERSION
        gone = 0
        for folder in base.glob("*/*") if base.is_dir() else ():
            if folder.is_dir() and folder.name not in keep:
                shutil.rmtree(folder, ignore_errors=True)
                gone += 1
        return gone

    def entries(self) -> int:
        """Number of stored entries (for reports and tests)."""
        return sum(1 for _ in (self.root / VERSION).glob("*/*/*.npz")) if self.root.exists() else 0


_current: AnalysisStore | None = None
_explicit = False


def use_store(root: str | os.PathLike | None) -> AnalysisStore | None:
    """Make ``root`` the store of analyses made from now on in this process and its workers.

    ``None`` turns the store off. The environment variable is set too, so worker processes
    started afterwards (``run --workers``) use the same folder.
    """
    global _current, _explicit
    _explicit = True
    if root is None:
        _current = None
        os.environ.pop(ENV, None)
        return None
    _current = AnalysisStore(Path(root).resolve())
    os.environ[ENV] = str(_current.root)
    return _current


@contextmanager
def default_store(root: str | os.PathLike) -> Iterator[AnalysisStore]:
    """Use ``root`` as the store for the block unless one is configured already; restore after.

    ``ab`` and ``tune`` run many chunkings of the same documents, in several processes: they
    keep their analyses beside their outputs unless the user chose a store.
    """
    global _current, _explicit
    found = current_store()
    if found is not None:
        yield found
        return
    saved = (_current, _explicit, os.environ.get(ENV))
    try:
        yield use_store(root)
    finally:
        _current, _explicit = saved[0], saved[1]
        if saved[2] is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = saved[2]


def current_store() -> AnalysisStore | None:
    """The configured store: set by :func:`use_store`, else from ``ADACHUNK_ANALYSIS_CACHE``."""
    if _explicit:
        return _current
    env = os.environ.get(ENV)
    return AnalysisStore(env) if env else None
