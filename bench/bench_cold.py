"""Cold start of ``adachunk chunk`` and the throughput of ``--workers 2`` (issue 14).

    python bench/bench_cold.py                 # both parts
    python bench/bench_cold.py --cold-only     # the 10 KB cold start alone
    python bench/bench_cold.py --runs 9 --worker-runs 3
    python bench/bench_cold.py --workers-only --copies 4   # -j 2 over CLAIR x 4

Cold start: a new ``adachunk chunk FILE`` process per run on a 10 KB Markdown document cut from
``examples/`` (default profile); user+sys CPU of the process from ``RUSAGE_CHILDREN``, median of
``--runs``. The caches a first run fills (``.pyc`` files, the tokenizer's vocabulary in the user
cache, Numba's) are warmed by one run first: a cold *process*, not a fresh install.

Workers: ``adachunk chunk`` over CLAIR serially and with ``-j 2`` (interleaved, medians of
``--worker-runs``), wall clock and CPU, with the load average (a shared machine makes wall
clock noisy). ``--copies K`` chunks every CLAIR file K times (links under K names), to see the
pool where chunking outweighs the start-up every process pays. Then the structure of a ``-j 2``
run, measured in one process: CPU of the main
process before the pool starts, CPU of each worker; ``ideal`` is the wall clock that structure
gives on idle cores (main's start plus the busiest worker), against the serial CPU.
Not run by the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLAIR = ROOT.parent / "shared" / "corpus" / "clair"


def ten_kb_document(folder: Path) -> Path:
    """10 KB of Markdown from examples/ (whole paragraphs)."""
    text = "\n\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples").glob("*.md")))
    cut = text.find("\n\n", 10_000)
    path = folder / "cold_10k.md"
    path.write_text(text[:cut] + "\n", encoding="utf-8")
    return path


def _cli() -> list[str]:
    return [sys.executable, "-m", "adachunk.cli.main"]


# A user's shell writes .pyc files; some sandboxes set PYTHONDONTWRITEBYTECODE, which makes every
# cold process compile adachunk's ~90 modules again (~0.2-0.3 CPU-s here).
_CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _run(cmd: list[str]) -> tuple[float, float]:
    """(wall s, user+sys CPU s) of a child process and its own children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_CHILD_ENV)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cold(runs: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        doc = ten_kb_document(Path(tmp))
        size = doc.stat().st_size
        cmd = _cli() + ["chunk", str(doc), "-o", os.devnull]
        _run(cmd)  # fills the .pyc files and the user cache once
        cpus = sorted(_run(cmd)[1] for _ in range(runs))
    med = statistics.median(cpus)
    print(f"cold adachunk chunk, {size:,} B of Markdown: median {med:.2f} CPU-s of {runs} "
          f"(min {cpus[0]:.2f}, max {cpus[-1]:.2f}); load average {os.getloadavg()[0]:.2f}")
    return med


def clair_files() -> list[str]:
    return [str(p) for p in sorted(CLAIR.glob("*_*.json")) if p.name != "paper_reference.json"]


def workers(runs: int, copies: int = 1) -> None:
    files = clair_files()
    if not files:
        print("workers: ../shared/corpus/clair is absent, skipped")
        return
    if copies > 1:
        with tempfile.TemporaryDirectory() as tmp:
            linked = []
            for k in range(copies):  # the same bytes under new names: nothing is cached by name
                for f in files:
                    link = Path(tmp) / f"copy{k}_{Path(f).name}"
                    link.symlink_to(f)
                    linked.append(str(link))
            _workers(linked, runs, f"CLAIR x {copies}")
        return
    structure(files, _workers(files, runs, "CLAIR"))


def _workers(files: list[str], runs: int, name: str) -> float:
    """Serial against ``-j 2`` over ``files``, interleaved; prints both, returns the serial
    run's median CPU."""
    serial, two = [], []
    for _ in range(runs):  # interleaved: the machine's load changes under both alike
        load = os.getloadavg()[0]
        serial.append((*_run(_cli() + ["chunk", *files, "-o", os.devnull]), load))
        two.append((*_run(_cli() + ["chunk", "-j", "2", *files, "-o", os.devnull]), os.getloadavg()[0]))
    s_wall, s_cpu = statistics.median(r[0] for r in serial), statistics.median(r[1] for r in serial)
    t_wall, t_cpu = statistics.median(r[0] for r in two), statistics.median(r[1] for r in two)
    print(f"{name} ({len(files)} files), medians of {runs}: serial {s_wall:.2f} s wall / {s_cpu:.2f} CPU-s, "
          f"-j 2 {t_wall:.2f} s wall / {t_cpu:.2f} CPU-s: {s_wall / t_wall:.2f}x wall; "
          f"load averages {[round(r[2], 2) for r in serial]}")
    return s_cpu


def structure(files: list[str], serial_cpu: float) -> None:
    """Run ``chunk -j 2`` here with each worker recording its CPU after every file."""
    code = f"""
import json, os, sys, time
sys.argv = ["adachunk"]
from adachunk.cli import _chunk_pool as pool
from adachunk.cli.main import main
record = {json.dumps(tempfile.mkdtemp(prefix="bench_cold_"))}
plain = pool.chunk_to_text
def timed(path, args):
    out = plain(path, args)
    with open(os.path.join(record, str(os.getpid())), "w") as f:
        f.write(str(time.process_time()))
    return out
pool.chunk_to_text = timed
real = pool._pool  # the bounded worker pool (adachunk.runner.pool) is made here
def made(args):
    print("main-before-pool", time.process_time(), file=sys.stderr)
    return real(args)
pool._pool = made
main(["chunk", "-j", "2", *{json.dumps(files)}, "-o", os.devnull])
print("record", record, file=sys.stderr)
"""
    if pool_method() != "fork":
        print("structure: workers are spawned on this platform (the per-worker record needs fork)")
        return
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = dict(line.split(" ", 1) for line in res.stderr.splitlines() if line.startswith(("main-", "record")))
    main_cpu = float(lines["main-before-pool"])
    folder = Path(lines["record"].strip())
    per_worker = sorted((float(p.read_text()) for p in folder.iterdir()), reverse=True)
    ideal = main_cpu + per_worker[0]
    print(f"-j 2 structure: main before the pool {main_cpu:.2f} CPU-s, workers {[round(w, 2) for w in per_worker]} "
          f"CPU-s (sum {sum(per_worker):.2f} vs serial {serial_cpu:.2f}); on 2 idle cores ~{ideal:.2f} s wall, "
          f"{serial_cpu / ideal:.2f}x the serial CPU")


def pool_method() -> str:
    from adachunk.cli._chunk_pool import start_method

    return start_method()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--worker-runs", type=int, default=3)
    ap.add_argument("--cold-only", action="store_true")
    ap.add_argument("--workers-only", action="store_true")
    ap.add_argument("--copies", type=int, default=1, help="chunk every CLAIR file this many times")
    args = ap.parse_args()
    if not args.workers_only:
        cold(args.runs)
    if not args.cold_only:
        workers(args.worker_runs, args.copies)


if __name__ == "__main__":
    main()
