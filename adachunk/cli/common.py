"""Shared CLI helpers: input expansion, JSON lines, error printing."""

from __future__ import annotations

import glob
import json
import os
import sys
from pathlib import Path
from typing import Iterable, Iterator

from ..errors import AdachunkError, InputError, Location
from ..types import Chunk, Document


def expand_inputs(inputs: Iterable[str], suffixes: Iterable[str]) -> Iterator[str]:
    """Files, folders (recursively, sorted) and globs → input paths, in a stable order."""
    suffixes = {s.lower() for s in suffixes}
    for item in inputs:
        if os.path.isdir(item):
            found = sorted(str(p) for p in Path(item).rglob("*") if p.is_file() and p.suffix.lower() in suffixes)
            if not found:
                raise InputError(code="ADA302", message=f"folder {item} holds no input file ({', '.join(sorted(suffixes))})",
                                 location=Location(item))
            yield from found
        elif any(ch in item for ch in "*?[") and not os.path.exists(item):
            matches = sorted(glob.glob(item, recursive=True))
            if not matches:
                raise InputError(code="ADA302", message=f"no file matches '{item}'", location=Location(item))
            yield from matches
        else:
            yield item


def chunk_record(chunk: Chunk, doc: Document, profile_name: str, fingerprint: str, splitter: str) -> dict:
    """The JSONL record of one chunk (field order fixed for byte-identical output)."""
    rec = {
        "id": chunk.id, "doc_id": doc.id, "source": doc.source, "index": chunk.index,
        "start": chunk.start, "end": chunk.end, "text": chunk.text, "size": chunk.size,
        "tokens": chunk.tokens, "heading_path": list(chunk.heading_path), "pages": list(chunk.pages),
        "profile": profile_name, "profile_fingerprint": fingerprint, "splitter": splitter,
    }
    if chunk.core_start != chunk.start:
        rec["core_start"] = chunk.core_start
    return rec


def dumps(obj: dict) -> str:
    """Compact, deterministic JSON (non-ASCII kept readable)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def print_error(err: AdachunkError) -> None:
    """Print a coded error (all of them for a multi-error) to stderr."""
    print(err.render(), file=sys.stderr)


def open_output(path: str | None):
    """stdout, or a file opened for writing (UTF-8, ``\\n`` newlines)."""
    if path in (None, "-"):
        return sys.stdout
    try:
        return open(path, "w", encoding="utf-8", newline="\n")
    except OSError as exc:
        raise InputError(code="ADA307", message=f"cannot write {path}: {exc.strerror or exc}",
                         location=Location(path)) from None


def add_solver_flags(p) -> None:
    """The profile and solver flags shared by chunking commands (same names as the API)."""
    p.add_argument("--profile", "-p", default="default", help="builtin profile name or YAML path (default: default)")
    p.add_argument("--max-size", type=int, help="largest chunk (tokens or chars)")
    p.add_argument("--min-size", type=int, help="smallest chunk (the last may undershoot)")
    p.add_argument("--granularity", choices=["tokens", "chars"], help="size unit")
    p.add_argument("--tokenizer", help="o200k_base (default) or cl100k_base")
    p.add_argument("--overlap", type=int, help="overlap budget in units (whole sentences, then words)")
    p.add_argument("--chunk-cost", type=int, help="cost per chunk (higher: fewer chunks)")
    p.add_argument("--errors", choices=["strict", "replace"], default="strict",
                   help="invalid UTF-8: fail with ADA301 (strict) or substitute U+FFFD (replace)")


def solver_overrides(args) -> dict:
    """Solver overrides from parsed flags (None = keep the profile's value)."""
    return {"max_size": args.max_size, "min_size": args.min_size, "granularity": args.granularity,
            "tokenizer": args.tokenizer, "overlap": args.overlap, "chunk_cost": args.chunk_cost}
