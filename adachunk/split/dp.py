"""The optimal-boundary splitter: structures → costs → DP solve → chunks (``dp.v1``).

Token mode tokenises the document once and solves over token boundaries; a chunk tokenised on
its own can differ from its slice of the whole-document tokenisation by a token or two at its
edges, so every chunk's own count is checked and any chunk over the limit is re-solved on its
own span with a tighter limit (repair), which keeps the guarantee exact. Only edges where the
tokenizer may split differently are re-encoded: at an edge where the counter's ``splits_at``
holds (for o200k/cl100k a newline before a word), the whole text's count is the chunk's own.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from pydantic import Field, model_validator

from ..runtime import gcpause as _gcpause
from ..analysis import CODE_POINTS, analysis_of
from ..cost import punishments
from ..cost.lattice import CostCache, breakdown, build_costs
from ..detect.base import DetectContext
from ..components.params import ComponentParams
from ..policy import Policy
from ..policy_types import SolverSpec
from ..components.registry import splitters
from ..solve.solver import Solution, solve
from ..tokens import get_counter
from ..datatypes import Chunking, Document, SpanArrays, span_arrays
from .assemble import build_chunks, overlap_starts
from .base import Splitter
from .bind import HARD, hard_costs
from .furniture import continued_sentences, furniture_costs, furniture_runs
from .common import heading_index
from .grow import forced_cuts, segment_limit


def detect_all(policy: Policy, ctx: DetectContext) -> dict[str, SpanArrays]:
    """Every structure of the policy in the document: label → ``(starts, ends)`` arrays.

    With a document in ``ctx`` the spans come from its analysis (each detector spec runs once
    per document, or is loaded from the analysis store); a bare text is detected here.
    """
    if ctx.doc is not None:
        analysis = analysis_of(ctx.doc)
        found = analysis.structures(policy.detectors, ctx)
        analysis.forget(CODE_POINTS)  # the text-unit scan's, for this detection only
        return found
    return {label: span_arrays(det.detect_arrays(ctx)) for label, det in policy.detectors.items()}


class Candidates:
    """Candidate cut positions, prefix sizes and costs of one document under one policy.

    Positions and sizes come from the document's analysis (one tokenisation per tokenizer), and
    the costs from its :class:`~adachunk.cost.lattice.CostCache`, so a second policy on the
    same document re-tokenises nothing and re-sums only the rules it changed.
    """

    def __init__(self, doc: Document, settings: SolverSpec):
        self.text = doc.text
        self.n = len(doc.text)
        self.tokens = get_counter(settings.tokenizer)
        self.analysis = analysis_of(doc)
        self.unit = "chars" if settings.granularity == "chars" else settings.tokenizer
        self.P, self.S = self.analysis.boundaries(self.unit)
        self.cost = np.zeros(len(self.P), dtype=np.int64)

    def add_costs(self, policy: Policy, structures) -> None:
        """Cut costs from the policy's rules over the detected structures."""
        cache = self.analysis.memo(("cost_cache", self.unit), lambda: CostCache(self.P, self.n))
        self.cost = build_costs(self.P, structures, list(policy.rules), self.n, cache=cache)

    def solve(self, lo: int, hi: int, settings: SolverSpec, max_size: int):
        """Optimal cuts (candidate indices) for candidates ``lo..hi``."""
        sizes = self.S[lo : hi + 1]
        cost = self.cost[lo : hi + 1]
        if sizes[0]:
            sizes = sizes - sizes[0]
        if cost[0] or cost[-1]:  # the whole document's ends cost 0 already: no copy of it
            cost = cost.copy()
            cost[0] = cost[-1] = 0
        target = settings.target_size
        if target is not None:
            target = max(min(target, max_size), 1)  # repair re-solves with a tighter max_size
        sol = solve(sizes, cost, chunk_cost=settings.chunk_cost, min_size=min(settings.min_size, max_size),
                    max_size=max_size, target=target, over=settings.over_target_cost,
                    under=settings.under_target_cost, backend=settings.backend)
        return [lo + int(c) for c in sol.cuts], sol


def _solve_isolated(lat: Candidates, settings: SolverSpec, limit: int, must: list[int],
                    grown: list[tuple[int, int, int]] = ()):
    """The optimal cuts with every index of ``must`` among them: each segment between two of
    them is solved on its own (its last chunk may undershoot ``min_size`` where no chunking of
    the segment can keep it; elsewhere the minimum binds, as the profile says), a segment inside
    a ``grown`` structure with that structure's size as its limit (:mod:`adachunk.split.grow`)."""
    m = len(lat.P) - 1
    must = _spaced(lat.S, must, settings.min_size, frozenset(k for g in grown for k in g[:2]))
    if not must:
        return lat.solve(0, m, settings, limit)
    cuts, total, relaxed = [0], 0, None
    for lo, hi in zip([0, *must], [*must, m]):
        most = segment_limit(grown, lo, hi, limit)
        seg = _even(settings, int(lat.S[hi] - lat.S[lo]), most) if most > limit else settings
        part, sol = lat.solve(lo, hi, seg, most)
        cuts.extend(part[1:])
        total += sol.total
        relaxed = relaxed or sol.relaxed
    return cuts, Solution(np.asarray(cuts, np.int64), int(total), relaxed)


def _even(settings: SolverSpec, total: int, most: int) -> SolverSpec:
    """The settings of a grown segment of ``total`` units: its pieces as even as the rules allow.

    Every cut between a statement's rows costs the same, so without a target the solver's tie
    rule placed the cut, the earliest it could: Block's income statement, 814 tokens at a grow
    of 768, became its title, header and two rows (128 tokens, "Total net revenue" not among
    them) and 686 tokens of untitled rows. A target of ``total`` split into the fewest pieces
    that fit ``most``, one unit of cost per unit off it, makes them 403 + 414: level on
    financebench-dev (bench/RESULTS.md "A statement cut in even pieces"), where the first piece
    as full as possible lost 0.55 (a 700-token piece that ranks first and is the wrong one
    takes the budget's most).
    """
    pieces = -(-total // most)
    if pieces < 2:
        return settings
    target = max(settings.min_size, min(-(-total // pieces), most))
    return settings.model_copy(update={"target_size": target, "over_target_cost": 1, "under_target_cost": 1})


def _spaced(S: np.ndarray, must: list[int], least: int, keep: frozenset[int] = frozenset()) -> list[int]:
    """The forced cuts that leave every segment at least ``least`` large (in order; a cut too
    close to the one kept before it, or to the end, is dropped): a short paragraph between two
    long blocks joins one of them rather than stand alone below the minimum. A cut of ``keep``
    (where a grown structure starts or ends) drops the other one instead: a statement's page
    footer joins the text before it rather than the statement lose its own segment."""
    kept: list[int] = []
    for k in must:
        prev = kept[-1] if kept else 0
        if S[k] - S[prev] >= least or (k in keep and (prev in keep or not kept)):
            kept.append(k)  # two grown structures' edges: the short text between is a segment
        elif k in keep:
            kept[-1] = k
            if len(kept) > 1 and S[k] - S[kept[-2]] < least and kept[-2] not in keep:
                kept.pop(-2)
    while kept and S[-1] - S[kept[-1]] < least and kept[-1] not in keep:
        kept.pop()
    return kept


# The built-in shapes: every value lies between 0 and a scale the profile schema keeps >= 0.
_NON_NEGATIVE = frozenset({punishments.const, punishments.linear, punishments.reverse_linear,
                           punishments.triangular, punishments.inverse_triangular})


def _one_chunk(lat: Candidates, policy: Policy, settings: SolverSpec, limit: int) -> bool:
    """Whether the whole document is the optimal chunking, known without costs or a solve.

    When it fits in ``limit`` and no cut can cost less than 0, every other chunking adds a
    chunk cost and non-negative cut costs; on a tie the solver keeps the earliest predecessor,
    the start, and below ``min_size`` its relaxed end also takes the start first. So a short
    document needs no structures but its headings (``tests/test_split_dp_shortcut.py`` compares
    with the full path).
    """
    if int(lat.S[-1]) > limit or settings.chunk_cost < 0:
        return False
    shapes = [sh for rule in policy.rules for sh in (rule.on, rule.off) if sh is not None]
    return all(sh.fn in _NON_NEGATIVE and sh.scale >= 0 for sh in shapes)


_OWN_COUNTS_KEPT = 200_000  # spans per document and tokenizer (a tuning run's memory bound)


def _repair(lat: Candidates, cuts: list[int], settings: SolverSpec, limit: int, stats: dict,
            grown: list[tuple[int, int, int]] = ()):
    """Own token count of every chunk; split any chunk over its limit by re-solving its span
    (``limit``, or a ``grown`` structure's size inside one).

    Returns ``(cuts, counts)``: the final cuts and each final chunk's own token count (so no
    chunk is tokenised twice).
    """
    text, P, S = lat.text, lat.P, lat.S
    # own token count by span, kept per document: variants of one policy share most chunks
    known = lat.analysis.memo(("own_tokens", settings.tokenizer), dict)
    if len(known) > _OWN_COUNTS_KEPT:
        known.clear()
    if settings.granularity == "chars":
        return cuts, _chars_counts(lat, cuts, known)

    count = lat.tokens.count
    splits_at = getattr(lat.tokens, "splits_at", None)

    def own_count(lo: int, hi: int) -> int:
        a, b = int(P[lo]), int(P[hi])
        n = known.get((a, b))
        if n is None:
            if splits_at is not None and splits_at(text, a) and splits_at(text, b):
                n = int(S[hi] - S[lo])  # both edges split the whole text's tokens exactly
            else:
                n = count(text[a:b])
            known[(a, b)] = n
        return n

    out, counts = [cuts[0]], []
    for a, b in zip(cuts, cuts[1:]):
        most = segment_limit(grown, a, b, limit)
        stack = [(a, b, most)]
        pieces = []
        while stack:
            lo, hi, lim = stack.pop()
            own = own_count(lo, hi)
            if own <= most or hi - lo <= 1:
                pieces.append((lo, hi, own))
                continue
            stats["repaired"] = stats.get("repaired", 0) + 1
            tighter = max(1, min(lim, int(lat.S[hi] - lat.S[lo])) - max(1, own - most))
            sub, _ = lat.solve(lo, hi, settings, tighter)
            if len(sub) <= 2:  # the solver could not split at this limit: halve the span
                sub = [lo, lo + (hi - lo) // 2, hi]
            for x, y in reversed(list(zip(sub, sub[1:]))):
                stack.append((x, y, tighter))
        pieces.sort()
        over = sum(1 for _, _, own in pieces if own > limit)
        if over:  # chunks of a grown structure (solver.grow) beyond the candidate's limit
            stats["grown"] = stats.get("grown", 0) + over
        out.extend(hi for _, hi, _ in pieces)
        counts.extend(own for _, _, own in pieces)
    return out, counts


def _chars_counts(lat: Candidates, cuts: list[int], known: dict) -> list[int]:
    """Own token count of every chunk in chars mode, where sizes are characters and no chunk
    is ever split: every chunk is counted, in one batched call where the counter has one (it
    keeps the encoder's tables in cache: a CLAIR pass, 112 ms in 7,190 calls, 85 ms batched).
    The cuts increase, so the spans are distinct."""
    edges = lat.P[cuts].tolist()
    spans = list(zip(edges, edges[1:]))
    todo = [span for span in spans if span not in known]
    text = lat.text
    pieces = [text[a:b] for a, b in todo]
    batch = getattr(lat.tokens, "counts", None)
    known.update(zip(todo, batch(pieces) if batch is not None else map(lat.tokens.count, pieces)))
    return [known[span] for span in spans]


def dp_chunk(doc: Document, policy: Policy, settings: SolverSpec | None = None, *, explain: bool = False) -> Chunking:
    """Chunk one document optimally under ``policy`` (optionally with per-cut explanations).

    The cyclic garbage collector is paused for the call (:mod:`adachunk.runtime.gcpause`): chunking
    makes no cyclic garbage, and its collections were 8-13% of the time.
    """
    with _gcpause.paused():
        return _dp_chunk(doc, policy, settings, explain)


def _dp_chunk(doc: Document, policy: Policy, settings: SolverSpec | None, explain: bool) -> Chunking:
    settings = settings or policy.solver
    t0 = time.perf_counter()
    meta: dict[str, Any] = {"granularity": settings.granularity, "tokenizer": settings.tokenizer,
                            "max_size": settings.max_size, "min_size": settings.min_size}
    if settings.target_size is not None:
        meta["target_size"] = settings.target_size
    if not doc.text:
        return Chunking([], "dp.v1", meta)
    ctx = DetectContext(doc.text, doc, metrics=policy.metrics)
    lat = Candidates(doc, settings)
    limit = settings.max_size - settings.overlap
    if _one_chunk(lat, policy, settings, limit) and not explain:
        structures: dict[str, SpanArrays] = {}
        t1 = time.perf_counter()
        m = len(lat.P) - 1
        cuts, sol = [0, m], Solution(np.array([0, m], dtype=np.int64), int(settings.chunk_cost))
        grown: list[tuple[int, int, int]] = []
    else:
        structures = detect_all(policy, ctx)
        t1 = time.perf_counter()
        lat.add_costs(policy, structures)
        # the stretches of page furniture: found once per document, for every rung
        runs = (lat.analysis.memo(("furniture_runs",), lambda: furniture_runs(doc.text))
                if "<!--" in doc.text else [])
        # a page break inside a sentence costs what the sentence's own cut does, by the rules
        across = continued_sentences(doc.text, lat.P, lat.cost, runs)
        hard = hard_costs(doc, policy, lat.P, limit, structures)
        if hard is not None:  # the profile's hard rules: forbidden wherever the sizes allow
            lat.cost = lat.cost + hard
        bare = furniture_costs(doc.text, lat.P, HARD, runs)
        if bare is not None:  # no chunk of page furniture alone (adachunk.split.furniture)
            lat.cost = lat.cost + bare
        if across is not None:
            lat.cost = lat.cost + across
        must, grown = forced_cuts(lat, structures, settings, limit)
        cuts, sol = _solve_isolated(lat, settings, limit, must, grown)
    t2 = time.perf_counter()
    cuts, own_counts = _repair(lat, cuts, settings, limit, meta, grown)
    edges = lat.P[cuts].tolist()
    cores = list(zip(edges, edges[1:]))
    # each core's size in the solver's unit: its slice of the prefix sizes (characters in
    # chars mode, the document's token sequence in tokens mode)
    core_sizes = np.diff(lat.S[cuts]).tolist()
    count = lat.tokens.count
    starts = edges[:-1]
    if settings.overlap and len(cores) > 1:
        if settings.granularity == "chars":
            size_of = lambda s, e: e - s  # noqa: E731
        else:
            size_of = lambda s, e: count(doc.text[s:e])  # noqa: E731
        units = [structures[lbl] for lbl in settings.overlap_units if lbl in structures]
        starts = overlap_starts(cores, units, settings.overlap, size_of,
                                lambda s, e: count(doc.text[s:e]) <= settings.max_size)
        own_counts = [count(doc.text[s:e]) if s != c else k for s, (c, e), k in zip(starts, cores, own_counts)]
    headings = heading_index(doc)
    chunks = build_chunks(doc, list(zip(starts, edges[1:])), fingerprint=policy.fingerprint,
                          count_tokens=count, sizes=core_sizes, headings=headings,
                          core_starts=edges[:-1], token_counts=own_counts)
    meta.update(total_cost=sol.total, relaxed=sol.relaxed, candidates=len(lat.P),
                timings={"detect_s": t1 - t0, "solve_s": t2 - t1, "total_s": time.perf_counter() - t0})
    if explain:
        meta["cuts"] = explain_cuts(lat, cuts, structures, policy)
    return Chunking(chunks, "dp.v1", meta)


def explain_cuts(lat: Candidates, cuts: list[int], structures, policy: Policy) -> list[dict]:
    """For each interior cut: position, total cost and each rule's contribution."""
    inner = cuts[1:-1]
    parts = breakdown(lat.P, inner, structures, list(policy.rules), lat.n)
    return [
        {"position": int(lat.P[i]), "cost": int(lat.cost[i]),
         "contributions": [c.__dict__ for c in contribs]}
        for i, contribs in zip(inner, parts)
    ]


class DPParams(ComponentParams):
    """Per-candidate overrides of the profile's solver settings (None keeps the profile's).

    A pool may hold several ``dp.v1`` candidates, each with its own sizes: the profile's
    structures and rules shape every one of them.
    """

    max_size: int | None = Field(default=None, ge=1, le=10**9,
                                 description="largest chunk; in a profile's pool 'auto' stands for one candidate per "
                                 "size the retrieval regime implies (adachunk.split.ladder)")
    min_size: int | None = Field(default=None, ge=0, le=10**9, description="smallest chunk")
    chunk_cost: int | None = Field(default=None, ge=0, le=10**9, description="cost per chunk")
    target_size: int | None = Field(default=None, ge=1, le=10**9, description="preferred chunk size")
    over_target_cost: int | None = Field(default=None, ge=0, le=10**6,
                                         description="cost per unit a chunk is larger than target_size")
    under_target_cost: int | None = Field(default=None, ge=0, le=10**6,
                                          description="cost per unit a chunk is smaller than target_size")

    @model_validator(mode="after")
    def _sizes(self) -> "DPParams":
        lo, hi, t = self.min_size, self.max_size, self.target_size
        if lo is not None and hi is not None and lo > hi:
            raise ValueError(f"min_size ({lo}) is larger than max_size ({hi})")
        if t is not None and ((lo is not None and t < lo) or (hi is not None and t > hi)):
            raise ValueError(f"target_size ({t}) must lie between min_size and max_size")
        return self


@splitters.register("dp.v1")
class DPSplitter(Splitter):
    """Candidate splitter wrapping :func:`dp_chunk`."""

    Params = DPParams

    def split(self, doc: Document, policy: Policy) -> Chunking:
        """Chunk ``doc`` with the policy's solver settings and this candidate's overrides."""
        settings = policy.solver.with_overrides(**self.params.model_dump())
        return dp_chunk(doc, policy, settings)
