"""A per-user cache folder for derived files that make a new process start faster.

What lives here is always derived from shipped, verified data (e.g. the tokenizer vocabularies
in a form that loads ten times faster), keyed by the source's content hash, so a stale entry is
never read: a new source gets a new name. Every entry carries the sha256 of its payload and is
written atomically, so a truncated or damaged file reads as a miss. Nothing here may fail a
command: an unwritable or missing folder just means no cache (``None``).

The folder is ``startup/`` in adachunk's per-user cache (``$ADACHUNK_CACHE_DIR``, default
``~/.cache/adachunk``: the root the LLM cache and the embedding models use too).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

ENV = "ADACHUNK_CACHE_DIR"
_DIGEST = 32  # bytes of sha256 in front of each entry's payload


def _folder() -> Path | None:
    root = os.environ.get(ENV)
    try:
        return (Path(root).expanduser() if root else Path.home() / ".cache" / "adachunk") / "startup"
    except RuntimeError:  # no home directory to expand
        return None


def cache_dir() -> Path | None:
    """The cache folder (created on first use), or None when it cannot be written."""
    path = _folder()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (OSError, AttributeError):  # AttributeError: no folder at all
        return None
    return path if os.access(path, os.W_OK | os.X_OK) else None


def has_entry(name: str) -> bool:
    """Whether entry ``name`` exists (not read: a damaged one still reads as a miss later)."""
    folder = _folder()
    return folder is not None and (folder / name).is_file()


def read_entry(name: str) -> bytes | None:
    """The payload of entry ``name``, or None (no cache, no entry, or a damaged entry)."""
    folder = _folder()  # a read-only cache still serves what it holds
    if folder is None:
        return None
    try:
        raw = (folder / name).read_bytes()
    except OSError:
        return None
    digest, payload = raw[:_DIGEST], raw[_DIGEST:]
    return payload if len(digest) == _DIGEST and hashlib.sha256(payload).digest() == digest else None


def write_entry(name: str, payload: bytes) -> bool:
    """Store ``payload`` as entry ``name`` (atomically: readers see all of it or nothing);
    False when there is no writable cache."""
    folder = cache_dir()
    if folder is None:
        return False
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(hashlib.sha256(payload).digest() + payload)
        os.replace(tmp, folder / name)
        return True
    except OSError:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        return False


def read_marshal(name: str) -> object | None:
    """The value marshalled in entry ``name``, or None (no entry, damaged, or unreadable by this
    Python: a record that passes its digest may still be from another marshal version)."""
    import marshal

    payload = read_entry(name)
    if payload is None:
        return None
    try:
        return marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None


def write_marshal(name: str, value: object) -> bool:
    """Store ``value`` marshalled as entry ``name`` (see :func:`write_entry`)."""
    import marshal

    return write_entry(name, marshal.dumps(value))
