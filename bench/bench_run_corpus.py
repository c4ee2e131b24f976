"""Wall and CPU seconds of one ``adachunk`` command on a corpus, in a fresh process: the figures
README.md and docs/performance.md quote for CLAIR and for long legal documents.

Measurements:

* ``run``: ``adachunk run CLAIR/ --sink none`` (or ``--sink lancedb``), the 33 CLAIR documents as
  Markdown files (``bench_run_cost.prepare``: made once, cached), a profile of your choice; then a
  no-op ``--resume`` of the same folder (nothing changed: nothing is chunked again);
* ``legal``: ``adachunk chunk --profile legal`` (metadata declared: definitions, term uses,
  cross-references, paths) on one Markdown document of N MB made by cycling CLAIR's texts;
* ``tune``: ``adachunk tune`` on CLAIR twice with the same ``--analysis-cache`` (the second finds
  every document's analysis and span embeddings stored);
* ``distill``: ``adachunk models distill`` into a fresh folder (the static stand-in model).

Usage::

    python bench/bench_run_corpus.py run [--profile default] [--sink none] [--workers 2]
    python bench/bench_run_corpus.py legal [--mb 4]
    python bench/bench_run_corpus.py tune [--trials 30]
    python bench/bench_run_corpus.py distill

Before the timed command, one ``adachunk run`` of a small document fills the start-up cache (the
ONNX export), as a user's first run does. CPU seconds are the child's user + system time
(``resource.getrusage(RUSAGE_CHILDREN)``). Needs ``../shared/corpus/clair`` (exits 0 with a
message without it). The machine's load changes the wall time far more than the CPU seconds: say
which you quote, and whether anything else ran.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_run_cost import measured, prepare  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "adachunk.cli.main"]


def warm_up(tmp: Path) -> None:
    """One small run: the start-up cache a user's first run fills."""
    measured([*CLI, "run", str(ROOT / "examples" / "regulation_excerpt.md"), "--out", str(tmp / "warm"), "--quiet"])


def time_run(folder: Path, profile: str, sink: str, workers: int, tmp: Path) -> dict:
    """``adachunk run`` over ``folder``: wall, CPU and what it chose."""
    out = tmp / "run"
    wall, cpu = measured([*CLI, "run", str(folder), "--out", str(out), "--profile", profile, "--sink", sink,
                          "--workers", str(workers), "--quiet"])
    summary = json.loads((out / "summary.json").read_text())
    rw, rc = measured([*CLI, "run", str(folder), "--out", str(out), "--profile", profile, "--sink", sink,
                       "--workers", str(workers), "--quiet", "--resume"])
    return {"command": f"adachunk run CLAIR/ --profile {profile} --sink {sink} --workers {workers}",
            "documents": summary["totals"]["documents"], "chunks": summary["totals"]["chunks"],
            "winners": summary.get("selection_frequency"), "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
            "noop_resume_wall_s": round(rw, 2), "noop_resume_cpu_s": round(rc, 2)}


def long_document(folder: Path, mb: float, dest: Path) -> Path:
    """One Markdown file of ``mb`` MB: CLAIR's texts in name order, cycled, cut at a blank line."""
    texts = [p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.md"))]
    want, parts, size, i = int(mb * 1_000_000), [], 0, 0
    while size < want:
        parts.append(texts[i % len(texts)])
        size += len(parts[-1].encode("utf-8"))
        i += 1
    text = "\n\n".join(parts).encode("utf-8")[:want].decode("utf-8", "ignore")
    text = text[: text.rfind("\n\n") + 1] or text
    dest.write_text(text, encoding="utf-8")
    return dest


def time_legal(folder: Path, mb: float, tmp: Path) -> dict:
    """``adachunk chunk --profile legal`` on one long document."""
    doc = long_document(folder, mb, tmp / f"legal_{mb:g}mb.md")
    out = tmp / "legal.jsonl"
    wall, cpu = measured([*CLI, "chunk", str(doc), "--profile", "legal", "-o", str(out)])
    n = sum(1 for line in out.read_text(encoding="utf-8").splitlines() if line.strip())
    return {"command": f"adachunk chunk --profile legal ({doc.stat().st_size / 1e6:.1f} MB)", "chunks": n,
            "wall_s": round(wall, 1), "cpu_s": round(cpu, 1)}


def time_tune(folder: Path, trials: int, tmp: Path) -> dict:
    """``adachunk tune`` twice with one analysis store: the first run, then the one that finds it."""
    cmd = [*CLI, "tune", str(folder), "--trials", str(trials), "--analysis-cache", str(tmp / "store"),
           "--no-plots", "--quiet"]
    first = measured([*cmd, "--out", str(tmp / "tune1")])
    second = measured([*cmd, "--out", str(tmp / "tune2")])
    return {"command": f"adachunk tune CLAIR/ --trials {trials} --analysis-cache STORE (twice)",
            "first_wall_s": round(first[0], 1), "first_cpu_s": round(first[1], 1),
            "second_wall_s": round(second[0], 1), "second_cpu_s": round(second[1], 1)}


def time_distill(tmp: Path) -> dict:
    """``adachunk models distill`` into a fresh folder."""
    wall, cpu = measured([*CLI, "models", "distill", "--out", str(tmp / "m2v")])
    return {"command": "adachunk models distill", "wall_s": round(wall, 1), "cpu_s": round(cpu, 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["run", "legal", "tune", "distill"])
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--profile", default="default")
    ap.add_argument("--sink", default="none", choices=["none", "lancedb"])
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--mb", type=float, default=4.0)
    args = ap.parse_args()
    folder = prepare("clair")
    if folder is None:
        print("../shared/corpus/clair not found: nothing measured", file=sys.stderr)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        warm_up(Path(tmp))
        if args.what == "run":
            result = time_run(folder, args.profile, args.sink, args.workers, Path(tmp))
        elif args.what == "legal":
            result = time_legal(folder, args.mb, Path(tmp))
        elif args.what == "tune":
            result = time_tune(folder, args.trials, Path(tmp))
        else:
            result = time_distill(Path(tmp))
    result["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
