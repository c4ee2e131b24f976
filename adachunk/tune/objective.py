"""Score a point of the search space on a set of documents (the objective of every trial).

A point (``{"rules.heading": 1.8, "candidates.dp_1100.max_size": 1240}``) becomes a variant of
the base :class:`~adachunk.policy.Policy` by ``dataclasses.replace``: scaled rule shapes, solver
overrides, candidate overrides. The detectors are the base policy's own instances and each
document stays the same :class:`~adachunk.datatypes.Document` object across trials, so its
analysis (structures, tokens, span embeddings) is computed once: a trial costs a cost lattice,
a solve, post-processing and scoring per document.

What is scored (the *target*):

* a ``dp.v1`` candidate (the default: the pool's first one) or ``solver`` (the solver section
  alone): that chunking, post-processed as the pool does, scored with the intrinsic metrics;
* ``pool``: every candidate, the winner chosen as :func:`adachunk.selection.choose.select_document` does
  (with the trial's weights when weights are tuned); candidates the point does not change
  (recursive, page, a DP candidate whose sizes are not tuned while rules are not either) are
  run and scored once per document and reused.

The intrinsic score of a document is the weighted mean of its metrics with the **base**
profile's weights (a fixed yardstick, also when weights are tuned); a failed target counts 0.
Results are cached per (document, effective candidate settings), so folds that try the same
point (TPE's random start trials are seeded alike in every fold) share the work.
"""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from ..selection.aggregate import aggregate
from ..metrics.suite import DEFAULT_KEYS, context_for, score_chunking
from ..policy import Policy
from ..policy_types import regime_embedder
from ..selection.choose import _status, choose
from ..selection.candidates import run_candidate
from ..datatypes import Document
from .space import Space, split_key


def scaled(scale: float, multiplier: float) -> float:
    """A rule scale times a multiplier, rounded as it is written to ``tuned.yaml`` (integers
    from 1 up: costs are integers after rounding anyway)."""
    v = scale * multiplier
    return float(round(v)) if v >= 1 else round(v, 3)


def weights_of(point: Mapping[str, float], base: Mapping[str, float]) -> dict[str, float]:
    """Selection weights of a point: the base weights with the tuned ones replaced, summing to 1."""
    w = {k: float(v) for k, v in base.items()}
    w.update({k.split(".", 1)[1]: float(v) for k, v in point.items() if k.startswith("weights.")})
    total = sum(w.values())
    return {k: round(v / total, 6) for k, v in w.items()} if total > 0 else w


@dataclass
class Variant:
    """A point applied to the base policy.

    Attributes:
        policy: the variant policy (rules, solver, candidates replaced).
        cands: the candidates to run, ``(type, params, name)``, in profile order.
        weights: the selection weights.
    """

    policy: Policy
    cands: list[tuple[str, dict, str]]
    weights: dict[str, float]


def make_variant(base: Policy, space: Space, point: Mapping[str, float]) -> Variant:
    """Apply ``point`` to ``base`` (sizes repaired: min ≤ max, target inside [min, max])."""
    mult = {k.split(".", 1)[1]: v for k, v in point.items() if k.startswith("rules.")}
    rules = tuple(
        dataclasses.replace(r, **{side: dataclasses.replace(getattr(r, side), scale=scaled(getattr(r, side).scale, mult[r.name]))
                                  for side in ("on", "off") if getattr(r, side) is not None})
        if r.name in mult else r for r in base.rules)
    solver_kw = {k.split(".", 1)[1]: int(v) for k, v in point.items() if k.startswith("solver.")}
    solver = _repair_settings(base.solver.with_overrides(**solver_kw))
    cand_kw: dict[str, dict[str, int]] = {}
    for k, v in point.items():
        if k.startswith("candidates."):
            _, name, key = split_key(k)
            cand_kw.setdefault(name, {})[key] = int(v)
    cands = []
    for type_name, params, name in base.candidates:
        params = {**params, **cand_kw.get(name, {})}
        if type_name == "dp.v1":
            params = _repair_params(solver, params)
        cands.append((type_name, params, name))
    policy = dataclasses.replace(base, rules=rules, solver=solver, candidates=tuple(cands))
    if space.target == "solver":
        cands = [("dp.v1", {}, "solver")]
    elif space.target != "pool":
        cands = [c for c in cands if c[2] == space.target]
    return Variant(policy, cands, weights_of(point, base.metrics.weights))


def _repair_settings(s):
    hi = s.max_size
    lo = min(s.min_size, hi)
    target = None if s.target_size is None else min(max(s.target_size, lo), hi)
    return s.model_copy(update={"min_size": lo, "target_size": target})


def _repair_params(solver, params: dict) -> dict:
    eff = solver.with_overrides(**{k: v for k, v in params.items() if k in ("min_size", "max_size", "target_size")})
    out = dict(params)
    if eff.min_size > eff.max_size:
        out["min_size"] = eff.max_size
    lo = min(eff.min_size, eff.max_size)
    if eff.target_size is not None and not lo <= eff.target_size <= eff.max_size:
        out["target_size"] = min(max(eff.target_size, lo), eff.max_size)
    return out


@dataclass
class CandEval:
    """One candidate on one document: status, metric values, chunk count (chunks kept for QA)."""

    name: str
    status: str
    values: dict[str, float | None]
    chunks: int
    kept: list | None = None


@dataclass
class DocEval:
    """One document under one point: its intrinsic score, the scored candidate, its values."""

    score: float
    winner: str | None
    values: dict[str, float | None]
    chunks: int


@dataclass
class Evaluation:
    """A point on a set of documents.

    Attributes:
        value: the objective (higher is better).
        intrinsic: mean intrinsic score over the documents.
        qa: the QA measure (None without a QA objective).
        docs: document id → :class:`DocEval`.
        seconds: wall time.
        embed_calls: embedding-model calls made by this evaluation.
    """

    value: float
    intrinsic: float
    qa: float | None
    docs: dict[str, DocEval]
    seconds: float = 0.0
    embed_calls: int = 0


@dataclass
class Evaluator:
    """Scores points of ``space`` on documents of ``docs`` (see the module docstring).

    Attributes:
        base: the base policy.
        docs: document id → Document (kept in memory: analyses and embeddings are reused).
        space: the checked search space.
        objective: ``intrinsic``, ``qa`` or ``both`` (the mean of the two).
        qa: the QA set (``adachunk.evaluate.load_qa``) for a QA objective.
        qa_measure: the QA summary key maximised.
        qa_options: extra ``evaluate_chunks`` keyword arguments (retriever, ks, budget).
    """

    base: Policy
    docs: dict[str, Document]
    space: Space
    objective: str = "intrinsic"
    qa: Any = None
    qa_measure: str = "coverage@5"
    qa_options: dict[str, Any] = field(default_factory=dict)
    _ctx: dict[str, Any] = field(default_factory=dict, repr=False)
    _cache: dict[tuple, CandEval] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        base_w = self.base.metrics.weights
        wanted = {k for k, w in base_w.items() if w > 0}
        if self.space.target == "pool":  # selection may weigh metrics the yardstick does not
            wanted |= {p.key.split(".")[1] for p in self.space.params if p.kind == "weight" and p.high > 0}
        self.keys = tuple(k for k in DEFAULT_KEYS if k in wanted)
        self.needs_qa = self.objective in ("qa", "both")
        self.calls = 0  # evaluations of a candidate on a document (not cache hits)

    # -- per document ---------------------------------------------------------------------------
    def context(self, doc_id: str):
        """The document's metric context, one per document for the whole tune."""
        if doc_id not in self._ctx:
            self._ctx[doc_id] = context_for(self.docs[doc_id], self.base)
        return self._ctx[doc_id]

    def _key(self, variant: Variant, cand: tuple[str, dict, str]) -> tuple:
        type_name, params, name = cand
        if type_name != "dp.v1":  # rules and solver sizes do not reach other splitters
            return (name, type_name, json.dumps(params, sort_keys=True, default=str))
        settings = variant.policy.solver.with_overrides(**params)
        scales = tuple((r.name, getattr(r.on, "scale", None), getattr(r.off, "scale", None))
                       for r in variant.policy.rules)
        return (name, type_name, json.dumps(settings.model_dump(), sort_keys=True, default=str), scales)

    def candidate(self, doc_id: str, variant: Variant, cand: tuple[str, dict, str]) -> CandEval:
        """Run and score one candidate on one document (cached)."""
        key = (doc_id, self._key(variant, cand))
        got = self._cache.get(key)
        if got is not None:
            return got
        doc = self.docs[doc_id]
        type_name, params, name = cand
        run = run_candidate(doc, variant.policy, type_name, params, name,
                            postprocess=variant.policy.postprocess.enabled)
        status = _status(run.chunking)
        values: dict[str, float | None] = {}
        if run.chunking is not None and self.keys:
            scored = score_chunking(run.chunking.chunks, self.context(doc_id), self.keys)
            values = {k: None if r.value is None else round(float(r.value), 6) for k, r in scored.items()}
        n = len(run.chunking.chunks) if run.chunking is not None else 0
        kept = run.chunking.chunks if (self.needs_qa and run.chunking is not None) else None
        got = CandEval(name, status, values, n, kept)
        self._cache[key] = got
        self.calls += 1
        return got

    def document(self, doc_id: str, variant: Variant) -> tuple[DocEval, CandEval | None]:
        """The document's score under ``variant`` and the candidate that was scored (winner)."""
        results = [self.candidate(doc_id, variant, c) for c in variant.cands]
        none_policy = self.base.metrics.none_policy
        yard = self.base.metrics.weights
        if len(results) == 1:
            best = results[0] if results[0].status != "error" else None
        else:
            shown = [_Scored(r.status, _agg(r.values, variant.weights, none_policy)) for r in results]
            i = choose(shown, self.base.select)
            best = results[i] if i is not None else None
        if best is None:
            return DocEval(0.0, None, {}, 0), None
        score = _agg(best.values, yard, none_policy)
        return DocEval(0.0 if score is None else score, best.name, best.values, best.chunks), best

    # -- per point --------------------------------------------------------------------------------
    def evaluate(self, point: Mapping[str, float], doc_ids: Iterable[str]) -> Evaluation:
        """The objective of ``point`` on ``doc_ids`` (see :class:`Evaluator`)."""
        t0 = time.perf_counter()
        calls0 = self.embed_calls()
        variant = make_variant(self.base, self.space, point)
        ids = list(doc_ids)
        docs, winners = {}, {}
        for d in ids:
            docs[d], winners[d] = self.document(d, variant)
        intrinsic = statistics.fmean(e.score for e in docs.values()) if docs else 0.0
        qa = self.qa_value({d: (w.kept if w is not None else []) for d, w in winners.items()}, ids) if self.needs_qa else None
        if self.objective == "intrinsic":
            value = intrinsic
        elif self.objective == "qa":
            value = qa
        else:
            value = (intrinsic + qa) / 2
        return Evaluation(round(float(value), 6), round(intrinsic, 6), None if qa is None else round(qa, 6), docs,
                          time.perf_counter() - t0, self.embed_calls() - calls0)

    def qa_value(self, chunks_by_doc: dict[str, list], ids: Sequence[str]) -> float:
        """The QA measure of the chunks of ``ids`` on the questions about those documents."""
        from ..evaluate import evaluate_chunks

        wanted = set(ids)
        qa = dataclasses.replace(self.qa, questions=[q for q in self.qa.questions if q.doc in wanted])
        if not qa.questions:
            return 0.0
        if self.qa_measure == REGIME:
            return regime_value(chunks_by_doc, qa, self.base)
        res = evaluate_chunks(chunks_by_doc, qa, **{"retriever": "bm25", **self.qa_options})
        if self.qa_measure not in res.summary:
            raise ValueError(f"unknown QA measure {self.qa_measure!r}; allowed: {', '.join(res.keys)}")
        v = res.summary[self.qa_measure]
        return 0.0 if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)

    def embed_calls(self) -> int:
        """Embedding-model calls made so far for the documents' metric contexts."""
        from ..metrics.suite import embeds

        if not any(embeds(key) for key in self.keys):
            return 0
        from ..models.embedders.spans import span_embeddings

        total = 0
        for ctx in self._ctx.values():
            try:
                total += span_embeddings(ctx).stats.get("model_calls", 0)
            except Exception:  # an unavailable model: its metrics are None, no calls to count
                return 0
        return total


#: The QA measure "what the profile's retrieval regime reads" (:func:`regime_value`).
REGIME = "regime"


def regime_value(chunks_by_doc: Mapping[str, list], qa: Any, policy: Policy) -> float:
    """The evidence a reader of the profile's ``retrieval`` regime gets: the mean over its
    retrievers and budgets of ``coverage@Btok`` (chunks in rank order within B tokens of the
    solver's tokenizer, corpus-wide, long chunks embedded as the regime says, at most ``k``)."""
    from ..evaluate import evaluate_chunks

    r = policy.retrieval
    embedder = regime_embedder(r, policy.index, policy.metrics)[0]
    tokenizer = policy.solver.tokenizer if policy.solver.granularity == "tokens" else None
    values = []
    for retriever in r.retrievers:
        res = evaluate_chunks(chunks_by_doc, qa, retriever=retriever, ks=(r.k or 1,), embedder=embedder,
                              budgets=r.budgets, tokenizer=tokenizer, long_text=r.long_chunks)
        values += [res.summary[f"coverage@{b}tok"] for b in r.budgets]
    return float(statistics.fmean(values))


@dataclass
class _Scored:
    """What :func:`adachunk.selection.choose.choose` reads of a candidate."""

    status: str
    score: float | None


def _agg(values: Mapping[str, float | None], weights: Mapping[str, float], none_policy: str) -> float | None:
    if not values:
        return None
    s = aggregate(values, weights, none_policy).score
    return None if s is None else round(s, 6)
