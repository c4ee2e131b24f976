"""A per-user cache folder for derived files that make a new process start faster.

What lives here is always derived from shipped, verified data (e.g. the tokenizer vocabularies
in a form that loads ten times faster), keyed by the source's content hash, so a stale entry is
never read: a new source gets a new name. Every entry carries the sha256 of its payload and is
written atomically, so a truncated or damaged file reads as a miss. Nothing here may fail a
command: an unwritable or missing folder just means no cache (``None``).

The folder is ``startup/`` in adachunk's per-user cache (``$ADACHUNK_CACHE_DIR``, default
``~/.cache/adachunk``: the root the LLM cache and the embedding models use too).

The folder is bounded: every read marks its entry as used (its modification time), and every
write removes the least recently used entries until the folder holds at most :data:`CAP_BYTES`
(the entry just written always stays). ``adachunk cache info`` lists it, ``adachunk cache
prune`` applies the cap now (``--all`` empties it).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ENV = "ADACHUNK_CACHE_DIR"
_DIGEST = 32  # bytes of sha256 in front of each entry's payload
# Room for five exports of a MiniLM-sized model (87 MB each) besides the small entries: enough
# for a few models in turn without exporting each again, never the unbounded growth of one
# export per environment (issue 49).
CAP_BYTES = 512 * 2**20
_STALE_TMP_S = 3600  # a temporary file this old is a write that died, not one under way


class Entry(NamedTuple):
    """One cache entry: its file name, size in bytes and when it was last used (epoch seconds)."""

    name: str
    size: int
    used: float


def folder() -> Path | None:
    """Where the cache is or would be (not created; None without a home directory)."""
    return _folder()


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
    if len(digest) != _DIGEST or hashlib.sha256(payload).digest() != digest:
        return None
    try:  # used now: the size cap removes the least recently used entries first
        os.utime(folder / name)
    except OSError:  # a read-only cache still serves what it holds
        pass
    return payload


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
        prune(CAP_BYTES, keep=name)
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


def entries() -> list[Entry]:
    """Every entry of the cache, most recently used first (none without a folder)."""
    path = _folder()
    found = []
    try:
        names = os.listdir(path) if path is not None else []
    except OSError:
        names = []
    for name in names:
        try:
            st = os.stat(path / name)
        except OSError:  # removed meanwhile by another process
            continue
        if not name.startswith(".") and os.path.isfile(path / name):
            found.append(Entry(name, st.st_size, st.st_mtime))
    return sorted(found, key=lambda e: (-e.used, e.name))


def prune(max_bytes: int | None = CAP_BYTES, keep: str | None = None) -> list[Entry]:
    """Remove the least recently used entries until the rest hold at most ``max_bytes``
    (None: remove every entry), and temporary files of writes that died; return what was
    removed (temporary files not listed).

    Args:
        max_bytes: the size the entries kept may reach; None empties the cache.
        keep: an entry never removed (the one just written), whatever its size.
    """
    path = _folder()
    if path is None:
        return []
    _remove_stale_tmp(path)
    removed, total = [], 0
    for entry in entries():
        if entry.name == keep or (max_bytes is not None and total + entry.size <= max_bytes):
            total += entry.size
            continue
        try:
            os.unlink(path / entry.name)
        except OSError:  # gone already, or a read-only cache: nothing to count
            continue
        removed.append(entry)
    return removed


def _remove_stale_tmp(path: Path) -> None:
    try:
        names = [n for n in os.listdir(path) if n.startswith(".") and n.endswith(".tmp")]
    except OSError:
        return
    for name in names:
        try:
            if time.time() - os.stat(path / name).st_mtime > _STALE_TMP_S:
                os.unlink(path / name)
        except OSError:
            pass
