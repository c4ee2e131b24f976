"""Numba compilation on demand, shared by the compiled loops (solver, cost sums).

Each loop is a plain Python function that also runs uncompiled (its own reference twin); it is
compiled once per process on first need, and the machine code is cached on disk (``cache=True``)
so later processes only load it. Importing Numba costs about a second of CPU, so nothing here
imports it before a caller asks for a compiled loop.
"""

from __future__ import annotations

import threading
from typing import Callable

_JITTED: dict[str, Callable] = {}
_lock = threading.Lock()


def compiled(fn: Callable) -> Callable:
    """``fn`` compiled by Numba (once per process; the machine code is cached on disk)."""
    key = f"{fn.__module__}.{fn.__qualname__}"
    jitted = _JITTED.get(key)
    if jitted is None:
        with _lock:
            jitted = _JITTED.get(key)
            if jitted is None:
                from numba import njit

                jitted = _JITTED[key] = njit(cache=True, nogil=True)(fn)
    return jitted


def is_compiled(fn: Callable) -> bool:
    """Whether ``fn`` was compiled in this process already."""
    return f"{fn.__module__}.{fn.__qualname__}" in _JITTED


def numba_loaded() -> bool:
    """Whether any loop was compiled in this process (Numba's import is then already paid)."""
    return bool(_JITTED)
