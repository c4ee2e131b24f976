"""PyMuPDF backend: pymupdf4llm's Markdown, page by page, in adachunk's parsed format.

**Licence.** PyMuPDF (and the pymupdf4llm bundled with PyMuPDF 2.x) is licensed **AGPL-3.0**,
or commercially by Artifex. It is therefore an opt-in extra (``pip install 'adachunk[pymupdf]'``)
and never imported unless ``backend="pymupdf"`` is asked for; the default backend (pdfplumber,
MIT) needs none of it.

pymupdf4llm is called once per page (``pages=[i]``), which keeps the page map exact whatever its
``page_chunks`` option does in a given version. Its Markdown is cut into blocks (headings,
paragraphs, lists, pipe tables); running headers/footers are found by repetition of a page's
first/last short block, and tables get the same treatment as with pdfplumber: the real header
row repeated on every part, continuations across pages joined (by column count: pymupdf4llm's
Markdown carries no column positions).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ...errors import InputError
from ._errors import corrupt_error, encrypted_error, no_text_error
from ._furniture import furniture_text, is_page_number, norm_key, repeated_keys
from ._model import Block, PageContent, RawTable
from ._table_head import tidy_table
from ._tables import parse_markdown_table, resolve_tables
from ._text import clean, escape_block_start, join_lines, list_marker, vocabulary
from .._table_cells import is_period_phrase

_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_DROP = re.compile(r"^\s*(?:\*\*==> picture .* <==\*\*|-{3,}|<!--.*-->)\s*$")
_FURNITURE_MAX = 120  # a longer first/last block is body text, not a running header


def _modules() -> tuple[Any, Any]:
    """Import PyMuPDF and pymupdf4llm, or explain how to get them (``ADA314``)."""
    try:
        import pymupdf
        import pymupdf4llm
    except ImportError:
        raise InputError(code="ADA314", message="the 'pymupdf' PDF backend is not installed",
                         hint="pip install 'adachunk[pymupdf]' (PyMuPDF is licensed AGPL-3.0 or commercially "
                              "by Artifex), or use the default backend: --backend pdfplumber") from None
    return pymupdf, pymupdf4llm


def convert(data: bytes, source: str, options) -> tuple[list[PageContent], dict[str, Any]]:
    """PDF bytes → pages ready to render, with the same coded errors as the default backend."""
    pymupdf, p4l = _modules()
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:
        raise corrupt_error(source, f"cannot parse the PDF ({type(exc).__name__}: {exc})") from None
    try:
        if doc.needs_pass and not doc.authenticate(options.password or ""):
            raise encrypted_error(source, bool(options.password))
        n = doc.page_count
        if n == 0:
            raise corrupt_error(source, "the document has no pages")
        has_text = [bool(doc[i].get_text("text").strip()) for i in range(n)]
        if not any(has_text):
            raise no_text_error(source, n, why="backend")
        markdown = _page_markdown(p4l, doc, n)
    except InputError:
        raise
    except Exception as exc:
        raise corrupt_error(source, f"{type(exc).__name__}: {exc}") from None
    finally:
        doc.close()
    pages, tables = pages_from_markdown(markdown, options)
    return pages, {"pages_without_text": [i + 1 for i, t in enumerate(has_text) if not t], "tables": tables}


def _page_markdown(p4l: Any, doc: Any, n: int) -> list[str]:
    """pymupdf4llm's Markdown of each page. Heading levels come from font sizes: they are
    measured once on the whole document (``IdentifyHeaders``) where this version offers it, so
    that a page on its own does not rank its sizes differently."""
    kwargs: dict[str, Any] = {}
    identify = getattr(p4l, "IdentifyHeaders", None)
    if identify is not None:
        try:
            kwargs["hdr_info"] = identify(doc)
        except Exception:  # an older/newer signature: per-page ranking is the fallback
            kwargs = {}
    out = []
    for i in range(n):
        try:
            md = p4l.to_markdown(doc, pages=[i], **kwargs)
        except TypeError:  # this version takes no hdr_info
            kwargs = {}
            md = p4l.to_markdown(doc, pages=[i])
        if isinstance(md, list):  # versions where the layout mode always returns page chunks
            md = "\n\n".join(str(c.get("text", "")) if isinstance(c, dict) else str(c) for c in md)
        out.append(md)
    return out


def _blocks(md: str) -> list[str]:
    """Blank-line separated blocks, without picture placeholders, rules and comments."""
    lines = [ln for ln in md.replace("\r\n", "\n").split("\n") if not _DROP.match(ln)]
    return [b.strip("\n") for b in re.split(r"\n\s*\n", "\n".join(lines)) if b.strip()]


def _strip_emphasis(text: str) -> str:
    return re.sub(r"^[*_]+|[*_]+$", "", text.strip()).strip()


def _furniture(pages: list[list[str]], threshold: float) -> tuple[list[list[str]], list[list[str]]]:
    """Remove repeated first/last short blocks and page numbers; return headers and footers."""
    def candidate(p: list[str], i: int) -> str | None:
        if not p or len(p[i]) > _FURNITURE_MAX or "\n" in p[i] or p[i].startswith(("#", "|")):
            return None
        return _strip_emphasis(p[i])

    firsts = [{norm_key(c)} if (c := candidate(p, 0)) is not None else set() for p in pages]
    lasts = [{norm_key(c)} if (c := candidate(p, -1)) is not None else set() for p in pages]
    top, bottom = repeated_keys(firsts, threshold), repeated_keys(lasts, threshold)
    headers, footers = [], []
    for p in pages:
        head, foot = [], []
        c = candidate(p, 0)
        if c is not None and (norm_key(c) in top or is_page_number(c)):
            p.pop(0)
            head.append(furniture_text(c))
        c = candidate(p, -1)
        if c is not None and (norm_key(c) in bottom or is_page_number(c)):
            p.pop()
            foot.append(furniture_text(c))
        headers.append(head)
        footers.append(foot)
    return headers, footers


def _block(text: str, vocab: Counter[str]) -> Block | RawTable:
    """One Markdown block of pymupdf4llm → a block (or a raw table for the table stage)."""
    m = _HEADING.match(text)
    if m and "\n" not in text:
        title = clean(_strip_emphasis(m.group(2)))
        if is_period_phrase(title):  # "2022", "Year Ended December 31,": a column header, no section
            return Block("paragraph", escape_block_start(title))
        level = len(m.group(1))
        return Block("heading", "#" * level + " " + title, level=level)
    table = parse_markdown_table(text)
    if table is not None:
        header, rows = table
        cols = [float(i) for i in range(len(header) + 1)]  # no geometry: columns compare by count
        return tidy_table(RawTable(0.0, 0.0, 0.0, 0.0, [header] + rows, cols))  # "$" | "1,184": one cell
    lines = text.split("\n")
    if all(list_marker(ln.strip()) or ln.startswith((" ", "\t")) for ln in lines) and list_marker(lines[0].strip()):
        return Block("list", "\n".join(ln.rstrip() for ln in lines))
    return Block("paragraph", escape_block_start(clean(join_lines(lines, vocab))))


def pages_from_markdown(markdown: list[str], options) -> tuple[list[PageContent], list[dict[str, Any]]]:
    """Per-page Markdown (pymupdf4llm's) → pages of blocks (furniture and tables resolved) and
    the table summaries."""
    pages = [_blocks(md) for md in markdown]
    headers, footers = _furniture(pages, options.furniture_threshold)
    vocab = vocabulary(ln for p in pages for b in p for ln in b.split("\n"))
    items = [[_block(b, vocab) for b in p] for p in pages]
    blocks, tables = resolve_tables(items, wrapper=options.table_wrapper, max_rows=options.max_table_rows,
                                    join=options.join_tables)
    return [PageContent(i + 1, bl, headers[i], footers[i]) for i, bl in enumerate(blocks)], tables

