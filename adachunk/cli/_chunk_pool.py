"""``adachunk chunk --workers N``: files chunked in worker processes, written in input order.

Each worker returns a file's JSONL lines as one string; the main process writes them in input
order as soon as the head of the queue is done, so the output has the same bytes as a
single-process run.

Where the time went, and what is done about it (``bench/bench_cold.py`` measures it):

* **Start-up.** A spawned worker imports the engine, loads the profile and the tokenizer and,
  for long texts, Numba: ~2 s of CPU each, twice what a one-process run pays once. On Linux the
  workers are *forked* from the main process after it has loaded the profile (and, when the
  inputs are large enough to need them, the tokenizer's encoder and Numba:
  :func:`adachunk.cli._chunk_file.warm_up`): they start with all of it. Elsewhere (no ``fork``)
  they are spawned as before.
* **Threads.** Each worker encodes with one thread (``worker_init``): tiktoken's eight threads
  per worker oversubscribed the cores the pool already fills.
* **Imbalance.** Documents differ in size by 600x (CLAIR: 6 kB to 3.9 MB); in input order the
  largest may start last and run alone. Files are submitted largest first within a window of
  the next :data:`WINDOW` files (or :data:`WINDOW_BYTES` of input), which bounds the replies
  held for in-order writing.

Each worker holds one file at a time (:class:`adachunk.runner.pool.BoundedPool`), under the
per-document bounds of ``--doc-timeout`` and ``--doc-memory``: a file past them, or whose worker
dies, fails alone with its coded error (``ADA325``-``ADA327``), and its worker is replaced.

A file long enough for the large-document mode and read from disk in segments (Markdown, text)
is chunked in the main process when its turn comes: its output is written segment by segment
instead of being held in a worker's reply (the bounds do not apply to it there).
"""

from __future__ import annotations

import heapq
import io
import multiprocessing as mp
import sys
import warnings
from typing import Any

from ..errors import AdachunkError
from ..api.chunking import file_size, is_text_like, segment_chars
from ._chunk_file import chunk_one, sizes_of, warm_up

_STATE: dict[str, Any] = {}  # per process: the resolved profile and the chunker of some args
WINDOW = 64  # files that may be chunked ahead of the next one to write (at least 2 per worker)
WINDOW_BYTES = 256 << 20  # ... and their input bytes (one file always fits)


def _key(args) -> str:
    return repr(sorted(vars(args).items()))


def _setup(args):
    """The profile and chunker of ``args`` (made once per worker process; a forked worker
    finds the main process's)."""
    key = _key(args)
    if _STATE.get("key") != key:
        from ..api import load_profile
        from ._chunk_file import chunker_of
        from .common import solver_overrides

        rp = load_profile(args.profile, **solver_overrides(args))
        _STATE.update(key=key, rp=rp, chunker=chunker_of(args, rp))
    return _STATE["rp"], _STATE["chunker"]


def chunk_to_text(path: str, args) -> tuple[str, str, AdachunkError | None]:
    """A file's JSONL lines, what it printed to stderr (its error, reader warnings) and its
    coded error (run in a worker)."""
    import contextlib

    rp, chunker = _setup(args)
    buf, errs = io.StringIO(), io.StringIO()

    def show(message, category, filename, lineno, file=None, line=None):
        errs.write(warnings.formatwarning(message, category, filename, lineno, line))

    # the main process prints it, in input order; warnings are written there too, as a fresh
    # process shows them (a forked worker inherits whatever hook its parent had, e.g. pytest's)
    with contextlib.redirect_stderr(errs), warnings.catch_warnings():
        warnings.showwarning = show
        err = chunk_one(path, args, rp, chunker, buf)
    return buf.getvalue(), errs.getvalue(), err


def _large(path: str, args) -> bool:
    """A Markdown/text file over the segment length: chunked here, streamed segment by segment
    (a parsed JSON holds its text twice, full text and pages, so its size says little)."""
    return is_text_like(path) and file_size(path) > (args.segment_chars or segment_chars())


def start_method() -> str:
    """``fork`` where the platform has it safely (Linux), else ``spawn``."""
    return "fork" if sys.platform.startswith("linux") and "fork" in mp.get_all_start_methods() else "spawn"


def _pool(args):
    """The worker pool: one file per worker at a time, each under ``--doc-timeout`` and
    ``--doc-memory`` (a file past them, or whose worker dies, fails alone: ADA325-ADA327)."""
    from ..api.workers import BoundedPool, Bounds, worker_init

    bounds = Bounds.of(getattr(args, "doc_timeout", None), getattr(args, "doc_memory", None))
    return BoundedPool(args.workers, bounds, mp.get_context(start_method()), worker_init)


def _result(pool, head: int, finished: dict) -> tuple[str, str, AdachunkError | None]:
    """File ``head``'s reply, waiting for the pool as long as it is not in; a breach or a dead
    worker is the file's coded error, printed as the file's own errors are."""
    from .common import print_error

    while head not in finished:
        tag, outcome = pool.next_done()
        finished[tag] = outcome
    outcome = finished.pop(head)
    if outcome.raised is not None:  # chunk_one raised (a bug): as the executor's result() did
        raise outcome.raised
    if outcome.error is not None:
        print_error(outcome.error)
        return "", "", outcome.error
    return outcome.value


def chunk_files(paths: list[str], args, rp, chunker, out) -> list[AdachunkError]:
    """Chunk ``paths`` with ``args.workers`` processes; returns the coded errors (printed)."""
    sizes, text_like = sizes_of(paths)
    here = [_large(p, args) for p in paths]  # chunked by this process in its turn
    if start_method() == "fork":
        _STATE.update(key=_key(args), rp=rp, chunker=chunker)  # inherited by the workers
        # built here, before forking, what every worker would otherwise build for itself
        warm_up(rp, sizes, text_like, args.workers)
    errors: list[AdachunkError] = []
    finished: dict[int, Any] = {}  # index -> Outcome of files done, not yet written
    ready: list[tuple[int, int]] = []  # (-size, index) of files in the window, not yet submitted
    end, window_bytes = 0, 0  # the window is paths[head:end]
    min_ahead = 2 * args.workers
    with warnings.catch_warnings(), _pool(args) as pool:
        # Python >= 3.12 warns on fork() when threads exist; BLAS's threads are fork-safe
        warnings.filterwarnings("ignore", category=DeprecationWarning, message=".*fork.*")
        for head in range(len(paths)):
            while end < len(paths) and (end - head < min_ahead or (
                    end - head < max(WINDOW, min_ahead) and window_bytes + sizes[end] <= WINDOW_BYTES)):
                if not here[end]:
                    heapq.heappush(ready, (-sizes[end], end))
                window_bytes += sizes[end]
                end += 1
            while ready:  # largest first: a long document never starts last and runs alone
                _, i = heapq.heappop(ready)
                pool.submit(i, paths[i], chunk_to_text, paths[i], args)
            if here[head]:
                err = chunk_one(paths[head], args, rp, chunker, out)
            else:
                text, printed, err = _result(pool, head, finished)
                out.write(text)
                sys.stderr.write(printed)
            window_bytes -= sizes[head]
            if err is not None:
                errors.append(err)
    return errors
