"""A cold ``adachunk run`` on one small document: wall and CPU seconds of a fresh process.

Usage::

    python bench/cold_run.py [--doc examples/regulation_excerpt.md] [--repeat 3] [--sink none]

Each repetition is a new ``python -m adachunk.cli.main run DOC --out TMP`` process (imports, the
profile, the model's start-up, the selection, the outputs), after one warm-up run that fills the
start-up cache (the ONNX export) as a user's first run does. CPU seconds are the child's user +
system time (``resource.getrusage(RUSAGE_CHILDREN)``); the figures quoted in README.md,
docs/performance.md and docs/run.md come from here (median of the repetitions).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def one_run(doc: Path, sink: str) -> tuple[float, float]:
    """Wall and CPU seconds of one cold ``adachunk run`` of ``doc``."""
    with tempfile.TemporaryDirectory() as tmp:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "adachunk.cli.main", "run", str(doc), "--out", f"{tmp}/out",
                        "--sink", sink, "--quiet"], check=True, cwd=ROOT, capture_output=True)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--doc", type=Path, default=ROOT / "examples" / "regulation_excerpt.md")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sink", default="none", choices=["none", "lancedb"])
    args = ap.parse_args()
    one_run(args.doc, args.sink)  # warm-up: the start-up cache a first run fills
    runs = [one_run(args.doc, args.sink) for _ in range(args.repeat)]
    walls, cpus = [w for w, _ in runs], [c for _, c in runs]
    size = args.doc.stat().st_size / 1000
    print(f"cold `adachunk run` on {args.doc.name} ({size:.1f} KB, --sink {args.sink}), {args.repeat} runs: "
          f"wall {statistics.median(walls):.2f} s (min {min(walls):.2f}, max {max(walls):.2f}), "
          f"CPU {statistics.median(cpus):.2f} s (min {min(cpus):.2f}, max {max(cpus):.2f})")


if __name__ == "__main__":
    main()
