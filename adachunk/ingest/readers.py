"""Markdown/text and the paper's parsed-JSON readers, registered by file suffix.

Text is decoded as strict UTF-8 (a leading BOM is dropped); invalid bytes are an ``ADA301`` error
naming the file and byte offset unless ``errors="replace"``. Offsets of every later stage point
into the decoded text exactly as read (CRLF kept).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Callable

from ..errors import InputError, Location
from ..registry import readers
from ..types import Document, Page

_BINARY_MAGIC = {
    b"\x89PNG\r\n\x1a\n": "a PNG image",
    b"GIF87a": "a GIF image",
    b"GIF89a": "a GIF image",
    b"\xff\xd8\xff": "a JPEG image",
    b"PK\x03\x04": "a ZIP archive (docx/xlsx?)",
    b"%PDF-": "a PDF (PDF ingestion is a separate reader)",
    b"\x7fELF": "an executable",
}


def read_text_bytes(data: bytes, source: str, errors: str = "strict") -> str:
    """Decode file bytes as UTF-8, refusing known binary formats with ``ADA305``."""
    for magic, what in _BINARY_MAGIC.items():
        if data.startswith(magic):
            raise InputError(code="ADA305", message=f"{source} is {what}, not text", location=Location(source),
                             hint="convert it to Markdown or text first")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8", errors="strict" if errors == "strict" else "replace")
    except UnicodeDecodeError as exc:
        raise InputError(
            code="ADA301",
            message=f"invalid UTF-8 at byte offset {exc.start} ({data[exc.start:exc.start + 4]!r})",
            location=Location(source),
            hint="re-encode the file as UTF-8, or pass --errors replace to substitute U+FFFD",
        ) from None


def _read_bytes(path: Path, source: str) -> bytes:
    try:
        if path.is_dir():
            raise InputError(code="ADA302", message=f"{source} is a directory, not a file", location=Location(source))
        return path.read_bytes()
    except InputError:
        raise
    except FileNotFoundError:
        raise InputError(code="ADA302", message=f"no such file: {source}", location=Location(source)) from None
    except OSError as exc:
        raise InputError(code="ADA302", message=f"cannot read {source}: {exc.strerror or exc}",
                         location=Location(source)) from None


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
    text = read_text_bytes(_read_bytes(path, source), source, errors)
    return Document(id=path.stem, text=text, source=source, pages=markdown_pages(text), meta={"format": "markdown"})


readers.register(".markdown", read_markdown)
readers.register(".txt", read_markdown)


@readers.register(".json")
def read_parsed_json(path: Path, source: str, errors: str = "strict") -> Document:
    """The paper's parsed-document JSON (``full_text``, ``pages``, ``split_points``, ...)."""
    raw = read_text_bytes(_read_bytes(path, source), source, errors)
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(code="ADA304", message=f"invalid JSON: {exc.msg}",
                         location=Location(source, exc.lineno, exc.colno)) from None
    return document_from_parsed(obj, source, fallback_id=path.stem)


def document_from_parsed(obj: Any, source: str, fallback_id: str = "document") -> Document:
    """Build a Document from a parsed-JSON object (validated, ``ADA304`` when malformed)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("full_text"), str):
        raise InputError(code="ADA304", message="parsed JSON needs a string field 'full_text'",
                         location=Location(source), hint="expected the paper's format: document_name, full_text, pages")
    text = obj["full_text"]
    pages = _page_map(obj.get("pages"), text, source)
    sp = obj.get("split_points")
    if sp is not None and not (isinstance(sp, list) and all(isinstance(x, int) for x in sp)):
        raise InputError(code="ADA304", message="'split_points' must be a list of integers", location=Location(source))
    meta = {k: obj[k] for k in ("domain", "language") if k in obj}
    meta["format"] = "parsed_json"
    return Document(
        id=str(obj.get("document_name") or fallback_id), text=text, source=source, pages=pages,
        split_points=sorted(sp) if sp is not None else None, titles=obj.get("titles"),
        entity_pron_pairs=obj.get("entity_pron_pairs"), meta=meta,
    )


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


def read_document(path: str | os.PathLike, errors: str = "strict") -> Document:
    """Read one input file with the reader registered for its suffix (``ADA303`` otherwise)."""
    source = os.fspath(path)
    p = Path(source)
    suffix = p.suffix.lower()
    if suffix not in readers:
        if p.is_dir():
            raise InputError(code="ADA302", message=f"{source} is a directory, not a file", location=Location(source))
        raise InputError(code="ADA303", message=f"unsupported input format '{suffix or p.name}'",
                         location=Location(source), allowed=supported_suffixes())
    reader: Callable[..., Document] = readers.get(suffix)
    return reader(p, source, errors)
