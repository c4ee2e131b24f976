"""``adachunk run`` (the main job) and ``adachunk search`` (query its vector index)."""

from __future__ import annotations

import json
import re
import sys

from ..errors import printable
from .common import add_bounds_flags, add_exclude_flag, add_ocr_flag, add_solver_flags, print_flag_notes, solver_overrides


def add_parsers(sub) -> list[str]:
    """Register ``run`` and ``search``."""
    p = sub.add_parser("run", help="adaptive chunking of a corpus: best candidate per document → JSONL, Parquet, vector index")
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="files, folders or globs (.md .txt .json .pdf .docx .html)")
    add_exclude_flag(p)
    p.add_argument("--out", "-o", default="out", help="output folder (default: out)")
    p.add_argument("--workers", "-j", type=int, help="worker processes (default: the machine's cores)")
    p.add_argument("--resume", action="store_true",
                   help="skip documents already done with the same profile, options, content and adachunk version; "
                   "keep the folder's other documents")
    p.add_argument("--retry-failed", action="store_true",
                   help="with --resume: process again the documents that failed for a bound or a dead worker "
                        "(ADA325-ADA327); without it they keep their failure")
    add_bounds_flags(p)
    p.add_argument("--prune", action="store_true",
                   help="with --resume: drop the folder's documents that these inputs do not list")
    p.add_argument("--wait", type=float, default=0.0, metavar="SECONDS",
                   help="wait up to SECONDS for another run that holds --out (default: fail at once, ADA319)")
    p.add_argument("--ship-inputs", action="store_true",
                   help="with --backend dask: send document bytes with the tasks (workers without this disk)")
    p.add_argument("--backend", choices=["local", "serial", "dask"], default="local", help="execution backend")
    p.add_argument("--device", choices=["auto", "cpu", "cuda"],
                   help="where the embedders run in this run (default: the profile's, cpu); auto: CUDA where usable")
    p.add_argument("--scheduler", help="Dask scheduler address (with --backend dask; default: a local cluster)")
    p.add_argument("--sink", choices=["lancedb", "qdrant", "none"], help="vector index (default: the profile's, lancedb)")
    p.add_argument("--qdrant-url", help="Qdrant server URL (with --sink qdrant; default: local mode under --out)")
    p.add_argument("--no-postprocess", action="store_true", help="score candidates without post-processing")
    add_ocr_flag(p)
    p.add_argument("--quiet", "-q", action="store_true", help="no progress line, no final report")
    add_solver_flags(p)
    p = sub.add_parser("search", help="query the vector index of a run's output folder")
    p.add_argument("out", metavar="DIR", help="output folder of `adachunk run`")
    p.add_argument("query", help="the question or keywords")
    p.add_argument("-k", type=int, default=5, help="number of results (default 5)")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument("--expand", choices=["parent", "neighbours"],
                   help="return each hit's wider context, read from the folder's chunks.jsonl: its parent chunk "
                        "(profiles with parents:) or the hit with its previous and next chunks")
    return ["run", "search"]


def run(args) -> int:
    """Dispatch ``run`` / ``search``; exit 2 when any document failed."""
    if args.command == "search":
        return _search(args)
    from ..api import load_profile
    from ..api.corpus import run_corpus

    if any(v is not None for v in solver_overrides(args).values()):
        # what the size flags replaced in the pool (the runner resolves the same profile, cached)
        print_flag_notes(load_profile(args.profile, **solver_overrides(args)), "pool")
    res = run_corpus(args.inputs, args.profile, args.out, workers=args.workers, resume=args.resume,
                     backend=args.backend, scheduler=args.scheduler, overrides=solver_overrides(args),
                     errors=args.errors, postprocess=not args.no_postprocess, sink=args.sink,
                     qdrant_url=args.qdrant_url, progress=False if args.quiet else None, prune=args.prune,
                     wait=args.wait, ship_inputs=args.ship_inputs, ocr=args.ocr, device=args.device,
                     exclude=args.exclude, doc_timeout=args.doc_timeout, doc_memory=args.doc_memory,
                     retry_failed=args.retry_failed)
    if not args.quiet:
        _report(res)
    return 0 if res.ok else 2


def _report(res) -> None:
    """The run's closing lines on stderr: totals, then what a reader of the outputs would
    otherwise find only in summary.json (notices, documents decided without a comparison,
    notes, failures)."""
    summary = res.summary
    sel = ", ".join(f"{k} {v}%" for k, v in summary.get("selection_frequency", {}).items()) or "-"
    fell = summary.get("detector_fallbacks", {}).get("documents", 0)
    fell = f", {fell} without a failed structure (ADA404)" if fell else ""
    docs = f"{res.documents} document" + ("" if res.documents == 1 else "s")
    print(f"{docs} ({res.skipped} resumed, {res.failed} failed{fell}), {res.chunks} chunks "
          f"in {res.seconds:.1f} s → {res.out}/chunks.jsonl; selected: {sel}", file=sys.stderr)
    notices = summary.get("notices") or {}
    if notices:  # resumed documents' included: the count is the folder's, like the totals
        print("  notices: " + ", ".join(f"{code} ×{n}" for code, n in notices.items())
              + " (each document's in decisions.jsonl)", file=sys.stderr)
    chunked = summary.get("totals", {}).get("ok", 0)
    unscored = (summary.get("unscored") or {}).get("documents", 0)
    if unscored:
        print(f"  selection: {unscored} of {chunked} documents had nothing to compare "
              "(decided by select.unscored)", file=sys.stderr)
    exact = (summary.get("exact_after_stand_in") or {}).get("documents", 0)
    if exact:  # retrieval.exact_margin: where the model ran to choose
        print(f"  selection: the exact estimate decided {exact} of {chunked} documents (the stand-in's "
              "best two within retrieval.exact_margin)", file=sys.stderr)
    docs = summary.get("documents", {})
    if docs.get("ignored"):
        print(f"  skipped: {len(docs['ignored'])} file(s) named by .adachunkignore/--exclude "
              f"({', '.join(docs['ignored'][:5])}{', ...' if len(docs['ignored']) > 5 else ''})", file=sys.stderr)
    for line in (docs.get("aliases") or [])[:20] + (docs.get("dropped") or [])[:20]:
        print(f"  note: {line}", file=sys.stderr)
    for f in summary.get("failures", [])[:20]:
        # a coded error names its file already ("ADA310 path: ..."): the path is not repeated
        source = printable(f["source"])  # a name with a newline must not split the line
        named = re.match(r"ADA\d{3} ", f["error"]) and f["error"][7:].startswith(source)
        print(f"  failed: {f['error'] if named else source + ': ' + f['error']}", file=sys.stderr)


def _pages(pages) -> str:
    """``p. 3`` / ``pp. 1-2, 5``: a hit's page numbers in the table (empty when it has none)."""
    nums = sorted({int(p) for p in pages or ()})
    if not nums:
        return ""
    runs: list[list[int]] = []
    for n in nums:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    text = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
    return f"{'p.' if len(nums) == 1 else 'pp.'} {text}"


def _search(args) -> int:
    from ..api.corpus import load_embedder, open_sink, read_index_meta

    meta = read_index_meta(args.out)
    sink = open_sink(args.out, meta["sink"], meta["collection"], meta.get("qdrant_url"))
    vec = load_embedder((meta.get("embedder") or {}).get("spec")).embed([args.query])[0]
    hits = sink.search(vec, args.k)
    if args.expand:
        from ..api.corpus import expand_hits

        hits = expand_hits(hits, args.out, args.expand)
    if args.format == "json":
        print(json.dumps(hits, ensure_ascii=False, indent=1))
        return 0
    for i, h in enumerate(hits, 1):
        path = " > ".join(h.get("heading_path") or []) or "-"
        snippet = " ".join((h.get("text") or "").split())[:160]
        pages = _pages(h.get("pages"))
        print(f"{i}. {h['score']:.3f}  {h.get('doc_id')} #{h.get('index')}{' ' + pages if pages else ''} [{path}]"
              f"\n   {snippet}")
        wide = h.get("expanded")
        if wide:
            print(f"   ⤷ {args.expand}: {wide['start']}..{wide['end']} ({len(wide['ids'])} chunks) "
                  + " ".join(wide["text"].split())[:240])
    return 0
