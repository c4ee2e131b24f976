"""``adachunk chunk --workers N``: files chunked in worker processes, written in input order.

Each worker loads the profile once and returns a file's JSONL lines as one string; the main
process writes them in input order as soon as the head of the queue is done, so the output has
the same bytes as a single-process run. At most ``2 × N`` files are in flight. A file long
enough for the large-document mode and read from disk in segments (Markdown, text) is chunked
in the main process when its turn comes: its output is written segment by segment instead of
being held in a worker's reply.
"""

from __future__ import annotations

import io
import multiprocessing as mp
import os
import sys
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from ..errors import AdachunkError
from ..split.segments import segment_chars

_STATE: dict[str, Any] = {}  # per worker process: the resolved profile and the chunker


def _setup(args):
    """The profile and chunker of ``args`` (made once per worker process)."""
    key = repr(sorted(vars(args).items()))
    if _STATE.get("key") != key:
        from ..api import load_profile
        from .chunk_cmd import _chunker
        from .common import solver_overrides

        rp = load_profile(args.profile, **solver_overrides(args))
        _STATE.update(key=key, rp=rp, chunker=_chunker(args, rp))
    return _STATE["rp"], _STATE["chunker"]


def chunk_to_text(path: str, args) -> tuple[str, str, AdachunkError | None]:
    """A file's JSONL lines, what it printed to stderr (its error, reader warnings) and its
    coded error (run in a worker)."""
    import contextlib

    from .chunk_cmd import chunk_one

    rp, chunker = _setup(args)
    buf, errs = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(errs):  # the main process prints it, in input order
        err = chunk_one(path, args, rp, chunker, buf)
    return buf.getvalue(), errs.getvalue(), err


def _large(path: str, args) -> bool:
    """A Markdown/text file over the segment length: chunked here, streamed segment by segment
    (a parsed JSON holds its text twice, full text and pages, so its size says little)."""
    from ..ingest.stream import STREAMED_SUFFIXES

    try:
        big = os.stat(path).st_size > (args.segment_chars or segment_chars())
    except OSError:
        return False
    return big and path.lower().endswith(STREAMED_SUFFIXES)


def chunk_files(paths: list[str], args, rp, chunker, out) -> list[AdachunkError]:
    """Chunk ``paths`` with ``args.workers`` processes; returns the coded errors (printed)."""
    from ..runner.job import worker_init
    from .chunk_cmd import chunk_one

    errors: list[AdachunkError] = []
    todo = iter(paths)
    queue: deque = deque()  # (path, future or None for a file done here), in input order
    with ProcessPoolExecutor(args.workers, mp_context=mp.get_context("spawn"), initializer=worker_init) as ex:
        def fill() -> None:
            while len(queue) < 2 * args.workers:
                path = next(todo, None)
                if path is None:
                    return
                queue.append((path, None if _large(path, args) else ex.submit(chunk_to_text, path, args)))

        fill()
        while queue:
            path, fut = queue.popleft()
            if fut is None:
                err = chunk_one(path, args, rp, chunker, out)
            else:
                text, printed, err = fut.result()
                out.write(text)
                sys.stderr.write(printed)
            if err is not None:
                errors.append(err)
            fill()
    return errors
