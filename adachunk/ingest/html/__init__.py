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

from ...errors import InputError, Location
from ...components.params import ComponentParams
from ...components.registry import readers
from ...datatypes import Document
from ._blocks import Walker
from ._clean import content_roots, flat_skip
from ._depth import check_nesting
from ._inline import inline_text
from ._tree import Node, parse_html
from ..converted import Block, Converted, assemble
from ..files import read_input_bytes, read_text_bytes, refuse_binary

log = logging.getLogger("adachunk.ingest")

# the encoding declared in the first 1024 bytes, as a browser's prescan finds it
_META_CHARSET = re.compile(rb"<meta[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9._:\-]+)", re.IGNORECASE)
# labels the HTML standard maps to windows-1252 (a page declaring latin-1 is read as cp1252)
_CP1252_LABELS = frozenset({"iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "us-ascii", "ascii",
                            "windows-1252", "cp1252", "x-cp1252"})
# the Python codecs of the HTML standard's encodings (https://encoding.spec.whatwg.org): a
# declared charset is honoured only when it names one of them. Python also knows codecs that are
# not text encodings (rot13, base64, zlib: a LookupError, or bytes, on decode) and text codecs no
# browser accepts (utf-7, which smuggles markup past filters; unicode_escape; idna): a browser
# ignores such a label and so does this reader (the page is read as UTF-8)
_WEB_CODECS = frozenset({
    "utf-8", "cp1252", "cp866", "koi8-r", "koi8-u", "mac-roman", "mac-cyrillic", "cp874", "cp1250", "cp1251",
    "cp1253", "cp1254", "cp1255", "cp1256", "cp1257", "cp1258", "gbk", "gb2312", "gb18030", "big5", "big5hkscs",
    "euc_jp", "iso2022_jp", "shift_jis", "cp932", "euc_kr", "cp949", "iso8859-1",
    *(f"iso8859-{n}" for n in (2, 3, 4, 5, 6, 7, 8, 10, 13, 14, 15, 16))})


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


def _blocks_and_root(text: str, options: HtmlOptions, source: str) -> tuple[list[Block], Node]:
    check_nesting(text, source)  # before the parser, whose time grows faster than the depth
    root = parse_html(text, flat_skip(options.boilerplate))
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
    blocks, _ = _blocks_and_root(text, options or HtmlOptions(), source)
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
    blocks, root = _blocks_and_root(text, options or HtmlOptions(), source)
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
    1024 bytes, None when there is none or it is not one of the web's text encodings (``rot13``,
    ``base64``, ``utf-7``: ignored, as browsers ignore them); UTF-16 declared in a page read as
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
    if name.startswith("utf-16"):
        return "utf-8"
    if name not in _WEB_CODECS:
        log.warning("a <meta charset> names %r, not a web text encoding: ignored (read as UTF-8)", label)
        return None
    return name


def decode_html(data: bytes, source: str, errors: str = "strict") -> str:
    """Decode an HTML file: a BOM decides, else a declared ``<meta charset>``, else UTF-8.

    Invalid bytes are an ``ADA301`` error unless ``errors="replace"`` (as for Markdown); so is a
    UTF-16 file cut in the middle of a code unit (an odd number of bytes after its BOM).
    """
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    else:
        encoding = None if data.startswith(codecs.BOM_UTF8) else declared_encoding(data)
    if encoding in (None, "utf-8"):
        return read_text_bytes(data, source, errors)
    if encoding != "utf-16":
        refuse_binary(data, source)
    try:
        return data.decode(encoding, errors="strict" if errors == "strict" else "replace")
    except UnicodeDecodeError as exc:
        raise InputError(code="ADA301", message=f"invalid {encoding} at byte offset {exc.start} "
                         f"({data[exc.start:exc.start + 4]!r}): {exc.reason}", location=Location(source),
                         hint="re-encode the file as UTF-8, or pass --errors replace to substitute U+FFFD") from None


@readers.register(".html")
@readers.register(".htm")
def read_html(path: Path, source: str, errors: str = "strict", options: HtmlOptions | None = None) -> Document:
    """Read an ``.html`` file into a Markdown :class:`~adachunk.datatypes.Document`.

    Args:
        path: the file.
        source: its name in messages and records.
        errors: ``"strict"`` (invalid bytes are ``ADA301``) or ``"replace"``.
        options: conversion options (defaults when None, as ``run`` and ``chunk`` read it).
    """
    path = Path(path)
    text = decode_html(read_input_bytes(path, source), source, errors)
    return convert_html(text, source, options).document(doc_id=path.name, source=source)


__all__ = ["HtmlOptions", "convert_html", "decode_html", "declared_encoding", "html_blocks", "read_html"]
