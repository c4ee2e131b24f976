"""Where the DP must cut, and the size each segment may reach (``solver.isolate``, ``solver.grow``).

``isolate`` cuts around a structure too large for one chunk, so that its pieces never share a
chunk with its neighbours. ``grow`` does the same for its labels and lets the pieces inside be
larger than the candidate's chunks: a filing's statement (title, header row with the years, the
rows) stays in pieces of up to ``grow[label]`` while the prose around it keeps the candidate's
sizes. Measured on financebench-dev (bench/RESULTS.md "A statement's rows together").
"""

from __future__ import annotations

import re

import numpy as np

from ..ingest.furniture import COMMENT
from .bind import HARD

# white space and page-furniture comments (as bind's gap after a heading, furniture only)
_FURNITURE_GAP = re.compile(rf"(?:\s+|{COMMENT.pattern})*")


def forced_cuts(lat, structures, settings, limit: int) -> tuple[list[int], list[tuple[int, int, int]]]:
    """The lattice indices where the DP must cut, and the grown segments.

    Returns:
        ``(cuts, grown)``: the sorted cut indices; ``grown`` holds ``(lo, hi, size)`` for each
        ``grow`` structure larger than ``limit``: between its cuts ``lo`` and ``hi`` chunks may
        reach ``size``.
    """
    out: set[int] = set()
    grown: list[tuple[int, int, int]] = []
    labels = [(label, None) for label in settings.isolate]
    labels += [(label, size) for label, size in settings.grow if size > limit]
    for label, size in labels:
        starts, ends = structures.get(label, (np.zeros(0, np.int64), np.zeros(0, np.int64)))
        starts, ends = _larger_than(lat, np.asarray(starts, np.int64), np.asarray(ends, np.int64), limit)
        for s, e in zip(starts.tolist(), ends.tolist()):
            cuts = _edges(lat, s, e, limit)
            out.update(k for k in cuts if k is not None)
            if size is not None and None not in cuts:
                grown.append((cuts[0], cuts[1], size))
    # inside a grown structure its own pieces decide: a block isolated there (a statement's rows)
    # would part the statement's closing line from its rows (adachunk.detect.tables.closing_line)
    inside = [(lo, hi) for lo, hi, _ in grown]
    return sorted(k for k in out if not any(lo < k < hi for lo, hi in inside)), grown


def _larger_than(lat, starts: np.ndarray, ends: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """The structures that may not fit in ``limit``, by one vectorised test: their size measured
    to their untrimmed end is at least what :func:`_edges` measures to the trimmed one, so every
    structure it would cut around is kept (most of a document's sentences and rows are dropped
    here, where a test per structure cost an eighth of the DP's time on CLAIR)."""
    if not len(starts):
        return starts, ends
    P, S = lat.P, lat.S
    a = np.maximum(np.searchsorted(P, starts, "right") - 1, 0)
    b = np.searchsorted(P, ends, "left")
    keep = b >= len(S)
    inside = ~keep
    keep[inside] = S[b[inside]] - S[a[inside]] > limit
    return starts[keep], ends[keep]


def _edges(lat, s: int, e: int, limit: int) -> tuple[int | None, int | None]:
    """The cheapest cut in the gap before the structure ``[s, e)`` and in the gap after it (the
    last one on ties; None where the gap has no allowed position), or ``(None, None)`` when the
    structure fits in ``limit``. A gap is the white space and page furniture between the
    structure and its neighbours."""
    text, P, S, cost = lat.text, lat.P, lat.S, lat.cost
    while e > s and text[e - 1].isspace():
        e -= 1
    a, b = int(np.searchsorted(P, s, "right")) - 1, int(np.searchsorted(P, e, "left"))
    if b >= len(S) or S[b] - S[max(a, 0)] <= limit:
        return None, None
    found: list[int | None] = []
    for lo_pos, hi_pos in ((_gap_before(text, s), s), (e, _gap_after(text, e))):
        lo = int(np.searchsorted(P, lo_pos, "left"))
        hi = int(np.searchsorted(P, hi_pos, "right")) - 1
        k = None
        if lo <= hi:
            k = hi - int(np.argmin(cost[lo:hi + 1][::-1]))  # the cheapest; the last one on ties
            if not (0 < k < len(P) - 1 and cost[k] < HARD):
                k = None
        found.append(k)
    return found[0], found[1]


def segment_limit(grown: list[tuple[int, int, int]], lo: int, hi: int, limit: int) -> int:
    """The largest chunk between lattice indices ``lo`` and ``hi``: a grown structure's size when
    the span lies inside one, else ``limit``."""
    for g_lo, g_hi, size in grown:
        if g_lo <= lo and hi <= g_hi:
            return max(size, limit)
    return limit


def _gap_before(text: str, pos: int) -> int:
    """Start of the run of white space and page furniture that ends at ``pos``: a statement
    printed at the top of a page has its page's break and running header above it, and the one
    place a cut may fall there (:mod:`adachunk.split.furniture`) is right after the break."""
    while True:
        while pos > 0 and text[pos - 1].isspace():
            pos -= 1
        opening = text.rfind("<!--", 0, pos) if text.endswith("-->", 0, pos) else -1
        if opening < 0 or not COMMENT.fullmatch(text, opening, pos):
            return pos
        pos = opening


def _gap_after(text: str, pos: int) -> int:
    """End of the run of white space and page furniture that starts at ``pos`` (a statement
    at the foot of a page: its footer and the page break follow it)."""
    return _FURNITURE_GAP.match(text, pos).end()
