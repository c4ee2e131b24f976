"""adachunk vs peer chunkers on real Markdown: speed, size compliance, tiling, structure damage.

Usage (from the repository root; takes several minutes, darn-it dominates)::

    /work/venv/bin/python bench/bench_peers.py [--repeat 3] [--extra-mb 1.5] [--skip-darn]
        [--sentences pysbd|regex] [--scaling 1,2,5,10] [--clock cpu|wall] [--tools A,B]
        [--write bench/PEERS.md]

Corpus: the CLAIR ``full_text`` documents plus Markdown shipped inside installed packages
(``*.md`` files and Markdown long descriptions in ``*.dist-info/METADATA``), sorted by path,
de-duplicated by content, the extras capped at ``--extra-mb``. Every tool chunks every document
at 512 cl100k tokens and at 1,000 characters (see ``peers.py`` for how each gets the tokenizer).

Timing: one warm-up call per tool on the first two documents (numba JIT, lazy imports) and
``--warmup-passes`` untimed passes over the whole corpus (default 1: what a tool builds or
compiles on its first megabytes, such as adachunk's kernels and encoder, is not timed for any
tool), then ``--repeat`` passes over the corpus, tools interleaved round-robin so that load from
other processes hits all of them alike; MB/s is UTF-8 input bytes over the median pass time, in process
CPU seconds by default (``--clock wall`` for elapsed time).
Quality (chunk sizes, tiling, structure damage from ``structure_damage.py``) comes from the
last pass. Not a test: the numbers go into bench/PEERS.md.
"""

from __future__ import annotations

import argparse
import email.parser
import hashlib
import os
import platform
import statistics
import sys
import sysconfig
import time
from dataclasses import dataclass, field
from pathlib import Path

# A long run moves from tiktoken to quicktok after a few megabytes (adachunk.tokens: identical
# ids, ~3x faster, ~1 s to load); a benchmark measures that steady state from its first pass.
# ADACHUNK_TOKENIZER_BACKEND=auto measures a short process as it would run.
os.environ.setdefault("ADACHUNK_TOKENIZER_BACKEND", "quicktok")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import corpus  # noqa: E402
from peers import ADACHUNK, TOOLS, Tool, encoding, tool_input  # noqa: E402
from structure_damage import KINDS, Damage, damage, find_structures, locate  # noqa: E402

MODES = (("512 tokens", "tokens", 512), ("1,000 chars", "chars", 1000))
TINY_TOKENS = 20


# ----------------------------------------------------------------------------------- corpus
def _package_markdown(cap_bytes: int, seen: set[str]) -> list[tuple[str, str]]:
    """Markdown documents shipped in site-packages, sorted by path, unique, up to ``cap_bytes``."""
    root = Path(sysconfig.get_paths()["purelib"])
    found: list[tuple[str, str]] = []
    for path in sorted(root.rglob("*.md")):
        if "license" in path.name.lower() or not path.is_file() or path.stat().st_size < 2000:
            continue
        try:
            found.append((str(path.relative_to(root)), path.read_text(encoding="utf-8")))
        except (UnicodeDecodeError, OSError):
            continue
    for meta in sorted(root.glob("*.dist-info/METADATA")):
        msg = email.parser.Parser().parsestr(meta.read_text(encoding="utf-8", errors="replace"))
        body = msg.get_payload()
        if "markdown" in (msg.get("Description-Content-Type") or "") and isinstance(body, str) and len(body) >= 2000:
            found.append((str(meta.relative_to(root)), body))
    out, total = [], 0
    for name, text in sorted(found):
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        size = len(text.encode("utf-8", "surrogatepass"))
        if digest in seen or total + size > cap_bytes:
            continue
        seen.add(digest)
        out.append((name, text))
        total += size
    return out


def build_corpus(extra_mb: float) -> list[tuple[str, str]]:
    """CLAIR documents first, then the package Markdown (deterministic for one environment)."""
    docs = corpus()
    seen = {hashlib.sha256(t.encode("utf-8")).hexdigest() for _, t in docs}
    return docs + _package_markdown(int(extra_mb * 1e6), seen)


def nbytes(texts) -> int:
    return sum(len(t.encode("utf-8", "surrogatepass")) for t in texts)


# ---------------------------------------------------------------------------------- running
@dataclass
class ToolRun:
    """Timings and the last pass's chunks of one tool in one mode."""

    tool: Tool
    inputs: list[str]
    times: list[float] = field(default_factory=list)
    chunks: list[list[str]] = field(default_factory=list)
    error: str | None = None

    @property
    def mbps(self) -> float:
        return nbytes(self.inputs) / 1e6 / statistics.median(self.times) if self.times else float("nan")


# What a pass is timed with: process CPU time (default; the machine is shared, and CPU time is
# what other jobs disturb least; threads a tool starts are counted too) or wall time.
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
clock = CLOCKS["cpu"]


def _one_pass(run: ToolRun, unit: str, size: int) -> None:
    chunker = run.tool.factory(unit, size)  # fresh caches every pass, built outside the timing
    t0 = clock()
    out = [chunker(t) for t in run.inputs]
    run.times.append(clock() - t0)
    run.chunks = out


def run_mode(tools: list[Tool], texts: list[str], unit: str, size: int, repeat: int, log,
             warmup: int = 0) -> list[ToolRun]:
    """Warm up each tool (two documents, then ``warmup`` untimed passes), then ``repeat``
    interleaved timed passes."""
    runs = [ToolRun(t, [tool_input(t, x) for x in texts]) for t in tools]
    for run in runs:
        try:
            chunker = run.tool.factory(unit, size)
            for x in run.inputs[:2]:
                chunker(x)
        except Exception as exc:  # noqa: BLE001 - a peer failing is a result, not a crash
            run.error = f"{type(exc).__name__}: {exc}"
            log(f"  {run.tool.name}: FAILED in warm-up: {run.error}")
    for r in range(warmup + repeat):
        for run in runs:
            if run.error:
                continue
            try:
                _one_pass(run, unit, size)
            except Exception as exc:  # noqa: BLE001
                run.error = f"{type(exc).__name__}: {exc}"
            label = f"warm-up {r + 1}/{warmup}" if r < warmup else f"pass {r - warmup + 1}/{repeat}"
            log(f"  {label} {run.tool.name:40s} "
                + (f"{run.times[-1]:8.2f} s" if not run.error else f"FAILED {run.error}"))
            if r < warmup and not run.error:
                run.times.pop()  # untimed
    return runs


# ---------------------------------------------------------------------------------- quality
class StructureCache:
    """Structures and per-structure fit flags, computed once per distinct text."""

    def __init__(self, sentences: str):
        self.sentences = sentences
        self._structs: dict[str, object] = {}

    def get(self, text: str):
        key = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
        if key not in self._structs:
            self._structs[key] = find_structures(text, self.sentences)
        return self._structs[key]


@dataclass
class Quality:
    chunks: int = 0
    compliant: int = 0
    tiny: int = 0
    empty: int = 0
    max_size: int = 0
    max_tokens: int = 0
    tiling: str = "exact"
    damage: Damage = field(default_factory=Damage.empty)


_TILING_ORDER = ("exact", "ws-gaps", "overlap", "lossy")


def quality(run: ToolRun, unit: str, size: int, cache: StructureCache) -> Quality:
    """Size statistics, tiling verdict and structure damage of a run's last pass."""
    enc = encoding()
    count = lambda s: len(enc.encode_ordinary(s))  # noqa: E731
    measure = count if unit == "tokens" else len
    q = Quality()
    for text, chunks in zip(run.inputs, run.chunks):
        for c in chunks:
            toks = count(c)
            sz = toks if unit == "tokens" else len(c)
            q.chunks += 1
            q.compliant += 0.1 * size <= sz <= size
            q.tiny += toks < TINY_TOKENS
            q.empty += not c.strip()
            q.max_size = max(q.max_size, sz)
            q.max_tokens = max(q.max_tokens, toks)
        spans, verdict = locate(text, chunks)
        if _TILING_ORDER.index(verdict) > _TILING_ORDER.index(q.tiling):
            q.tiling = verdict
        q.damage.add(damage(text, cache.get(text), spans, lambda s: measure(s) <= size))
    return q


# ---------------------------------------------------------------------------------- reports
def _pct(x: float) -> str:
    return "n/a" if x != x else f"{100 * x:.1f}%"


def speed_table(label: str, runs: list[ToolRun], quals: dict[str, Quality], unit: str) -> str:
    ada = next(r for r in runs if r.tool is ADACHUNK)
    lines = [f"### {label}: speed and sizes", "",
             f"| tool | version | MB/s | tool ÷ adachunk | chunks | size compliance | < {TINY_TOKENS} tokens "
             f"| max {unit} | tiling |", "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in runs:
        if r.error:
            lines.append(f"| {r.tool.name} | {r.tool.version} | failed: {r.error[:80]} | | | | | | |")
            continue
        q = quals[r.tool.name]
        lines.append(
            f"| {r.tool.name} | {r.tool.version} | {r.mbps:.3f} | {r.mbps / ada.mbps:.2f}× | {q.chunks} "
            f"| {_pct(q.compliant / q.chunks if q.chunks else float('nan'))} | {q.tiny} | {q.max_size} | {q.tiling} |")
    return "\n".join(lines)


def damage_table(label: str, runs: list[ToolRun], quals: dict[str, Quality]) -> str:
    kinds = " | ".join(KINDS)
    lines = [f"### {label}: structure damage (share cut, among structures that fit in one chunk)", "",
             f"| tool | {kinds} | all blocks (fit) | all blocks (any size) | structures cut (fit, all kinds) |",
             "|---|" + "---:|" * (len(KINDS) + 3)]
    for r in runs:
        if r.error:
            continue
        d = quals[r.tool.name].damage
        cells = " | ".join(_pct(d.share(k)) for k in KINDS)
        lines.append(f"| {r.tool.name} | {cells} | {_pct(d.overall())} | {_pct(d.overall(fit=False))} "
                     f"| {_cut_total(d)} |")
    d = quals[ADACHUNK.name].damage
    totals = ", ".join(f"{k} {d.total_fit.get(k, 0)}/{d.total_all.get(k, 0)}" for k in KINDS)
    lines += ["", f"Structures (fit/all, original text): {totals}."]
    return "\n".join(lines)


def _cut_total(d: Damage) -> int:
    return sum(d.cut_fit.values())


def targets(runs_by_mode: dict[str, list[ToolRun]], quals_by_mode: dict[str, dict[str, Quality]]) -> str:
    out = ["### Targets (issue: ≥ 1.0× chonkie at 512 tokens, ≥ 0.3× at 1,000 chars, ≥ 15× darn-it)", ""]
    for label, runs in runs_by_mode.items():
        by = {r.tool.name: r for r in runs if not r.error}
        ada, chonkie = by[ADACHUNK.name], by.get("chonkie Recursive")
        if chonkie:
            need = 1.0 if "tokens" in label else 0.3
            ratio = ada.mbps / chonkie.mbps
            out.append(f"- {label}: adachunk ≥ {need}× chonkie Recursive MB/s: **{'met' if ratio >= need else 'missed'}** "
                       f"({ada.mbps:.3f} vs {chonkie.mbps:.3f} MB/s, {ratio:.2f}×)")
    for label, quals in quals_by_mode.items():
        mine = _cut_total(quals[ADACHUNK.name].damage)
        tied = [n for n, q in quals.items() if n != ADACHUNK.name and _cut_total(q.damage) <= mine]
        out.append(f"- {label}: adachunk cuts fewer fitting structures (all kinds, sentences included) than "
                   f"every peer: **{'met' if not tied else 'missed'}** (adachunk {mine}; "
                   + ", ".join(f"{n} {_cut_total(q.damage)}" for n, q in quals.items() if n != ADACHUNK.name)
                   + (f"; tied or fewer: {', '.join(tied)}" if tied else "") + ")")
    for label, runs_ in runs_by_mode.items():
        darn = next((r for r in runs_ if r.tool.name == "darn-it" and not r.error), None)
        a = next(r for r in runs_ if r.tool is ADACHUNK)
        if darn:
            ratio = a.mbps / darn.mbps
            verdict = "met" if ratio >= 15 else "missed"
            out.append(f"- {label}: adachunk ≥ 15× darn-it: **{verdict}** ({ratio:.1f}×)")
    return "\n".join(out)


# ---------------------------------------------------------------------------------- extras
def tiktoken_floor(texts: list[str], repeat: int) -> float:
    enc = encoding()
    times = []
    for _ in range(repeat + 1):
        t0 = clock()
        for t in texts:
            enc.encode_ordinary(t)
        times.append(clock() - t0)
    return nbytes(texts) / 1e6 / statistics.median(times[1:])


_PIECE_BYTES = 16_000


def _pieces(texts: list[str]) -> list[str]:
    """Every document cut into pieces of about 16 KB at line ends, in corpus order."""
    out = []
    for t in texts:
        start = 0
        while start < len(t):
            stop = t.find("\n", start + _PIECE_BYTES)
            stop = len(t) if stop < 0 else stop + 1
            out.append(t[start:stop])
            start = stop
    return out


def _sample(texts: list[str], mb: float) -> str:
    """About ``mb`` MB of pieces (about 16 KB, cut at line ends) taken at even strides through
    all of the corpus's pieces, in corpus order (whole copies of the corpus first when it is
    smaller)."""
    target = int(mb * 1e6)
    pieces = _pieces(texts)
    sizes = [len(p.encode("utf-8")) for p in pieces]
    total = sum(sizes)
    copies, rest = divmod(target, total)
    out = ["".join(pieces)] * copies
    if rest:
        k = max(1, round(len(pieces) * rest / total))
        picked = sorted({int(i * len(pieces) / k) for i in range(k)})
        out.append("".join(pieces[i] for i in picked))
    big = "\n".join(out)
    return big if big.endswith("\n") else big + "\n"


def scaled_text(texts: list[str], mb: float) -> str:
    """One document of ``mb`` MB with the same content in every megabyte, at every size.

    A 1 MB sample of the corpus (:func:`_sample`), repeated, then a prefix of it cut at a line
    end; below 1 MB, a sample of that size. A separate sample per size compared content as much
    as size: 61 pieces (1 MB) and 300 (5 MB) of the corpus's 380 mix different documents, and
    the 5 MB sample's own 1 MB pieces, chunked one at a time, ran at the 5 MB rate, 1.2-1.6x
    slower than the 1 MB sample (RESULTS.md, fourth round). Repeating one sample keeps the mix
    fixed and leaves the size alone to vary. adachunk caches nothing by content; a peer that
    does (semchunk, chonkie's count cache) gains on the larger sizes.
    """
    if mb <= 1.0:
        return _sample(texts, mb)
    unit = _sample(texts, 1.0)
    copies, frac = divmod(mb, 1.0)
    out = unit * int(copies)
    if frac:
        cut = unit.find("\n", int(len(unit) * frac))
        out += unit if cut < 0 else unit[: cut + 1]
    return out


def scaling(tools: list[Tool], texts: list[str], sizes: list[float], repeat: int, log) -> str:
    lines = ["### Scaling (one document of N MB, the same content in every MB; 512 cl100k tokens; "
             f"MB/s, median of {repeat})", "",
             "| tool | " + " | ".join(f"{s:g} MB" for s in sizes) + " | spread |",
             "|---|" + "---:|" * (len(sizes) + 1)]
    docs = [scaled_text(texts, s) for s in sizes]
    runs = {(t.name, k): ToolRun(t, [tool_input(t, d)]) for t in tools for k, d in enumerate(docs)}
    for r in range(repeat):  # passes interleaved over sizes and tools: the machine drifts alike
        for (name, k), run in runs.items():
            _one_pass(run, "tokens", 512)
            log(f"  scaling pass {r + 1}/{repeat} {sizes[k]:g} MB {name:40s} {run.times[-1]:.2f} s")
    for tool in tools:
        vals = [runs[(tool.name, k)].mbps for k in range(len(docs))]
        lines.append(f"| {tool.name} | " + " | ".join(f"{v:.3f}" for v in vals) + f" | {max(vals) / min(vals):.2f}× |")
    return "\n".join(lines)


# (label, file path or its trailing part, function name): cProfile cumulative time per adachunk stage. A stage
# whose function no longer exists prints "n/a" (the engine is refactored independently).
STAGES = (
    ("markdown parse (mistletoe blocks)", "markdown/__init__.py", "parse_blocks"),
    ("text units: fused scan (sentences, words, line breaks)", "text_units/__init__.py", "unit_scan"),
    ("sentence detection (when not fused)", "text_units/__init__.py", "split_sentences"),
    ("word detection (when not fused)", "text_units/words.py", "word_arrays"),
    ("document blocks (block model)", "_block_model.py", "bound_blocks"),
    ("all detectors (detect_all)", "dp.py", "detect_all"),
    ("tokenisation (boundaries)", "tokenize.py", "boundaries"),
    ("cost lattice (build_costs)", "lattice.py", "build_costs"),
    ("solve (DP kernel)", "solver.py", "solve"),
    ("repair (own token counts)", "dp.py", "_repair"),
    ("heading index", "assemble.py", "__init__"),
    ("chunk assembly (build_chunks)", "assemble.py", "build_chunks"),
    ("dp_chunk total", "dp.py", "dp_chunk"),
)


def profile_adachunk(texts: list[str], unit: str, size: int) -> str:
    """Where adachunk's time goes: wall time split from dp_chunk's own timers (no profiler),
    then cProfile cumulative time per stage (the profiler inflates Python-heavy stages)."""
    import cProfile
    import pstats

    from peers import _adachunk

    import adachunk

    chunk = _adachunk(unit, size)
    chunk(texts[0])  # warm-up (numba, lazy imports)
    rp = adachunk.load_profile("default", tokenizer="cl100k_base", max_size=size) if unit == "tokens" else \
        adachunk.load_profile("default", granularity="chars", max_size=size, min_size=0)
    wall = {"detect_s": 0.0, "solve_s": 0.0, "total_s": 0.0}
    t0 = time.perf_counter()
    for i, t in enumerate(texts):
        timings = adachunk.chunk_document(adachunk.Document(id=str(i), text=t), rp).meta.get("timings", {})
        for k in wall:
            wall[k] += timings.get(k, 0.0)
    elapsed = time.perf_counter() - t0
    prof = cProfile.Profile()
    prof.enable()
    for t in texts:
        chunk(t)
    prof.disable()
    stats = pstats.Stats(prof).stats
    total_prof = sum(v[2] for v in stats.values())  # total internal time = profiled run time
    lines = [f"#### adachunk stage profile ({unit}, max {size})", "",
             f"Without profiler: {nbytes(texts) / 1e6 / elapsed:.3f} MB/s; dp_chunk timers: detection "
             f"{wall['detect_s']:.2f} s, tokenisation+lattice+solve {wall['solve_s']:.2f} s, repair+assembly "
             f"{wall['total_s'] - wall['detect_s'] - wall['solve_s']:.2f} s, total {wall['total_s']:.2f} s "
             f"of {elapsed:.2f} s.", "", "| stage (cProfile cumulative) | s | share |", "|---|---:|---:|"]
    for label, fname, func in STAGES:
        cum = sum(v[3] for (f, _, fn), v in stats.items() if Path(f).as_posix().endswith("/" + fname) and fn == func)
        lines.append(f"| {label} | {cum:.2f} | {100 * cum / total_prof:.1f}% |" if cum else f"| {label} | n/a | |")
    lines.append(f"| (profiled run total) | {total_prof:.2f} | 100% |")
    return "\n".join(lines)


def tree_state() -> str:
    """The commit being measured, read when the run starts (the tree may move on meanwhile)."""
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=Path(__file__).parent, capture_output=True,
                              text=True, timeout=10).stdout.strip()

    try:
        head = git("rev-parse", "--short", "HEAD") or "unknown"
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError):
        return "Commit unknown"
    return f"Commit {head}" + (" plus uncommitted changes" if dirty else "")


def machine_notes(tree: str, load_before, load_after) -> str:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{tree} at the start of the run. "
            f"Machine: {cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}; load average before "
            f"{load_before[0]:.2f} / after {load_after[0]:.2f} (other jobs share this machine).")


def write_section(path: Path, key: str, body: str) -> None:
    """Replace the text between ``<!-- BEGIN key -->`` and ``<!-- END key -->`` (or append)."""
    begin, end = f"<!-- BEGIN {key} -->", f"<!-- END {key} -->"
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    block = f"{begin}\n{body.rstrip()}\n{end}"
    if begin in old and end in old:
        new = old[: old.index(begin)] + block + old[old.index(end) + len(end):]
    else:
        new = old.rstrip() + ("\n\n" if old else "") + block + "\n"
    path.write_text(new, encoding="utf-8")


# ------------------------------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="timed passes per tool (median)")
    ap.add_argument("--darn-repeat", type=int, default=3, help="timed passes for darn-it (slow)")
    ap.add_argument("--warmup-passes", type=int, default=1,
                    help="untimed passes over the corpus per tool before the timed ones")
    ap.add_argument("--extra-mb", type=float, default=1.5, help="cap on package Markdown added to CLAIR")
    ap.add_argument("--docs", type=int, default=0, help="only the first N documents (0 = all)")
    ap.add_argument("--skip-darn", action="store_true")
    ap.add_argument("--sentences", choices=["pysbd", "regex"], default="pysbd")
    ap.add_argument("--scaling", default="1,2,5,10", help="MB sizes for the scaling run ('' = skip)")
    ap.add_argument("--write", type=Path, default=None, help="write the tables into this Markdown file")
    ap.add_argument("--profile", action="store_true", help="only profile adachunk's stages, then exit")
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                    help="time passes in process CPU seconds (default) or wall seconds")
    ap.add_argument("--tools", default="", help="comma-separated tool names to run (default: all)")
    args = ap.parse_args()
    global clock
    clock = CLOCKS[args.clock]
    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    load_before = os.getloadavg()
    tree = tree_state()
    docs = build_corpus(args.extra_mb)
    if args.docs:
        docs = docs[: args.docs]
    texts = [t for _, t in docs]
    n_clair = sum(1 for n, _ in docs if "/" not in n)
    digest = hashlib.sha256("\x00".join(f"{n}\x00{t}" for n, t in docs).encode("utf-8", "surrogatepass"))
    header = (f"Corpus: {len(docs)} documents, {nbytes(texts) / 1e6:.2f} MB UTF-8 ({n_clair} CLAIR, "
              f"{len(docs) - n_clair} package Markdown files, extras capped at {args.extra_mb} MB; "
              f"sha256 {digest.hexdigest()[:16]}). Times: {args.clock} seconds.")
    log(header)
    if args.profile:
        for _label, unit, size in MODES:
            print(profile_adachunk(texts, unit, size), flush=True)
        return
    wanted = {n.strip() for n in args.tools.split(",") if n.strip()}
    tools = [t for t in TOOLS if not (args.skip_darn and t.name == "darn-it")
             and (not wanted or t is ADACHUNK or t.name in wanted)]
    cache = StructureCache(args.sentences)
    sections, runs_by_mode, quals_by_mode = [header], {}, {}
    floor = tiktoken_floor(texts, args.repeat)
    sections.append(f"tiktoken floor (cl100k `encode_ordinary` of every document, one thread): {floor:.3f} MB/s.")
    log(sections[-1])
    for label, unit, size in MODES:
        log(f"== {label}")
        mode_tools = [t for t in tools if not (unit == "chars" and "native" in t.name)]  # same as callback
        fast = [t for t in mode_tools if t.name != "darn-it"]
        runs = run_mode(fast, texts, unit, size, args.repeat, log, args.warmup_passes)
        if any(t.name == "darn-it" for t in mode_tools):
            runs.insert(1, run_mode([t for t in mode_tools if t.name == "darn-it"], texts, unit, size,
                                    args.darn_repeat, log, args.warmup_passes)[0])
        log("  measuring quality ...")
        quals = {r.tool.name: quality(r, unit, size, cache) for r in runs if not r.error}
        runs_by_mode[label], quals_by_mode[label] = runs, quals
        sections += [speed_table(label, runs, quals, unit), damage_table(label, runs, quals)]
        print("\n\n".join(sections[-2:]), flush=True)
    sections.append(targets(runs_by_mode, quals_by_mode))
    print(sections[-1], flush=True)
    if args.scaling:
        by_speed = sorted((r for r in runs_by_mode["512 tokens"] if not r.error and r.tool is not ADACHUNK
                           and r.tool.name != "darn-it"), key=lambda r: -r.mbps)
        pick = [ADACHUNK] + [r.tool for r in by_speed[:3]]
        sections.append(scaling(pick, texts, [float(s) for s in args.scaling.split(",")], args.repeat, log))
        print(sections[-1], flush=True)
    sections.append(machine_notes(tree, load_before, os.getloadavg()))
    print(sections[-1], flush=True)
    if args.write:
        write_section(args.write, "peers", "\n\n".join(sections))


if __name__ == "__main__":
    main()
