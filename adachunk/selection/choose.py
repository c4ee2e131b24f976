"""Adaptive selection: run the candidate pool on a document, score each candidate with the five
metrics, combine them with the profile's weights, keep the winner.

Ties are broken deterministically by the order of candidates in the profile (the earliest
wins); a later candidate must beat the best earlier one by more than ``select.min_score_gap``.
Candidates that fell back (e.g. the LLM endpoint was unreachable) are left out unless nothing
else is left (``select.exclude_fallbacks``); candidates that failed are always left out. The
decision record keeps every candidate's scores, size statistics, fallbacks and timings.

When no eligible candidate could be scored (every weighted metric undefined: ``rf`` on a
table-only document), the profile's ``select.unscored`` order decides, and the decision says so
(``decided_by: unscored``).

A candidate that still breaks one of the profile's hard rules after repair (``hard_rules``,
:mod:`adachunk.split.bind`) cannot win while another candidate keeps them all; when none does,
the ones with the fewest offending cuts compete.

Work that cannot change the decision is skipped: a candidate that fell back while another is
ok, or that breaks a hard rule while another keeps them, is not scored (its scores are None with
the reason; ``select.score_ineligible: true`` scores it anyway), and a metric whose weight is 0
is not computed.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from .aggregate import aggregate, best_index
from ..metrics.base import MetricContext
from ..metrics.suite import DEFAULT_KEYS, context_for, score_chunking
from ..policy import Policy
from ..policy_types import SelectSpec
from .candidates import run_candidates
from ..datatypes import Chunking, Document


@dataclass
class CandidateResult:
    """One candidate's outcome on one document.

    Attributes:
        name: display name from the profile.
        type: registered splitter.
        status: ``ok``, ``fallback`` (produced chunks by its fallback strategy) or ``error``.
        chunking: the post-processed chunking (None on error).
        scores: metric key → value (None when undefined) and ``reasons`` for the Nones.
        score: the weighted score (None when nothing could be combined or on error).
        stats: chunk count and token-size statistics.
        seconds: wall time of splitting and of scoring.
        error: the rendered error for failed candidates.
        fallback: the splitter's fallback record (reason, detail) when it fell back.
        retrieval: the ``rf`` metric's detail (recall per retriever and budget) when computed.
    """

    name: str
    type: str
    status: str
    chunking: Chunking | None = None
    scores: dict[str, float | None] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    score: float | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    error: str | None = None
    fallback: dict[str, Any] | None = None
    retrieval: list[dict[str, Any]] | None = None

    def record(self) -> dict[str, Any]:
        """JSON-able summary for ``decisions.jsonl`` (no chunk texts)."""
        out = {"name": self.name, "type": self.type, "status": self.status, "score": self.score,
               "scores": self.scores, "stats": self.stats, "seconds": self.seconds}
        if self.reasons:
            out["reasons"] = self.reasons
        if self.error:
            out["error"] = self.error
        if self.fallback:
            out["fallback"] = self.fallback
        if self.retrieval:
            out["retrieval"] = self.retrieval
        if self.chunking is not None and "hard_rules" in self.chunking.meta:
            out["hard_rules"] = self.chunking.meta["hard_rules"]
        if self.chunking is not None and self.chunking.meta.get("grown"):
            out["grown"] = self.chunking.meta["grown"]  # chunks over max_size inside solver.grow structures
        return out


@dataclass
class Decision:
    """The per-document selection record."""

    doc_id: str
    source: str | None
    content_hash: str
    profile: str
    fingerprint: str
    candidates: list[CandidateResult]
    winner: int | None
    seconds: float
    regime: dict[str, Any] | None = None
    detector_errors: list[dict[str, Any]] = field(default_factory=list)
    decided_by: str = "score"
    stand_in_margin: float | None = None  # set when the exact estimate decided after the stand-in hesitated

    @property
    def best(self) -> CandidateResult | None:
        """The winning candidate; None when no candidate produced a chunking."""
        return self.candidates[self.winner] if self.winner is not None else None

    def record(self) -> dict[str, Any]:
        """The JSON-ready summary of this selection: the winner, its score, every candidate."""
        best = self.best
        out = {"doc_id": self.doc_id, "source": self.source, "content_hash": self.content_hash,
               "profile": self.profile, "profile_fingerprint": self.fingerprint,
               "winner": best.name if best else None, "winner_type": best.type if best else None,
               "winner_score": best.score if best else None, "decided_by": self.decided_by}
        if self.regime is not None:
            # the reader the selection fitted, and what it expects the winner to give that reader
            out["retrieval"] = {"regime": self.regime, "estimate": best.scores.get("rf") if best else None,
                                "by_reader": best.retrieval if best else None}
            if self.stand_in_margin is not None:  # retrieval.exact_margin: the model decided this one
                out["retrieval"]["exact_after_stand_in_margin"] = self.stand_in_margin
        if self.detector_errors:  # select.on_detector_error: fallback
            out["detector_errors"] = self.detector_errors
        return {**out, "candidates": [c.record() for c in self.candidates], "seconds": round(self.seconds, 4)}


def size_stats(chunking: Chunking) -> dict[str, Any]:
    """Chunk count and token statistics (population standard deviation, as the paper)."""
    toks = [c.tokens for c in chunking.chunks]
    if not toks:
        return {"chunks": 0}
    return {"chunks": len(toks), "min_tokens": min(toks), "max_tokens": max(toks),
            "mean_tokens": round(statistics.fmean(toks), 2), "std_tokens": round(statistics.pstdev(toks), 2)}


def _status(chunking: Chunking | None) -> str:
    if chunking is None:
        return "error"
    return "fallback" if chunking.meta.get("status") == "fallback" or chunking.meta.get("fallback") else "ok"


def broken_rules(result: Any) -> int:
    """Offending cuts a candidate kept after the hard rules' repair (0 when none, when the
    profile only reports them, or for an object without a chunking)."""
    chunking = getattr(result, "chunking", None)
    record = chunking.meta.get("hard_rules") if chunking is not None else None
    return int(record.get("remaining", 0)) if record and record.get("binding", True) else 0


def _eligible(results: list, select: SelectSpec) -> list[int]:
    """Candidates that may win (see the module docstring), in pool order."""
    eligible = [i for i, r in enumerate(results) if r.status == "ok"]
    if not eligible or not select.exclude_fallbacks:
        eligible = [i for i, r in enumerate(results) if r.status in ("ok", "fallback")]
    if eligible:  # the hard rules: the candidates with the fewest offending cuts left (0 if any)
        fewest = min(broken_rules(results[i]) for i in eligible)
        eligible = [i for i in eligible if broken_rules(results[i]) == fewest]
    return eligible


def choose(results: list[CandidateResult], select: SelectSpec) -> int | None:
    """Index of the winner (see module docstring), or None when every candidate failed."""
    eligible = _eligible(results, select)
    if not eligible:
        return None
    best = best_index([results[i].score for i in eligible], select.min_score_gap)
    return eligible[best]


def _ineligible(results: list[CandidateResult], select: SelectSpec) -> dict[int, str]:
    """Candidates that cannot win whatever their scores (see :func:`choose`) with the reason,
    unless the profile asks to score them anyway."""
    if select.score_ineligible:
        return {}
    produced = [i for i, r in enumerate(results) if r.chunking is not None]
    eligible = set(_eligible(results, select))
    out = {}
    for i in produced:
        if i in eligible:
            continue
        if results[i].status == "fallback" and select.exclude_fallbacks:
            out[i] = "not scored: fell back while another candidate is ok, so it cannot win (select.score_ineligible)"
        elif broken_rules(results[i]):
            out[i] = (f"not scored: {broken_rules(results[i])} cut(s) break the profile's hard rules while another "
                      "candidate keeps more of them, so it cannot win (select.score_ineligible)")
    return out


def _score(res: CandidateResult, ctx, keys: tuple[str, ...], skipped: dict[str, str], order: tuple[str, ...],
           weights: dict[str, float], none_policy: str) -> None:
    """Score one candidate with ``keys``; ``skipped`` metrics get None with their reason; the
    scores are listed in ``order``."""
    t = time.perf_counter()
    scored = score_chunking(res.chunking.chunks, ctx, keys)
    res.seconds["score_s"] = round(time.perf_counter() - t, 4)
    res.scores = {k: (None if k not in scored or scored[k].value is None else round(float(scored[k].value), 6))
                  for k in order}
    res.reasons = {k: r.reason for k, r in scored.items() if r.value is None and r.reason} | skipped
    if "rf" in scored and scored["rf"].value is not None:
        res.retrieval = scored["rf"].detail
    res.score = aggregate(scored, weights, none_policy).score
    if res.score is not None:
        res.score = round(res.score, 6)


def _regime_record(ctx: MetricContext) -> dict[str, Any]:
    """The regime as the decision records it, ``embedder: index`` resolved to the model it means."""
    from ..metrics.retrieval import regime_embedder

    out = ctx.retrieval.model_dump(mode="json")
    emb = regime_embedder(ctx)
    out["embedder_spec"] = emb.model_dump(mode="json") if hasattr(emb, "model_dump") else \
        (emb if isinstance(emb, dict) else getattr(emb, "fingerprint", repr(emb)))
    return out


def select_document(doc: Document, policy: Policy, *, metric_keys=DEFAULT_KEYS,
                    postprocess: bool = True, ctx: MetricContext | None = None) -> Decision:
    """Run the pool, score, and choose for one document.

    Args:
        doc: the document.
        policy: the resolved profile's policy.
        metric_keys: metrics to compute (those with weight 0 are skipped).
        postprocess: run the profile's post-processing on every candidate.
        ctx: the document's metric context, when the caller wants to reuse its caches (the
            runner embeds index vectors from it); made here otherwise.
    """
    t0 = time.perf_counter()
    ctx = ctx if ctx is not None else context_for(doc, policy)
    weights, none_policy = policy.metrics.weights, policy.metrics.none_policy
    # no weights at all: compute everything (the score is then None, as aggregate() says)
    keys = tuple(k for k in metric_keys if not weights or weights.get(k, 0) > 0)
    zero = {k: "weight 0 in the profile: not computed" for k in metric_keys if k not in keys}
    results = []
    runs = run_candidates(doc, policy, postprocess=postprocess)
    detector_errors = _detector_errors(runs, doc, policy.select)
    for run in runs:
        res = CandidateResult(name=run.name, type=run.type, status=_status(run.chunking), chunking=run.chunking,
                              error=run.error, seconds={"split_s": round(run.seconds, 4)})
        if run.chunking is not None:
            res.fallback = run.chunking.meta.get("fallback")
            res.stats = size_stats(run.chunking)
        results.append(res)
    skip = _ineligible(results, policy.select)
    # the spans every scored candidate will be read in (rf embeds pieces they all share)
    ctx.pool = tuple(sorted({(c.start, c.end) for i, res in enumerate(results)
                             if res.chunking is not None and i not in skip for c in res.chunking.chunks}))
    for i, res in enumerate(results):
        if res.chunking is None:
            continue
        if i in skip:
            res.scores = {k: None for k in metric_keys}
            res.reasons = {k: skip[i] for k in metric_keys}
            continue
        _score(res, ctx, keys, zero, tuple(metric_keys), weights, none_policy)
    margin = _hesitation(results, ctx, keys, policy.select)
    if margin is not None:  # the stand-in cannot tell its best two apart: the exact estimate decides
        _rescore_exactly(results, skip, ctx, keys, zero, tuple(metric_keys), weights, none_policy)
    winner, decided_by = choose(results, policy.select), "score"
    if keys and _unscored(results, policy.select, keys):
        winner, decided_by = by_order(results, _eligible(results, policy.select), policy.select.unscored), "unscored"
    regime = _regime_record(ctx) if "rf" in keys else None
    return Decision(doc.id, doc.source, doc.content_hash, policy.name, policy.fingerprint, results, winner,
                    time.perf_counter() - t0, regime, detector_errors, decided_by, margin)


def _hesitation(results: list[CandidateResult], ctx, keys: tuple[str, ...], select: SelectSpec) -> float | None:
    """The stand-in's margin between its two best eligible candidates' retrieval fits, when a
    stand-in estimated them and the margin is within ``retrieval.exact_margin``; else None."""
    from ..metrics.retrieval import regime_embedder, stand_in_label

    regime = ctx.retrieval
    if "rf" not in keys or regime.exact_margin <= 0 or stand_in_label(regime, regime_embedder(ctx)) is None:
        return None  # no stand-in (or none on this device): the estimate is already exact
    fits = sorted((results[i].scores.get("rf") for i in _eligible(results, select)
                   if results[i].scores.get("rf") is not None), reverse=True)
    if len(fits) < 2 or fits[0] - fits[1] > regime.exact_margin:
        return None
    return round(fits[0] - fits[1], 6)


def _rescore_exactly(results: list[CandidateResult], skip: dict[int, str], ctx, keys, zero, order, weights,
                     none_policy) -> None:
    """Score the scored candidates again with the exact estimate (the context's regime swapped for
    the call: the stand-in's and the model's vectors are memoised apart, the probes shared)."""
    stand_in = ctx.retrieval
    ctx.retrieval = stand_in.model_copy(update={"estimate": "exact"})
    try:
        for i, res in enumerate(results):
            if res.chunking is not None and i not in skip:
                _score(res, ctx, keys, zero, order, weights, none_policy)
    finally:
        ctx.retrieval = stand_in


def _unscored(results: list[CandidateResult], select: SelectSpec, keys: tuple[str, ...]) -> bool:
    """Whether no eligible candidate has any weighted metric: the scores compare nothing."""
    eligible = _eligible(results, select)
    return bool(eligible) and all(all(results[i].scores.get(k) is None for k in keys) for i in eligible)


def by_order(results: list, eligible: list[int], order: tuple[str, ...]) -> int | None:
    """The eligible candidate the profile's ``select.unscored`` order prefers (names or shell
    patterns, earliest entry first), else the first eligible one."""
    from fnmatch import fnmatchcase

    for pattern in order:
        for i in eligible:
            if fnmatchcase(results[i].name, pattern):
                return i
    return eligible[0] if eligible else None


def _detector_errors(runs, doc: Document, select: SelectSpec) -> list[dict[str, Any]]:
    """The failures of the profile's own structures among ``runs`` (one per structure).

    A structure that cannot run on the document means the policy was not applied: with
    ``select.on_detector_error: fail`` (the default) the first such error is raised, and the
    document fails; with ``fallback`` the candidates that needed it are left out (as any failed
    candidate is), an ``ADA404`` notice names the document, and the record lists them.

    Raises:
        AdachunkError: the structure's error (``ADA306``...), naming the document.
    """
    from ..analysis import is_structure_failure
    from ..errors import notice

    by_structure: dict[str, dict[str, Any]] = {}
    for run in runs:
        if not is_structure_failure(run.failure):
            continue
        if select.on_detector_error == "fail":
            raise run.failure
        key = run.failure.key_path
        entry = by_structure.setdefault(key, {"structure": key.split(".", 1)[1], "code": run.failure.code,
                                              "error": run.failure.render(), "candidates": []})
        entry["candidates"].append(run.name)
    for e in by_structure.values():
        notice("ADA404", f"structure '{e['structure']}' failed ({e['code']}); candidates "
               f"{', '.join(e['candidates'])} left out (select.on_detector_error: fallback): {e['error']}",
               doc.source or doc.id)
    return list(by_structure.values())
