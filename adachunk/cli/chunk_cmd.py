"""``adachunk chunk`` and ``adachunk explain``."""

from __future__ import annotations

import json
import sys

from ..api import chunk_document, load_profile
from ..errors import AdachunkError
from ..ingest import read_document, supported_suffixes
from .common import (add_solver_flags, chunk_record, dumps, expand_inputs, open_output, print_error,
                     solver_overrides)


def add_parsers(sub) -> list[str]:
    """Register ``chunk`` and ``explain``."""
    p = sub.add_parser("chunk", help="chunk files with the optimal DP splitter, write JSONL")
    p.add_argument("inputs", nargs="+", metavar="FILE", help=".md, .txt or parsed .json files, folders or globs")
    p.add_argument("-o", "--output", help="output JSONL file (default: stdout)")
    add_solver_flags(p)
    p = sub.add_parser("explain", help="show every chosen cut with its cost breakdown")
    p.add_argument("input", metavar="FILE")
    p.add_argument("--format", choices=["table", "json"], default="table")
    add_solver_flags(p)
    return ["chunk", "explain"]


def run(args) -> int:
    """Dispatch ``chunk`` / ``explain``."""
    rp = load_profile(args.profile, **solver_overrides(args))
    if args.command == "explain":
        return _explain(args, rp)
    failed = 0
    out = open_output(args.output)
    try:
        for path in expand_inputs(args.inputs, supported_suffixes()):
            try:
                doc = read_document(path, errors=args.errors)
                chunking = chunk_document(doc, rp)
            except AdachunkError as err:
                print_error(err)
                failed += 1
                continue
            for chunk in chunking.chunks:
                out.write(dumps(chunk_record(chunk, doc, rp.name, rp.fingerprint, chunking.splitter)) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()
    return 2 if failed else 0


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _explain(args, rp) -> int:
    doc = read_document(args.input, errors=args.errors)
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
