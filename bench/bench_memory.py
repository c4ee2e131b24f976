"""Peak RSS of ``adachunk chunk`` on large Markdown files (results in ``bench/RESULTS.md``).

The input repeats ``examples/*.md`` and the CLAIR ``full_text``s (when ``../shared/corpus`` is
there) up to the size asked for. Each mode runs in its own process under ``/usr/bin/time -v``:
``whole`` disables the large-document mode (one segment, the behaviour before it existed);
``segments`` uses the default, or ``--segment-chars N`` for N.

    python bench/bench_memory.py --mb 20 200 --modes whole segments
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLAIR = ROOT.parent / "shared" / "corpus" / "clair"


def corpus_unit() -> str:
    """The examples and CLAIR texts, joined by blank lines."""
    parts = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples").glob("*.md"))]
    for f in sorted(CLAIR.glob("*.json")) if CLAIR.is_dir() else []:
        obj = json.loads(f.read_text(encoding="utf-8"))
        parts += [d["full_text"] for d in (obj if isinstance(obj, list) else [obj])
                  if isinstance(d, dict) and isinstance(d.get("full_text"), str)]
    return "\n\n".join(parts) + "\n\n"


def build(path: Path, mb: int) -> None:
    """Write ``mb`` MiB of repeated corpus text to ``path`` (cut at a character boundary)."""
    unit = corpus_unit().encode("utf-8")
    n = mb * 2**20
    data = (unit * (n // len(unit) + 1))[:n]
    path.write_text(data.decode("utf-8", "ignore"), encoding="utf-8")


def peak_rss_mb(args: list[str]) -> tuple[float, float]:
    """(peak RSS in MiB, wall seconds) of one command under ``/usr/bin/time -v``."""
    r = subprocess.run(["/usr/bin/time", "-v", *args], capture_output=True, text=True, check=True)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1)) / 1024
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", r.stderr)
    wall = int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
    return rss, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, nargs="+", default=[20])
    ap.add_argument("--modes", nargs="+", default=["whole", "segments"],
                    help="whole, segments, or a number of code points per segment")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for mb in a.mb:
            src = Path(tmp) / f"big{mb}.md"
            build(src, mb)
            for mode in a.modes:
                flags = {"whole": ["--segment-chars", str(10**12)], "segments": []}.get(mode, ["--segment-chars", mode])
                rss, wall = peak_rss_mb([sys.executable, "-m", "adachunk.cli.main", "chunk", str(src),
                                         "-o", str(Path(tmp) / "out.jsonl"), *flags])
                print(f"{mb:>4} MiB  {mode:>10}  peak RSS {rss:8.0f} MiB  ({rss / mb:4.1f}x)  {wall:6.1f} s", flush=True)


if __name__ == "__main__":
    main()
