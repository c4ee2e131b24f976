"""The optimal-boundary splitter: structures → costs → DP solve → chunks (``dp.v1``).

Token mode tokenises the document once and solves over token boundaries; a chunk tokenised on
its own can differ from its slice of the whole-document tokenisation by a token or two at its
edges, so every chunk's own count is checked and any chunk over the limit is re-solved on its
own span with a tighter limit (repair), which keeps the guarantee exact.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from pydantic import Field

from ..cost.lattice import breakdown, build_costs
from ..detect.base import DetectContext, DetectorParams
from ..policy import Policy, SolverSettings
from ..registry import splitters
from ..solve.solver import solve
from ..tokenize import CharCounter, get_counter
from ..types import Chunking, Document, Structure
from .assemble import HeadingIndex, build_chunks, markdown_headings, overlap_starts


def detect_all(policy: Policy, ctx: DetectContext) -> dict[str, list[Structure]]:
    """Run every detector of the policy on the document (shared parses via ``ctx``)."""
    return {label: det.detect(ctx) for label, det in policy.detectors.items()}


class _Lattice:
    """Candidate positions, prefix sizes and costs of one document under one policy."""

    def __init__(self, doc: Document, policy: Policy, settings: SolverSettings, structures):
        self.text = doc.text
        self.n = len(doc.text)
        self.tokens = get_counter(settings.tokenizer)
        unit = CharCounter() if settings.granularity == "chars" else self.tokens
        self.P, self.S = unit.boundaries(doc.text)
        self.cost = build_costs(self.P, structures, list(policy.rules), self.n)

    def solve(self, lo: int, hi: int, settings: SolverSettings, max_size: int):
        """Optimal cuts (candidate indices) for candidates ``lo..hi``."""
        sizes = self.S[lo : hi + 1] - self.S[lo]
        cost = self.cost[lo : hi + 1].copy()
        cost[0] = cost[-1] = 0
        sol = solve(sizes, cost, chunk_cost=settings.chunk_cost, min_size=min(settings.min_size, max_size),
                    max_size=max_size, backend=settings.backend)
        return [lo + int(c) for c in sol.cuts], sol


def _repair(lat: _Lattice, cuts: list[int], settings: SolverSettings, limit: int, stats: dict) -> list[int]:
    """Split any chunk whose own token count exceeds ``limit`` by re-solving its span."""
    if settings.granularity == "chars":
        return cuts
    out = [cuts[0]]
    for a, b in zip(cuts, cuts[1:]):
        stack = [(a, b, limit)]
        pieces = []
        while stack:
            lo, hi, lim = stack.pop()
            own = lat.tokens.count(lat.text[lat.P[lo] : lat.P[hi]])
            if own <= limit or hi - lo <= 1:
                pieces.append((lo, hi))
                continue
            stats["repaired"] = stats.get("repaired", 0) + 1
            tighter = max(1, min(lim, int(lat.S[hi] - lat.S[lo])) - max(1, own - limit))
            sub, _ = lat.solve(lo, hi, settings, tighter)
            if len(sub) <= 2:  # could not split further at this limit: tighten more
                mid = lo + (hi - lo) // 2
                sub = [lo, mid, hi]
            for x, y in reversed(list(zip(sub, sub[1:]))):
                stack.append((x, y, tighter))
        pieces.sort()
        out.extend(hi for _, hi in pieces)
    return out


def dp_chunk(doc: Document, policy: Policy, settings: SolverSettings | None = None, *, explain: bool = False) -> Chunking:
    """Chunk one document optimally under ``policy`` (optionally with per-cut explanations)."""
    settings = settings or policy.solver
    t0 = time.perf_counter()
    meta: dict[str, Any] = {"granularity": settings.granularity, "tokenizer": settings.tokenizer,
                            "max_size": settings.max_size, "min_size": settings.min_size}
    if not doc.text:
        return Chunking([], "dp.v1", meta)
    ctx = DetectContext(doc.text)
    structures = detect_all(policy, ctx)
    t1 = time.perf_counter()
    lat = _Lattice(doc, policy, settings, structures)
    limit = settings.max_size - settings.overlap
    cuts, sol = lat.solve(0, len(lat.P) - 1, settings, limit)
    t2 = time.perf_counter()
    cuts = _repair(lat, cuts, settings, limit, meta)
    cores = [(int(lat.P[a]), int(lat.P[b])) for a, b in zip(cuts, cuts[1:])]
    count = lat.tokens.count
    if settings.granularity == "chars":
        size_of = lambda s, e: e - s  # noqa: E731
    else:
        size_of = lambda s, e: count(doc.text[s:e])  # noqa: E731
    starts = [c for c, _ in cores]
    if settings.overlap and len(cores) > 1:
        units = [structures.get(lbl, []) for lbl in settings.overlap_units]
        starts = overlap_starts(doc.text, cores, units, settings.overlap, size_of,
                                lambda s, e: size_of(s, e) <= settings.max_size)
    headings = HeadingIndex(doc.text, markdown_headings(ctx))
    chunks = build_chunks(doc, [(s, e) for s, (_, e) in zip(starts, cores)], fingerprint=policy.fingerprint,
                          count_tokens=count, unit_size=size_of, headings=headings,
                          core_starts=[c for c, _ in cores])
    meta.update(total_cost=sol.total, relaxed=sol.relaxed, candidates=len(lat.P),
                timings={"detect_s": t1 - t0, "solve_s": t2 - t1, "total_s": time.perf_counter() - t0})
    if explain:
        meta["cuts"] = explain_cuts(lat, cuts, structures, policy)
    return Chunking(chunks, "dp.v1", meta)


def explain_cuts(lat: _Lattice, cuts: list[int], structures, policy: Policy) -> list[dict]:
    """For each interior cut: position, total cost and each rule's contribution."""
    inner = cuts[1:-1]
    parts = breakdown(lat.P, inner, structures, list(policy.rules), lat.n)
    return [
        {"position": int(lat.P[i]), "cost": int(lat.cost[i]),
         "contributions": [c.__dict__ for c in contribs]}
        for i, contribs in zip(inner, parts)
    ]


class DPParams(DetectorParams):
    """Per-candidate overrides of the profile's solver settings (None keeps the profile's)."""

    max_size: int | None = Field(default=None, ge=1, description="largest chunk")
    min_size: int | None = Field(default=None, ge=0, description="smallest chunk")
    chunk_cost: int | None = Field(default=None, ge=0, description="cost per chunk")


@splitters.register("dp.v1")
class DPSplitter:
    """Candidate splitter wrapping :func:`dp_chunk`."""

    Params = DPParams

    def __init__(self, params: DPParams | None = None):
        self.params = params or DPParams()

    def split(self, doc: Document, policy: Policy) -> Chunking:
        """Chunk ``doc`` with the policy's solver settings and this candidate's overrides."""
        settings = policy.solver.with_overrides(**self.params.model_dump())
        return dp_chunk(doc, policy, settings)
