"""Numba kernel of the optimal-boundary DP (twin of :mod:`adachunk.solve.reference`).

Sizes grow with ``i``, so the admissible predecessors ``j`` (``min <= S[i]-S[j] <= max``) form a
window whose both ends only move right. A monotone deque over that window yields the minimum
in amortised O(1): the whole solve is O(n), independent of ``max_size``.

Tie-breaking matches the reference: among equal ``dp[j]`` the smallest ``j`` wins, because a new
``j`` only evicts deque entries with a strictly larger value, so older (smaller) indices with an
equal value stay in front.

The three loops are plain Python functions compiled by Numba on first use (``cache=True``: later
processes load the machine code from disk). Loading Numba costs about a second of CPU in a fresh
process, more than the plain-Python loop needs on a small document, so the very same functions
run uncompiled (on Python lists: indexing a list is ~3.5x faster than a numpy scalar) until one
input has :data:`JIT_MIN_CANDIDATES` candidates or the process has solved
:data:`JIT_AFTER_CANDIDATES` in all: one algorithm, two speeds; ``adachunk chunk`` on a page never
imports Numba, and a corpus of mid-sized documents compiles once instead of paying the
uncompiled loop on every document.
"""

from __future__ import annotations

import threading
from typing import Callable

import numpy as np

INF = 1 << 62  # a Python int: Numba freezes it as an int64 constant
# The uncompiled loop costs about 0.85 µs per candidate, loading Numba and its cached machine
# code 1.0-1.4 s of CPU in a fresh process: compiling pays from about a million candidates.
# Compile for one input that large, or once this process has spent that much on the uncompiled
# loop (then at most twice the better choice in hindsight: the ski-rental rule).
JIT_MIN_CANDIDATES = 1_000_000
JIT_AFTER_CANDIDATES = 1_000_000
_JITTED: dict[str, Callable] = {}
_jit_lock = threading.Lock()
_uncompiled = [0]  # candidates solved by the uncompiled loop in this process


def _forward(sizes, cost, chunk_cost, min_size, max_size, dp, prev, dq):
    m = len(sizes) - 1
    head = 0
    tail = 0
    add = 0  # next j to enter the window
    dp[0] = 0
    for i in range(1, m + 1):
        si = sizes[i]
        while add < i and si - sizes[add] >= min_size:
            if dp[add] < INF:
                v = dp[add]
                while tail > head and dp[dq[tail - 1]] > v:
                    tail -= 1
                dq[tail] = add
                tail += 1
            add += 1
        while tail > head and si - sizes[dq[head]] > max_size:
            head += 1
        if tail > head:
            j = dq[head]
            dp[i] = dp[j] + cost[i] + chunk_cost
            prev[i] = j
        else:
            dp[i] = INF
            prev[i] = -1


def _relaxed_end(sizes, cost, chunk_cost, max_size, dp, prev):
    # The last chunk may undershoot min_size (only reached when the strict solve failed).
    m = len(sizes) - 1
    best = INF
    arg = -1
    for j in range(m):
        d = sizes[m] - sizes[j]
        if d > 0 and d <= max_size and dp[j] < best:
            best = dp[j]
            arg = j
    if arg >= 0:
        dp[m] = best + cost[m] + chunk_cost
        prev[m] = arg


def _backtrack(prev, m):
    n = 1
    i = m
    while i != 0:
        i = prev[i]
        n += 1
    out = np.empty(n, dtype=np.int64)
    i = m
    k = n - 1
    while True:
        out[k] = i
        if i == 0:
            break
        i = prev[i]
        k -= 1
    return out


def _compiled(fn: Callable) -> Callable:
    """``fn`` compiled by Numba (once per process; the machine code is cached on disk)."""
    jitted = _JITTED.get(fn.__name__)
    if jitted is None:
        with _jit_lock:
            jitted = _JITTED.get(fn.__name__)
            if jitted is None:
                from numba import njit

                jitted = _JITTED[fn.__name__] = njit(cache=True, nogil=True)(fn)
    return jitted


def solve_kernel(sizes: np.ndarray, cost: np.ndarray, chunk_cost: int, min_size: int, max_size: int,
                 *, jit: bool | None = None):
    """Same contract as :func:`adachunk.solve.reference.solve_reference`, O(n).

    Args:
        sizes: cumulative size at each candidate (``sizes[0] == 0``), non-decreasing.
        cost: cost of cutting at each candidate.
        chunk_cost: cost added per chunk.
        min_size: smallest chunk but the last.
        max_size: largest chunk.
        jit: compile with Numba (None: from :data:`JIT_MIN_CANDIDATES` candidates on, once
            this process has solved :data:`JIT_AFTER_CANDIDATES` uncompiled, or when it has
            compiled the loops already).

    Returns:
        ``(cuts, total)`` with ``cuts`` an int64 array of candidate indices (total -1: infeasible).
    """
    sizes = np.ascontiguousarray(sizes, dtype=np.int64)
    cost = np.ascontiguousarray(cost, dtype=np.int64)
    m = sizes.shape[0] - 1
    if m <= 0:
        return np.zeros(1, np.int64), 0
    if jit is None:  # once compiled in this process, the compiled loop is always the faster one
        jit = m >= JIT_MIN_CANDIDATES or _uncompiled[0] >= JIT_AFTER_CANDIDATES or "_forward" in _JITTED
    if jit:
        forward, relaxed_end, backtrack = _compiled(_forward), _compiled(_relaxed_end), _compiled(_backtrack)
        dp, prev, dq = (np.empty(m + 1, dtype=np.int64) for _ in range(3))
        args = (sizes, cost, np.int64(chunk_cost), np.int64(min_size), np.int64(max_size))
    else:
        forward, relaxed_end, backtrack = _forward, _relaxed_end, _backtrack
        dp, prev, dq = [0] * (m + 1), [0] * (m + 1), [0] * (m + 1)
        args = (sizes.tolist(), cost.tolist(), int(chunk_cost), int(min_size), int(max_size))
        _uncompiled[0] += m
    forward(*args, dp, prev, dq)
    if dp[m] >= INF:
        relaxed_end(args[0], args[1], args[2], args[4], dp, prev)
        if dp[m] >= INF:
            return np.zeros(0, np.int64), -1
    return backtrack(prev, m), int(dp[m])
