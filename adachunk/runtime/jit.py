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
_HELPERS: set[Callable] = set()
_PRELOADED = [False]  # preload() ran: this process has decided to compile its loops
_lock = threading.Lock()


def compiled(fn: Callable, helpers: tuple[Callable, ...] = ()) -> Callable:
    """``fn`` compiled by Numba (once per process; the machine code is cached on disk).

    ``helpers``: the plain functions ``fn`` calls; they are made callable from compiled code
    (``numba.extending.register_jitable``) and stay plain Python when called from Python.
    """
    key = f"{fn.__module__}.{fn.__qualname__}"
    jitted = _JITTED.get(key)
    if jitted is None:
        with _lock:
            jitted = _JITTED.get(key)
            if jitted is None:
                from numba import njit
                from numba.extending import register_jitable

                for helper in helpers:
                    if helper not in _HELPERS:  # registered once, whoever calls it
                        register_jitable(helper)
                        _HELPERS.add(helper)
                jitted = _JITTED[key] = _njit(njit, fn)
    return jitted


def _njit(njit: Callable, fn: Callable) -> Callable:
    """``njit`` with the on-disk cache, or without it when Numba finds no writable place for
    one (read-only install, no writable ``NUMBA_CACHE_DIR`` or home): it then compiles in each
    process, which is slower to start but the same machine code."""
    try:
        return njit(cache=True, nogil=True)(fn)
    except RuntimeError as exc:  # "cannot cache function ...: no locator available"
        if "cache" not in str(exc):
            raise
        return njit(cache=False, nogil=True)(fn)


def preload() -> None:
    """Import Numba now (about a second of CPU) for a run known to be long enough to pay for it
    (e.g. before forking worker processes that will all compile loops: they then share the
    import). From then on :func:`numba_loaded` is true, so every loop compiles from its first
    input instead of running its uncompiled twin until its own threshold (what a process that
    knows nothing of its workload must do)."""
    import numba  # noqa: F401

    _PRELOADED[0] = True


def is_compiled(fn: Callable) -> bool:
    """Whether ``fn`` was compiled in this process already."""
    return f"{fn.__module__}.{fn.__qualname__}" in _JITTED


def preloaded() -> bool:
    """Whether :func:`preload` ran: the run was known to be long enough to compile."""
    return _PRELOADED[0]


def numba_loaded() -> bool:
    """Whether this process pays for Numba already: a loop was compiled, or :func:`preload`
    ran (the callers' cue to compile from their first input)."""
    return bool(_JITTED) or _PRELOADED[0]
