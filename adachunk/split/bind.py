"""Hard rules that bind every candidate of the pool (a profile's ``hard_rules`` section).

Punishments are costs the DP weighs against each other; a hard rule is a promise the profile
makes about *whatever* chunking ``adachunk run`` writes:

* ``keep_with_next``: a chunk never ends with one of these structures (a heading) while text
  follows it. Blank lines and page-furniture comments (``<!-- PageBreak -->``) between the
  heading and its body do not count as body, so the forbidden cuts run from just after the
  structure's start to the first character of its body, inclusive.
* ``atomic``: no cut strictly inside one of these structures (a table row, a definition, a
  numbered point) when it fits the candidate's largest chunk; one that does not fit has to be
  cut somewhere, so it binds nothing. One that opens a heading's body must fit together with
  the heading (and the headings above it that must stay too): the heading cannot be left
  behind, so the structure gives way.

The forbidden positions of a document under a size limit are :class:`Zones` (sorted, disjoint
half-open intervals of cut positions, per label and merged). The DP adds :data:`HARD` to the
cost of every forbidden lattice position, so it keeps the rules wherever its sizes allow (the
soft costs of a whole document never come near it). Every other candidate is checked by
:func:`bind` after post-processing: each offending cut moves to the nearest allowed place (the
structure's start, or the first line or sentence end after it) that keeps the two chunks it
separates within the candidate's size limit, or disappears when the two chunks fit together;
a cut that can do neither stays and is counted (``remaining``), and the selection leaves such
a candidate out while another keeps every rule (:mod:`adachunk.selection.choose`).

``chunking.meta["hard_rules"]`` records, per candidate: ``found`` (offending cuts before any
repair, by label in ``by_label``), ``repaired`` and ``remaining``.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from ..analysis import analysis_of
from ..policy import Policy
from ..datatypes import Chunking, Document

#: DP cost of a forbidden cut: above any sum of a document's soft costs (a cut costs at most a
#: few thousand units, and a document has far fewer than 10^5 chunks), far below the solver's
#: infinity (2^62).
HARD = 10**9

# what may stand between a heading and its body without being body: blank space and one-line
# HTML comments (page furniture the readers write)
_GAP = re.compile(r"(?:\s+|<!--[^\n]*?-->)*")
# natural cut places after a forbidden zone: after a run of newlines, or after a sentence end
# and its spaces
_NATURAL = re.compile(r"\n+|[.!?;:][)\]\"'’”]*[ \t]+")
_NATURAL_TRIES = 64  # candidates looked at before a right move gives up


@dataclass(frozen=True)
class Zones:
    """Forbidden cut positions of one document: sorted disjoint ``[lo, hi)`` intervals.

    Attributes:
        lo: interval starts of the union over every hard rule (merged).
        hi: interval ends, same length.
        by_label: label → ``(lo, hi)`` of that label alone (merged), for the counts.
    """

    lo: np.ndarray
    hi: np.ndarray
    by_label: dict[str, tuple[np.ndarray, np.ndarray]]

    def zone_at(self, p: int) -> tuple[int, int] | None:
        """The forbidden interval holding position ``p``, or None when a cut at ``p`` is allowed."""
        i = bisect.bisect_right(self.lo, p) - 1
        if i >= 0 and p < self.hi[i]:
            return int(self.lo[i]), int(self.hi[i])
        return None

    def labels_at(self, p: int) -> list[str]:
        """The labels whose rule a cut at ``p`` breaks."""
        out = []
        for label, (lo, hi) in self.by_label.items():
            i = bisect.bisect_right(lo, p) - 1
            if i >= 0 and p < hi[i]:
                out.append(label)
        return out

    def mask(self, positions: np.ndarray) -> np.ndarray:
        """Boolean array: which of the sorted ``positions`` are forbidden."""
        if not len(self.lo):
            return np.zeros(len(positions), dtype=bool)
        i = np.searchsorted(self.lo, positions, side="right") - 1
        inside = i >= 0
        inside[inside] = positions[inside] < self.hi[i[inside]]
        return inside


def _merge(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Union of half-open intervals as sorted disjoint ones (empty intervals dropped)."""
    keep = hi > lo
    lo, hi = lo[keep], hi[keep]
    if not len(lo):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    order = np.argsort(lo, kind="stable")
    lo, hi = lo[order], hi[order]
    reach = np.maximum.accumulate(hi)
    # a new interval starts where the start lies beyond everything reached so far
    new = np.ones(len(lo), dtype=bool)
    new[1:] = lo[1:] > reach[:-1]
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], len(lo)) - 1
    return lo[starts].astype(np.int64), reach[ends].astype(np.int64)


def _keep_with_next(text: str, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Forbidden cuts of a keep-with-next structure: after its start, up to its body's first character."""
    n = len(text)
    lo, hi = [], []
    for s, e in zip(starts.tolist(), ends.tolist()):
        q = _GAP.match(text, e).end()
        if q >= n:  # nothing follows: the heading ends the document
            continue
        lo.append(s + 1)
        hi.append(q + 1)
    return np.asarray(lo, np.int64), np.asarray(hi, np.int64)


def _atomic(text: str, starts: np.ndarray, ends: np.ndarray, sizes: Callable, limit: int | None,
            heads: tuple[np.ndarray, np.ndarray]):
    """Forbidden cuts of an atomic structure that fits ``limit``: strictly inside its
    non-blank part. A structure that opens the body of a keep-with-next structure (a table
    right under its heading) must fit together with it: the heading cannot be left behind,
    so a pair larger than the chunk has to be cut inside the structure."""
    lo, hi = [], []
    for s, e in zip(starts.tolist(), ends.tolist()):
        while e > s and text[e - 1].isspace():
            e -= 1
        while s < e and text[s].isspace():
            s += 1
        if e - s >= 2:
            lo.append(s)
            hi.append(e)
    s_arr, e_arr = np.asarray(lo, np.int64), np.asarray(hi, np.int64)
    if limit is not None and len(s_arr):
        # Sizes of every structure at once (a call per structure was a sixth of the DP's time).
        first = s_arr
        if len(heads[0]):
            i = np.searchsorted(heads[0], s_arr, side="right") - 1
            under = (i >= 0) & (s_arr < heads[1][np.maximum(i, 0)])
            first = np.where(under, heads[0][np.maximum(i, 0)] - 1, s_arr)
        fits = sizes(first, e_arr) <= limit
        s_arr, e_arr = s_arr[fits], e_arr[fits]
    return s_arr + 1, e_arr


def _sizer(doc: Document, policy: Policy) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """Sizes of spans (start and end arrays) in the solver's unit, from the whole document's
    tokenisation."""
    if policy.solver.granularity == "chars":
        return lambda s, e: e - s
    P, S = analysis_of(doc).boundaries(policy.solver.tokenizer)

    def sizes(s: np.ndarray, e: np.ndarray) -> np.ndarray:
        a = np.searchsorted(P, s, side="right") - 1
        b = np.searchsorted(P, e, side="left")
        return S[np.minimum(b, len(S) - 1)] - S[np.maximum(a, 0)]

    return sizes


def zones_for(doc: Document, policy: Policy, limit: int | None, structures: dict | None = None) -> Zones:
    """The forbidden cut positions of ``doc`` under the policy's hard rules, for chunks of at
    most ``limit`` (the solver's unit; None: every atomic structure binds). Kept in the
    document's analysis per rule set and limit: every candidate of one size shares them."""
    spec = policy.hard_rules
    unit = "chars" if policy.solver.granularity == "chars" else policy.solver.tokenizer
    key = ("hard_zones", spec.keep_with_next, spec.atomic, unit, limit)

    def build() -> Zones:
        found = structures if structures is not None else _structures(doc, policy)
        text, sizes = doc.text, _sizer(doc, policy)
        by_label: dict[str, tuple[list, list]] = {}
        for label in spec.keep_with_next:
            if label in found:
                by_label.setdefault(label, ([], []))
                lo, hi = _keep_with_next(text, *map(np.asarray, found[label]))
                by_label[label][0].append(lo)
                by_label[label][1].append(hi)
        heads = _merge(*(np.concatenate(x) if x else np.zeros(0, np.int64)
                         for x in ([a for los, _ in by_label.values() for a in los],
                                   [b for _, his in by_label.values() for b in his])))
        for label in spec.atomic:
            if label in found:
                by_label.setdefault(label, ([], []))
                lo, hi = _atomic(text, *map(np.asarray, found[label]), sizes, limit, heads)
                by_label[label][0].append(lo)
                by_label[label][1].append(hi)
        merged = {lab: _merge(np.concatenate(los), np.concatenate(his)) for lab, (los, his) in by_label.items()}
        if merged:
            lo, hi = _merge(np.concatenate([z[0] for z in merged.values()]),
                            np.concatenate([z[1] for z in merged.values()]))
        else:
            lo = hi = np.zeros(0, np.int64)
        return Zones(lo, hi, merged)

    return analysis_of(doc).memo(key, build)


def _structures(doc: Document, policy: Policy) -> dict:
    """The structures the hard rules name, in ``doc`` (from the document's analysis: detected
    once). Only those: a structure no hard rule names must not run for a candidate that does
    not use it (a failing detector fails the DP candidates only, ``select.on_detector_error``)."""
    from ..detect.base import DetectContext

    spec = policy.hard_rules
    wanted = {lab: det for lab, det in policy.detectors.items() if lab in (*spec.keep_with_next, *spec.atomic)}
    if not wanted:
        return {}
    return analysis_of(doc).structures(wanted, DetectContext(doc.text, doc, metrics=policy.metrics))


def hard_costs(doc: Document, policy: Policy, positions: np.ndarray, limit: int, structures: dict) -> np.ndarray | None:
    """:data:`HARD` at every forbidden lattice position (None when nothing is forbidden), for the DP."""
    if not policy.hard_rules.active():
        return None
    mask = zones_for(doc, policy, limit, structures).mask(np.asarray(positions))
    return mask.astype(np.int64) * HARD if mask.any() else None


def violations(cuts: Sequence[int], zones: Zones) -> Counter:
    """Offending cuts among ``cuts`` (interior core boundaries), counted by label (a cut that
    breaks two rules counts for each)."""
    out: Counter = Counter()
    for p in cuts:
        if zones.zone_at(p) is not None:
            out.update(zones.labels_at(p))
    return out


def candidate_limit(chunking: Chunking, policy: Policy) -> int | None:
    """The largest chunk a candidate allows itself, in the solver's unit: the DP's ``max_size``
    less its overlap, the recursive splitter's ``chunk_size``, else post-processing's
    ``max_tokens`` (None when nothing bounds it)."""
    meta = chunking.meta
    if isinstance(meta.get("max_size"), int):
        return int(meta["max_size"]) - int(policy.solver.overlap if chunking.splitter == "dp.v1" else 0)
    if isinstance(meta.get("chunk_size"), int):
        return int(meta["chunk_size"]) - int(meta.get("chunk_overlap") or 0)
    if policy.postprocess.enabled:
        return policy.postprocess.max_tokens
    return None


def bind(chunking: Chunking, doc: Document, policy: Policy) -> Chunking:
    """Check ``chunking`` against the policy's hard rules and, by ``hard_rules.enforce``, repair
    it (see the module docstring). Returns the chunking (a new one when a cut moved) with
    ``meta["hard_rules"]``; unchanged when the profile declares no hard rule."""
    spec = policy.hard_rules
    if not spec.active() or not chunking.chunks:
        return chunking
    limit = candidate_limit(chunking, policy)
    zones = zones_for(doc, policy, limit)
    cores = [c.core_span for c in chunking.chunks]
    cuts = [a for a, _ in cores[1:]]
    found = violations(cuts, zones)
    offending = sum(zones.zone_at(p) is not None for p in cuts)
    record: dict[str, Any] = {"found": offending, "repaired": 0, "remaining": offending,
                              "by_label": dict(sorted(found.items()))}
    if spec.enforce == "report":
        record["binding"] = False  # counted only: the selection does not hold it against the candidate
    if not offending or spec.enforce != "repair":
        return Chunking(chunking.chunks, chunking.splitter, {**chunking.meta, "hard_rules": record})
    fits = _fits(doc, policy, limit)
    new_cuts, remaining = repair_cuts([0, *cuts, len(doc.text)], zones, fits, doc.text)
    record.update(repaired=offending - remaining, remaining=remaining)
    out = _rebuild(chunking, doc, policy, new_cuts)
    out.meta["hard_rules"] = record
    return out


def _fits(doc: Document, policy: Policy, limit: int | None) -> Callable[[int, int], bool]:
    """Whether a span is within ``limit`` in the solver's unit (own token count near the limit)."""
    if limit is None:
        return lambda a, b: True
    if policy.solver.granularity == "chars":
        return lambda a, b: b - a <= limit
    from .common import token_index

    index = token_index(doc, policy.solver.tokenizer)
    return lambda a, b: index.fits(a, b, limit)


def _natural_after(text: str, start: int, end: int, zones: Zones) -> int | None:
    """The first allowed cut in ``[start, end)`` after a run of newlines or a sentence end."""
    tries = 0
    for m in _NATURAL.finditer(text, max(0, start - 1), end):
        x = m.end()
        if x < start:
            continue
        if x >= end:
            return None
        if zones.zone_at(x) is None:
            return x
        tries += 1
        if tries >= _NATURAL_TRIES:
            return None
    return None


def _split_within(text: str, a: int, b: int, zones: Zones, fits: Callable[[int, int], bool]) -> int | None:
    """An allowed natural cut ``x`` in ``(a, b)`` with both ``[a, x)`` and ``[x, b)`` within the
    limit (the last one that keeps the first part within it), or None."""
    best = None
    x = a + 1
    while True:
        x = _natural_after(text, x, b, zones)
        if x is None or not fits(a, x):
            break
        best = x
        x += 1
    return best if best is not None and fits(best, b) else None


def repair_cuts(cuts: list[int], zones: Zones, fits: Callable[[int, int], bool], text: str) -> tuple[list[int], int]:
    """Move or drop every forbidden interior cut of ``cuts`` (``[0, ..., n]``).

    Each offending cut ``p`` between the kept previous cut ``a`` and the next cut ``b`` moves to
    the nearer of: the allowed place just before its zone (the heading, or the atomic structure,
    then opens the next chunk) when the chunk ``[there, b)`` fits; the first natural allowed
    place after the zone when ``[a, there)`` fits. Failing both it is dropped when ``[a, b)``
    fits; else it moves before its zone and the grown next chunk is cut once more at a natural
    allowed place (one chunk more); else it is kept. Returns the new cuts and how many
    offending cuts were kept.
    """
    out, kept = [cuts[0]], 0
    for k in range(1, len(cuts) - 1):
        p, a, b = cuts[k], out[-1], cuts[k + 1]
        zone = zones.zone_at(p)
        if zone is None:
            out.append(p)
            continue
        options = []
        left = zone[0] - 1
        if a < left and fits(left, b):
            options.append((p - left, 0, left))
        right = _natural_after(text, zone[1], b, zones)
        if right is not None and fits(a, right):
            options.append((right - p, 1, right))
        if options:
            out.append(min(options)[2])
            continue
        if fits(a, b):
            continue  # the cut is dropped; the next cut is checked against the merged chunk
        split = _split_within(text, left, b, zones, fits) if a < left else None
        if split is not None:  # the structure opens the next chunk, which is cut once more
            out.extend((left, split))
        else:
            out.append(p)
            kept += 1
    out.append(cuts[-1])
    return out, kept


def _rebuild(chunking: Chunking, doc: Document, policy: Policy, cuts: list[int]) -> Chunking:
    """The chunking with new core boundaries; a chunk whose core start did not move keeps its
    overlap start when that still lies after the previous core start."""
    from .common import make_chunking, token_index
    from .postprocess import merge_tiny

    spans = [(a, a, b) for a, b in zip(cuts, cuts[1:])]
    if policy.postprocess.enabled:  # a move can leave a sliver: merge it as post-processing does
        index = token_index(doc, policy.solver.tokenizer)
        spans, _ = merge_tiny(index, spans, policy.postprocess.min_tokens, policy.postprocess.merge_max_tokens)
    overlap = {c.core_span[0]: c.start for c in chunking.chunks if c.start != c.core_span[0]}
    starts, prev = [], 0
    for a, _, _ in spans:
        s = overlap.get(a, a)
        starts.append(s if s >= prev else a)
        prev = a
    return make_chunking(doc, policy, [(s, b) for s, (_, _, b) in zip(starts, spans)], chunking.splitter,
                         chunking.meta, core_starts=[a for a, _, _ in spans])
