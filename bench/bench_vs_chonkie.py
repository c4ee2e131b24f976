"""adachunk's DP (default profile) against chonkie's RecursiveChunker: speed only, CPU time.

The issue's speed targets, on CLAIR alone and on the peers corpus (CLAIR + package Markdown, as
``bench_peers.py`` builds it): ≥ 1.0× chonkie at 512 cl100k and 512 o200k tokens, ≥ 0.3× at
1,000 characters. Both get the same offline tiktoken Encoding (chonkie through its Tokenizer
interface, ``peers._chonkie_tokenizer``). One warm-up pass per tool, then ``--repeat`` passes with
the tools interleaved; tool objects are rebuilt per pass; MB/s = UTF-8 bytes / median pass time.

Usage: python bench/bench_vs_chonkie.py [--repeat 5] [--corpus clair,peers]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_peers import build_corpus  # noqa: E402
from common import corpus  # noqa: E402

MODES = (("512 cl100k", "tokens", 512, "cl100k_base"), ("512 o200k", "tokens", 512, "o200k_base"),
         ("1,000 chars", "chars", 1000, None))
TARGET = {"tokens": 1.0, "chars": 0.3}


def _adachunk(unit: str, size: int, enc: str | None):
    import adachunk

    if unit == "tokens":
        rp = adachunk.load_profile("default", tokenizer=enc, max_size=size)
    else:
        rp = adachunk.load_profile("default", granularity="chars", max_size=size, min_size=0)
    return lambda text: adachunk.chunk_text(text, rp)


def _chonkie(unit: str, size: int, enc: str | None):
    from chonkie import RecursiveChunker

    from peers import _chonkie_tokenizer

    chunker = RecursiveChunker(tokenizer=_chonkie_tokenizer(enc) if unit == "tokens" else "character",
                               chunk_size=size)
    return chunker.chunk


def measure(texts: list[str], unit: str, size: int, enc: str | None, repeat: int) -> dict[str, float]:
    """Median CPU seconds per pass over ``texts`` for each tool."""
    makers = {"adachunk": _adachunk, "chonkie": _chonkie}
    for make in makers.values():  # warm-up: imports, JIT, vocabularies
        fn = make(unit, size, enc)
        for t in texts:
            fn(t)
    times = {k: [] for k in makers}
    for _ in range(repeat):
        for name, make in makers.items():
            fn = make(unit, size, enc)
            t0 = time.process_time()
            for t in texts:
                fn(t)
            times[name].append(time.process_time() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--corpus", default="clair,peers")
    args = ap.parse_args()
    corpora = {"clair": lambda: [t for _, t in corpus()], "peers": lambda: [t for _, t in build_corpus(1.5)]}
    load0 = os.getloadavg()[0]
    print("| corpus | mode | MB | adachunk MB/s | chonkie MB/s | ratio | target |")
    print("|---|---|---:|---:|---:|---:|---|")
    for cname in args.corpus.split(","):
        texts = corpora[cname]()
        mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
        for label, unit, size, enc in MODES:
            med = measure(texts, unit, size, enc, args.repeat)
            a, c = mb / med["adachunk"], mb / med["chonkie"]
            ok = "met" if a / c >= TARGET[unit] else "missed"
            print(f"| {cname} ({len(texts)} docs) | {label} | {mb:.2f} | {a:.2f} | {c:.2f} | "
                  f"{a / c:.2f}× | ≥ {TARGET[unit]}×: {ok} |", flush=True)
    print(f"\nCPU seconds (process_time), medians of {args.repeat} interleaved passes; load average "
          f"{load0:.2f} → {os.getloadavg()[0]:.2f}.")


if __name__ == "__main__":
    main()
