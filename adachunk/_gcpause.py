"""Pause Python's cyclic garbage collector while one document is chunked.

Chunking a document allocates tens of thousands of container objects (block spans, parse
buffers, per-span tuples) that live until the document is done and then go by reference
counting: it makes no cyclic garbage (``tests/test_analysis.py`` checks). The collector still
runs on allocation counts, and each full collection walks every object of the process; with
numpy, pydantic and Numba loaded that is 0.1-0.15 s, about once per 30 documents, plus the
young collections: 8-13% of a warm pass over CLAIR (``bench/RESULTS.md``). Pausing it for the
call removes that work and frees nothing later than before.

The pause nests and is shared by threads: the first entrant disables the collector only if it
was enabled, and the last one out enables it again, so a caller's own ``gc.disable()`` made
before the call stands. ``ADACHUNK_GC_PAUSE=0`` turns the pause off (a process that manages the
collector itself, e.g. with ``gc.freeze``).
"""

from __future__ import annotations

import gc
import os
import threading
from contextlib import contextmanager
from typing import Iterator

ENV = "ADACHUNK_GC_PAUSE"
_lock = threading.Lock()
_depth = 0
_resume = False


def enabled() -> bool:
    """Whether chunking pauses the collector (``ADACHUNK_GC_PAUSE`` is not ``0``)."""
    return os.environ.get(ENV, "1").strip() not in ("0", "false", "no", "off")


@contextmanager
def paused() -> Iterator[None]:
    """Run the body with the cyclic collector disabled (see the module docstring)."""
    global _depth, _resume
    if not enabled():
        yield
        return
    with _lock:
        if _depth == 0:
            _resume = gc.isenabled()
            if _resume:
                gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _resume:
                _resume = False
                gc.enable()
