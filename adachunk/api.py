"""Public entry points: :func:`chunk_text`, :func:`chunk_file`, :func:`chunk_document`.

This module is also the one door of the command line into the library: ``adachunk.cli`` imports
only ``adachunk.api``, ``adachunk.errors`` and ``adachunk.datatypes`` (an import-linter contract in
``pyproject.toml``, checked by ``.ci/run``). The services the commands run beyond chunking (the
corpus runner, A/B, evaluation, tuning, PDF conversion, case files...) are listed in
:data:`SERVICES` and imported on first use (``api.run_corpus``), so that ``adachunk chunk`` does
not pay for the modules of ``adachunk tune``.
"""

from __future__ import annotations

import os
from typing import Any

from .runtime import gcpause as _gcpause
from .ingest import read_document
from .profile.cached import load_profile
from .profile.resolve import ResolvedProfile, resolve  # noqa: F401 - resolve: for the CLI (adachunk profile)
from .split.dp import dp_chunk
from .datatypes import Chunk, Chunking, Document

#: name -> "module:attribute" of what the commands use besides the functions defined here.
SERVICES: dict[str, str] = {
    # chunk (one file, segments of a large one, worker processes)
    "supported_suffixes": "adachunk.ingest:supported_suffixes",
    "file_records": "adachunk.runner.file_records:file_records",
    "is_text_like": "adachunk.runner.file_records:is_text_like",
    "file_size": "adachunk.runner.file_records:file_size",
    "segment_chars": "adachunk.split.segments:segment_chars",
    "make_splitter": "adachunk.selection.candidates:make_splitter",
    "postprocess": "adachunk.split.postprocess:postprocess",
    "build_chunks": "adachunk.split.assemble:build_chunks",
    "expand_inputs": "adachunk.ingest.discover:expand_inputs",
    "input_root": "adachunk.ingest.discover:input_root",
    "document_key": "adachunk.ingest.discover:document_key",
    "dumps": "adachunk.sink.records:dumps",
    "write_error": "adachunk.sink.files:write_error",
    "prepare_tokenizer": "adachunk.tokens:prepare",
    "preload_jit": "adachunk.runtime.jit:preload",
    "worker_init": "adachunk.runner.job:worker_init",
    "parse_size": "adachunk.runner.bounds:parse_size",
    "Bounds": "adachunk.runner.bounds:Bounds",
    "BoundedPool": "adachunk.runner.pool:BoundedPool",
    "use_store": "adachunk.analysis.store:use_store",
    "ALLOW_REMOTE_ENV": "adachunk.split._llm_client:ALLOW_REMOTE_ENV",
    # run and search
    "run_corpus": "adachunk.runner:run_corpus",
    "load_embedder": "adachunk.models.embedders:load_embedder",
    "open_sink": "adachunk.sink.vectors:open_sink",
    "read_index_meta": "adachunk.sink.vectors:read_index_meta",
    "expand_hits": "adachunk.enrich.expand:expand_hits",
    # score
    "build_component": "adachunk.components.build:build_component",
    "ensure_builtins": "adachunk.components.builtins:ensure_builtins",
    "splitters": "adachunk.components.registry:splitters",
    "embedders": "adachunk.components.registry:embedders",
    "aggregate": "adachunk.selection.aggregate:aggregate",
    "metric_name": "adachunk.metrics.suite:metric_name",
    "context_for": "adachunk.metrics.suite:context_for",
    "score_chunking": "adachunk.metrics.suite:score_chunking",
    # models, cache
    "startup_cache": "adachunk.runtime.cachedir:",
    "m2v": "adachunk.models.embedders.m2v:",
    "resolve_model": "adachunk.models.embedders.st:resolve_model",
    # profile, test
    "annotated_yaml": "adachunk.profile.tooling:annotated_yaml",
    "display_file": "adachunk.profile.tooling:display_file",
    "origins": "adachunk.profile.tooling:origins",
    "diff_profiles": "adachunk.profile.tooling:diff_profiles",
    "json_schema": "adachunk.profile.tooling:json_schema",
    "is_case_file": "adachunk.testing.casefiles:is_case_file",
    "load_case_file": "adachunk.testing.casefiles:load_case_file",
    "run_suite": "adachunk.testing.casefiles:run_suite",
    "data_dir": "adachunk.datafiles:data_dir",
    # convert, detect, view
    "PdfOptions": "adachunk.ingest.pdf:PdfOptions",
    "convert_pdf": "adachunk.ingest.pdf:convert_pdf",
    "parsed_json": "adachunk.ingest.pdf:parsed_json",
    "DocxOptions": "adachunk.ingest.docx:DocxOptions",
    "convert_docx": "adachunk.ingest.docx:convert_docx",
    "read_docx": "adachunk.ingest.docx:read_docx",
    "HtmlOptions": "adachunk.ingest.html:HtmlOptions",
    "convert_html": "adachunk.ingest.html:convert_html",
    "read_html": "adachunk.ingest.html:read_html",
    "build_view": "adachunk.report.view:build_view",
    "render_view": "adachunk.report.view:render_view",
    "default_labels": "adachunk.report.view:default_labels",
    "ViewData": "adachunk.report.view:ViewData",
    # ab, eval, tune
    "ab_condition": "adachunk.report.gate:parse_metric_condition",
    "require_report_extra": "adachunk.report.ab:require_report_extra",
    "run_ab": "adachunk.report.ab:run_ab",
    "top_rules": "adachunk.report._ab_moves:top_rules",
    "eval_condition": "adachunk.report.gate:parse_measure_condition",
    "parse_budget": "adachunk.retrieval.measures:parse_budget",
    "run_eval": "adachunk.evaluate.run:run_eval",
    "write_report": "adachunk.evaluate.run:write_report",
    "read_documents": "adachunk.evaluate.run:read_documents",
    "format_report": "adachunk.evaluate.table:format_report",
    "generate_qa": "adachunk.retrieval.questions:generate_qa",
    "write_qa": "adachunk.retrieval.questions:write_qa",
    "tune": "adachunk.tune:tune",
    "pooled": "adachunk.tune.output:pooled",
}


def __getattr__(name: str) -> Any:
    """Import a :data:`SERVICES` entry on first use (PEP 562) and keep it on the module."""
    target = SERVICES.get(name)
    if target is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module_name, _, attr = target.partition(":")
    module = importlib.import_module(module_name)
    value = getattr(module, attr) if attr else module
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names, services included."""
    return sorted(set(globals()) | set(SERVICES))


def chunk_document(doc: Document, profile: str | os.PathLike | ResolvedProfile = "default", *,
                   explain: bool = False, **overrides: Any) -> Chunking:
    """Chunk a :class:`Document` with the optimal DP splitter of ``profile``."""
    rp = load_profile(profile, **overrides)
    return dp_chunk(doc, rp.policy, explain=explain)


def chunk_text(text: str, profile: str | os.PathLike | ResolvedProfile = "default", *,
               doc_id: str = "text", **overrides: Any) -> list[Chunk]:
    """Chunk a string; returns chunks with exact code-point offsets into ``text``.

    Example:
        >>> chunks = chunk_text("# Title\\n\\nSome text.", max_size=200)
        >>> chunks[0].text
        '# Title\\n\\nSome text.'
    """
    # The document is made and dropped inside the collector pause (see adachunk.runtime.gcpause): its
    # analysis goes by reference counting before the collector resumes, which then finds only
    # the chunks to look at instead of every structure of the document.
    with _gcpause.paused():
        return chunk_document(Document(id=doc_id, text=text), profile, **overrides).chunks


def chunk_file(path: str | os.PathLike, profile: str | os.PathLike | ResolvedProfile = "default", *,
               errors: str = "strict", explain: bool = False, **overrides: Any) -> tuple[Document, Chunking]:
    """Read a file (``.md``, ``.txt``, paper ``.json``) and chunk it."""
    doc = read_document(path, errors=errors)
    return doc, chunk_document(doc, profile, explain=explain, **overrides)
