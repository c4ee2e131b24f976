"""Speed of ``adachunk.evaluate.evaluate_chunks`` (what ``adachunk tune --objective qa`` calls per
trial) and the generator + eval on CLAIR.

    python bench/bench_eval.py [CORPUS_DIR] [--per-doc 10] [--repeat 5]

CORPUS_DIR defaults to ../shared/corpus/clair (skipped with a message when absent). Prints the
time of one BM25 evaluation (index + queries + measures) for fixed 512-token windows and for the
default profile's DP, and the measures of both on the generated proxy QA set.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", nargs="?", default=str(ROOT.parent / "shared" / "corpus" / "clair"))
    ap.add_argument("--per-doc", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    if not Path(args.corpus).is_dir():
        print(f"{args.corpus} not found: nothing to measure")
        return 0
    from adachunk.evaluate import evaluate_chunks, generate_qa, load_chunking, load_qa, write_qa
    from adachunk.evaluate.run import read_documents

    files = [str(p) for p in sorted(Path(args.corpus).glob("*.json"))
             if p.name not in ("manifest.json", "paper_reference.json")]
    t = time.perf_counter()
    docs, _ = read_documents(files)
    print(f"{len(docs)} documents, {sum(len(d.text) for d in docs.values()) / 1e6:.1f} M chars, "
          f"read in {time.perf_counter() - t:.1f} s")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "qa.jsonl"
        write_qa(generate_qa(docs.values(), args.per_doc, 0), path)
        qa = load_qa(path, docs)
    print(f"{len(qa.questions)} generated questions ({len(qa.warnings)} warnings)")
    for spec in ("fixed:512", "dp:default"):
        t = time.perf_counter()
        cs = load_chunking(spec, docs)
        build = time.perf_counter() - t
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            res = evaluate_chunks(cs.chunks, qa, "bm25", ks=(1, 3, 5, 10))
            times.append(time.perf_counter() - t)
        s = res.summary
        print(f"{spec:<11} {s['chunks']:>6} chunks (built in {build:.1f} s); evaluate_chunks bm25 best of "
              f"{args.repeat}: {min(times):.2f} s; recall@1/5/10 {s['recall@1']:.3f}/{s['recall@5']:.3f}/"
              f"{s['recall@10']:.3f}, mrr {s['mrr']:.3f}, coverage@5 {s['coverage@5']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
