"""Bounded access to input files: what may be opened, how much of it is read, text decoding.

Only regular files are opened: a FIFO would block the reader forever and a device such as
``/dev/zero`` never ends, so both are refused (``ADA302``) after an ``os.stat``, before any
``open``. A file over the input size limit (``ADA318``; default 512 MB, env
``ADACHUNK_MAX_INPUT_BYTES``, CLI ``--max-input-mb``) is refused before it is read. Every reader
(text, PDF, Word, HTML, the streamed large-file mode) reads its bytes here, so this module
imports no reader.
"""

from __future__ import annotations

import os
import stat
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Iterator

from ..errors import InputError, Location, ProfileError

_BINARY_MAGIC = {
    b"\x89PNG\r\n\x1a\n": "a PNG image",
    b"GIF87a": "a GIF image",
    b"GIF89a": "a GIF image",
    b"\xff\xd8\xff": "a JPEG image",
    b"PK\x03\x04": "a ZIP archive (docx/xlsx?)",
    b"%PDF-": "a PDF (PDF ingestion is a separate reader)",
    b"\x7fELF": "an executable",
}


def refuse_binary(head: bytes, source: str) -> None:
    """``ADA305`` when a file's first bytes are those of a known binary format."""
    for magic, what in _BINARY_MAGIC.items():
        if head.startswith(magic):
            raise InputError(code="ADA305", message=f"{source} is {what}, not text", location=Location(source),
                             hint="convert it to Markdown or text first")


def read_text_bytes(data: bytes, source: str, errors: str = "strict") -> str:
    """Decode file bytes as UTF-8, refusing known binary formats with ``ADA305``."""
    refuse_binary(data, source)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8", errors="strict" if errors == "strict" else "replace")
    except UnicodeDecodeError as exc:
        raise InputError(
            code="ADA301",
            message=f"invalid UTF-8 at byte offset {exc.start} ({data[exc.start:exc.start + 4]!r})",
            location=Location(source),
            hint="re-encode the file as UTF-8, or pass --errors replace to substitute U+FFFD",
        ) from None


DEFAULT_MAX_INPUT_BYTES = 512 * 1024 * 1024
MAX_INPUT_ENV = "ADACHUNK_MAX_INPUT_BYTES"
# the limit of the read_document call in progress (its max_bytes argument), seen by every reader
_MAX_BYTES: ContextVar[int | None] = ContextVar("adachunk_max_input_bytes", default=None)


@contextmanager
def input_limit(max_bytes: int | None) -> Iterator[None]:
    """Within the block, every read of this module refuses files over ``max_bytes`` (None: the
    environment's or the default limit): what ``read_document(max_bytes=...)`` sets for its reader."""
    token = _MAX_BYTES.set(max_bytes)
    try:
        yield
    finally:
        _MAX_BYTES.reset(token)


def max_input_bytes() -> int:
    """The input size limit in bytes: the current ``read_document(max_bytes=...)``, else the
    ``ADACHUNK_MAX_INPUT_BYTES`` environment variable, else 512 MB (``ADA203`` if the variable
    is not a positive integer)."""
    current = _MAX_BYTES.get()
    if current is not None:
        return current
    raw = os.environ.get(MAX_INPUT_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_INPUT_BYTES
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value <= 0:
        raise ProfileError(code="ADA203", message=f"{MAX_INPUT_ENV} must be a positive number of bytes, got {raw!r}",
                           key_path=MAX_INPUT_ENV)
    return value


_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def check_input_file(path: str | os.PathLike, source: str | None = None, max_bytes: int | None = None) -> int:
    """Refuse what must not be opened: a missing path, a folder, a FIFO, device or socket
    (``ADA302``), a file over ``max_bytes`` (``ADA318``; default :func:`max_input_bytes`).

    It only stats the path (following links), so a FIFO never blocks and ``/dev/zero`` is never read.

    Returns:
        The file's size in bytes.
    """
    source = source if source is not None else os.fspath(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(code="ADA302", message=f"no such file: {source}", location=Location(source)) from None
    except OSError as exc:
        raise InputError(code="ADA302", message=f"cannot read {source}: {exc.strerror or exc}",
                         location=Location(source)) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(code="ADA302", message=f"{source} is a directory, not a file", location=Location(source))
    if not stat.S_ISREG(st.st_mode):
        kind = next((what for test, what in _KINDS if test(st.st_mode)), "not a regular file")
        raise InputError(code="ADA302", message=f"{source} is {kind}, not a regular file", location=Location(source),
                         hint="only regular files are read (copy the stream to a file first)")
    limit = max_input_bytes() if max_bytes is None else max_bytes
    if st.st_size > limit:
        raise _too_large(source, limit)
    return st.st_size


def _too_large(source: str, limit: int) -> InputError:
    return InputError(code="ADA318", message=f"{source} is larger than the input size limit of {_mb(limit)}",
                      location=Location(source),
                      hint=f"raise it with --max-input-mb or {MAX_INPUT_ENV}, or split the file")


def _mb(n: int) -> str:
    return f"{n / 2**20:g} MB" if n >= 2**20 else f"{n} bytes"


def read_input_bytes(path: Path, source: str) -> bytes:
    """The file's bytes, after :func:`check_input_file`; at most the size limit is ever read (a
    file that grows past it, or a /proc file whose stat size is 0, is still bounded)."""
    size = check_input_file(path, source)
    limit = max_input_bytes()
    try:
        with open(path, "rb") as f:
            data = f.read(size + 1)  # read(n) allocates n bytes: ask for the stat size, not the limit
            while len(data) > size and len(data) <= limit:  # it grew, or stat said 0 (/proc)
                block = f.read(min(1 << 24, limit + 1 - len(data)))
                if not block:
                    break
                data += block
    except OSError as exc:
        raise InputError(code="ADA302", message=f"cannot read {source}: {exc.strerror or exc}",
                         location=Location(source)) from None
    if len(data) > limit:
        raise _too_large(source, limit)
    return data
