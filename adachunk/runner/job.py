"""The per-document job, run in worker processes (local pool) or on Dask workers.

It reads one input, runs the adaptive selection, and returns everything the main process
writes: the winner's chunk records, the decision record and the index vectors. It never
raises: a failing document becomes a :class:`DocResult` with its error, so one bad file never
stops a corpus.
"""

from __future__ import annotations

import hashlib
import os
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import AdachunkError, Location, missing_dependency, printable

_STATE: dict[str, Any] = {}  # per-process cache: the resolved profile


@dataclass(frozen=True)
class JobOptions:
    """What every worker needs to process a document (picklable).

    Attributes:
        profile: builtin profile name or a path readable by the workers.
        overrides: solver overrides (CLI flags).
        errors: ``strict`` or ``replace`` for invalid UTF-8.
        postprocess: run the profile's post-processing on candidates.
        index: compute index vectors for the winner's chunks.
        ocr: ``auto`` or ``off``: read scanned PDF pages by OCR (where the extra is installed).
    """

    profile: str = "default"
    overrides: tuple[tuple[str, Any], ...] = ()
    errors: str = "strict"
    postprocess: bool = True
    index: bool = True
    ocr: str = "auto"

    def key(self) -> str:
        """Hash of the options and the code that change a document's result (part of the resume
        key): another adachunk version reads or cuts documents anew (:mod:`adachunk.runtime.code`)."""
        from ..runtime.code import code_digest

        # ocr only when not the default
        ocr = () if self.ocr == "auto" else (self.ocr,)
        return hashlib.sha256(repr((self.overrides, self.errors, self.postprocess, self.index, *ocr,
                                    code_digest())).encode()).hexdigest()[:16]


@dataclass
class DocResult:
    """The outcome of one document."""

    source: str
    file_sha256: str | None
    ok: bool
    key: str = ""
    decision: dict[str, Any] = field(default_factory=dict)
    chunks: list[dict[str, Any]] = field(default_factory=list)
    vectors: np.ndarray | None = None
    error: str | None = None
    error_code: str | None = None
    seconds: float = 0.0
    analysis_key: str | None = None
    notices: list = field(default_factory=list)  # the document's AdachunkWarnings (runner.notices)


def file_sha256(path: str) -> str | None:
    """sha256 of a file's bytes (None when unreadable, a FIFO, a device or over the input size
    limit: the reader will report why, without this opening it first and blocking)."""
    from ..ingest import check_input_file

    try:
        check_input_file(path)
    except AdachunkError:
        return None
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return None
    return h.hexdigest()


def _profile(opts: JobOptions):
    key = ("profile", opts.profile, opts.overrides)
    if key not in _STATE:
        from ..profile.cached import load_profile

        _STATE[key] = load_profile(opts.profile, **dict(opts.overrides))
    return _STATE[key]


def process_input(inp, opts: JobOptions) -> DocResult:
    """:func:`process_path` of a planned :class:`~adachunk.runner.manifest.Input`."""
    return process_path(inp.source, opts, inp.key)


def process_shipped(item: tuple[Any, bytes], opts: JobOptions) -> DocResult:
    """Process a document whose bytes travelled with the task (workers without the client's disk).

    The bytes are written to a private temporary file with the input's suffix, so every reader
    works unchanged; the result names the original source.
    """
    import tempfile

    inp, data = item
    if data is None:  # the client could not read it: the worker reports why (or reads it itself)
        return process_path(inp.source, opts, inp.key)
    with tempfile.TemporaryDirectory(prefix="adachunk-") as tmp:
        path = Path(tmp) / ("input" + Path(inp.source).suffix)
        path.write_bytes(data)
        res = process_path(str(path), opts, inp.key)
    res.file_sha256 = hashlib.sha256(data).hexdigest()
    res.source = str(path)  # the backend restores the listed path (sources, records, errors)
    return res


def _read(path: str, opts: JobOptions):
    """The input as a Document; a PDF converted with the run's ``ocr``."""
    from ..ingest import read_document

    return read_document(path, errors=opts.errors, ocr=opts.ocr)


def process_path(path: str, opts: JobOptions, key: str | None = None) -> DocResult:
    """Process one input file end to end (never raises); the notices it raised travel in the
    result (:mod:`adachunk.runner.notices`), the main process shows and records them.

    Args:
        path: the input file.
        opts: the run's options.
        key: the document's key in the output folder (its ``doc_id``; default: the reader's id).
    """
    from .notices import captured

    with captured() as notices:
        res = _process(path, opts, key)
    res.notices = list(notices)
    return res


def _process(path: str, opts: JobOptions, key: str | None) -> DocResult:
    """:func:`process_path`'s work."""
    from ..models.embedders.spans import embedding_counts
    from ..metrics.suite import context_for
    from ..selection import select_document
    from ..enrich import enrich_records
    from ..sink.records import chunk_record
    from ..sink.embedding import index_vectors

    t0 = time.perf_counter()
    digest = file_sha256(path)
    try:
        rp = _profile(opts)
        doc = _read(path, opts)
        if key:
            doc.id = key
        ctx = context_for(doc, rp.policy)
        decision = select_document(doc, rp.policy, postprocess=opts.postprocess, ctx=ctx)
        best = decision.best
        records = []
        if best is not None:
            records = enrich_records([chunk_record(c, doc, rp.name, rp.fingerprint, best.type, candidate=best.name,
                                                   scores=best.scores) for c in best.chunking.chunks], doc, rp.policy)
        selecting = embedding_counts(doc, ctx).get("embedded", 0)
        vectors = index_vectors(records, rp.policy, ctx) if opts.index and records else None
        ok = best is not None
        error = None if ok else "every candidate failed: " + "; ".join(
            f"{c.name}: {c.error}" for c in decision.candidates)
        record = decision.record()
        counts = embedding_counts(doc, ctx)
        if counts:  # each span embedded once for every candidate, metric and structure
            # what the choice cost against what the index needed (issue 47: the choice should
            # cost a fraction of the index, not another index)
            counts.update(selecting=selecting, indexing=counts["embedded"] - selecting)
            record["embedding"] = counts
        return DocResult(path, digest, ok, key or doc.id, record, records, vectors, error,
                         None if ok else "ADA311", time.perf_counter() - t0, _analysis_key(doc))
    except (AdachunkError, ImportError) as exc:
        err = missing_dependency(exc, path) or exc
        if not isinstance(err, AdachunkError):  # an ImportError that no extra explains: a bug
            return _internal(path, digest, key, exc, t0)
        if not err.location.file:  # e.g. ADA306 from a detector: name the document
            err.location = Location(path, err.location.line, err.location.column)
        return DocResult(path, digest, False, key or "", error=err.render(), error_code=err.code,
                         seconds=time.perf_counter() - t0)
    except Exception as exc:  # a bug must not stop the corpus: record it with its trace
        return _internal(path, digest, key, exc, t0)


def _internal(path: str, digest, key: str | None, exc: Exception, t0: float) -> DocResult:
    """A document's failure by a bug (``ADA101``, with the end of its trace); a MemoryError is
    the memory ceiling's ``ADA326`` (an allocation refused before the pool's watchdog saw it)."""
    if isinstance(exc, MemoryError):
        from .bounds import Bounds, memory_error

        err = memory_error(path, Bounds(0, 0))  # the limit hit may be the machine's, not ours
        return DocResult(path, digest, False, key or "", error=err.render(), error_code=err.code,
                         seconds=time.perf_counter() - t0)
    trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)[-6:])
    return DocResult(path, digest, False, key or "",
                     error=f"ADA101 {printable(path)}: internal error {type(exc).__name__}: {exc}\n{trace}",
                     error_code="ADA101", seconds=time.perf_counter() - t0)


def _analysis_key(doc) -> str | None:
    """The document's analysis-store key when a store is in use (the run prunes the others)."""
    from ..analysis import analysis_of
    from ..analysis.store import current_store

    return analysis_of(doc).key if current_store() is not None else None


def worker_init(threads: int = 1) -> None:
    """Process-pool initializer: one BLAS/torch thread per worker (the pool is the parallelism)."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ[var] = str(threads)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ["ADACHUNK_TOKENIZER_THREADS"] = str(threads)  # adachunk.tokens.THREADS_ENV
    os.environ.setdefault("HF_HUB_OFFLINE", "1")


def state_key(source: str) -> str:
    """File name stem of a document's state entry (stable per absolute source path)."""
    return hashlib.sha256(str(Path(source).resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def warm_worker(opts: JobOptions) -> None:
    """Process-pool initializer of a run: :func:`worker_init`, then the run's profile loaded, so
    that the first document's deadline does not pay for it (a profile error is left to the
    documents, which report it)."""
    worker_init()
    try:
        _profile(opts)
    except Exception:  # noqa: BLE001 - reported by each document's job
        pass
