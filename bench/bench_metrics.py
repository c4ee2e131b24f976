"""Wall time of SC, BI and RC over every CLAIR document, for a few chunkings.

Usage::

    python bench/bench_metrics.py [--repeat 3]

Each metric is timed on its own over the 33 documents with a fresh :class:`MetricContext` per
document, so per-document work (pair validation, block lists, Markdown parsing) is included once,
as in a real run. ``bi (markdown)`` scores the same chunks with the gold split points removed, so
BI falls back to parsing the Markdown blocks. Printed: the median over ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adachunk.ingest import read_document  # noqa: E402
from adachunk.metrics.base import MetricContext  # noqa: E402
from adachunk.metrics.blocks import BlockIntegrity  # noqa: E402
from adachunk.metrics.references import ReferencesCompleteness  # noqa: E402
from adachunk.metrics.size import SizeCompliance  # noqa: E402
from adachunk.split.assemble import build_chunks  # noqa: E402
from adachunk.tokens import get_counter  # noqa: E402

CLAIR = ROOT.parent / "shared" / "corpus" / "clair"


def spans_pages(doc):
    return [(p.start, p.end) for p in doc.pages if p.end > p.start]


def spans_every(n_chars: int):
    def make(doc):
        cuts = list(range(0, len(doc.text), n_chars)) + [len(doc.text)]
        return list(zip(cuts, cuts[1:]))
    return make


def spans_recursive(chunk_size: int):
    def make(doc):
        from adachunk.api import load_profile
        from adachunk.selection.candidates import make_splitter

        splitter = make_splitter("recursive.v1", {"chunk_size": chunk_size})
        chunking = splitter.split(doc, load_profile("default").policy)
        return [(c.start, c.end) for c in chunking.chunks]
    return make


CHUNKINGS = {
    "page_raw": spans_pages,
    "chars_2000": spans_every(2000),
    "chars_300": spans_every(300),
    "recursive_600": spans_recursive(600),
}
METRICS = {"sc": SizeCompliance(), "bi": BlockIntegrity(), "rc": ReferencesCompleteness()}


def timed_metric(metric, docs_chunks, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for doc, chunks in docs_chunks:
            metric.score(chunks, MetricContext(doc, {}, counter=get_counter("o200k_base")))
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if not CLAIR.is_dir():
        print(f"CLAIR corpus not found at {CLAIR}")
        return 1
    import logging

    logging.getLogger("adachunk.metrics").setLevel(logging.ERROR)  # the French pair warnings
    docs = [read_document(p) for p in sorted(CLAIR.glob("*.json"))
            if p.name not in ("manifest.json", "paper_reference.json")]
    count = get_counter("o200k_base").count
    print(f"{len(docs)} documents, {sum(len(d.text) for d in docs) / 1e6:.1f} M characters; "
          f"median of {args.repeat} runs, seconds over the whole corpus")
    print(f"{'chunking':<15} {'chunks':>7} {'sc':>8} {'bi':>8} {'rc':>8} {'bi (markdown)':>14}")
    for name, make in CHUNKINGS.items():
        try:
            docs_chunks = [(d, build_chunks(d, make(d), fingerprint="bench", count_tokens=count,
                                            unit_size=lambda s, e: e - s)) for d in docs]
        except ImportError as exc:
            print(f"{name:<15} skipped ({exc})")
            continue
        cells = [timed_metric(m, docs_chunks, args.repeat) for m in METRICS.values()]
        no_gold = [(dataclasses.replace(d, split_points=None), ch) for d, ch in docs_chunks]
        md = timed_metric(METRICS["bi"], no_gold, 1)
        n = sum(len(ch) for _, ch in docs_chunks)
        print(f"{name:<15} {n:>7} " + " ".join(f"{c:>8.4f}" for c in cells) + f" {md:>14.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
