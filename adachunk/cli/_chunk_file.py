"""``adachunk chunk``'s work on one file, shared by the one-process run and the worker pool.

The records come from :func:`adachunk.runner.file_records.file_records` (the library's form of
the large-document mode); this module adds what belongs to the command: the chunker its flags
choose, the document ids by ``run``'s rule, coded errors printed per file, and the warm-up of
what the files will need before any worker forks.
"""

from __future__ import annotations

import functools
import os

from ..api import chunk_document
from ..api.chunking import document_key, file_records, input_root, is_text_like, file_size
from ..errors import AdachunkError, Location, ProfileError, missing_dependency
from .common import dumps, parse_params, print_error

# A file this long (or this much text per process) makes compiling the loops pay: uncompiled,
# they cost ~0.25 CPU-s per million characters at 512 tokens (the solver ~0.16, the text-unit
# scan ~0.07), Numba's import and set-up ~0.65 s.
NUMBA_AT_CHARS = 1 << 20


def warm_up(rp, sizes: list[int], text_like: list[bool], processes: int) -> None:
    """Build now what chunking files of ``sizes`` bytes in ``processes`` processes will need:
    the tokenizer's encoders and Numba, when the input is known to be long enough (forked
    workers then share them). Without it each process finds out as it goes (the ski-rental
    thresholds of :mod:`adachunk.tokens` and the compiled loops), paying the slower path on
    its first megabytes: a serial run over CLAIR scanned 2 M characters with the reference
    text-unit scan, solved 156 k candidates uncompiled and encoded 600 k characters in Python
    before its thresholds were reached.

    ``text_like``: per file, whether its bytes are its characters (Markdown, text); any other
    file counts half its bytes (a parsed JSON holds its text twice, a PDF far less).
    """
    from ..api.chunking import preload_jit, prepare_tokenizer as prepare

    chars = [n if plain else n // 2 for n, plain in zip(sizes, text_like)]
    per_process = sum(chars) // max(1, processes)
    prepare(rp.policy.solver.tokenizer, per_process)
    if max(chars, default=0) >= NUMBA_AT_CHARS or per_process >= 2 * NUMBA_AT_CHARS:
        preload_jit()


def max_bytes(args) -> int | None:
    """The ``--max-input-mb`` limit in bytes (None: the environment's or the default)."""
    mb = getattr(args, "max_input_mb", None)
    return None if mb is None else int(mb * 2**20)


def chunk_one(path: str, args, rp, chunker, out) -> AdachunkError | None:
    """Chunk one input file and write its records to ``out``; a coded error is printed and
    returned (the other files go on)."""
    try:
        for rec in file_records(path, rp, chunker, doc_id=doc_id(path, args), max_chars=args.segment_chars,
                                errors=args.errors, max_bytes=max_bytes(args), ocr=getattr(args, "ocr", "auto")):
            out.write(dumps(rec) + "\n")
    except (AdachunkError, ImportError) as exc:
        err = missing_dependency(exc, path) or exc
        if not isinstance(err, AdachunkError):
            raise  # an ImportError that no extra explains: a bug
        if not err.location.file:  # e.g. ADA306 from a detector: name the document
            err.location = Location(path, err.location.line, err.location.column)
        print_error(err)
        return err
    return None


def doc_id(path: str, args) -> str:
    """The document's id, by the rule ``adachunk run`` keys documents with: its path relative to
    the deepest folder holding every input, suffix included (``a.md`` and ``a.html`` are two)."""
    return document_key(path, _root(tuple(args.inputs), os.getcwd()))


@functools.lru_cache(maxsize=8)
def _root(inputs: tuple[str, ...], cwd: str):
    """The inputs' root, found once per command (``cwd``: relative inputs resolve against it)."""
    return input_root(list(inputs))


def chunker_of(args, rp):
    """``doc -> Chunking``: the DP path, or the named splitter with the profile's post-processing."""
    if not args.splitter:
        if args.param or args.no_postprocess:
            raise ProfileError(code="ADA203", message="--param and --no-postprocess need --splitter",
                               key_path="--splitter")
        return lambda doc: chunk_document(doc, rp)
    from ..api.splitting import postprocess, make_splitter

    splitter = make_splitter(args.splitter, parse_params(args.param))  # validated once, before any file

    def run_one(doc):
        chunking = splitter.split(doc, rp.policy)
        return chunking if args.no_postprocess else postprocess(chunking, doc, rp.policy)

    return run_one


def sizes_of(paths: list[str]) -> tuple[list[int], list[bool]]:
    """Per file, its size in bytes and whether its bytes are its characters (Markdown, text)."""
    return [file_size(p) for p in paths], [is_text_like(p) for p in paths]
