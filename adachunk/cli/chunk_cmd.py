"""``adachunk chunk`` and ``adachunk explain``."""

from __future__ import annotations

import functools
import json
import os
import sys

from ..api import chunk_document, load_profile, enrich_records
from ..errors import AdachunkError, Location, ProfileError, missing_dependency
from ..api import read_document, supported_suffixes, chunk_segments, segment_chars, document_key, input_root
from .common import (add_bounds_flags, add_exclude_flag, add_ocr_flag, add_solver_flags, chunk_record, dumps, expand_inputs, output_to, parse_params,
                     print_error, print_flag_notes, solver_overrides)


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
    add_bounds_flags(p, where=" (files chunked by --workers N > 1)")
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


def _max_bytes(args) -> int | None:
    """The ``--max-input-mb`` limit in bytes (None: the environment's or the default)."""
    mb = getattr(args, "max_input_mb", None)
    return None if mb is None else int(mb * 2**20)


def run(args) -> int:
    """Dispatch ``chunk`` / ``explain``."""
    rp = load_profile(args.profile, **solver_overrides(args))
    print_flag_notes(rp, "solver")  # e.g. min_size lowered to fit --max-size
    if args.command == "explain":
        return _explain(args, rp)
    chunker = _chunker(args, rp)
    skipped: list[str] = []
    paths = list(expand_inputs(args.inputs, supported_suffixes, args.exclude, skipped))
    if skipped:  # the rule is the user's to see: .adachunkignore or --exclude named them
        print(f"adachunk: {len(skipped)} file(s) skipped by .adachunkignore/--exclude", file=sys.stderr)
    with output_to(args.output) as out:
        if (args.workers or 1) > 1 and len(paths) > 1:
            from ._chunk_pool import chunk_files

            errors = chunk_files(paths, args, rp, chunker, out)
        else:
            warm_up(rp, [_size(p) for p in paths], [_text_like(p) for p in paths], 1)
            errors = [err for err in (chunk_one(path, args, rp, chunker, out) for path in paths) if err]
    return 2 if errors else 0


# A file this long (or this much text per process) makes compiling the loops pay: uncompiled,
# they cost ~0.25 CPU-s per million characters at 512 tokens (the solver ~0.16, the text-unit
# scan ~0.07), Numba's import and set-up ~0.65 s.
NUMBA_AT_CHARS = 1 << 20


def warm_up(rp, sizes: list[int], text_like: list[bool], processes: int) -> None:
    """Build now what chunking files of ``sizes`` bytes in ``processes`` processes will need:
    the tokenizer's encoders and Numba, when the input is known to be long enough (forked
    workers then share them). Without it each process finds out as it goes (the ski-rental
    thresholds of :mod:`adachunk.tokenize` and the compiled loops), paying the slower path on
    its first megabytes: a serial run over CLAIR scanned 2 M characters with the reference
    text-unit scan, solved 156 k candidates uncompiled and encoded 600 k characters in Python
    before its thresholds were reached.

    ``text_like``: per file, whether its bytes are its characters (Markdown, text); any other
    file counts half its bytes (a parsed JSON holds its text twice, a PDF far less).
    """
    from ..api import preload_jit, prepare_tokenizer as prepare

    chars = [n if plain else n // 2 for n, plain in zip(sizes, text_like)]
    per_process = sum(chars) // max(1, processes)
    prepare(rp.policy.solver.tokenizer, per_process)
    if max(chars, default=0) >= NUMBA_AT_CHARS or per_process >= 2 * NUMBA_AT_CHARS:
        preload_jit()


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0  # the reader reports why, in its turn


def _text_like(path: str) -> bool:
    from ..api import STREAMED_SUFFIXES

    return path.lower().endswith(STREAMED_SUFFIXES)


def chunk_one(path: str, args, rp, chunker, out) -> AdachunkError | None:
    """Chunk one input file and write its records to ``out``; a coded error is printed and
    returned (the other files go on)."""
    try:
        if _streamable(path, args, rp) and _write_streamed(out, path, chunker, rp, args):
            return None
        doc = _read(path, args)
        doc.id = doc_id(path, args)
        if len(doc.text) > (args.segment_chars or segment_chars()):
            _write_segmented(out, doc, chunker, rp, args.segment_chars or segment_chars())
            return None
        chunking = chunker(doc)
    except (AdachunkError, ImportError) as exc:
        err = missing_dependency(exc, path) or exc
        if not isinstance(err, AdachunkError):
            raise  # an ImportError that no extra explains: a bug
        if not err.location.file:  # e.g. ADA306 from a detector: name the document
            err.location = Location(path, err.location.line, err.location.column)
        print_error(err)
        return err
    records = [chunk_record(chunk, doc, rp.name, rp.fingerprint, chunking.splitter) for chunk in chunking.chunks]
    for rec in enrich_records(records, doc, rp.policy):
        out.write(dumps(rec) + "\n")
    return None


def doc_id(path: str, args) -> str:
    """The document's id, by the rule ``adachunk run`` keys documents with: its path relative to
    the deepest folder holding every input, suffix included (``a.md`` and ``a.html`` are two)."""
    return document_key(path, _root(tuple(args.inputs), os.getcwd()))


@functools.lru_cache(maxsize=8)
def _root(inputs: tuple[str, ...], cwd: str):
    """The inputs' root, found once per command (``cwd``: relative inputs resolve against it)."""
    return input_root(list(inputs))


def _streamable(path: str, args, rp) -> bool:
    """A Markdown/text file whose bytes exceed the segment length, under a profile that needs no
    whole-document metadata: it is chunked in segments read from the file one at a time."""
    from ..api import declares_metadata

    limit = args.segment_chars or segment_chars()
    # code points <= bytes: a smaller file never needs segments (an unreadable one has size 0:
    # the reader reports why)
    return _text_like(path) and _size(path) > limit and not declares_metadata(rp.policy)


def _write_streamed(out, path: str, chunker, rp, args) -> bool:
    """Large-document mode without the whole text in memory (:mod:`adachunk.ingest.stream`):
    the same chunks as :func:`_write_segmented`; False when the text fits one segment after all
    (multi-byte characters), so that the whole-document path takes it."""
    from ..api import check_input_file, PageCounter, stream_segments as segments, text_facts, shift_chunk
    from ..types import Document

    limit = args.segment_chars or segment_chars()
    check_input_file(path, max_bytes=_max_bytes(args))
    facts = text_facts(path, path, args.errors)
    if facts.chars <= limit:
        return False
    key = doc_id(path, args)
    stub = Document(id=key, text="", source=path)
    pages, index, pending = PageCounter(facts.has_pages), 0, None
    for offset, text in segments(path, path, limit, args.errors):
        part = chunker(Document(id=key, text=text, source=path, pages=pages.pages(text),
                                meta={"format": "markdown", "segment": [offset, offset + len(text)]}))
        chunks = [shift_chunk(c, offset, index + i, key, rp.fingerprint, facts.content_hash)
                  for i, c in enumerate(part.chunks)]
        index += len(chunks)
        records = [chunk_record(c, stub, rp.name, rp.fingerprint, part.splitter) for c in chunks]
        pending = _write_linked(out, enrich_records(records, None, None), pending)  # links only
    if pending is not None:
        out.write(dumps(pending) + "\n")
    return True


def _write_linked(out, records: list[dict], pending: dict | None) -> dict | None:
    """Write a segment's records (linked within it), linking ``prev_id``/``next_id`` across the
    seam too; returns the last record, held until the next segment's first is known."""
    if not records:
        return pending
    if pending is not None:
        pending["next_id"], records[0]["prev_id"] = records[0]["id"], pending["id"]
        out.write(dumps(pending) + "\n")
    for rec in records[:-1]:
        out.write(dumps(rec) + "\n")
    return records[-1]


def _write_segmented(out, doc, chunker, rp, limit: int) -> None:
    """Large-document mode (:mod:`adachunk.split.segments`): chunk, enrich and write one segment
    at a time, so memory holds one segment's working set and records, not the whole document's.

    The last record of a segment is written once the next segment's first is known, so the
    neighbour links (``prev_id``/``next_id``) run across the seams as in a whole-document run.
    """
    pending = None
    for chunking in chunk_segments(doc, chunker, rp.fingerprint, limit):
        records = [chunk_record(c, doc, rp.name, rp.fingerprint, chunking.splitter) for c in chunking.chunks]
        enrich_records(records, doc, rp.policy)
        pending = _write_linked(out, records, pending)
    if pending is not None:
        out.write(dumps(pending) + "\n")


def _chunker(args, rp):
    """``doc -> Chunking``: the DP path, or the named splitter with the profile's post-processing."""
    if not args.splitter:
        if args.param or args.no_postprocess:
            raise ProfileError(code="ADA203", message="--param and --no-postprocess need --splitter",
                               key_path="--splitter")
        return lambda doc: chunk_document(doc, rp)
    from ..api import postprocess, make_splitter

    splitter = make_splitter(args.splitter, parse_params(args.param))  # validated once, before any file

    def run_one(doc):
        chunking = splitter.split(doc, rp.policy)
        return chunking if args.no_postprocess else postprocess(chunking, doc, rp.policy)

    return run_one


def _read(path: str, args):
    """The input as a Document, a PDF converted with the command's ``--ocr``."""
    return read_document(path, errors=args.errors, max_bytes=_max_bytes(args), ocr=getattr(args, "ocr", "auto"))


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


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
