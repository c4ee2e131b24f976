"""Where a pass of ``chunk_text`` goes, stage by stage, against the time chonkie's pass allows.

Usage (from the repository root)::

    python bench/stage_budget.py [--corpus clair|peers] [--repeat 5]

Per mode (512 cl100k, 512 o200k, 1,000 characters): adachunk's default profile and chonkie's
RecursiveChunker (the same offline tiktoken Encoding as ``bench_vs_chonkie.py``) run interleaved
in one process, after a warm-up of two passes each (JIT, vocabularies, quicktok). Every timed
pass reports CPU seconds; adachunk's stages are timed inside the same passes by wrapping the
functions below (a few hundred calls a pass), and chonkie's tokenizer calls in a third,
separate series of chonkie passes by wrapping its ``count_tokens`` (tens of thousands of calls:
chonkie's whole pass is taken from the untimed series). The table gives
each stage's median milliseconds per pass, and the budget: the pass adachunk would need to meet
the issue's ratio (1.0x chonkie at 512 tokens, 0.3x at 1,000 characters). Not a test.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import corpus  # noqa: E402

import adachunk  # noqa: E402

# (label, module, attribute path): inclusive CPU time of each call, summed per pass
STAGES = (
    ("token boundaries", "adachunk.tokens", "TiktokenCounter.boundaries"),
    ("  of which the encoder", "adachunk.tokens", "TiktokenCounter._ids"),
    ("Markdown blocks", "adachunk.detect.markdown", "parse_block_rows"),
    ("sentences, words, line breaks (one scan)", "adachunk.detect.text_units._scan", "scan"),
    ("document blocks", "adachunk.detect._block_model", "bound_block_arrays"),
    ("all detection", "adachunk.split.dp", "detect_all"),
    ("cost lattice", "adachunk.split.dp", "Candidates.add_costs"),
    ("solver", "adachunk.split.dp", "Candidates.solve"),
    ("own token counts", "adachunk.split.dp", "_repair"),
    ("chunk assembly", "adachunk.split.dp", "build_chunks"),
)
MODES = (("512 cl100k", "tokens", "cl100k_base"), ("512 o200k", "tokens", "o200k_base"),
         ("1,000 chars", "chars", None))
TARGET = {"tokens": 1.0, "chars": 0.3}


def _wrap(totals: Counter, label: str, module: str, path: str) -> None:
    """Replace ``module.path`` (and every from-import of the same object) by a timed twin."""
    mod = importlib.import_module(module)
    *owner_path, name = path.split(".")
    owner = mod
    for part in owner_path:
        owner = getattr(owner, part)
    fn = getattr(owner, name)

    def timed(*args, **kwargs):
        t0 = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            totals[label] += time.process_time() - t0

    setattr(owner, name, timed)
    if owner is mod:  # module-level functions are also looked up where they were imported
        for other in list(sys.modules.values()):
            if other is not None and other is not mod and getattr(other, name, None) is fn:
                setattr(other, name, timed)


def _texts(name: str) -> list[str]:
    if name == "peers":
        from bench_peers import build_corpus

        return [t for _, t in build_corpus(1.5)]
    return [t for _, t in corpus()]


def _chonkie(unit: str, enc: str | None, totals: Counter | None):
    """chonkie's ``chunk``; with ``totals``, its tokenizer's calls are timed into them (the timer
    costs about a microsecond per call, so whole passes are taken from untimed runs)."""
    from chonkie import RecursiveChunker

    from peers import _chonkie_tokenizer

    if unit != "tokens":
        return RecursiveChunker(tokenizer="character", chunk_size=1000).chunk
    tok = _chonkie_tokenizer(enc)
    if totals is not None:
        count = tok.count_tokens

        def counted(text):
            t0 = time.process_time()
            try:
                return count(text)
            finally:
                totals["chonkie: its tokenizer"] += time.process_time() - t0

        tok.count_tokens = counted
    return RecursiveChunker(tokenizer=tok, chunk_size=512).chunk


def run_mode(totals: Counter, texts: list[str], unit: str, enc: str | None, repeat: int) -> dict[str, float]:
    """Median CPU milliseconds per pass of every stage (the timers write into ``totals``) and
    of adachunk's and chonkie's whole passes."""
    per_pass: dict[str, list[float]] = {}
    if unit == "tokens":
        rp = adachunk.load_profile("default", tokenizer=enc, max_size=512)
    else:
        rp = adachunk.load_profile("default", granularity="chars", max_size=1000, min_size=0)
    tools = ("adachunk", "chonkie") + (("chonkie, timed tokenizer",) if unit == "tokens" else ())
    for r in range(repeat + 2):  # two warm-up passes each: JIT, vocabularies, quicktok's build
        for tool in tools:
            totals.clear()
            if tool == "adachunk":
                fn = lambda t: adachunk.chunk_text(t, rp)  # noqa: E731
            else:
                fn = _chonkie(unit, enc, totals if tool != "chonkie" else None)
            t0 = time.process_time()
            for t in texts:
                fn(t)
            totals[tool] = time.process_time() - t0
            if r >= 2:
                for k, v in totals.items():
                    per_pass.setdefault(k, []).append(v)
    return {k: 1000 * statistics.median(v) for k, v in per_pass.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", choices=["clair", "peers"], default="clair")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    texts = _texts(args.corpus)
    totals: Counter = Counter()
    adachunk.chunk_text(texts[0][:5000], adachunk.load_profile("default"))  # import every stage
    for label, module, path in STAGES:
        _wrap(totals, label, module, path)
    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    print(f"corpus {args.corpus}: {len(texts)} documents, {mb:.2f} MB; CPU ms per pass, medians of {args.repeat}")
    for mode, unit, enc in MODES:
        got = run_mode(totals, texts, unit, enc, args.repeat)
        ada, chk = got["adachunk"], got["chonkie"]
        budget = chk / TARGET[unit]
        print(f"\n### {mode}\n\n| stage | ms per pass | share |\n|---|---:|---:|")
        for label, _m, _p in STAGES:
            if label in got:
                print(f"| {label} | {got[label]:.1f} | {100 * got[label] / ada:.0f}% |")
        print(f"| **adachunk, whole pass** | **{ada:.1f}** | 100% |")
        if "chonkie: its tokenizer" in got:
            print(f"| chonkie: its tokenizer | {got['chonkie: its tokenizer']:.1f} | |")
        print(f"| **chonkie, whole pass** | **{chk:.1f}** | |")
        print(f"\nratio {chk / ada:.2f}x (target {TARGET[unit]}x): a pass of at most {budget:.0f} ms, "
              f"{ada - budget:+.0f} ms from here")


if __name__ == "__main__":
    main()
