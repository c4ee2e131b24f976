"""Candidate variants side by side on a corpus: the measurement behind the shipped pools and rules.

Each variant is a candidate splitter (usually ``dp.v1`` with its own sizes) under a profile. Every
variant runs on every document exactly as in ``adachunk run`` (split, then the profile's
post-processing) and is scored with the chosen metrics; one metric context per document and
metric settings is shared by the variants, so spans they share are embedded once.

Prints, in Markdown: per variant the mean of each metric (over the documents where it is not
None, as the paper), chunk count and mean size, and how often the variant wins the document
among all variants of the run (weighted score and None policy of the first variant's profile,
ties to the earliest variant). ``--json`` keeps every per-document score for later analysis.

Usage::

    python bench/dp_variants.py ../shared/corpus/clair/*.json --pool default \\
        --variant 'dp_1100|default|{"type": "dp.v1", "max_size": 1100, "min_size": 100}' \\
        --metrics sc,bi,rc --workers 2 --json /tmp/variants.json

``--pool PROFILE`` adds every candidate of that profile's pool as variants (named as in the
profile). Without ``icc``/``dcc`` in ``--metrics`` no embedding model is loaded.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

KEYS = ("rc", "icc", "dcc", "bi", "sc")


def parse_variant(text: str) -> tuple[str, str, dict]:
    """``name|profile|{json candidate}`` → (name, profile, candidate spec)."""
    name, profile, spec = text.split("|", 2)
    cand = json.loads(spec)
    if "type" not in cand:
        raise SystemExit(f"variant {name}: the candidate needs a 'type'")
    return name, profile, cand


def pool_variants(profile: str) -> list[tuple[str, str, dict]]:
    """Every candidate of ``profile``'s pool as a variant."""
    from adachunk.api import load_profile

    rp = load_profile(profile)
    return [(name, profile, {"type": t, **{k: v for k, v in params.items() if v is not None}})
            for t, params, name in rp.policy.candidates]


def _score_doc(args: tuple[str, list[tuple[str, str, dict]], tuple[str, ...]]) -> dict:
    """Run and score every variant on one document (in a worker process)."""
    import logging

    from adachunk.api import load_profile
    from adachunk.ingest import read_document
    from adachunk.metrics.suite import context_for, score_chunking
    from adachunk.selection.choose import size_stats
    from adachunk.selection.candidates import run_candidate

    logging.disable(logging.WARNING)
    path, variants, keys = args
    doc = read_document(path)
    contexts: dict[str, object] = {}
    out = {"doc": doc.id, "source": path, "variants": {}}
    for name, profile, cand in variants:
        rp = load_profile(profile)
        params = {k: v for k, v in cand.items() if k not in ("type", "name")}
        t0 = time.perf_counter()
        run = run_candidate(doc, rp.policy, cand["type"], params, name)
        split_s = time.perf_counter() - t0
        if run.chunking is None:
            out["variants"][name] = {"error": run.error}
            continue
        mkey = json.dumps(rp.policy.metrics.model_dump(), sort_keys=True, default=str)
        ctx = contexts.setdefault(mkey, context_for(doc, rp.policy))
        t1 = time.perf_counter()
        scored = score_chunking(run.chunking.chunks, ctx, keys)
        out["variants"][name] = {
            "scores": {k: scored[k].value for k in keys}, "stats": size_stats(run.chunking),
            "split_s": round(split_s, 3), "score_s": round(time.perf_counter() - t1, 3)}
    return out


def table(results: list[dict], names: list[str], keys: tuple[str, ...], metrics) -> str:
    """Markdown table: metric means, chunk statistics and wins per variant (the profile's
    weighted score over the computed metrics, ties to the earliest variant, as ``run`` selects)."""
    from adachunk.selection.aggregate import aggregate, best_index

    weights = {k: w for k, w in metrics.weights.items() if k in keys}
    none_policy = metrics.none_policy
    wins = {n: 0 for n in names}
    for r in results:
        ok = [n for n in names if "scores" in r["variants"].get(n, {})]
        scores = [aggregate(r["variants"][n]["scores"], weights, none_policy).score for n in ok]
        best = best_index(scores)
        if best is not None:
            wins[ok[best]] += 1
    head = "| variant | " + " | ".join(k.upper() for k in KEYS if k in keys) + " | mean | chunks | mean tokens | wins |"
    lines = [head, "|---|" + "---:|" * (len([k for k in KEYS if k in keys]) + 4)]
    for n in names:
        recs = [r["variants"][n] for r in results if "scores" in r["variants"].get(n, {})]
        means = []
        for k in KEYS:
            if k not in keys:
                continue
            vals = [x["scores"][k] for x in recs if x["scores"][k] is not None]
            means.append(100 * statistics.fmean(vals) if vals else None)
        known = [m for m in means if m is not None]
        chunks = sum(x["stats"].get("chunks", 0) for x in recs)
        tok = [x["stats"]["mean_tokens"] for x in recs if x["stats"].get("chunks")]
        cells = ["–" if m is None else f"{m:.1f}" for m in means]
        cells += [f"{statistics.fmean(known):.2f}" if known else "–", str(chunks),
                  f"{statistics.fmean(tok):.0f}" if tok else "–", f"{wins[n]}/{len(results)}"]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+", help="documents (.json, .md, .txt)")
    ap.add_argument("--variant", action="append", default=[], help="'name|profile|{json candidate}'")
    ap.add_argument("--pool", action="append", default=[], help="add every candidate of this profile's pool")
    ap.add_argument("--metrics", default="sc,bi,rc", help="comma-separated metric keys")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", type=Path, help="write every per-document result here")
    args = ap.parse_args()
    variants = [v for p in args.pool for v in pool_variants(p)] + [parse_variant(v) for v in args.variant]
    names = [n for n, _, _ in variants]
    if len(set(names)) != len(names):
        raise SystemExit(f"variant names must be distinct: {names}")
    keys = tuple(k for k in args.metrics.split(",") if k)
    jobs = [(p, variants, keys) for p in sorted(args.inputs)]
    t0 = time.perf_counter()
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as ex:
            results = list(ex.map(_score_doc, jobs))
    else:
        results = [_score_doc(j) for j in jobs]
    from adachunk.api import load_profile

    print(table(results, names, keys, load_profile(variants[0][1]).policy.metrics))
    print(f"\n{len(results)} documents, {time.perf_counter() - t0:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({"variants": variants, "results": results}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
