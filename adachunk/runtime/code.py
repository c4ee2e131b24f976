"""A digest of the installed adachunk code: part of ``adachunk run --resume``'s key.

A resumed run keeps a document whose file, profile and options are unchanged; after an upgrade
that reads or cuts documents differently (a PDF reader that takes page numbers out, a DP rule)
those kept chunks would be stale, and the folder would mix two versions' chunks. The digest
covers the package's version and every Python and grammar file it ships, so a release, a
patched install or a developer's edit all count as another version. Hashing them costs a few
milliseconds, once per process.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

_SUFFIXES = (".py", ".lark")


@lru_cache(maxsize=1)
def code_digest() -> str:
    """The package's version and a sha256 of its code files (16 hex digits after the version)."""
    from .. import __version__

    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in _SUFFIXES and p.is_file()):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return f"{__version__}+{h.hexdigest()[:16]}"
