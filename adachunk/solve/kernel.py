"""Numba kernel of the optimal-boundary DP (twin of :mod:`adachunk.solve.reference`).

Sizes grow with ``i``, so the admissible predecessors ``j`` (``min <= S[i]-S[j] <= max``) form a
window whose both ends only move right. A monotone deque over that window yields the minimum
in amortised O(1): the whole solve is O(n), independent of ``max_size``.

Tie-breaking matches the reference: among equal ``dp[j]`` the smallest ``j`` wins, because a new
``j`` only evicts deque entries with a strictly larger value, so older (smaller) indices with an
equal value stay in front.
"""

from __future__ import annotations

import numpy as np
from numba import njit

INF = np.int64(1) << np.int64(62)


@njit(cache=True, nogil=True)
def _forward(sizes, cost, chunk_cost, min_size, max_size, dp, prev):  # pragma: no cover - jitted
    m = sizes.shape[0] - 1
    dq = np.empty(m + 1, dtype=np.int64)
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


@njit(cache=True, nogil=True)
def _relaxed_end(sizes, cost, chunk_cost, max_size, dp, prev):  # pragma: no cover - jitted
    # The last chunk may undershoot min_size (only reached when the strict solve failed).
    m = sizes.shape[0] - 1
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


@njit(cache=True, nogil=True)
def _backtrack(prev, m):  # pragma: no cover - jitted
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


def solve_kernel(sizes: np.ndarray, cost: np.ndarray, chunk_cost: int, min_size: int, max_size: int):
    """Same contract as :func:`adachunk.solve.reference.solve_reference`, O(n).

    Returns ``(cuts, total)`` with ``cuts`` an int64 array of candidate indices.
    """
    sizes = np.ascontiguousarray(sizes, dtype=np.int64)
    cost = np.ascontiguousarray(cost, dtype=np.int64)
    m = sizes.shape[0] - 1
    if m <= 0:
        return np.zeros(1, np.int64), 0
    dp = np.empty(m + 1, dtype=np.int64)
    prev = np.empty(m + 1, dtype=np.int64)
    _forward(sizes, cost, np.int64(chunk_cost), np.int64(min_size), np.int64(max_size), dp, prev)
    if dp[m] >= INF:
        _relaxed_end(sizes, cost, np.int64(chunk_cost), np.int64(max_size), dp, prev)
        if dp[m] >= INF:
            return np.zeros(0, np.int64), -1
    return _backtrack(prev, m), int(dp[m])
