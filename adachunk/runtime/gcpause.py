"""Pause Python's cyclic garbage collector while one document is chunked.

Chunking a document allocates tens of thousands of container objects (block spans, parse
buffers, per-span tuples) that live until the document is done and then go by reference
counting: it makes no cyclic garbage (``tests/test_analysis.py`` checks). The collector still
runs on allocation counts, and each full collection walks every object of the process; with
numpy, pydantic and Numba loaded that is 0.1-0.15 s, about once per 30 documents, plus the
young collections: 8-13% of a warm pass over CLAIR (``bench/RESULTS.md``). Pausing it for the
call removes that work and frees nothing later than before.

One call owns the pause: the call that finds the collector enabled (and no pause running)
disables it and enables it again when it returns. Calls nested in it, and calls of other threads
that start meanwhile, run inside that pause and change nothing, so a caller's own
``gc.disable()`` made before the call stands. A pause therefore never outlasts the call that
made it: in a process that chunks on several threads at once, the collector runs again whenever
the owning call returns, however the other calls overlap (a shared counter would keep it off
for as long as some call is running, and the other threads' cyclic garbage with it).
``ADACHUNK_GC_PAUSE=0`` turns the pause off (a process that manages the collector itself, e.g.
with ``gc.freeze``).
"""

from __future__ import annotations

import gc
import os
import threading
from contextlib import contextmanager
from typing import Iterator

ENV = "ADACHUNK_GC_PAUSE"
_lock = threading.Lock()
_owner: int | None = None  # the thread whose call disabled the collector


def enabled() -> bool:
    """Whether chunking pauses the collector (``ADACHUNK_GC_PAUSE`` is not ``0``)."""
    return os.environ.get(ENV, "1").strip() not in ("0", "false", "no", "off")


@contextmanager
def paused() -> Iterator[None]:
    """Run the body with the cyclic collector disabled (see the module docstring)."""
    global _owner
    if not enabled():
        yield
        return
    with _lock:
        took = _owner is None and gc.isenabled()
        if took:
            gc.disable()
            _owner = threading.get_ident()
    try:
        yield
    finally:
        if took:
            with _lock:
                _owner = None
                gc.enable()
