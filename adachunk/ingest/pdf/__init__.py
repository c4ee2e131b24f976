"""PDF → structure-aware Markdown in the paper's parsed format, fully offline.

The reader registered for ``.pdf`` returns a :class:`~adachunk.datatypes.Document` whose text is
Markdown: headings recovered from font size, weight and numbering (the document title a heading
of its own), re-flowed and de-hyphenated paragraphs, lists, ruled and borderless tables as pipe
tables inside ``<Table>`` wrappers (one table across pages, the real header repeated on every
part), two-column pages and side notes in reading order, running headers/footers as ``<!-- PageHeader: ... -->`` / ``<!-- PageFooter: ... -->``
comments, and a ``<!-- PageBreak -->`` closing every page. ``Document.pages`` maps each page to
its code-point range, ``split_points`` holds the gold block starts (a heading bound to what
follows it, a footnote to its paragraph) and ``titles`` the heading spans, so Block Integrity can
be computed on PDFs as on the paper's corpus.

Backends (``PdfOptions.backend``):

* ``pdfplumber`` (default; MIT licence; pure Python on pdfminer.six): the layout logic is
  adachunk's own (this package's ``_*`` modules) and is tested here.
* ``pymupdf`` (optional extra ``adachunk[pymupdf]``): PyMuPDF with its bundled pymupdf4llm.
  **PyMuPDF is licensed AGPL-3.0** (or commercially by Artifex): installing the extra puts your
  deployment under the AGPL's terms unless you hold a commercial licence.

Errors, one per file and never a crash of a run: ``ADA308`` encrypted (a password is needed),
``ADA309`` no text layer (a scan that OCR did not read: OCR off, its extra ``adachunk[ocr]`` not
installed, or nothing found; the message names the scanned pages of a document whose other pages
have text), ``ADA310`` corrupt or truncated, ``ADA322`` a step (opening the file, one page) ran past
its time budget (``PdfOptions.time_budget_s``: a reference loop, a content-stream bomb; see
``_budget``).

Scans: with the optional extra ``adachunk[ocr]`` (Tesseract), pages that are images without a
text layer are read by OCR (``PdfOptions.ocr``, default ``auto``) into the same word boxes as a
text page (module ``_ocr``), so their pages and offsets come out as for text PDFs.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Callable, Iterator, Literal

from pydantic import Field

from ...components.params import ComponentParams
from ...components.registry import Registry, readers
from ...datatypes import Document
from ._errors import corrupt_error, no_text_error
from ._model import PageContent, RawPage
from ..converted import SOURCE_MAP
from ._render import render
from ..files import read_input_bytes

log = logging.getLogger("adachunk.ingest")

PdfBackend = Callable[[bytes, str, "PdfOptions"], tuple[list[PageContent], dict[str, Any]]]
pdf_backends: Registry[PdfBackend] = Registry("pdf_backends")


class PdfOptions(ComponentParams):
    """How a PDF becomes Markdown."""

    backend: str = Field("pdfplumber", description="extraction backend: 'pdfplumber' (default, MIT) or "
                                                   "'pymupdf' (optional extra, AGPL-3.0)")
    table_wrapper: bool = Field(True, description="wrap each table in <Table> ... </Table> as in the paper's format")
    max_table_rows: int = Field(40, ge=0, description="split a table into parts of at most this many body rows, "
                                                      "each repeating the header row (0: never split by size)")
    join_tables: bool = Field(True, description="treat a table that ends a page and one of the same columns that "
                                                "starts the next page as one table (header repeated, not doubled)")
    furniture: Literal["comment", "drop"] = Field("comment", description="running headers, footers and page "
                                                  "numbers: keep them as <!-- PageHeader/PageFooter --> comments, "
                                                  "or drop them")
    furniture_band: float = Field(0.1, gt=0, lt=0.5, description="height fraction of the top and bottom bands "
                                                                 "where headers and footers are looked for")
    furniture_threshold: float = Field(0.5, gt=0, le=1, description="fraction of pages a header/footer text must "
                                                                    "repeat on (digits ignored)")
    scanned_pages: Literal["error", "warn"] = Field("error", description="a page that is an image without a "
                                                    "text layer (a scan) that OCR did not read: 'error' (ADA309 "
                                                    "naming the pages) or 'warn' (log it, leave the page empty)")
    ocr: Literal["auto", "off"] = Field("auto", description="read scanned pages by OCR: 'auto' (where the optional "
                                                            "extra adachunk[ocr] is installed) or 'off'")
    ocr_engine: str = Field("auto", description="OCR engine: 'auto' (the first installed) or 'tesseract'")
    ocr_dpi: int = Field(300, ge=72, le=600, description="resolution scanned pages are rendered at for OCR")
    ocr_lang: str = Field("eng", pattern=r"^[A-Za-z_]+(\+[A-Za-z_]+)*$",
                          description="Tesseract language(s), e.g. 'eng' or 'eng+deu' (their tesseract-ocr-* "
                                      "packages installed)")
    password: str | None = Field(None, repr=False, description="user password of an encrypted PDF")
    workers: int = Field(1, ge=1, description="processes that extract page ranges of one long PDF in parallel "
                                              "(pdfplumber backend; files under 8 pages per worker stay in-process)")
    time_budget_s: float = Field(60.0, ge=0, description="seconds opening the PDF, and extracting each page, may "
                                 "take before the document fails with ADA322 (a reference loop, a content-stream "
                                 "bomb; pdfplumber backend, main thread; 0: no limit)")


def check_pdf_bytes(data: bytes, source: str) -> None:
    """Cheap sanity checks before parsing: a PDF header, and the end-of-file marker.

    A missing ``%%EOF`` means the file was cut short (an interrupted download or copy); reading
    the part that survived would silently lose the end of the document, so it is an error.
    """
    if not data:
        raise corrupt_error(source, "the file is empty")
    if b"%PDF-" not in data[:1024]:
        raise corrupt_error(source, "no %PDF- header: this is not a PDF file")
    if b"%%EOF" not in data[-2048:]:
        raise corrupt_error(source, "truncated: the end-of-file marker (%%EOF) is missing")


def read_scans(data: bytes, source: str, raw: list[RawPage], options: PdfOptions
               ) -> tuple[list[RawPage], str, dict[str, Any]]:
    """OCR the pages that are images without a text layer (``options.ocr``).

    Returns:
        The pages (the scans replaced by what OCR read), why a scan may still be empty (a key of
        ``_errors._NO_OCR``), and facts for the document's meta (``ocr_engine``, ``ocr_pages``).
    """
    if options.ocr == "off":
        return raw, "off", {}
    from ._ocr import available_engine, ocr_pages

    engine = available_engine(options.ocr_engine)
    scans = [p.number for p in raw if not p.has_text and p.has_image]
    if engine is None or not scans:  # no scans: drawings without text, nothing to read
        return raw, "missing" if engine is None else "empty", {}
    read = ocr_pages(data, scans, engine, dpi=options.ocr_dpi, lang=options.ocr_lang, password=options.password,
                     source=source)
    return [read.get(p.number, p) for p in raw], "empty", {"ocr_engine": engine, "ocr_pages": scans}


@pdf_backends.register("pdfplumber")
def pdfplumber_backend(data: bytes, source: str, options: PdfOptions) -> tuple[list[PageContent], dict[str, Any]]:
    """The default backend: pdfplumber extraction + adachunk's layout analysis."""
    from ._extract import extract_all

    raw = extract_all(data, source, options.password, options.workers, options.time_budget_s)
    if not raw:
        raise corrupt_error(source, "the document has no pages")
    raw, why, ocr_meta = read_scans(data, source, raw, options)
    if not any(p.has_text for p in raw):
        raise no_text_error(source, len(raw), why=why)
    scans = [p.number for p in raw if not p.has_text and p.has_image]
    if scans and options.scanned_pages == "error":
        raise no_text_error(source, len(raw), scans, why)
    pages, meta = layout_pages(raw, options)
    return pages, {**meta, **ocr_meta}


@pdf_backends.register("pymupdf")
def pymupdf_backend(data: bytes, source: str, options: PdfOptions) -> tuple[list[PageContent], dict[str, Any]]:
    """PyMuPDF + pymupdf4llm (AGPL-3.0, optional extra ``adachunk[pymupdf]``)."""
    from .pymupdf_backend import convert

    return convert(data, source, options)


def layout_pages(raw: list[RawPage], options: PdfOptions) -> tuple[list[PageContent], dict[str, Any]]:
    """Geometric pages → rendered-ready pages: furniture, blocks, footnotes, joined tables."""
    from ._furniture import detect
    from ._layout import PageLayout, doc_stats, refine_levels
    from ._pagejoin import join_page_breaks
    from ._tables import resolve_tables
    from ._text import vocabulary

    furniture = detect(raw, options.furniture_band, options.furniture_threshold)
    bodies = [[ln for i, ln in enumerate(p.lines) if i not in furniture.removed.get(k, ())]
              for k, p in enumerate(raw)]
    stats = doc_stats([RawPage(p.number, p.width, p.height, b, [], True) for p, b in zip(raw, bodies)])
    vocab = vocabulary(ln.text for b in bodies for ln in b)
    layout = PageLayout(stats, vocab)
    items = [layout.page(p, b) for p, b in zip(raw, bodies)]
    refine_levels(items)
    blocks, tables = resolve_tables(items, wrapper=options.table_wrapper, max_rows=options.max_table_rows,
                                    join=options.join_tables)
    join_page_breaks(blocks, vocab)  # "Soekarno-" | page break | "Hatta": the word stays on its page
    pages = [PageContent(p.number, bl, furniture.header.get(k, []), furniture.footer.get(k, []))
             for k, (p, bl) in enumerate(zip(raw, blocks))]
    empty = [p.number for p in raw if not p.has_text]
    if empty:
        log.warning("pages without a text layer (OCR is needed for them): %s", empty)
    meta = {"pages_without_text": empty, "tables": tables, "body_font_size": stats.body,
            "heading_font_sizes": stats.heading_sizes,
            "layout_fallback_pages": [p.number for p in raw if p.layout_fallback]}  # ADA405: line order
    return pages, meta


def convert_pdf(path: str | Path, options: PdfOptions | None = None, *, source: str | None = None,
                **overrides: Any) -> Document:
    """Convert one PDF file to a Markdown :class:`Document` (see the module docstring).

    Args:
        path: the PDF file.
        options: conversion options (defaults when None).
        source: the path as the user gave it (for messages); defaults to ``str(path)``.
        **overrides: fields of :class:`PdfOptions` (``max_table_rows=20`` ...).

    Raises:
        InputError: ``ADA302`` unreadable file, ``ADA308`` encrypted, ``ADA309`` no text layer,
            ``ADA310`` corrupt or truncated, ``ADA314`` backend not installed, ``ADA322`` a step past
            its time budget.
    """
    base = options or PdfOptions()
    opts = PdfOptions.model_validate({**base.model_dump(), **overrides}) if overrides else base
    p = Path(path)
    src = source if source is not None else str(path)
    data = read_input_bytes(p, src)
    check_pdf_bytes(data, src)
    backend = pdf_backends.get(opts.backend)
    pages, meta = backend(data, src, opts)
    out = render(pages, opts.furniture)
    meta = {"format": "pdf", "backend": opts.backend, "page_count": len(pages), **meta}
    return Document(id=p.name, text=out.text, source=src, pages=out.pages, split_points=out.split_points,
                    titles=out.titles, meta=meta)


# PdfOptions fields the registered reader applies (readers take a path, not options: commands
# that read through the registry, `run` and `chunk`, pass their --ocr this way)
_READER_OPTIONS: ContextVar[dict[str, Any]] = ContextVar("pdf_reader_options", default={})


@contextmanager
def reader_options(**fields: Any) -> Iterator[None]:
    """Within the block, the ``.pdf`` reader converts with these :class:`PdfOptions` fields
    (``with reader_options(ocr="off"): read_document(path)``)."""
    PdfOptions.model_validate(fields)  # a wrong name or value fails here, not on the first PDF
    token = _READER_OPTIONS.set({**_READER_OPTIONS.get(), **fields})
    try:
        yield
    finally:
        _READER_OPTIONS.reset(token)


@readers.register(".pdf")
def read_pdf(path: Path, source: str, errors: str = "strict") -> Document:
    """Reader for ``.pdf`` files with the default options, or those of :func:`reader_options`
    (``errors`` does not apply: a PDF's text layer is already Unicode)."""
    return convert_pdf(path, source=source, **_READER_OPTIONS.get())


def parsed_json(doc: Document) -> dict[str, Any]:
    """The document in the paper's parsed format (``document_name``, ``pages``, ``full_text``,
    ``split_points``, ``titles``, and ``source_map`` for a converted Word or HTML file);
    :func:`adachunk.ingest.readers.read_parsed_json` reads it back."""
    pages = {str(p.number): doc.text[p.start:p.end] for p in (doc.pages or [])}
    out = {"document_name": doc.id, "pages": pages, "full_text": doc.text,
           "split_points": list(doc.split_points or []), "titles": list(doc.titles or [])}
    if doc.meta.get(SOURCE_MAP):  # a converted Word or HTML file: where each block came from
        out[SOURCE_MAP] = doc.meta[SOURCE_MAP]
    return out
