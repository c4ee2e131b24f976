"""Markdown block parser: growth of parse time on pathological inputs, and raw throughput.

For every hostile input shape of ``tests/test_detect_markdown.py::PATHOLOGICAL`` (repeated short
lines, one very long line built to make a backtracking regex blow up), time ``parse_blocks`` at
n and 4n characters. A linear parser takes ~4x as long; a quadratic one ~16x. The run fails
(exit 1) when a ratio passes ``--max-ratio`` (12 by default: generous, since a loaded machine
adds noise to the small size).

Then the throughput on the CLAIR full texts (or ``examples/`` without ``../shared``) repeated to
``--mb`` megabytes.

Usage: ``python bench/markdown_linearity.py [--n 20000] [--max-ratio 12] [--mb 50]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from common import corpus  # noqa: E402
from test_detect_markdown import PATHOLOGICAL  # noqa: E402

from adachunk.detect.markdown import parse_blocks  # noqa: E402


def _timed(text: str, repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        parse_blocks(text)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20_000, help="small size in characters")
    ap.add_argument("--max-ratio", type=float, default=12.0, help="fail above this 4n/n ratio")
    ap.add_argument("--mb", type=float, default=50.0, help="megabytes for the throughput run")
    args = ap.parse_args()

    bad = []
    print(f"| input | t(n={args.n:,}) s | t(4n) s | ratio |\n|---|---:|---:|---:|")
    for name, build in PATHOLOGICAL.items():
        small = _timed(build(args.n), repeat=2)
        large = _timed(build(4 * args.n))
        ratio = large / max(small, 1e-6)
        print(f"| {name} | {small:.4f} | {large:.4f} | {ratio:.1f} |")
        if ratio > args.max_ratio and large > 0.3:  # tiny times are all noise
            bad.append(name)

    base = "\n\n".join(text for _, text in corpus())
    size = int(args.mb * 1_000_000)
    text = (base * (size // len(base) + 1))[:size]
    t = _timed(text)
    print(f"\n{args.mb:g} MB of real Markdown: {len(text) / t / 1e6:.2f} MB/s ({t:.1f} s)")
    if bad:
        print("super-linear growth:", ", ".join(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
