"""Expand CLI inputs (files, folders, globs) into input paths, in a stable order."""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Callable, Iterable, Iterator

from ..errors import InputError, Location


def expand_inputs(inputs: Iterable[str],
                  suffixes: Iterable[str] | Callable[[], Iterable[str]]) -> Iterator[str]:
    """Files as given; folders recursively (sorted, supported suffixes only); globs sorted.

    ``suffixes`` may be a function returning them (``supported_suffixes``): it is then called
    only when a folder is expanded, since listing every reader scans the installed packages'
    entry points for plugins, which a command naming its files never needs.

    A folder without any supported file, or a glob matching nothing, is an ``ADA302`` error.
    A folder's FIFOs, devices and sockets are skipped (``is_file`` is true only for regular files,
    so a named pipe in a corpus folder never blocks a run); one named directly or matched by a
    glob is yielded, and the reader refuses it with an error naming it.
    """
    wanted: set[str] | None = None
    for item in inputs:
        if os.path.isdir(item):
            if wanted is None:
                wanted = {s.lower() for s in (suffixes() if callable(suffixes) else suffixes)}
            found = sorted(str(p) for p in Path(item).rglob("*")
                           if p.is_file() and p.suffix.lower() in wanted and not _office_lock(p))
            if not found:
                raise InputError(code="ADA302", message=f"folder {item} holds no input file ({', '.join(sorted(wanted))})",
                                 location=Location(item))
            yield from found
        elif any(ch in item for ch in "*?[") and not os.path.exists(item):
            matches = sorted(glob.glob(item, recursive=True))
            if not matches:
                raise InputError(code="ADA302", message=f"no file matches '{item}'", location=Location(item))
            yield from matches
        else:
            yield item


def _office_lock(path: Path) -> bool:
    """Word's owner file (``~$ntract.docx``, 162 bytes, written beside a document open in Word):
    a folder of contracts someone is editing holds one per open file, and none is a document."""
    return path.name.startswith("~$")
