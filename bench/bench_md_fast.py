"""Markdown block detector: ``engine: auto`` (fast top-level path) against ``mistletoe``.

Usage: ``python bench/bench_md_fast.py [--passes N] [--chunk]``

CPU time (``time.process_time``) of :func:`adachunk.detect.markdown.parse_blocks` on the CLAIR
documents (``../shared/corpus/clair``), engines interleaved document by document. Reports, per
engine, the sum over documents of the per-document median and of the per-document minimum
(the minimum is the least disturbed by other processes on a shared machine). With ``--chunk``,
also the whole ``chunk_document`` at 512 cl100k tokens (default profile) for each engine. Not a
test: no numbers are asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from adachunk.detect import markdown as md

CLAIR = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "clair"


def clair_texts() -> list[str]:
    """The full texts of the CLAIR documents (empty when the corpus is absent)."""
    paths = sorted(p for p in CLAIR.glob("*_*.json") if "paper_reference" not in p.name)
    return [json.loads(p.read_text(encoding="utf-8"))["full_text"] for p in paths]


def _cpu(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def detector_times(texts: list[str], passes: int) -> dict[str, tuple[float, float]]:
    """``engine -> (sum of per-document medians, sum of per-document minima)``, CPU seconds."""
    out = {engine: [0.0, 0.0] for engine in md.ENGINES}
    for text in texts:
        runs: dict[str, list[float]] = {engine: [] for engine in md.ENGINES}
        for _ in range(passes):
            for engine in md.ENGINES:
                runs[engine].append(_cpu(lambda: md.parse_blocks(text, engine)))
        for engine, ts in runs.items():
            out[engine][0] += statistics.median(ts)
            out[engine][1] += min(ts)
    return {engine: (a, b) for engine, (a, b) in out.items()}


def chunk_times(texts: list[str], passes: int) -> dict[str, tuple[float, float]]:
    """``engine -> (median, min)`` CPU seconds of ``chunk_document`` on all texts, 512 cl100k.

    The engines alternate which goes first in each pass.
    """
    import adachunk

    rp = adachunk.load_profile("default", tokenizer="cl100k_base", max_size=512)
    def docs():  # new documents every pass: a document keeps its analysis (parse included)
        return [adachunk.Document(id=str(i), text=t) for i, t in enumerate(texts)]

    real_init = md._Walker.__init__
    runs: dict[str, list[float]] = {engine: [] for engine in md.ENGINES}
    try:
        for p in range(passes):
            for engine in (md.ENGINES if p % 2 == 0 else md.ENGINES[::-1]):
                # every caller of parse_blocks (detectors, block model) gets this engine
                md._Walker.__init__ = (lambda self, *a, e=engine: real_init(self, *a[:3], e))
                fresh = docs()
                runs[engine].append(_cpu(lambda: [adachunk.chunk_document(d, rp) for d in fresh]))
    finally:
        md._Walker.__init__ = real_init
    return {engine: (statistics.median(ts), min(ts)) for engine, ts in runs.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passes", type=int, default=7)
    ap.add_argument("--chunk", action="store_true", help="also time chunk_document at 512 tokens")
    args = ap.parse_args()
    texts = clair_texts()
    if not texts:
        raise SystemExit(f"no CLAIR corpus at {CLAIR}")
    for text in texts:  # warm up, and check the engines agree before timing them
        if md.parse_blocks(text, "auto") != md.parse_blocks(text, "mistletoe"):
            raise SystemExit("the engines disagree: run tests/parity/test_md_fast_parity.py")
    mb = sum(map(len, texts)) / 1e6
    times = detector_times(texts, args.passes)
    ref = times["mistletoe"]
    print(f"parse_blocks on CLAIR ({len(texts)} docs, {mb:.1f} M code points), CPU s:")
    for engine, (med, low) in times.items():
        print(f"  {engine:9s} median {med:6.3f}  min {low:6.3f}  "
              f"speed-up {ref[0] / med:4.2f}x / {ref[1] / low:4.2f}x")
    if args.chunk:
        print("chunk_document, 512 cl100k tokens, default profile, CPU s:")
        for engine, (med, low) in chunk_times(texts, args.passes).items():
            print(f"  {engine:9s} median {med:6.3f}  min {low:6.3f}")


if __name__ == "__main__":
    main()
