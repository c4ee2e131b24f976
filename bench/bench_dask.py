"""``adachunk run`` past one process: a Dask LocalCluster against the serial run (issue 36).

    python bench/bench_dask.py                       # CLAIR x 8, serial then Dask with 1 and 2 workers
    python bench/bench_dask.py --docs 8 --copies 2   # a smaller corpus (the 8 smallest documents)
    python bench/bench_dask.py --workers 2 --no-pool # CLAIR x 8: serial and 2 Dask workers only

The corpus is ``--copies`` copies of the CLAIR documents (``--docs``: the N smallest), each copy
the paper's JSON with its own comment line appended to the text: the copies are different documents to
every cache (the analysis store keys vectors by the text's hash), so no copy is free. The serial
run embeds on as many threads as the process may use (its batches are the parallelism); a pool
or Dask worker embeds on one. The
benchmark starts the cluster itself (``--backend dask`` without ``--scheduler``: a LocalCluster of
``--workers`` processes, one thread each), checks that each Dask run wrote exactly the serial run's
chunks, and prints wall clock, CPU of the whole process tree and documents per second. Not run by
the tests.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLAIR = ROOT.parent / "shared" / "corpus" / "clair"


def make_corpus(folder: Path, docs: int | None, copies: int) -> int:
    """Write the copies as Markdown files under ``folder``; returns how many were written."""
    files = sorted((f for f in CLAIR.glob("*.json") if "full_text" in json.loads(f.read_text(encoding="utf-8"))),
                   key=lambda f: f.stat().st_size)[:docs]
    for f in files:
        doc = json.loads(f.read_text(encoding="utf-8"))
        for k in range(copies):
            # appended, so the paper's split points and coreference offsets stay where they were
            copy = {**doc, "full_text": f"{doc['full_text']}\n\n<!-- copy {k} -->\n"}
            (folder / f"{f.stem}__copy{k}.json").write_text(json.dumps(copy), encoding="utf-8")
    return len(files) * copies


def run(inputs: Path, out: Path, args: list[str]) -> dict:
    """One ``adachunk run`` process: wall clock and the CPU of it and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([str(Path(sys.executable).with_name("adachunk")), "run", str(inputs), "--out", str(out),
                    "--sink", "none", "--quiet", *args], check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1)}


def chunks(out: Path) -> list[tuple]:
    """The run's chunks, in a stable order (a parallel run writes documents as they finish)."""
    rows = [json.loads(line) for line in (out / "chunks.jsonl").read_text(encoding="utf-8").splitlines()]
    return sorted((r["doc_id"], r["start"], r["end"], r["text"]) for r in rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=None, help="the N smallest CLAIR documents (default: all 33)")
    ap.add_argument("--copies", type=int, default=8)
    ap.add_argument("--workers", default="1,2", help="Dask worker counts to run")
    ap.add_argument("--profile", default="default")
    ap.add_argument("--no-pool", action="store_true",
                    help="skip the process-pool run (CLAIR x 8: saves about 40 minutes on 2 cores)")
    a = ap.parse_args()
    if not CLAIR.is_dir():
        sys.exit(f"needs {CLAIR}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "in").mkdir()
        n = make_corpus(tmp / "in", a.docs, a.copies)
        rows = []
        serial = run(tmp / "in", tmp / "serial", ["--backend", "serial", "--profile", a.profile])
        rows.append(("serial (1 process)", serial, True))
        reference = chunks(tmp / "serial")
        counts = [int(x) for x in a.workers.split(",")]
        if not a.no_pool:
            out = tmp / "local"
            res = run(tmp / "in", out, ["--backend", "local", "--workers", str(max(counts)), "--profile", a.profile])
            rows.append((f"process pool (--backend local), {max(counts)} workers", res, chunks(out) == reference))
        for w in counts:
            out = tmp / f"dask{w}"
            res = run(tmp / "in", out, ["--backend", "dask", "--workers", str(w), "--profile", a.profile])
            rows.append((f"Dask LocalCluster, {w} worker(s)", res, chunks(out) == reference))
        print(f"{n} documents ({a.copies} copies of {n // a.copies}), profile {a.profile}")
        print("| run | wall s | CPU s | documents/s | speed-up | chunks equal to serial |")
        print("|---|---:|---:|---:|---:|---|")
        for name, res, same in rows:
            print(f"| {name} | {res['wall_s']} | {res['cpu_s']} | {n / res['wall_s']:.3f} | "
                  f"{serial['wall_s'] / res['wall_s']:.2f} | {'yes' if same else 'NO'} |")


if __name__ == "__main__":
    main()
