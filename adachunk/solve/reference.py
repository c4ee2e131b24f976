"""Readable reference solver: the same recurrence as the Numba kernel, by brute force.

dp[0] = 0
dp[i] = cost[i] + chunk_cost + min { dp[j] + dev(S[i] - S[j]) : min_size <= S[i] - S[j] <= max_size }

where ``dev(d) = over * max(0, d - target) + under * max(0, target - d)`` is the optional size
deviation term (0 without a target): it makes chunks near ``target`` cheaper than chunks at the
limits. Ties go to the smallest ``j`` (the longest jump, as darn does). It scans every ``j`` for every
``i`` (O(n·w)) on purpose: it shares no cleverness with the kernel, so the parity test between
the two checks the kernel's sliding-window bookkeeping, not just its arithmetic.
"""

from __future__ import annotations

INF = 1 << 62


def deviation(d: int, target: int | None, over: int, under: int) -> int:
    """The size deviation cost of a chunk of size ``d`` (0 without a target)."""
    if target is None:
        return 0
    return over * (d - target) if d > target else under * (target - d)


def solve_reference(sizes, cost, chunk_cost: int, min_size: int, max_size: int,
                    target: int | None = None, over: int = 0, under: int = 0):
    """Return ``(cuts, total)`` for candidate positions 0..m.

    Args:
        sizes: non-decreasing prefix sizes ``S[0..m]`` (``S[0] == 0``).
        cost: integer cost of cutting at each candidate (``cost[0]`` unused).
        chunk_cost: cost added per chunk.
        min_size: smallest allowed chunk; the last chunk may undershoot only when unavoidable.
        max_size: largest allowed chunk.
        target: preferred chunk size (None: no deviation term).
        over: cost per unit a chunk is larger than ``target``.
        under: cost per unit a chunk is smaller than ``target``.

    Returns:
        ``cuts``: candidate indices ``[0, ..., m]`` of the chosen boundaries (``[0]`` when m == 0),
        ``total``: the minimal objective, or -1 when no chunking satisfies ``max_size``.
    """
    m = len(sizes) - 1
    if m <= 0:
        return [0], 0
    dp = [INF] * (m + 1)
    prev = [-1] * (m + 1)
    dp[0] = 0
    for i in range(1, m + 1):
        best, arg = INF, -1
        for j in range(i):
            d = sizes[i] - sizes[j]
            if min_size <= d <= max_size and dp[j] < INF and dp[j] + deviation(d, target, over, under) < best:
                best, arg = dp[j] + deviation(d, target, over, under), j
        if arg >= 0:
            dp[i] = best + cost[i] + chunk_cost
            prev[i] = arg
    if dp[m] >= INF:
        # Only the last chunk may undershoot min_size: allow any size in [1, max_size) there.
        best, arg = INF, -1
        for j in range(m):
            d = sizes[m] - sizes[j]
            if 0 < d <= max_size and dp[j] < INF and dp[j] + deviation(d, target, over, under) < best:
                best, arg = dp[j] + deviation(d, target, over, under), j
        if arg < 0:
            return [], -1
        dp[m] = best + cost[m] + chunk_cost
        prev[m] = arg
    cuts = [m]
    while cuts[-1] != 0:
        cuts.append(prev[cuts[-1]])
    return cuts[::-1], dp[m]
