"""Throughput of ``recursive.v1`` on CLAIR against the paper's implementation and LangChain.

Three splitters with the paper's separators and o200k token sizes (1100 and 600, overlap 0):

- ``paper``: a faithful re-implementation of the logic of the paper's ``RecursiveSplitter``
  (ekimetrics/adaptive-chunking), below: every size is a fresh ``len(encode(text))`` with the
  encoding looked up by ``tiktoken.encoding_for_model("gpt-4o")`` on each call, the same text is
  re-tokenised at every recursion level, the hard split binary-searches with the tokenizer, and
  every emitted chunk re-splits its last piece down to characters to build an overlap of 0.
- ``langchain``: ``RecursiveCharacterTextSplitter(separators=..., is_separator_regex=True,
  keep_separator="start", length_function=o200k)`` (``pip install langchain-text-splitters``).
- ``adachunk``: ``recursive.v1``; "spans" is stages 1-2 only, "chunking" adds what every adachunk
  chunk carries (own token counts, heading paths, pages, ids). Caches are cleared before each run.

It also checks that ``recursive.v1`` with ``paper_compat: true`` returns exactly the paper's
chunks, and counts the chunks where the default mode differs.

Usage: ``python bench/bench_recursive.py [--docs N] [--sizes 1100 600] [--repeat 3] [--skip-paper]``.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adachunk.split.recursive import PAPER_SEPARATORS
from bench.common import corpus, mb


def paper_length_function():
    """``len(encode(text))`` with the encoding looked up per call, as the paper's count_tokens.

    tiktoken cannot download o200k here, so the offline encoding is placed in tiktoken's own
    registry cache first; ``encoding_for_model`` then finds it exactly as after a first download.
    """
    import tiktoken
    import tiktoken.registry

    from adachunk.tokens import offline_encoding

    tiktoken.registry.ENCODINGS.setdefault("o200k_base", offline_encoding("o200k_base"))

    def count(text: str) -> int:
        return len(tiktoken.encoding_for_model("gpt-4o").encode(text))

    return count


class PaperRecursive:
    """The paper's split-then-merge logic (attach to start, to_chunk_size, forward), re-written."""

    def __init__(self, chunk_size: int, length, separators=PAPER_SEPARATORS, overlap: int = 0, min_len: int = 10):
        self.size, self.length, self.separators = chunk_size, length, list(separators)
        self.overlap, self.min_len = overlap, min_len

    def split_text(self, text: str) -> list[str]:
        pieces = self._split(text, self.separators, self.size)
        return self._merge(pieces) if pieces else []

    def _pieces(self, text: str, pattern: str) -> list[str]:
        parts, last = [], 0
        for m in re.finditer(pattern, text):
            parts += [text[last:m.start()], m.group(0)]
            last = m.end()
        parts.append(text[last:])
        if len(parts) <= 1:
            return [p for p in parts if p]
        chunks = [parts[0]] if parts[0] else []
        chunks += [parts[k] + (parts[k + 1] if k + 1 < len(parts) else "") for k in range(1, len(parts), 2)]
        merged = []
        for k, chunk in enumerate(chunks):  # short pieces are carried into the next one
            if len(chunk) < self.min_len and k + 1 < len(chunks):
                chunks[k + 1] = chunk + chunks[k + 1]
            else:
                merged.append(chunk)
        return merged

    def _split(self, text: str, separators: list[str], limit: int) -> list[str]:
        if not text:
            return []
        if self.length(text) <= limit:
            return [text]
        if separators[0] == "":
            out = []
            while text:
                lo, hi, best = 0, len(text), 0
                while lo <= hi:
                    mid = (lo + hi) // 2
                    if self.length(text[:mid]) <= limit:
                        best, lo = mid, mid + 1
                    else:
                        hi = mid - 1
                best = best or 1
                out.append(text[:best])
                text = text[best:]
            return out
        out = []
        for piece in self._pieces(text, separators[0]):
            if self.length(piece) > limit:
                out += self._split(piece, separators[1:] or [""], limit)
            else:
                out.append(piece)
        return out

    def _overlap(self, parts: list[str]) -> list[str]:
        taken, used = [], 0
        for k, part in enumerate(reversed(parts)):
            n = self.length(part)
            if n > self.overlap and (k == 0 or used < int(0.5 * self.overlap)):
                # with overlap 0 this shreds the last piece to characters, then keeps nothing
                for sub in reversed(self._split(part, self.separators, self.overlap - used)):
                    if used + self.length(sub) > self.overlap:
                        break
                    taken.insert(0, sub)
                    used += self.length(sub)
                break
            if used + n > self.overlap:
                break
            taken.insert(0, part)
            used += n
        return taken

    def _merge(self, pieces: list[str]) -> list[str]:
        out, parts, total = [], [], 0
        for piece in pieces:
            n = self.length(piece)
            if total + n > self.size and parts:
                out.append("".join(parts))
                parts = self._overlap(parts) + [piece]
                total = self.length("".join(parts))
            else:
                parts.append(piece)
                total += n
        if parts:
            out.append("".join(parts))
        return out


def adachunk_runner(size: int, full: bool, paper_compat: bool = False):
    from adachunk.components.builtins import ensure_builtins
    from adachunk.policy import Policy
    from adachunk.policy_types import SolverSpec
    from adachunk.split import fixed
    from adachunk.split.recursive import RecursiveParams, RecursiveSplitter, recursive_cores
    from adachunk.datatypes import Document

    ensure_builtins()
    params = RecursiveParams(chunk_size=size, paper_compat=paper_compat)
    splitter = RecursiveSplitter(params)
    policy = Policy(name="bench", fingerprint="bench", detectors={}, rules=(), solver=SolverSpec())

    def run(name: str, text: str) -> list[str]:
        if full:
            return [c.text for c in splitter.split(Document(id=name, text=text), policy).chunks]
        index = fixed.token_index(Document(id=name, text=text), "o200k_base")
        cores, _, _ = recursive_cores(index, 0, len(text), params, patterns=splitter.patterns)
        return [text[a:b] for a, b in cores]

    return run


def langchain_runner(size: int):
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    from adachunk.tokens import get_counter

    count = get_counter("o200k_base").count
    splitter = RecursiveCharacterTextSplitter(separators=list(PAPER_SEPARATORS), chunk_size=size, chunk_overlap=0,
                                              is_separator_regex=True, keep_separator="start", length_function=count)
    return lambda name, text: splitter.split_text(text)


def clear_caches() -> None:
    from adachunk.split import fixed

    fixed.token_index.cache_clear()
    fixed.heading_index.cache_clear()


def timed_run(run, docs, repeat: int = 1) -> tuple[float, dict[str, list[str]]]:
    """Median wall time over ``repeat`` cold runs (caches cleared) and the last output."""
    times = []
    for _ in range(repeat):
        clear_caches()
        t = time.perf_counter()
        out = {name: run(name, text) for name, text in docs}
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=0, help="first N documents only (0: all)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1100, 600])
    ap.add_argument("--skip-paper", action="store_true", help="skip the (slow) paper re-implementation")
    ap.add_argument("--repeat", type=int, default=3, help="runs per fast splitter (median; the paper's runs once)")
    args = ap.parse_args()
    docs = corpus()[: args.docs or None]
    size_mb = mb(t for _, t in docs)
    from adachunk.tokens import get_counter

    get_counter("o200k_base").count("warm up")
    paper_length_function()("warm up")
    print(f"{len(docs)} documents, {size_mb:.2f} MB (UTF-8)\n")
    print(f"{'splitter':<34}{'size':>6}{'chunks':>8}{'seconds':>10}{'MB/s':>9}")
    for size in args.sizes:
        rows = [("adachunk recursive.v1 (spans)", adachunk_runner(size, False)),
                ("adachunk recursive.v1 (chunking)", adachunk_runner(size, True)),
                ("adachunk recursive.v1 paper_compat", adachunk_runner(size, False, True)),
                ("langchain RecursiveCharacterText", langchain_runner(size))]
        if not args.skip_paper:
            paper = PaperRecursive(size, paper_length_function())
            rows.append(("paper RecursiveSplitter (re-impl)", lambda name, text, p=paper: p.split_text(text)))
        outputs = {}
        for label, run in rows:
            seconds, out = timed_run(run, docs, 1 if label.startswith("paper") else args.repeat)
            outputs[label] = out
            n = sum(len(v) for v in out.values())
            print(f"{label:<34}{size:>6}{n:>8}{seconds:>10.2f}{size_mb / seconds:>9.2f}")
        if not args.skip_paper:
            _compare(outputs, docs)
        print()


def _compare(outputs: dict, docs) -> None:
    paper = outputs["paper RecursiveSplitter (re-impl)"]
    for label in ("adachunk recursive.v1 paper_compat", "adachunk recursive.v1 (spans)"):
        same = sum(outputs[label][name] == paper[name] for name, _ in docs)
        print(f"  {label}: identical to the paper's chunks on {same}/{len(docs)} documents")


if __name__ == "__main__":
    main()
