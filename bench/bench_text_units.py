"""The compiled text-unit scan vs the reference scans, on CLAIR (process CPU seconds).

Usage (from the repository root)::

    python bench/bench_text_units.py [--repeat 5] [--chunk-repeat 3]

Per detector: ``split_sentences_reference`` / ``word_arrays_reference`` /
``line_break_reference`` against the same units from :func:`adachunk.detect.text_units._scan.scan`
(one scan per document serves all three, so "fused" is one scan plus the three extractions);
then whole ``chunk_text`` at 512 cl100k with the default profile, with the compiled scan and
with the reference scans forced. Passes are interleaved round-robin and medians reported, so
load from other processes hits both sides alike. Not a test: no assertion on speed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("ADACHUNK_TOKENIZER_BACKEND", "quicktok")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import corpus  # noqa: E402

from adachunk.detect.text_units import _scan  # noqa: E402
from adachunk.detect.text_units.line_break import line_break_reference  # noqa: E402
from adachunk.detect import text_units as tu  # noqa: E402


def _cpu(fn, docs) -> float:
    t = time.process_time()
    for d in docs:
        fn(d)
    return time.process_time() - t


def _fused_all(text: str) -> None:
    scan = _scan.scan(text)
    scan.sentences(text)
    list(zip(scan.line_breaks[0].tolist(), scan.line_breaks[1].tolist()))


def _interleaved(cases: dict, docs, repeat: int) -> dict[str, float]:
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(repeat):
        for name, fn in cases.items():
            times[name].append(_cpu(fn, docs))
    return {k: statistics.median(v) for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--chunk-repeat", type=int, default=3)
    args = ap.parse_args()
    docs = [t for _, t in corpus()]
    mb = sum(len(t.encode()) for t in docs) / 1e6
    print(f"{len(docs)} documents, {mb:.2f} MB UTF-8")
    cases = {
        "sentence reference": tu.split_sentences_reference,
        "sentence compiled": lambda t: _scan.scan(t).sentences(t),
        "word reference": tu.word_arrays_reference,
        "word compiled": lambda t: _scan.scan(t).words,
        "line_break reference": line_break_reference,
        "line_break compiled": lambda t: _scan.scan(t).line_breaks,
        "all three reference": lambda t: (tu.split_sentences_reference(t), tu.word_arrays_reference(t),
                                          line_break_reference(t)),
        "all three fused": _fused_all,
    }
    for fn in cases.values():  # warm-up: compile / load, tables
        fn(docs[0])
    for name, sec in _interleaved(cases, docs, args.repeat).items():
        print(f"{name:24s} {sec:7.3f} s  {mb / sec:7.1f} MB/s")

    import adachunk

    rp = adachunk.load_profile("default", tokenizer="cl100k_base", max_size=512)
    real = _scan.wanted

    def chunk(fast: bool):
        def run(text):
            _scan.wanted = (lambda n: n > 0) if fast else (lambda n: False)
            try:
                return adachunk.chunk_text(text, rp)
            finally:
                _scan.wanted = real
        return run

    chunks = {"chunk_text reference units": chunk(False), "chunk_text compiled units": chunk(True)}
    for fn in chunks.values():
        for d in docs[:2]:
            fn(d)
    same = all([c.text for c in chunk(False)(d)] == [c.text for c in chunk(True)(d)] for d in docs)
    for name, sec in _interleaved(chunks, docs, args.chunk_repeat).items():
        print(f"{name:28s} {sec:7.3f} s  {mb / sec:7.2f} MB/s")
    print("identical chunks:", same)


if __name__ == "__main__":
    main()
