"""How far the fast DCC (window = tail-weighted mean of chunk embeddings) is from the exact one.

Usage:
  python bench/icc_dcc_fast_vs_exact.py [--embedder minilm|m2v|hash] [--docs N]
  python bench/icc_dcc_fast_vs_exact.py --from results.json   # reuse bench_icc_dcc.py --json

On the CLAIR documents and the four candidates of ``bench_icc_dcc.py``, prints the mean and
maximum absolute difference between exact and fast DCC (in points of 100), how often the two
rank the four candidates of a document identically, the share of candidate pairs both order
alike, and whether both pick the same best candidate (by DCC alone).

With MiniLM (256 word pieces) exact windows are pooled over the same blocks as the chunks, so
the two modes can only differ through the weights; with ``m2v`` (no input limit) each exact
window is embedded whole, the setting closest to the paper's long-context jina-v3.
Not a test: numbers go to bench/RESULTS.md by hand.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_icc_dcc import CANDIDATES, EMBEDDERS, documents, score_document  # noqa: E402


def _sign(x: float) -> int:
    return 0 if abs(x) < 1e-12 else (1 if x > 0 else -1)


def pairwise_agreement(a: list[float], b: list[float]) -> float:
    """Share of candidate pairs that both score lists order the same way (a tie equals a tie).

    Two identical candidates (a page chunking that post-processing left unchanged) tie under
    both modes, which counts as agreement; Kendall's tau-a would count it as neither.
    """
    pairs = list(itertools.combinations(range(len(a)), 2))
    return sum(_sign(a[i] - a[j]) == _sign(b[i] - b[j]) for i, j in pairs) / len(pairs)


def compare(results: dict) -> dict:
    """Agreement statistics of exact vs fast DCC over documents × candidates."""
    diffs, agree, same_order, same_best, n_docs = [], [], 0, 0, 0
    for rows in results.values():
        pairs = [(rows[c]["dcc_exact"], rows[c]["dcc_fast"]) for c in CANDIDATES]
        diffs += [abs(e - f) for e, f in pairs if e is not None and f is not None]
        full = [(e, f) for e, f in pairs if e is not None and f is not None]
        if len(full) < 2:
            continue
        n_docs += 1
        ex, fa = [e for e, _ in full], [f for _, f in full]
        agree.append(pairwise_agreement(ex, fa))
        same_order += sorted(range(len(ex)), key=ex.__getitem__) == sorted(range(len(fa)), key=fa.__getitem__)
        same_best += max(range(len(ex)), key=ex.__getitem__) == max(range(len(fa)), key=fa.__getitem__)
    return {"pairs": len(diffs), "mean_abs_diff": 100 * sum(diffs) / max(len(diffs), 1),
            "max_abs_diff": 100 * max(diffs, default=0.0), "documents_ranked": n_docs,
            "identical_ranking": same_order, "same_best": same_best,
            "pairwise_agreement": sum(agree) / max(len(agree), 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedder", choices=sorted(EMBEDDERS), default="minilm")
    ap.add_argument("--docs", type=int, help="only the first N documents")
    ap.add_argument("--from", dest="source", help="results JSON written by bench_icc_dcc.py --json")
    args = ap.parse_args()
    if args.source:
        data = json.loads(Path(args.source).read_text())
        results, label = data["results"], data["embedder"]
    else:
        from adachunk.api import load_profile
        from adachunk.ingest import read_document

        policy = load_profile("paper").policy
        label, times, results = EMBEDDERS[args.embedder], defaultdict(float), {}
        t0 = time.perf_counter()
        for path in documents(args.docs):
            results[path.name] = score_document(read_document(str(path)), policy, label, times, keys=())
        print(f"scored {len(results)} documents in {time.perf_counter() - t0:.1f} s "
              f"(dcc exact {times['dcc_exact']:.1f} s, fast {times['dcc_fast']:.1f} s, icc {times['icc']:.1f} s)")
    stats = compare(results)
    print(f"embedder: {label}")
    print(f"exact vs fast DCC over {stats['pairs']} (document, candidate) pairs: mean |diff| "
          f"{stats['mean_abs_diff']:.2f} points, max {stats['max_abs_diff']:.2f} points")
    print(f"rankings of the {len(CANDIDATES)} candidates on {stats['documents_ranked']} documents: identical "
          f"{stats['identical_ranking']}, same best {stats['same_best']}, "
          f"pairs of candidates ordered alike {100 * stats['pairwise_agreement']:.1f}%")
    means = {c: [sum(r[c][k] for r in results.values() if r[c][k] is not None) /
                 max(1, sum(r[c][k] is not None for r in results.values())) for k in ("dcc_exact", "dcc_fast")]
             for c in CANDIDATES}
    for c, (e, f) in means.items():
        print(f"  {c:<17} exact {100 * e:6.2f}  fast {100 * f:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
