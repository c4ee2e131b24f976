"""Writing output files safely: atomic replacement, and one coded error for a failed write.

Shared by the runner (per-document results, the manifest, the lock) and the sinks (``index.json``,
``chunks.parquet``), so that every output write fails the same way: ``ADA307`` naming the path.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from ..errors import InputError, Location


def temp_path(path: Path) -> Path:
    """The temporary name ``path`` is written under before it is moved into place (same folder,
    so the rename is atomic; the pid keeps two writers apart)."""
    return path.with_name(path.name + f".tmp{os.getpid()}")


def close_and_replace(close: Callable[[], None], tmp: Path, path: Path) -> None:
    """Finish a file written under ``tmp`` (``close``), then move it to ``path``.

    Raises:
        InputError: ``ADA307`` when closing or renaming fails.
    """
    try:
        close()
        os.replace(tmp, path)
    except OSError as exc:
        raise write_error(path, exc) from None


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temporary file in the same folder, fsync, rename)."""
    tmp = temp_path(path)
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise write_error(path, exc) from None


def write_error(path: Path, exc: OSError) -> InputError:
    """``ADA307``: the output cannot be written (permissions, disk full, ...)."""
    return InputError(code="ADA307", message=f"cannot write {path}: {exc.strerror or exc}", location=Location(str(path)),
                      hint="choose another --out folder or free some disk space")
