"""Benchmark helpers: the corpus (CLAIR full_text when ../shared is present, else examples/)."""

from __future__ import annotations

import json
import statistics
import time
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLAIR = ROOT.parent / "shared" / "corpus" / "clair"


def clair_files(folder: Path = CLAIR) -> list[Path]:
    """CLAIR's parsed documents (not its manifest or the paper's reference numbers), sorted."""
    return [p for p in sorted(folder.glob("*.json")) if p.name not in ("manifest.json", "paper_reference.json")]


def corpus() -> list[tuple[str, str]]:
    """(name, text) pairs of real Markdown documents available offline."""
    if CLAIR.is_dir():
        return [(p.stem, json.loads(p.read_text(encoding="utf-8"))["full_text"]) for p in clair_files()]
    return [(p.stem, p.read_text(encoding="utf-8")) for p in sorted((ROOT / "examples").glob("*.md"))]


def ascii_fold(text: str) -> str:
    """ASCII-only copy (darn-it rejects non-ASCII input)."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def timed(fn, repeat: int = 3, warmup: int = 1) -> float:
    """Median wall time of ``fn()`` over ``repeat`` runs after ``warmup`` runs."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def mb(texts) -> float:
    return sum(len(t.encode("utf-8")) for t in texts) / 1e6
