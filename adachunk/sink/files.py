"""Writing output files safely: atomic replacement, and one coded error for a failed write.

Shared by the runner (per-document results, the manifest, the lock) and the sinks (``index.json``,
``chunks.parquet``), so that every output write fails the same way: ``ADA307`` naming the path.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Callable

from ..errors import InputError, Location
from .layout import written_folders


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


_TEMP = re.compile(r"\.tmp(\d+)$")


def remove_stale_temps(out: Path) -> list[Path]:
    """Remove the temporary files (:func:`temp_path`) that killed runs left in an output folder.

    Only a file whose writer's pid is no longer alive goes (a live process may still be
    writing it); the caller holds the folder's lock, so no other run writes there now. The
    folders looked at are those :func:`atomic_write_bytes` writes into: the folder itself,
    ``.adachunk`` and ``.adachunk/results``.

    Returns:
        The files removed.
    """
    removed = []
    for folder in written_folders(out):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            m = _TEMP.search(name)
            if m and not _alive(int(m.group(1))):
                try:
                    (folder / name).unlink()
                    removed.append(folder / name)
                except OSError:
                    pass  # e.g. a folder of that name: not ours to remove
    return removed


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (one we may not signal exists too)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True
