"""``adachunk chunk`` and ``adachunk explain``."""

from __future__ import annotations

import json
import sys

from ..api import chunk_document, load_profile
from ..errors import AdachunkError, ProfileError
from ..ingest import read_document, supported_suffixes
from .common import (add_solver_flags, chunk_record, dumps, expand_inputs, open_output, print_error,
                     solver_overrides)


def add_parsers(sub) -> list[str]:
    """Register ``chunk`` and ``explain``."""
    p = sub.add_parser("chunk", help="chunk files with the optimal DP splitter (or --splitter NAME), write JSONL")
    p.add_argument("inputs", nargs="+", metavar="FILE", help=".md, .txt or parsed .json files, folders or globs")
    p.add_argument("-o", "--output", help="output JSONL file (default: stdout)")
    add_solver_flags(p)
    p.add_argument("--splitter", metavar="NAME",
                   help="run this registered splitter (recursive.v1, page.v1, ...) instead of the DP, "
                        "with the profile's post-processing")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="a parameter of --splitter (repeatable; the value is read as a YAML scalar)")
    p.add_argument("--no-postprocess", action="store_true", help="with --splitter: skip post-processing")
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
    chunker = _chunker(args, rp)
    failed = 0
    out = open_output(args.output)
    try:
        for path in expand_inputs(args.inputs, supported_suffixes()):
            try:
                doc = read_document(path, errors=args.errors)
                chunking = chunker(doc)
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


def parse_params(items: list[str]) -> dict:
    """``KEY=VALUE`` strings → parameters (values parsed as YAML: ``600`` is an int, ``true`` a bool)."""
    import yaml

    params = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ProfileError(code="ADA203", message=f"--param expects KEY=VALUE, got {item!r}",
                               key_path="--param", hint="e.g. --param chunk_size=600")
        try:
            params[key.strip()] = yaml.safe_load(value) if value.strip() else None
        except yaml.YAMLError:
            params[key.strip()] = value
    return params


def _chunker(args, rp):
    """``doc -> Chunking``: the DP path, or the named splitter with the profile's post-processing."""
    if not args.splitter:
        if args.param or args.no_postprocess:
            raise ProfileError(code="ADA203", message="--param and --no-postprocess need --splitter",
                               key_path="--splitter")
        return lambda doc: chunk_document(doc, rp)
    from ..postprocess import postprocess
    from ..split.pool import make_splitter

    splitter = make_splitter(args.splitter, parse_params(args.param))  # validated once, before any file

    def run_one(doc):
        chunking = splitter.split(doc, rp.policy)
        return chunking if args.no_postprocess else postprocess(chunking, doc, rp.policy)

    return run_one


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
