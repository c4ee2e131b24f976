"""A dependency-free progress line (documents, chunks, ETA) on a TTY; quiet otherwise."""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO


class Progress:
    """Prints ``\\r[done/total] chunks N, failed F, ETA m:ss`` to ``stream`` when it is a TTY."""

    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool | None = None):
        self.total = total
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.done = self.chunks = self.failed = 0
        self.t0 = time.monotonic()
        self._last = 0.0
        self._width = 0  # length of the line drawn last (0: none on screen)

    def update(self, chunks: int, failed: bool) -> None:
        """Record one finished document."""
        self.done += 1
        self.chunks += chunks
        self.failed += int(failed)
        now = time.monotonic()
        if self.enabled and (now - self._last > 0.2 or self.done == self.total):
            self._last = now
            _rate, eta = self.rate_eta(now)
            line = f"[{self.done}/{self.total}] chunks {self.chunks}, failed {self.failed}, ETA {eta}   "
            self.stream.write("\r" + line)
            self.stream.flush()
            self._width = len(line)

    def above(self, write: Callable[[], None]) -> None:
        """Run ``write`` (which prints whole lines, e.g. notices) with the progress line cleared
        first, so they do not land in the middle of it; the next :meth:`update` draws it again."""
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0
            self._last = 0.0  # redraw at the next update, however soon
        write()

    def rate_eta(self, now: float | None = None) -> tuple[float, str]:
        """Items done per second so far, and the time the rest will take as ``m:ss``."""
        now = time.monotonic() if now is None else now
        rate = self.done / max(now - self.t0, 1e-9)
        eta = max(self.total - self.done, 0) / rate if rate else 0
        return rate, f"{int(eta // 60)}:{int(eta % 60):02d}"

    def close(self) -> None:
        """End the progress line with a newline so later output starts on a line of its own."""
        if self.enabled:
            self._width = 0
            self.stream.write("\n")
            self.stream.flush()
