"""Wall time of ICC and DCC (exact and fast) on CLAIR, 4 candidates, with the other 3 metrics.

Usage: python bench/bench_icc_dcc.py [--embedder minilm|minilm-int8|m2v|hash] [--docs N]
       [--json OUT] [--compare REF.json]

Candidates per document (the paper profile's pool without llm_regex, which needs an LLM):
``page_raw`` (page.v1, no post-processing), ``page``, ``our_recurs_1100`` and ``our_recurs_600``
(post-processed as in the paper). Without ``adachunk.split.recursive`` the two recursive
candidates are stand-ins: fixed token windows of 1100 and 600 built with ``build_chunks``.

One metric context per document is shared by its four candidates, as in ``adachunk score``: a
block or chunk embedded for one candidate is reused by the others, so the time of the first
metric that needs an embedding includes it (order: SC, BI, RC, ICC, DCC exact, DCC fast).
Prints seconds per metric, CPU seconds, the machine's load average (other processes share the
cores: compare CPU seconds across runs), embedding statistics, peak RSS, and mean ICC/DCC per
candidate next to the paper's Table 3 (jina-embeddings-v3) with the rank order of the candidates.
``--compare REF.json`` (a ``--json`` output of another run, e.g. exact vs ``minilm-int8``) prints
how far ICC/DCC moved per document and candidate, and on how many documents the best candidate
per metric is the same. Not a test: numbers go to bench/RESULTS.md by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adachunk.ingest import read_document  # noqa: E402
from adachunk.metrics.base import MetricContext  # noqa: E402

CLAIR = ROOT.parent / "shared" / "corpus" / "clair"
EMBEDDERS = {
    "minilm": {"type": "sentence_transformers.v1"},
    "minilm-int8": {"type": "sentence_transformers.v1", "quantize": "int8"},
    "m2v": {"type": "model2vec.v1"},
    "hash": {"type": "hash.v1", "max_tokens": 254},
}
CANDIDATES = ("page_raw", "page", "our_recurs_1100", "our_recurs_600")
PAPER_KEYS = {"page_raw": "page_raw", "page": "page", "our_recurs_1100": "our_recurs_1100",
              "our_recurs_600": "our_recurs_600"}


def documents(limit: int | None = None) -> list[Path]:
    files = sorted(p for p in CLAIR.glob("*.json") if p.name not in ("manifest.json", "paper_reference.json"))
    return files[:limit] if limit else files


def _fixed_windows(doc, policy, size: int):
    """Stand-in when recursive.v1 is missing: consecutive windows of ``size`` o200k tokens."""
    from adachunk.split.assemble import build_chunks
    from adachunk.tokens import get_counter
    from adachunk.datatypes import Chunking

    counter = get_counter("o200k_base")
    pos, sizes = counter.boundaries(doc.text)
    cuts, last = [0], 0
    for p, s in zip(pos.tolist(), sizes.tolist()):
        if s - last >= size:
            cuts.append(p)
            last = s
    if cuts[-1] != len(doc.text):
        cuts.append(len(doc.text))
    chunks = build_chunks(doc, list(zip(cuts, cuts[1:])), fingerprint=policy.fingerprint,
                          count_tokens=counter.count, unit_size=lambda a, b: counter.count(doc.text[a:b]))
    return Chunking(chunks, f"fixed_{size}")


def chunkings(doc, policy) -> dict[str, object]:
    """The four candidate chunkings of ``doc``."""
    from adachunk.selection.candidates import run_candidate

    out = {"page_raw": run_candidate(doc, policy, "page.v1", {}, "page_raw", postprocess=False).chunking,
           "page": run_candidate(doc, policy, "page.v1", {}, "page").chunking}
    try:
        import adachunk.split.recursive  # noqa: F401
        for size in (1100, 600):
            out[f"our_recurs_{size}"] = run_candidate(
                doc, policy, "recursive.v1", {"chunk_size": size, "paper_compat": True}, f"our_recurs_{size}").chunking
    except ImportError:
        for size in (1100, 600):
            out[f"our_recurs_{size}"] = _fixed_windows(doc, policy, size)
    return out


def score_document(doc, policy, embedder: dict, times: dict, keys=("sc", "bi", "rc")) -> dict:
    """Every metric for the four candidates of ``doc``; adds seconds per metric to ``times``."""
    from adachunk.metrics.coherence import ContextualCoherence, DCCParams
    from adachunk.metrics.cohesion import IntrachunkCohesion
    from adachunk.models.embedders import span_embeddings
    from adachunk.metrics.suite import score_one

    t0 = time.perf_counter()
    cands = chunkings(doc, policy)
    times["chunking"] += time.perf_counter() - t0
    ctx = MetricContext(doc, policy.metrics, embedder=embedder)
    ours = {"icc": IntrachunkCohesion(), "dcc_exact": ContextualCoherence(DCCParams(mode="exact")),
            "dcc_fast": ContextualCoherence(DCCParams(mode="fast"))}
    values: dict = {}
    for name, chunking in cands.items():
        row = values[name] = {"chunks": len(chunking.chunks)}
        for key in keys:
            t, c = time.perf_counter(), time.process_time()
            row[key] = score_one(key, chunking.chunks, ctx).value
            times[key] += time.perf_counter() - t
            times["cpu_" + key] += time.process_time() - c
        for key, metric in ours.items():
            t, c = time.perf_counter(), time.process_time()
            row[key] = metric.score(chunking.chunks, ctx).value
            times[key] += time.perf_counter() - t
            times["cpu_" + key] += time.process_time() - c
    stats = span_embeddings(ctx).stats
    for k, v in stats.items():
        times["stat_" + k] += v
    return values


def _mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def _ranking(means: dict) -> str:
    return " > ".join(k for k, _ in sorted(means.items(), key=lambda kv: -(kv[1] if kv[1] is not None else -1)))


def compare(results: dict, reference: dict) -> None:
    """Print how far ICC/DCC moved from ``reference`` (same documents and candidates)."""
    docs = [d for d in results if d in reference]
    print(f"\ncompared with the reference run on {len(docs)} documents (points = 100 x value):")
    for key in ("icc", "dcc_exact", "dcc_fast"):
        pairs = [(results[d][c][key], reference[d][c][key]) for d in docs for c in CANDIDATES]
        diffs = [100 * abs(a - b) for a, b in pairs if a is not None and b is not None]
        same = sum(_best(results[d], key) == _best(reference[d], key) for d in docs)
        mean_diff = sum(diffs) / len(diffs) if diffs else 0.0
        print(f"  {key:<10} mean |diff| {mean_diff:.3f} points, max {max(diffs, default=0.0):.3f}; "
              f"same best candidate on {same}/{len(docs)} documents")


def _best(row: dict, key: str) -> str | None:
    scored = [(row[c][key], c) for c in CANDIDATES if row[c][key] is not None]
    return max(scored)[1] if scored else None


def report(results: dict, times: dict, wall: float) -> None:
    """Print timings and the comparison with the paper."""
    ref = json.loads((CLAIR / "paper_reference.json").read_text())["table3"]
    metric_keys = [k for k in ("chunking", "sc", "bi", "rc", "icc", "dcc_exact", "dcc_fast") if k in times]
    print(f"documents: {len(results)}   wall: {wall:.1f} s   peak RSS: "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB   load average "
          f"(1 min) at start {times['load_start']:.1f}, at end {os.getloadavg()[0]:.1f}")
    print("seconds per metric (4 candidates, all documents): "
          + ", ".join(f"{k} {times[k]:.1f}" for k in metric_keys))
    print("CPU seconds per metric (all threads): "
          + ", ".join(f"{k} {times['cpu_' + k]:.1f}" for k in metric_keys if "cpu_" + k in times)
          + f"; process total {time.process_time():.1f}")
    print("embedding: " + ", ".join(f"{k[5:]} {int(v)}" for k, v in times.items() if k.startswith("stat_")))
    print(f"\n{'candidate':<17}{'ICC':>7}{'paper':>7}{'DCC':>7}{'fast':>7}{'paper':>7}")
    means = defaultdict(dict)
    for cand in CANDIDATES:
        for key in ("icc", "dcc_exact", "dcc_fast"):
            means[key][cand] = _mean([r[cand][key] for r in results.values()])
        p = ref[PAPER_KEYS[cand]]
        fmt = lambda x: f"{100 * x:7.1f}" if x is not None else f"{'-':>7}"  # noqa: E731
        print(f"{cand:<17}{fmt(means['icc'][cand])}{p['ICC']:7.1f}{fmt(means['dcc_exact'][cand])}"
              f"{fmt(means['dcc_fast'][cand])}{p['DCC']:7.1f}")
    for key, paper_key in (("icc", "ICC"), ("dcc_exact", "DCC"), ("dcc_fast", "DCC")):
        print(f"rank {key:<9} ours: {_ranking(means[key])}")
        print(f"rank {key:<9} paper: {_ranking({c: ref[PAPER_KEYS[c]][paper_key] for c in CANDIDATES})}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedder", choices=sorted(EMBEDDERS), default="minilm")
    ap.add_argument("--docs", type=int, help="only the first N documents (sorted by name)")
    ap.add_argument("--json", help="write per-document values and timings here")
    ap.add_argument("--compare", help="a --json output of another run: print how far ICC/DCC moved")
    args = ap.parse_args()
    if not CLAIR.is_dir():
        print("../shared/corpus/clair is not available", file=sys.stderr)
        return 1
    from adachunk.api import load_profile
    from adachunk.models.embedders import load_embedder

    policy = load_profile("paper").policy
    spec = EMBEDDERS[args.embedder]
    t0 = time.perf_counter()
    load_embedder(spec).embed(["warm up"])  # model load, reported separately
    load_s = time.perf_counter() - t0
    print(f"embedder {args.embedder}: loaded in {load_s:.1f} s", flush=True)
    times: dict = defaultdict(float)
    times["load_start"] = os.getloadavg()[0]
    results = {}
    t0 = time.perf_counter()
    for path in documents(args.docs):
        t = time.perf_counter()
        results[path.name] = score_document(read_document(str(path)), policy, spec, times)
        print(f"  {path.name[:60]:<60} {time.perf_counter() - t:7.1f} s", flush=True)
    wall = time.perf_counter() - t0
    report(results, times, wall)
    if args.compare:
        compare(results, json.loads(Path(args.compare).read_text())["results"])
    if args.json:
        Path(args.json).write_text(json.dumps({"embedder": spec, "load_s": load_s, "wall_s": wall,
                                               "cpu_s": time.process_time(), "times": times,
                                               "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
