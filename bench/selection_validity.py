"""Does the selector's ordering of candidates predict retrieval? Per-document Kendall tau between
a selection score and the real QA recall of every candidate of the pool.

    python bench/selection_validity.py [--corpus chroma-dev|clair ...] [--profile default]
        [--analysis-cache DIR] [--out bench/out/validity]

For each document, every candidate of the profile's pool is split, post-processed and scored with
every metric (``sc, bi, rc, icc, dcc, rf, bi_cut, rc_cut``). Each candidate is then applied to
every document of the corpus and asked the corpus's questions (corpus-wide retrieval, as the
profile's retrieval regime reads: its retrievers and budgets, long chunks as it says); a
candidate's *real* value on a document is the mean evidence recall of the questions about that
document (``adachunk.tune.objective.regime_value`` restricted to them).

Scores compared, each a weighted mean as ``adachunk run`` computes it:

* ``shipped``: the profile's own weights (what ``adachunk run`` selects with);
* ``rf``: the retrieval fit alone;
* ``paper``: the paper's five metrics with equal weights (the previous default selection).

Per document: Kendall's tau-b between the score and the real value over the candidates, the
regret (the best real value minus the real value of the score's pick, in points). Reported: the
mean and median tau over documents, how many documents have tau > 0, the mean regret, and the
real value of each selector's picks overall. The record keeps every candidate's metric values, pool
order and chunk sizes (``scores``), so other selection rules can be replayed without rescoring.
Corpora: ``chroma-dev`` (Chroma's questions) and ``clair`` (``adachunk eval generate`` questions, 20
per document, seed 0: a lexical proxy that shares its bias with ``rf``'s own probes, so tau there
flatters ``rf``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

ALL = ("sc", "bi", "rc", "icc", "dcc", "rf", "bi_cut", "rc_cut")
PAPER = {"sc": 0.2, "bi": 0.2, "rc": 0.2, "icc": 0.2, "dcc": 0.2}


def candidate_scores(docs, policy):
    """doc → candidate name → ({metric: value}, chunks); every metric computed."""
    import dataclasses

    from adachunk.metrics.suite import context_for
    from adachunk.selection.choose import select_document

    everything = dataclasses.replace(policy, metrics=policy.metrics.updated(weights={k: 1.0 for k in ALL}))
    out = {}
    for d, doc in docs.items():
        t = time.perf_counter()
        dec = select_document(doc, everything, ctx=context_for(doc, everything))
        out[d] = {c.name: (c.scores, list(c.chunking.chunks)) for c in dec.candidates
                  if c.chunking is not None and c.status == "ok"}
        print(f"  {d}: {len(out[d])} candidates scored in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    return out


def real_values(docs, qa, policy, scored) -> dict[str, dict[str, float]]:
    """doc → candidate → the regime's recall of that document's questions (candidate applied to
    every document of the corpus)."""
    import dataclasses

    from adachunk.tune.objective import regime_value

    names = sorted({n for by in scored.values() for n in by if all(n in scored[d] for d in docs)})
    out: dict[str, dict[str, float]] = {d: {} for d in docs}
    for n in names:
        chunks = {d: scored[d][n][1] for d in docs}
        for d in docs:
            sub = dataclasses.replace(qa, questions=[q for q in qa.questions if q.doc == d])
            if sub.questions:
                out[d][n] = regime_value(chunks, sub, policy)
        print(f"  real {n}: done", file=sys.stderr)
    return out


def weighted(values: dict, weights: dict, none_policy: str = "neutral") -> float | None:
    from adachunk.selection.aggregate import aggregate

    return aggregate(values, weights, none_policy).score


def analyse(scored, real, selectors: dict[str, dict]) -> dict[str, dict]:
    from scipy.stats import kendalltau

    out = {}
    for label, weights in selectors.items():
        taus, regrets, picks = [], [], {}
        for d, by in real.items():
            names = [n for n in by if n in scored[d]]
            if len(names) < 2:
                continue
            s = [weighted(scored[d][n][0], weights) or 0.0 for n in names]
            r = [by[n] for n in names]
            tau = kendalltau(s, r).statistic
            if tau == tau:  # not NaN (all real values equal: a document too short to tell)
                taus.append(float(tau))
            pick = names[max(range(len(names)), key=lambda i: (round(s[i], 12), -i))]
            picks[d] = pick
            regrets.append(100 * (max(r) - by[pick]))
        out[label] = {"documents": len(taus), "tau_mean": round(statistics.fmean(taus), 3) if taus else None,
                      "tau_median": round(statistics.median(taus), 3) if taus else None,
                      "tau_positive": sum(t > 0 for t in taus), "regret_mean_pp": round(statistics.fmean(regrets), 2),
                      "picks": picks}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append")
    ap.add_argument("--profile", default="default")
    ap.add_argument("--per-doc", type=int, default=20)
    ap.add_argument("--analysis-cache", help="an analysis store (span embeddings shared with adachunk tune)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "validity")
    args = ap.parse_args()
    import adachunk
    from retrieval_bench import load_corpus

    if args.analysis_cache:
        from adachunk.analysis.store import use_store

        use_store(args.analysis_cache)
    rp = adachunk.load_profile(args.profile)
    selectors = {"shipped": dict(rp.policy.metrics.weights), "rf": {"rf": 1.0}, "paper": PAPER}
    report = {}
    for corpus in args.corpus or ["chroma-dev", "clair"]:
        got = load_corpus(corpus, args.per_doc)
        if got is None:
            print(f"{corpus}: not found; skipped")
            continue
        docs, qa = got
        scored = candidate_scores(docs, rp.policy)
        real = real_values(docs, qa, rp.policy, scored)
        res = analyse(scored, real, selectors)
        report[corpus] = {"selectors": selectors, "results": res,
                          "real": {d: {n: round(v, 4) for n, v in by.items()} for d, by in real.items()},
                          "scores": {d: {n: {"metrics": {k: (round(v, 6) if v is not None else None)
                                                         for k, v in sc.items()},
                                             "order": i, "chunks": len(ch),
                                             "mean_tokens": round(sum(c.tokens for c in ch) / max(1, len(ch)), 1)}
                                         for i, (n, (sc, ch)) in enumerate(by.items())}
                                     for d, by in scored.items()}}
        print(f"\n{corpus} ({len(docs)} documents, {len(qa.questions)} questions), profile {args.profile}")
        print(f"{'selector':<8} {'docs':>4} {'tau mean':>8} {'median':>7} {'tau>0':>6} {'regret pp':>9}")
        for label, r in res.items():
            print(f"{label:<8} {r['documents']:>4} {r['tau_mean']!s:>8} {r['tau_median']!s:>7} {r['tau_positive']:>6} "
                  f"{r['regret_mean_pp']:>9}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "validity.json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
