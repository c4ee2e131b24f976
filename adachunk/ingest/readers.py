"""Markdown/text and the paper's parsed-JSON readers, registered by file suffix.

Text is decoded as strict UTF-8 (a leading BOM is dropped); invalid bytes are an ``ADA301`` error
naming the file and byte offset unless ``errors="replace"``. Offsets of every later stage point
into the decoded text exactly as read (CRLF kept).

Every reader takes its bytes from :mod:`adachunk.ingest.files` (regular files only, within the
input size limit); :func:`read_document` dispatches a path to the reader of its suffix.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Callable

from ..errors import AdachunkWarning, InputError, Location, missing_dependency, notice
from ..components.registry import readers
from ..datatypes import Document, Page
from .files import check_input_file, input_limit, read_input_bytes, read_text_bytes


class InputWarning(AdachunkWarning):
    """An input was usable but partly malformed (e.g. invalid ``split_points`` were dropped):
    a coded notice (``ADA401``, ``ADA403``) naming the file."""


_PAGE_BREAK = re.compile(r"<!--\s*PageBreak\s*-->[ \t]*(?:\r?\n)*")


def markdown_pages(text: str) -> list[Page] | None:
    """Page map from ``<!-- PageBreak -->`` markers (the paper's parsed format, PDF ingestion).

    A marker (with the line breaks after it) closes its page, as in the paper's JSON where each
    page's text ends with it. No marker: no page map.
    """
    ends = [m.end() for m in _PAGE_BREAK.finditer(text)]
    if not ends:
        return None
    bounds = [0] + [e for e in ends if e < len(text)] + [len(text)]
    return [Page(i + 1, a, b) for i, (a, b) in enumerate(zip(bounds, bounds[1:])) if b > a]


@readers.register(".md")
def read_markdown(path: Path, source: str, errors: str = "strict") -> Document:
    """Markdown or plain text: the file's text as is, pages from PageBreak markers."""
    text = read_text_bytes(read_input_bytes(path, source), source, errors)
    return Document(id=path.name, text=text, source=source, pages=markdown_pages(text), meta={"format": "markdown"})


readers.register(".markdown", read_markdown)
readers.register(".txt", read_markdown)


@readers.register(".json")
def read_parsed_json(path: Path, source: str, errors: str = "strict") -> Document:
    """The paper's parsed-document JSON (``full_text``, ``pages``, ``split_points``, ...)."""
    raw = read_text_bytes(read_input_bytes(path, source), source, errors)
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(code="ADA304", message=f"invalid JSON: {exc.msg}",
                         location=Location(source, exc.lineno, exc.colno)) from None
    except RecursionError:
        # json's decoder recurses once per nesting level; no parsed document nests this deep
        raise InputError(code="ADA304", message="JSON nested too deeply (thousands of levels of arrays/objects)",
                         location=Location(source), hint="expected the paper's flat format: document_name, "
                         "full_text, pages, split_points") from None
    return document_from_parsed(obj, source, fallback_id=path.name)


def _doc_id(name: Any, fallback: str, source: str) -> str:
    """``document_name`` as the document's id when it is a usable name (a non-empty string, no
    path separator, no control character, not ``.``/``..``), else ``fallback`` with ``ADA403``:
    the id names output rows and may name files, so ``../../x`` or a dict must not pass."""
    if name is None or name == "":
        return fallback
    if isinstance(name, str) and name.strip() and name not in (".", "..") and len(name) <= 255 \
            and not any(c in name for c in "/\\") and name.isprintable():
        return name
    shown = repr(name) if len(repr(name)) <= 80 else repr(name)[:77] + "..."
    notice("ADA403", f"document_name {shown} is not a usable document id (a string without path "
           f"separators); the file name '{fallback}' is used", source, category=InputWarning)
    return fallback


def document_from_parsed(obj: Any, source: str, fallback_id: str = "document") -> Document:
    """Build a Document from a parsed-JSON object (validated, ``ADA304`` when malformed)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("full_text"), str):
        raise InputError(code="ADA304", message="parsed JSON needs a string field 'full_text'",
                         location=Location(source), hint="expected the paper's format: document_name, full_text, pages")
    text = obj["full_text"]
    pages = _page_map(obj.get("pages"), text, source)
    sp = obj.get("split_points")
    if sp is not None and not isinstance(sp, list):
        raise InputError(code="ADA304", message="'split_points' must be a list of integers", location=Location(source))
    meta = {k: obj[k] for k in ("domain", "language") if k in obj}
    meta["format"] = "parsed_json"
    smap = _source_map(obj.get("source_map"), len(text), source)
    if smap:
        meta["source_map"] = smap
    if sp is not None:
        sp, dropped = valid_split_points(sp, len(text))
        if dropped:
            meta["split_points_dropped"] = dropped
            notice("ADA401", f"dropped {dropped} invalid split point(s) (not an integer, outside "
                   f"1..{len(text) - 1} or duplicated); {len(sp)} kept", source, category=InputWarning)
    return Document(
        id=_doc_id(obj.get("document_name"), fallback_id, source), text=text, source=source, pages=pages,
        split_points=sp, titles=obj.get("titles"),
        entity_pron_pairs=obj.get("entity_pron_pairs"), meta=meta,
    )


def _source_map(raw: Any, n: int, source: str) -> list[list[Any]] | None:
    """A converted document's source map (``[[start, end, {origin}], ...]``, in text order)
    as :mod:`adachunk.ingest.converted` writes it; ``ADA304`` when it is malformed."""
    if raw is None:
        return None
    ok = isinstance(raw, list) and all(
        isinstance(e, list) and len(e) == 3 and all(type(x) is int for x in e[:2]) and 0 <= e[0] <= e[1] <= n
        and isinstance(e[2], dict) for e in raw)
    if not ok or any(a[0] > b[0] for a, b in zip(raw, raw[1:])):
        raise InputError(code="ADA304", message="'source_map' must be [start, end, {origin}] spans inside the text, "
                         "in text order", location=Location(source))
    return raw


def valid_split_points(raw: list[Any], text_len: int) -> tuple[list[int], int]:
    """Sorted distinct block starts strictly inside the text, and how many entries were dropped.

    Like malformed coreference pairs (:func:`adachunk.models.coref.base.validate_pairs`), bad
    entries are dropped and counted rather than failing the document: a JSON ``true`` (a bool is
    an int subclass), a float or string, a point at or outside ``0`` / ``len(text)`` (it would make
    an empty or phantom block for Block Integrity) and a repeated point. Order does not matter.
    """
    kept = {p for p in raw if isinstance(p, int) and not isinstance(p, bool) and 0 < p < text_len}
    return sorted(kept), len(raw) - len(kept)


def _page_map(pages: Any, text: str, source: str) -> list[Page] | None:
    """Pages are consecutive slices of ``full_text``; anything else is malformed."""
    if pages is None:
        return None
    if not isinstance(pages, dict) or not all(isinstance(v, str) for v in pages.values()):
        raise InputError(code="ADA304", message="'pages' must map page numbers to page text", location=Location(source))
    try:
        items = sorted(((int(k), v) for k, v in pages.items()), key=lambda kv: kv[0])
    except ValueError:
        raise InputError(code="ADA304", message="'pages' keys must be page numbers", location=Location(source)) from None
    out, pos = [], 0
    for number, page_text in items:
        if text[pos : pos + len(page_text)] != page_text:
            raise InputError(code="ADA304", message=f"page {number} is not the next slice of full_text",
                             location=Location(source), hint="pages must concatenate to full_text")
        out.append(Page(number, pos, pos + len(page_text)))
        pos += len(page_text)
    return out


def supported_suffixes() -> list[str]:
    """File suffixes that have a reader."""
    return readers.names()


def read_document(path: str | os.PathLike, errors: str = "strict", max_bytes: int | None = None,
                  ocr: str | None = None) -> Document:
    """Read one input file with the reader registered for its suffix (``ADA303`` otherwise).

    Args:
        path: the input file.
        errors: ``strict`` or ``replace`` for invalid UTF-8.
        max_bytes: input size limit (``ADA318`` above it); None: :func:`max_input_bytes`.
        ocr: for a PDF, ``auto`` or ``off``: read scanned pages by OCR (None: the reader's
            current option). The PDF modules are imported for PDFs only.
    """
    if ocr is not None and os.fspath(path).lower().endswith(".pdf"):
        from .pdf import reader_options

        with reader_options(ocr=ocr):
            return read_document(path, errors, max_bytes)
    source = os.fspath(path)
    p = Path(source)
    suffix = p.suffix.lower()
    if suffix not in readers:
        if p.is_dir():
            raise InputError(code="ADA302", message=f"{source} is a directory, not a file", location=Location(source))
        raise InputError(code="ADA303", message=f"unsupported input format '{suffix or p.name}'",
                         location=Location(source), allowed=supported_suffixes())
    reader: Callable[..., Document] = readers.get(suffix)
    with input_limit(max_bytes):
        try:
            check_input_file(p, source)  # before any reader opens it (a FIFO would block there)
            return reader(p, source, errors)
        except ImportError as exc:  # an optional reader's package (pdfplumber: the pdf extra)
            coded = missing_dependency(exc, source)
            if coded is None:
                raise
            raise coded from None
