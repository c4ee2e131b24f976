"""One writer per output folder: an advisory lock held for the whole run.

Two runs into one ``--out`` used to interleave their writes (unreadable Parquet, duplicate index
rows, one run deleting the other's results). The lock is ``OUT/.adachunk/lock``, held with
``flock`` (released by the kernel when the holder dies, so a killed run never leaves the folder
locked) and filled with the holder's pid, host and start time so that the second run can say
who holds it.
"""

from __future__ import annotations

import json
import os
import socket
import time
from typing import Any

from ..errors import InputError, Location
from ..sink.layout import lock_path

try:  # POSIX; Windows falls back to an exclusive-create lock file
    import fcntl
except ImportError:  # pragma: no cover - not on this platform
    fcntl = None  # type: ignore[assignment]


class OutputLock:
    """Context manager holding the lock of one output folder.

    Args:
        out: the output folder (created when missing).
        wait: seconds to wait for the holder to finish (0: fail at once).
        poll: seconds between tries while waiting.

    Raises:
        InputError: ``ADA319`` when another run holds the folder (after ``wait`` seconds).
    """

    def __init__(self, out: str | os.PathLike, wait: float = 0.0, poll: float = 0.5):
        self.path = lock_path(out)
        self.wait, self.poll = float(wait), poll
        self._fd: int | None = None

    def __enter__(self) -> "OutputLock":
        from ..sink.files import write_error

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise write_error(self.path.parent, exc) from None
        deadline = time.monotonic() + self.wait
        while not self._try():
            if time.monotonic() >= deadline:
                raise self._busy()
            time.sleep(self.poll)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()

    def release(self) -> None:
        """Give the folder back (idempotent)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            if fcntl is None:
                self.path.unlink(missing_ok=True)
            else:
                os.ftruncate(fd, 0)  # an unlocked file says nobody holds it
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def _try(self) -> bool:
        """Take the lock if free; write the holder record into it."""
        if fcntl is None:  # pragma: no cover - Windows
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o644)
            except FileExistsError:
                return False
        else:
            fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                return False
        holder = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(holder).encode())
        self._fd = fd
        return True

    def holder(self) -> dict[str, Any]:
        """The record of the run holding the lock ({} when unknown)."""
        try:
            return json.loads(self.path.read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError):
            return {}

    def _busy(self) -> InputError:
        h = self.holder()
        who = f"pid {h.get('pid', '?')} on {h.get('host', '?')} since {h.get('since', '?')}" if h else "another run"
        return InputError(code="ADA319", message=f"output folder {self.path.parent.parent} is in use by {who}",
                          location=Location(str(self.path)),
                          hint="wait for that run to finish (or pass --wait SECONDS), or choose another --out")
