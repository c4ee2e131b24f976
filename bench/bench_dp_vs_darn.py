"""adachunk DP chunking vs darn-it 1.3.2, same process, same (ASCII-folded) text.

Usage: python bench/bench_dp_vs_darn.py [--repeat 3]

Prints MB/s for both at 512 tokens (and 1,000 characters), the ratio, and the solver's own time
for max sizes 500, 2000 and 8000 characters on the same input (it must stay flat: O(n)).
Not a test: timings are recorded by hand in bench/RESULTS.md.

Speeds are CPU seconds of this process (``time.process_time``) by default: the machine is
shared, and CPU time is what other jobs on the same cores disturb least. ``--clock wall`` uses
wall time instead. The load average is printed with the numbers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

# A long run moves from tiktoken to quicktok after a few megabytes (adachunk.tokens: identical
# ids, ~3x faster, ~1 s to load); a benchmark measures that steady state from its first pass.
# ADACHUNK_TOKENIZER_BACKEND=auto measures a short process as it would run.
os.environ.setdefault("ADACHUNK_TOKENIZER_BACKEND", "quicktok")

from common import ascii_fold, corpus, mb  # noqa: E402

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent))

from adachunk import Document, load_profile  # noqa: E402
from adachunk.cost.lattice import build_costs  # noqa: E402
from adachunk.detect.base import DetectContext  # noqa: E402
from adachunk.solve.solver import solve  # noqa: E402
from adachunk.split.dp import detect_all, dp_chunk  # noqa: E402


def timed(fn, clock, repeat: int = 3, warmup: int = 1) -> float:
    """Median time of ``fn()`` over ``repeat`` runs after ``warmup`` runs, on ``clock``."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t = clock()
        fn()
        times.append(clock() - t)
    return statistics.median(times)


def run_adachunk(texts, **overrides):
    rp = load_profile("default", **overrides)
    return sum(len(dp_chunk(Document(id=str(i), text=t), rp.policy).chunks) for i, t in enumerate(texts))


def run_darn(texts, chunk_size, granularity):
    from darn_it import Chunker

    chunker = Chunker()
    kw = {"granularity": granularity, "model": "gpt-4o"} if granularity == "tokens" else {}
    return sum(len(chunker.get_chunks(text=t, chunk_size=chunk_size, **kw).chunks) for t in texts)


def solver_flatness(text: str, clock=time.perf_counter) -> dict[int, float]:
    rp = load_profile("default", granularity="chars", min_size=0)
    ctx = DetectContext(text)
    structs = detect_all(rp.policy, ctx)
    P = np.arange(len(text) + 1, dtype=np.int64)
    cost = build_costs(P, structs, list(rp.policy.rules), len(text))
    out = {}
    for mx in (500, 2000, 8000):
        solve(P, cost, chunk_cost=40, min_size=0, max_size=mx)  # warm
        t = clock()
        for _ in range(5):
            solve(P, cost, chunk_cost=40, min_size=0, max_size=mx)
        out[mx] = (clock() - t) / 5
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--docs", type=int, default=0, help="limit to the first N documents (0 = all)")
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu",
                    help="cpu: process CPU time (default, robust to other jobs); wall: elapsed time")
    args = ap.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    docs = corpus()
    if args.docs:
        docs = docs[: args.docs]
    texts = [ascii_fold(t) for _, t in docs]
    size = mb(texts)
    print(f"corpus: {len(texts)} documents, {size:.2f} MB (ASCII-folded); {args.clock} time; "
          f"load average {os.getloadavg()[0]:.2f}")
    for label, ada_kw, darn_args in (("512 tokens", {"max_size": 512}, (512, "tokens")),
                                     ("1000 chars", {"granularity": "chars", "max_size": 1000, "min_size": 0}, (1000, "characters"))):
        t_ada = timed(lambda: run_adachunk(texts, **ada_kw), clock, repeat=args.repeat)
        n_ada = run_adachunk(texts, **ada_kw)
        try:
            t_darn = timed(lambda: run_darn(texts, *darn_args), clock, repeat=1, warmup=0)
            n_darn = run_darn(texts, *darn_args)
        except ImportError:
            t_darn, n_darn = float("nan"), 0
        print(f"{label}: adachunk {size / t_ada:8.2f} MB/s ({n_ada} chunks) | darn-it {size / t_darn:8.4f} MB/s "
              f"({n_darn} chunks) | ratio {t_darn / t_ada:,.0f}x")
    biggest = max(texts, key=len)
    flat = solver_flatness(biggest, clock)
    print(f"solver only on the largest document ({len(biggest):,} chars, chars granularity):")
    for mx, t in flat.items():
        print(f"  max_size {mx:>5}: {t * 1000:7.2f} ms")
    print(f"  max/min ratio: {max(flat.values()) / min(flat.values()):.2f}")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
