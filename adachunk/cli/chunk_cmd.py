"""``adachunk chunk`` and ``adachunk explain``."""

from __future__ import annotations

import json
import sys

from ..api import chunk_document, load_profile, read_document, supported_suffixes
from ._chunk_file import chunk_one, chunker_of, max_bytes, sizes_of, warm_up
from .common import (add_bounds_flags, add_exclude_flag, add_ocr_flag, add_solver_flags, expand_inputs, output_to,
                     print_flag_notes, solver_overrides)


def add_parsers(sub) -> list[str]:
    """Register ``chunk`` and ``explain``."""
    p = sub.add_parser("chunk", help="chunk files with the optimal DP splitter (or --splitter NAME), write JSONL")
    p.add_argument("inputs", nargs="+", metavar="FILE", help=".md, .txt, parsed .json, .pdf, .docx or .html files, folders or globs")
    p.add_argument("-o", "--output", help="output JSONL file (default: stdout)")
    add_solver_flags(p)
    p.add_argument("--splitter", metavar="NAME",
                   help="run this registered splitter (recursive.v1, page.v1, ...) instead of the DP, "
                        "with the profile's post-processing")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="a parameter of --splitter (repeatable; the value is read as a YAML scalar)")
    p.add_argument("--no-postprocess", action="store_true", help="with --splitter: skip post-processing")
    _add_size_flag(p)
    add_ocr_flag(p)
    add_exclude_flag(p)
    p.add_argument("--workers", "-j", type=_positive_int, default=1, metavar="N",
                   help="chunk files in N worker processes (output in input order, the same bytes as one)")
    add_bounds_flags(p, where=" (files chunked in a worker: with --workers N > 1, or when a bound is given)")
    p.add_argument("--segment-chars", type=_positive_int, metavar="N",
                   help="large-document mode: chunk a document longer than N code points in segments cut at "
                        "blank lines (approximate at the seams; default: $ADACHUNK_SEGMENT_CHARS or 2000000)")
    p = sub.add_parser("explain", help="show every chosen cut with its cost breakdown")
    p.add_argument("input", metavar="FILE")
    p.add_argument("--format", choices=["table", "json"], default="table")
    add_solver_flags(p)
    _add_size_flag(p)
    add_ocr_flag(p)
    return ["chunk", "explain"]


def _add_size_flag(p) -> None:
    p.add_argument("--max-input-mb", type=_positive_mb, metavar="MB",
                   help="refuse input files larger than this (ADA318; default: $ADACHUNK_MAX_INPUT_BYTES or 512)")


def _positive_mb(text: str) -> float:
    """argparse type of ``--max-input-mb``: a positive number of megabytes (2**20 bytes)."""
    import argparse

    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of megabytes, got {text!r}")
    return value


def _positive_int(text: str) -> int:
    """argparse type of ``--segment-chars``: a positive integer."""
    import argparse

    if not text.strip().isdigit() or int(text) <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def run(args) -> int:
    """Dispatch ``chunk`` / ``explain``."""
    rp = load_profile(args.profile, **solver_overrides(args))
    print_flag_notes(rp, "solver")  # e.g. min_size lowered to fit --max-size
    if args.command == "explain":
        return _explain(args, rp)
    chunker = chunker_of(args, rp)
    skipped: list[str] = []
    paths = list(expand_inputs(args.inputs, supported_suffixes, args.exclude, skipped))
    if skipped:  # the rule is the user's to see: .adachunkignore or --exclude named them
        print(f"adachunk: {len(skipped)} file(s) skipped by .adachunkignore/--exclude", file=sys.stderr)
    with output_to(args.output) as out:
        if _pooled(args, paths):
            from ._chunk_pool import chunk_files

            errors = chunk_files(paths, args, rp, chunker, out)
        else:
            warm_up(rp, *sizes_of(paths), 1)
            errors = [err for err in (chunk_one(path, args, rp, chunker, out) for path in paths) if err]
    return 2 if errors else 0


def _read(path: str, args):
    """The input as a Document, a PDF converted with the command's ``--ocr``."""
    return read_document(path, errors=args.errors, max_bytes=max_bytes(args), ocr=getattr(args, "ocr", "auto"))


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _pooled(args, paths: list[str]) -> bool:
    """Whether the files are chunked in worker processes: several files with ``--workers`` above
    1, or any file when ``--doc-timeout`` or ``--doc-memory`` is given (one worker then holds
    each file in turn, so that a bound breached fails the file, not the command). A Markdown
    file long enough to be streamed is still chunked in this process, unbounded."""
    if (args.workers or 1) > 1 and len(paths) > 1:
        return True
    if args.doc_timeout is None and args.doc_memory is None or not paths:
        return False
    from ..api.workers import Bounds

    return Bounds.of(args.doc_timeout, args.doc_memory).active


def _explain(args, rp) -> int:
    doc = _read(args.input, args)
    chunking = chunk_document(doc, rp, explain=True)
    cuts = chunking.meta.get("cuts", [])
    if args.format == "json":
        print(json.dumps({"doc_id": doc.id, "profile": rp.name, "fingerprint": rp.fingerprint,
                          "total_cost": chunking.meta.get("total_cost"), "chunks": len(chunking.chunks),
                          "cuts": cuts}, ensure_ascii=False, indent=1))
        return 0
    print(f"{doc.source}: {len(chunking.chunks)} chunks, {len(cuts)} cuts, "
          f"total cost {chunking.meta.get('total_cost')} (profile {rp.name} {rp.fingerprint[:12]})")
    print(f"{'#':>4} {'pos':>8} {'line:col':>10} {'cost':>6}  context  |  contributions")
    for i, cut in enumerate(cuts, 1):
        p = cut["position"]
        line, col = _line_col(doc.text, p)
        ctx = (doc.text[max(0, p - 18):p] + "|" + doc.text[p:p + 18]).replace("\n", "⏎")
        parts = ", ".join(f"{c['rule']}:{c['side']}:{c['shape']}={c['value']}" for c in cut["contributions"]) or "-"
        print(f"{i:>4} {p:>8} {f'{line}:{col}':>10} {cut['cost']:>6}  {ctx!s:<38} | {parts}")
    return 0
