"""Per-document bounds: a wall-clock deadline and a memory ceiling, and what a breach becomes.

A document that hangs a reader or allocates without end must fail *alone*, with a coded error
naming the file and the limit, while every other document of the run is written. The pool
(:mod:`adachunk.runner.pool`) enforces the bounds from the main process: it knows which document
each worker holds, kills a worker past its document's deadline or memory ceiling, and starts a
new one. The in-process serial backend holds the same bounds softly (:func:`soft_bounds`).

Codes: ``ADA325`` deadline, ``ADA326`` memory ceiling, ``ADA327`` a worker that died for another
reason (a signal, e.g. the kernel's out-of-memory killer, or a crash). A ``--resume`` does not
retry a document that failed with one of them (:data:`BOUND_CODES`) unless asked.
"""

from __future__ import annotations

import ctypes
import os
import re
import signal
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

from ..errors import InputError, Location, ProfileError

DEFAULT_DEADLINE_S = 600.0  # far beyond any real document (CLAIR's largest takes ~1 min)
BOUND_CODES = frozenset({"ADA325", "ADA326", "ADA327"})
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def default_memory() -> int:
    """The default memory ceiling per document: half the machine's RAM (at least 2 GiB).

    A normal worker holds ~0.5 GB (engine, tokenizer, embedder); half the RAM never triggers on
    a real document, yet stops one runaway document before the kernel kills at random.
    """
    import psutil

    return max(2 << 30, psutil.virtual_memory().total // 2)


def parse_size(text: str | int | float) -> int:
    """Bytes of a size such as ``2G``, ``512M``, ``1.5GiB`` or ``1048576`` (0: no ceiling).

    Raises:
        ProfileError: ``ADA224`` when the text is not a size.
    """
    if isinstance(text, (int, float)):
        return max(0, int(text))
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", str(text).upper())
    if not m:
        raise ProfileError(code="ADA224", message=f"not a memory size: {text!r}", key_path="doc_memory",
                           allowed=["0 (off)", "bytes", "512M", "2G", "1.5GiB"])
    return int(float(m.group(1)) * _UNITS[m.group(2)])


@dataclass(frozen=True)
class Bounds:
    """The limits each document runs under (0 or None: that bound is off).

    Attributes:
        deadline_s: wall-clock seconds a document may take.
        memory_bytes: resident memory the process holding a document may reach.
    """

    deadline_s: float = DEFAULT_DEADLINE_S
    memory_bytes: int | None = None  # None: default_memory() when the pool starts

    @classmethod
    def of(cls, doc_timeout: float | None, doc_memory: str | int | None) -> "Bounds":
        """The bounds of the ``doc_timeout``/``doc_memory`` settings (None: the default, 0: off)."""
        deadline = DEFAULT_DEADLINE_S if doc_timeout is None else max(0.0, float(doc_timeout))
        memory = default_memory() if doc_memory is None else parse_size(doc_memory)
        return cls(deadline, memory)

    @property
    def active(self) -> bool:
        """Whether any bound is on."""
        return bool(self.deadline_s) or bool(self.memory_bytes)


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.0f} MiB"


def deadline_error(source: str, bounds: Bounds) -> InputError:
    """``ADA325``: the document ran past its deadline."""
    return InputError(code="ADA325", message=f"document exceeded its deadline of {bounds.deadline_s:g} s "
                      "(its worker was stopped)", location=Location(source),
                      hint="raise it with --doc-timeout SECONDS (0: off)")


def memory_error(source: str, bounds: Bounds, rss: int | None = None) -> InputError:
    """``ADA326``: the document's process went past the memory ceiling."""
    seen = f" (reached {_mib(rss)})" if rss else ""
    limit = _mib(bounds.memory_bytes) if bounds.memory_bytes else "the machine's memory"
    return InputError(code="ADA326", message=f"document exceeded the memory ceiling of {limit}{seen}",
                      location=Location(source),
                      hint="raise it with --doc-memory SIZE (0: off)")


def died_error(source: str, exitcode: int | None) -> InputError:
    """``ADA327``: the worker holding the document died (a signal or a crash)."""
    if exitcode is not None and exitcode < 0:
        name = signal.Signals(-exitcode).name if -exitcode in signal.valid_signals() else str(-exitcode)
        why = f"killed by {name}" + (" (e.g. the kernel's out-of-memory killer)" if name == "SIGKILL" else "")
    else:
        why = f"exited with status {exitcode}"
    return InputError(code="ADA327", message=f"the worker process processing this document died: {why}",
                      location=Location(source))


def die_with_parent() -> None:
    """Make this worker exit when the process that started it dies (even by ``kill -9``).

    Linux delivers SIGKILL on the parent's death (``PR_SET_PDEATHSIG``); a thread watching the
    parent pid covers the other platforms and the race of a parent gone before the ``prctl``.
    """
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):
            pass  # the watchdog thread below still holds
    threading.Thread(target=_watch_parent, args=(parent,), name="adachunk-parent-watch", daemon=True).start()


def _watch_parent(parent: int) -> None:
    """Exit at once when ``parent`` is gone (reparented: our parent pid changed)."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)  # no clean-up: the main process, the only writer, is gone


class _Breach(BaseException):
    """Raised in the working thread by :func:`soft_bounds` (a BaseException: library code's
    ``except Exception`` must not swallow it)."""


@contextmanager
def soft_bounds(bounds: Bounds, source: str) -> Iterator[list]:
    """Hold ``bounds`` for work done in this thread (the serial backend, no child process).

    In the main thread the deadline is a timer signal (``SIGALRM``), which also interrupts a
    blocking call (a sleep, a read); elsewhere, and for the memory ceiling, a watchdog thread
    raises an exception in this thread, which stops the work at its next Python bytecode (a
    long call inside C code finishes first: the pool's hard bounds do not wait). The context
    yields a list that receives the coded error on a breach, after which it ends normally.
    """
    breach: list = []
    timer = bool(bounds.deadline_s) and threading.current_thread() is threading.main_thread() \
        and hasattr(signal, "setitimer")
    armed = [True]  # a late signal after the work must not raise

    def on_alarm(signum, frame) -> None:
        if armed[0]:
            armed[0] = False
            breach.append(deadline_error(source, bounds))
            raise _Breach

    old = signal.signal(signal.SIGALRM, on_alarm) if timer else None
    watch = _Watchdog(bounds, source, breach, deadline=not timer)
    try:
        if timer:
            signal.setitimer(signal.ITIMER_REAL, bounds.deadline_s)
        watch.start()
        try:
            yield breach
        finally:
            armed[0] = False
            if timer:  # first: a breach the watchdog raises while it stops must not skip this
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, old)
            watch.stop()
    except _Breach:
        pass  # the error is in ``breach``


class _Watchdog:
    """A thread that raises :class:`_Breach` in the thread that made it, on the deadline
    (``deadline``) or when the process's resident memory exceeds the ceiling."""

    def __init__(self, bounds: Bounds, source: str, breach: list, deadline: bool):
        self.bounds, self.source, self.breach = bounds, source, breach
        self.deadline = deadline and bool(bounds.deadline_s)
        self.target = threading.get_ident()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="adachunk-soft-bounds", daemon=True)

    def start(self) -> None:
        if self.deadline or self.bounds.memory_bytes:
            self.thread.start()

    def stop(self) -> None:
        self.done.set()
        if self.thread.is_alive():
            self.thread.join()

    def _watch(self) -> None:
        import psutil

        me, t0 = psutil.Process(), time.monotonic()
        while not self.done.wait(0.1):
            err = None
            if self.deadline and time.monotonic() - t0 > self.bounds.deadline_s:
                err = deadline_error(self.source, self.bounds)
            elif self.bounds.memory_bytes and (rss := me.memory_info().rss) > self.bounds.memory_bytes:
                err = memory_error(self.source, self.bounds, rss)
            if err is not None and not self.done.is_set():
                self.breach.append(err)
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.target), ctypes.py_object(_Breach))
                return
