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
:data:`JIT_AFTER_CANDIDATES` in all (:data:`JIT_LOADED_CANDIDATES` for both once another
loop has paid for Numba): one algorithm, two speeds; ``adachunk chunk`` on a page never
imports Numba, and a corpus of mid-sized documents compiles once instead of paying the
uncompiled loop on every document.
"""

from __future__ import annotations

import numpy as np

from ..runtime.jit import compiled, is_compiled, numba_loaded, preloaded

INF = 1 << 62  # a Python int: Numba freezes it as an int64 constant
# The uncompiled loop costs about 0.85 µs per candidate, loading Numba and its cached machine
# code 1.0-1.4 s of CPU in a fresh process: compiling pays from about a million candidates.
# Compile for one input that large, or once this process has spent that much on the uncompiled
# loop (then at most twice the better choice in hindsight: the ski-rental rule).
JIT_MIN_CANDIDATES = 1_000_000
JIT_AFTER_CANDIDATES = 1_000_000
# Once another loop was compiled in this process (Numba imported, its code generator set up),
# loading these loops' cached machine code costs ~0.1 s: the same rule pays from about 150k
# candidates. (Measured: 1.17 M candidates solved uncompiled in a serial ``adachunk chunk``
# over CLAIR, ~0.8 s, while the text-unit scan had loaded Numba from the first document.)
JIT_LOADED_CANDIDATES = 150_000
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


def _forward_target(sizes, cost, chunk_cost, min_size, max_size, target, over, under, dp, prev, dq, dq2):
    # With a size deviation term dev(d) = over*max(0, d-T) + under*max(0, T-d) the window of
    # predecessors splits at d = T into two windows that each slide right: "near" j (d < T), where
    # dp[j] + dev = (dp[j] + under*S[j]) + under*(T - S[i]), and "far" j (d >= T), where
    # dp[j] + dev = (dp[j] - over*S[j]) + over*(S[i] - T). Each part's key depends on j alone, so
    # each part keeps its own monotone deque; every j enters near, then far, then expires, in
    # index order. O(n) as without a target; ties still go to the smallest j (far j < near j).
    m = len(sizes) - 1
    nh = 0  # near deque dq[nh:nt]
    nt = 0
    fh = 0  # far deque dq2[fh:ft]
    ft = 0
    add = 0  # next j to enter the window (d >= min_size)
    mid = 0  # next j to become far (d >= split)
    # a near j with d > max_size must leave the window: above max_size the two parts are moot
    split = target if target <= max_size else max_size + 1
    dp[0] = 0
    for i in range(1, m + 1):
        si = sizes[i]
        while add < i and si - sizes[add] >= min_size:
            if dp[add] < INF:
                v = dp[add] + under * sizes[add]
                while nt > nh and dp[dq[nt - 1]] + under * sizes[dq[nt - 1]] > v:
                    nt -= 1
                dq[nt] = add
                nt += 1
            add += 1
        while mid < add and si - sizes[mid] >= split:
            if dp[mid] < INF:
                v = dp[mid] - over * sizes[mid]
                while ft > fh and dp[dq2[ft - 1]] - over * sizes[dq2[ft - 1]] > v:
                    ft -= 1
                dq2[ft] = mid
                ft += 1
            mid += 1
        while nt > nh and dq[nh] < mid:
            nh += 1
        while ft > fh and si - sizes[dq2[fh]] > max_size:
            fh += 1
        best = INF
        arg = -1
        if ft > fh:
            j = dq2[fh]
            best = dp[j] + over * (si - sizes[j] - target)
            arg = j
        if nt > nh:
            j = dq[nh]
            v = dp[j] + under * (target - (si - sizes[j]))
            if v < best:
                best = v
                arg = j
        if arg >= 0:
            dp[i] = best + cost[i] + chunk_cost
            prev[i] = arg
        else:
            dp[i] = INF
            prev[i] = -1


def _relaxed_end(sizes, cost, chunk_cost, max_size, target, over, under, dp, prev):
    # The last chunk may undershoot min_size (only reached when the strict solve failed).
    # target < 0: no deviation term.
    m = len(sizes) - 1
    best = INF
    arg = -1
    for j in range(m):
        d = sizes[m] - sizes[j]
        if d > 0 and d <= max_size and dp[j] < INF:
            v = dp[j]
            if target >= 0:
                if d > target:
                    v += over * (d - target)
                else:
                    v += under * (target - d)
            if v < best:
                best = v
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


def _pays(m: int) -> bool:
    """Whether compiling the loops pays for an input of ``m`` candidates (the ski-rental rule
    with the compile cost of this process's state)."""
    if preloaded():  # the caller knows the run is long: compiling pays from the first input
        return True
    if numba_loaded():
        return m >= JIT_LOADED_CANDIDATES or _uncompiled[0] >= JIT_LOADED_CANDIDATES
    return m >= JIT_MIN_CANDIDATES or _uncompiled[0] >= JIT_AFTER_CANDIDATES


def solve_kernel(sizes: np.ndarray, cost: np.ndarray, chunk_cost: int, min_size: int, max_size: int,
                 target: int | None = None, over: int = 0, under: int = 0, *, jit: bool | None = None):
    """Same contract as :func:`adachunk.solve.reference.solve_reference`, O(n).

    Args:
        sizes: cumulative size at each candidate (``sizes[0] == 0``), non-decreasing.
        cost: cost of cutting at each candidate.
        chunk_cost: cost added per chunk.
        min_size: smallest chunk but the last.
        max_size: largest chunk.
        target: preferred chunk size (None: no size deviation term).
        over: cost per unit a chunk is larger than ``target``.
        under: cost per unit a chunk is smaller than ``target``.
        jit: compile with Numba (None: from :data:`JIT_MIN_CANDIDATES` candidates on, once
            this process has solved :data:`JIT_AFTER_CANDIDATES` uncompiled, or when it has
            compiled the loops already; :data:`JIT_LOADED_CANDIDATES` for both once another
            loop was compiled).

    Returns:
        ``(cuts, total)`` with ``cuts`` an int64 array of candidate indices (total -1: infeasible).
    """
    sizes = np.ascontiguousarray(sizes, dtype=np.int64)
    cost = np.ascontiguousarray(cost, dtype=np.int64)
    m = sizes.shape[0] - 1
    if m <= 0:
        return np.zeros(1, np.int64), 0
    fwd = _forward if target is None else _forward_target
    if jit is None:  # once compiled in this process, the compiled loop is always the faster one
        jit = is_compiled(fwd) or _pays(m)
    dev = (-1 if target is None else int(target), int(over), int(under))
    if jit:
        forward, relaxed_end, backtrack = compiled(fwd), compiled(_relaxed_end), compiled(_backtrack)
        dp, prev, dq = (np.empty(m + 1, dtype=np.int64) for _ in range(3))
        dq2 = np.empty(m + 1 if target is not None else 1, dtype=np.int64)  # the far deque
        args = (sizes, cost, np.int64(chunk_cost), np.int64(min_size), np.int64(max_size))
        dev = tuple(np.int64(x) for x in dev)
    else:
        forward, relaxed_end, backtrack = fwd, _relaxed_end, _backtrack
        dp, prev, dq, dq2 = [0] * (m + 1), [0] * (m + 1), [0] * (m + 1), [0] * (m + 1)
        args = (sizes.tolist(), cost.tolist(), int(chunk_cost), int(min_size), int(max_size))
        _uncompiled[0] += m
    if target is None:
        forward(*args, dp, prev, dq)
    else:
        forward(*args, *dev, dp, prev, dq, dq2)
    if dp[m] >= INF:
        relaxed_end(args[0], args[1], args[2], args[4], *dev, dp, prev)
        if dp[m] >= INF:
            return np.zeros(0, np.int64), -1
    return backtrack(prev, m), int(dp[m])
