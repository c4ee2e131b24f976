"""HTML → structure-aware Markdown (regulations, filings and web pages), fully offline.

Regulations and filings are published as HTML (EUR-Lex, eCFR, SEC EDGAR). The converter turns
a page into the Markdown the profiles read, block by block (:mod:`adachunk.ingest.converted`):

* headings ``h1``-``h6`` (each bound to the block after it), paragraphs, nested lists numbered
  as a browser numbers them (``start``, ``value``, ``type="a"``/``"i"``), definition lists (a
  bold term line and its definition, one block per term), ``<pre>`` as fenced code,
  ``<blockquote>`` as ``> `` lines, ``<br>`` as a line break, ``**bold**`` / ``*italic*``,
  links as their text (or ``[text](href)``), images as their alt text;
* tables as pipe tables in ``<Table>`` wrappers, as the PDF converter writes them: the
  ``<thead>`` row or the first row as header, a row- or column-spanned cell's text repeated in
  every cell it covers, nested tables flattened into their cell;
* EUR-Lex legislation in its current (``oj-``) and legacy markup: the document title, chapter
  and section titles and ``## Article 3 — Territorial scope`` headings, numbered paragraphs,
  and the two-column point tables written as point lines ``(a) text``, so that the ``legal``
  profile finds articles, paragraphs and points as in Markdown legislation;
* boilerplate dropped (``HtmlOptions.boilerplate``): scripts, styles, navigation, the page's
  header and footer, forms, cookie banners, menus, hidden elements; with ``<main>`` or
  ``<article>`` on the page only that is read.

Every block's source-map origin is its element's path (``{"html_path":
"/html/body/div[2]/p[3]"}``; an index only among several siblings of one tag) and the id a
reader would cite (``"id": "art_1"``), the element's or its nearest ancestor's.

Parser: selectolax's Lexbor backend (HTML5-conformant, measured fastest; see
``bench/html_readers.py``).
"""

from __future__ import annotations

import codecs
import logging
import re
from pathlib import Path
from typing import Literal

from pydantic import Field

from ..errors import InputError, Location
from ..params import ComponentParams
from ..registry import readers
from ..types import Document
from ._html_blocks import Walker
from ._html_clean import content_roots
from ._html_inline import inline_text
from ._html_tree import Node, parse_html
from .converted import Block, Converted, assemble
from .readers import _read_bytes, read_text_bytes, refuse_binary

log = logging.getLogger("adachunk.ingest")

# the encoding declared in the first 1024 bytes, as a browser's prescan finds it
_META_CHARSET = re.compile(rb"<meta[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9._:\-]+)", re.IGNORECASE)
# labels the HTML standard maps to windows-1252 (a page declaring latin-1 is read as cp1252)
_CP1252_LABELS = frozenset({"iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "us-ascii", "ascii",
                            "windows-1252", "cp1252", "x-cp1252"})


class HtmlOptions(ComponentParams):
    """How an HTML page becomes Markdown."""

    table_wrapper: bool = Field(True, description="wrap each table in <Table> ... </Table> as in the paper's "
                                                  "format (and as the PDF converter does)")
    links: Literal["text", "markdown"] = Field("text", description="a link as its text only, or as a Markdown "
                                                                    "link [text](href)")
    boilerplate: Literal["drop", "keep"] = Field("drop", description="page chrome (scripts aside, always dropped): "
                                                 "'drop' removes navigation, page header/footer, forms, cookie "
                                                 "banners, menus and hidden elements and reads only <main> or "
                                                 "<article> when the page has one; 'keep' converts the whole page")


def _blocks_and_root(text: str, options: HtmlOptions) -> tuple[list[Block], Node]:
    root = parse_html(text)
    walker = Walker(options.links, options.boilerplate, options.table_wrapper)
    for node in content_roots(root, options.boilerplate):
        walker.container(node)
    return walker.blocks, root


def html_blocks(text: str, source: str, options: HtmlOptions | None = None) -> list[Block]:
    """The Markdown blocks of an HTML page, in reading order.

    Args:
        text: the page's HTML (decoded).
        source: where it came from (for messages).
        options: conversion options (default :class:`HtmlOptions`).

    Returns:
        One :class:`~adachunk.ingest.converted.Block` per heading, paragraph, list, table, ...,
        each with its ``{"html_path": ..., "id": ...}`` origin.
    """
    blocks, _ = _blocks_and_root(text, options or HtmlOptions())
    log.debug("%s: %d HTML blocks", source, len(blocks))
    return blocks


def convert_html(text: str, source: str, options: HtmlOptions | None = None) -> Converted:
    """Convert an HTML page: Markdown text, gold block starts, heading spans and source map.

    Args:
        text: the page's HTML (decoded).
        source: where it came from (for messages).
        options: conversion options (default :class:`HtmlOptions`).

    Returns:
        The :class:`~adachunk.ingest.converted.Converted` document; ``meta`` holds
        ``format: "html"`` and the page's ``<title>`` when it has one.
    """
    blocks, root = _blocks_and_root(text, options or HtmlOptions())
    log.debug("%s: %d HTML blocks", source, len(blocks))
    meta: dict[str, str] = {"format": "html"}
    title = _page_title(root)
    if title:
        meta["title"] = title
    return assemble(blocks, meta)


def _page_title(root: Node) -> str:
    head = next((c for c in root.elements() if c.tag == "head"), None)
    title = next((c for c in head.elements() if c.tag == "title"), None) if head is not None else None
    return inline_text(title.children, plain=True) if title is not None else ""


def declared_encoding(data: bytes) -> str | None:
    """The Python codec of a ``<meta charset>`` (or ``http-equiv`` content type) in the first
    1024 bytes, None when there is none or it is unknown; UTF-16 declared in a page read as
    bytes is UTF-8, as browsers treat it."""
    m = _META_CHARSET.search(data[:1024])
    if not m:
        return None
    label = m.group(1).decode("ascii", "replace").strip().lower()
    if label in _CP1252_LABELS:
        return "cp1252"
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    return "utf-8" if name.startswith("utf-16") or name == "utf-8" else name


def decode_html(data: bytes, source: str, errors: str = "strict") -> str:
    """Decode an HTML file: a BOM decides, else a declared ``<meta charset>``, else UTF-8.

    Invalid bytes are an ``ADA301`` error unless ``errors="replace"`` (as for Markdown).
    """
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="strict" if errors == "strict" else "replace")
    encoding = None if data.startswith(codecs.BOM_UTF8) else declared_encoding(data)
    if encoding in (None, "utf-8"):
        return read_text_bytes(data, source, errors)
    refuse_binary(data, source)
    try:
        return data.decode(encoding, errors="strict" if errors == "strict" else "replace")
    except UnicodeDecodeError as exc:
        raise InputError(code="ADA301", message=f"invalid {encoding} at byte offset {exc.start} "
                         f"({data[exc.start:exc.start + 4]!r}), the encoding the page declares",
                         location=Location(source),
                         hint="re-encode the file as UTF-8, or pass --errors replace to substitute U+FFFD") from None


@readers.register(".html")
@readers.register(".htm")
def read_html(path: Path, source: str, errors: str = "strict", options: HtmlOptions | None = None) -> Document:
    """Read an ``.html`` file into a Markdown :class:`~adachunk.types.Document`.

    Args:
        path: the file.
        source: its name in messages and records.
        errors: ``"strict"`` (invalid bytes are ``ADA301``) or ``"replace"``.
        options: conversion options (defaults when None, as ``run`` and ``chunk`` read it).
    """
    path = Path(path)
    text = decode_html(_read_bytes(path, source), source, errors)
    return convert_html(text, source, options).document(doc_id=path.name, source=source)


__all__ = ["HtmlOptions", "convert_html", "decode_html", "declared_encoding", "html_blocks", "read_html"]
