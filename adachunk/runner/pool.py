"""A process pool that knows which task each worker holds, and survives its workers.

``concurrent.futures.ProcessPoolExecutor`` loses the whole pool when one worker dies (the
kernel's out-of-memory killer, a crash) and cannot say which task killed it, nor stop a task
that hangs. Here each worker holds one task at a time, over its own pipe, so the main process
always knows what a worker was doing: a worker that dies, runs past the deadline or grows past
the memory ceiling (:class:`~adachunk.runner.bounds.Bounds`) fails that one task with a coded
error, is replaced, and the other tasks go on. Workers exit when the main process dies
(:func:`~adachunk.runner.bounds.die_with_parent`).
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import Any, Callable

from ..errors import AdachunkError
from .bounds import Bounds, deadline_error, die_with_parent, died_error, memory_error

POLL_S = 0.1  # how often the deadline and the memory ceiling are checked while tasks run
_STARTED = "started"  # a worker's first message on a task


def _worker_main(conn, initializer: Callable[[], None] | None) -> None:
    """A worker's loop: run each ``(fn, args)`` received, send back its result (or exception)."""
    die_with_parent()
    if initializer is not None:
        initializer()
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        fn, args = task
        conn.send(_STARTED)  # the deadline runs from here: not the worker's start-up nor the queue
        try:
            reply = (True, fn(*args))
        except Exception as exc:  # the caller decides; the worker lives on
            reply = (False, exc)
        conn.send(reply)


@dataclass
class Outcome:
    """What became of one task: its value, or the coded error of a breach or a dead worker
    (``error``), or the exception the task raised (``raised``)."""

    value: Any = None
    error: AdachunkError | None = None
    raised: BaseException | None = None


@dataclass
class _Worker:
    proc: Any
    conn: Any
    tag: Any = None  # the task held (None: idle)
    name: str = ""  # the file the task reads, for the coded errors
    started: float | None = None  # when the worker began the task (None: not yet)
    ps: Any = field(default=None, repr=False)  # psutil.Process for the memory ceiling


class BoundedPool:
    """``workers`` processes, each running one task at a time under ``bounds``.

    Args:
        workers: how many processes.
        bounds: the deadline and memory ceiling of each task.
        ctx: the multiprocessing context (``spawn`` for torch/numba safety, ``fork`` where the
            caller has warmed the parent up for its workers).
        initializer: run once in each worker before its first task.
    """

    def __init__(self, workers: int, bounds: Bounds, ctx, initializer: Callable[[], None] | None = None):
        self.size = max(1, workers)
        self.bounds = bounds
        self.ctx = ctx
        self.initializer = initializer
        self.workers: list[_Worker] = []
        self.queue: deque = deque()  # (tag, name, fn, args) not yet given to a worker
        self.done: deque = deque()  # (tag, Outcome) finished, not yet taken

    def __enter__(self) -> "BoundedPool":
        if self.ctx.get_start_method() != "fork":  # forked workers need no tracker
            _quiet_tracker()
        return self

    def __exit__(self, *exc) -> None:
        self.close(kill=exc[0] is not None)

    def submit(self, tag: Any, name: str, fn: Callable, *args) -> None:
        """Queue ``fn(*args)``; ``name`` (the document's path) is what a breach names."""
        self.queue.append((tag, name, fn, args))

    @property
    def pending(self) -> int:
        """Tasks queued, running or finished but not yet taken."""
        return len(self.queue) + len(self.done) + sum(w.tag is not None for w in self.workers)

    def next_done(self) -> tuple[Any, Outcome]:
        """Wait for a task to finish; its ``(tag, outcome)``. Raises IndexError when none is pending."""
        while not self.done:
            if not self.pending:
                raise IndexError("no task pending")
            self._dispatch()
            self._step()
        # a freed worker takes its next task before the caller handles this one: no worker waits
        # idle while the main process writes a result
        self._dispatch()
        return self.done.popleft()

    def _dispatch(self) -> None:
        """Hand queued tasks to idle workers, starting workers up to the pool's size."""
        while self.queue:
            worker = next((w for w in self.workers if w.tag is None), None)
            if worker is None:
                if len(self.workers) >= self.size:
                    return
                worker = self._start()
            tag, name, fn, args = self.queue.popleft()
            try:
                worker.conn.send((fn, args))
            except (OSError, ValueError):  # died idle: replace it and retry the task
                self._retire(worker)
                self.queue.appendleft((tag, name, fn, args))
                continue
            worker.tag, worker.name, worker.started = tag, name, None

    def _start(self) -> _Worker:
        import psutil

        parent, child = self.ctx.Pipe()
        proc = self.ctx.Process(target=_worker_main, args=(child, self.initializer), daemon=True,
                                name="adachunk-worker")
        proc.start()
        child.close()
        worker = _Worker(proc, parent, ps=psutil.Process(proc.pid))
        self.workers.append(worker)
        return worker

    def _step(self) -> None:
        """Wait a little for replies or deaths, then enforce the bounds."""
        busy = [w for w in self.workers if w.tag is not None]
        handles = {w.conn: w for w in busy} | {w.proc.sentinel: w for w in busy}
        for h in wait(list(handles), timeout=POLL_S):
            w = handles[h]
            if w.tag is not None:
                self._collect(w)
        now = time.monotonic()
        for w in [w for w in self.workers if w.tag is not None]:
            if self.bounds.deadline_s and w.started is not None and now - w.started > self.bounds.deadline_s:
                self._fail(w, deadline_error(w.name, self.bounds))
            elif self.bounds.memory_bytes and (rss := _rss(w)) > self.bounds.memory_bytes:
                self._fail(w, memory_error(w.name, self.bounds, rss))

    def _collect(self, w: _Worker) -> None:
        """The reply of a worker whose pipe or sentinel is ready (a dead worker fails its task)."""
        try:
            while w.conn.poll():
                reply = w.conn.recv()
                if reply == _STARTED:
                    w.started = time.monotonic()
                    continue
                ok, value = reply
                self.done.append((w.tag, Outcome(value=value) if ok else Outcome(raised=value)))
                w.tag = None
                return
        except (EOFError, OSError):
            pass  # died while sending: the task is lost with it
        if w.proc.is_alive():  # only its "started", or a reply still on its way
            return
        self._fail(w, died_error(w.name, w.proc.exitcode))

    def _fail(self, w: _Worker, err: AdachunkError) -> None:
        """Fail ``w``'s task with ``err`` and retire ``w`` (a fresh worker takes the next task)."""
        self.done.append((w.tag, Outcome(error=err)))
        w.tag = None
        self._retire(w)

    def _retire(self, w: _Worker) -> None:
        if w.proc.is_alive():
            w.proc.kill()
        w.proc.join(5.0)
        w.conn.close()
        self.workers.remove(w)

    def close(self, kill: bool = False) -> None:
        """Stop every worker: asked to finish (``kill``: killed at once, e.g. on an exception)."""
        for w in self.workers:
            if not kill and w.tag is None:
                try:
                    w.conn.send(None)
                except (OSError, ValueError):
                    pass
        deadline = time.monotonic() + (0 if kill else 5.0)
        for w in list(self.workers):
            w.proc.join(max(0.0, deadline - time.monotonic()))
            if w.proc.is_alive():
                w.proc.kill()
                w.proc.join(5.0)
            w.conn.close()
        self.workers.clear()


def _rss(w: _Worker) -> int:
    """Resident memory of a worker (0 when it is already gone)."""
    try:
        return w.ps.memory_info().rss
    except Exception:  # psutil.NoSuchProcess / AccessDenied: the death is seen on the sentinel
        return 0


def _quiet_tracker() -> None:
    """Start multiprocessing's resource tracker without its "leaked semaphore" warning.

    A worker killed for a bound may die holding a semaphore a library made (tqdm's lock); the
    tracker frees it, as designed, but warns on stderr in words that name no document, after
    the run has reported the failure in its own. The tracker takes its warning filters from
    ``sys.warnoptions`` when it starts (once per process), so the filter is added just then.
    """
    import sys
    from multiprocessing import resource_tracker

    saved = list(sys.warnoptions)
    sys.warnoptions.append("ignore:resource_tracker:UserWarning")
    try:
        resource_tracker.ensure_running()
    finally:
        sys.warnoptions[:] = saved
