"""pdfplumber extraction: open (with coded errors), words with font facts, ruled tables.

Speed: pdfplumber turns every pdfminer object into a dictionary of ~25 resolved attributes,
which costs more than interpreting the page itself. Characters and ruling shapes are therefore
read from pdfminer's layout objects (``page.layout``) with only the attributes needed; words come
from pdfplumber's own :class:`~pdfplumber.utils.text.WordExtractor`, and tables from its
lattice :class:`~pdfplumber.table.TableFinder` fed with the ruling edges (only on pages that have
two horizontal and two vertical rulings at least). Cell text is taken from the page's words.
Tables without rulings are found afterwards among the remaining words (``_borderless``).
"""

from __future__ import annotations

import io
import re
from collections import Counter
from typing import Any, Iterator

from ...errors import InputError
from ._borderless import find_tables
from ._errors import corrupt_error, encrypted_error
from ._budget import time_budget
from ._grid_mend import mend_beside, undivided
from ._lines import group_lines
from ._model import RawPage, RawTable, Word
from ._order import order_page
from ._overprint import dedupe, looks_overprinted
from ._rotate import UPRIGHT, direction, dominant, frame_size, turn_char, turn_shape
from ._ruled import drop_frames, ruled_rows
from ._table_head import take_heads, tidy_table
from ._text import join_lines


_BOLD = re.compile(r"bold|black|heavy|semibold|demi", re.I)
_CID = re.compile(r"\(cid:\d+\)")
# WinAnsiEncoding maps unused codes to the bullet (PDF 1.7, Annex D note 3); pdfminer does not
WINANSI_BULLET = "(cid:127)"
_NO_VOCAB: Counter[str] = Counter()
MIN_PAGES_PER_WORKER = 8  # below this, spawning a process costs more than it saves


def open_pdf(data: bytes, source: str, password: str | None = None, budget_s: float = 0) -> Any:
    """Open PDF bytes with pdfplumber; encrypted and unparseable files become coded errors, and
    an opening that takes more than ``budget_s`` seconds (0: no limit) ``ADA322``."""
    import pdfplumber
    from pdfminer.pdfdocument import PDFEncryptionError

    try:
        with time_budget(budget_s, source, "opening the PDF (its page tree)"):
            pdf = pdfplumber.open(io.BytesIO(data), password=password or "")
            _ = pdf.pages  # the page tree is parsed lazily: force it so a broken tree fails here
    except InputError:
        raise
    except Exception as exc:  # pdfplumber wraps every pdfminer failure in PdfminerException
        cause = exc.args[0] if exc.args and isinstance(exc.args[0], BaseException) else exc
        if isinstance(cause, PDFEncryptionError):
            raise encrypted_error(source, bool(password)) from None
        raise corrupt_error(source, f"cannot parse the PDF ({type(cause).__name__}: {cause})") from None
    return pdf


def _walk(objs, chars: list, shapes: list, page_h: float, mb: tuple, images: list | None = None,
          turned: list | None = None) -> None:
    """Collect chars and ruling shapes as light dicts in pdfplumber's coordinates, recursively
    (and the page's images, when ``images`` is given: a page of images and no text is a scan;
    glyphs set in rotated text go to ``turned`` as ``(direction, char)``)."""
    from pdfminer.layout import LTChar, LTContainer, LTCurve, LTImage, LTLine, LTRect

    for obj in objs:
        if isinstance(obj, LTChar):
            text = obj.get_text()
            if len(text) > 1 and text[0].isspace():  # a font maps "." to " .": the glyph is the dot
                text = text.strip() or text
            ch = {
                "text": text, "x0": obj.x0 + mb[0], "x1": obj.x1 + mb[0],
                "top": page_h - obj.y1 + mb[1], "bottom": page_h - obj.y0 + mb[1], "doctop": 0.0,
                "upright": True, "size": round(obj.size, 2), "fontname": obj.fontname,
            }
            if obj.upright:
                chars.append(ch)
            elif turned is not None:  # kept aside: margin stamps, or a page set sideways
                turned.append((direction(obj.matrix), ch))
        elif isinstance(obj, LTCurve):
            top = page_h - obj.y1 + mb[1]
            shape = {"object_type": "rect" if isinstance(obj, LTRect) else "line" if isinstance(obj, LTLine)
                     else "curve", "x0": obj.x0 + mb[0], "x1": obj.x1 + mb[0], "top": top, "doctop": top,
                     "bottom": page_h - obj.y0 + mb[1], "y0": obj.y0, "y1": obj.y1,
                     "width": obj.x1 - obj.x0, "height": obj.y1 - obj.y0}
            if shape["object_type"] == "curve":
                shape["pts"] = [(mb[0] + x, mb[1] + page_h - y) for x, y in obj.pts]
            shapes.append(shape)
        elif isinstance(obj, LTImage):
            if images is not None:
                images.append((obj.x0, obj.y0, obj.x1, obj.y1))
        elif isinstance(obj, LTContainer):
            _walk(obj, chars, shapes, page_h, mb, images, turned)


def _may_hold_table(shapes: list[dict]) -> bool:
    """Two horizontal and two vertical rulings at least (a rectangle counts as both)."""
    h = sum(1 for s in shapes if s["object_type"] != "line" or s["height"] <= 1.0)
    v = sum(1 for s in shapes if s["object_type"] != "line" or s["width"] <= 1.0)
    return h >= 2 and v >= 2


def _words(chars: list[dict]) -> tuple[list[Word], int]:
    """pdfplumber's word grouping; returns the words and how many unmapped glyphs were dropped."""
    from pdfplumber.utils.text import WordExtractor

    # a relative tolerance: 3 points (pdfplumber's default) merges words set in 10 pt type
    extractor = WordExtractor(x_tolerance_ratio=0.15, y_tolerance=3, extra_attrs=["fontname", "size"])
    out, dropped = [], 0
    for w in extractor.extract_words(chars):
        text = w["text"]
        if "(cid:" in text:
            if text == WINANSI_BULLET:
                text = "\u2022"
            else:
                dropped += len(_CID.findall(text))
                text = _CID.sub("", text)
            if not text.strip():
                continue
        out.append(Word(text, w["x0"], w["x1"], w["top"], w["bottom"], float(w["size"]),
                        bool(_BOLD.search(w["fontname"] or ""))))
    return out, dropped


class _RulingView:
    """The part of a pdfplumber page that :class:`~pdfplumber.table.TableFinder` reads (its
    ruling edges and box), built from the light shapes instead of pdfplumber's full object model."""

    def __init__(self, shapes: list[dict], bbox: tuple[float, float, float, float]):
        from pdfplumber.utils import obj_to_edges

        self.edges = [e for s in shapes for e in obj_to_edges(s)]
        self.bbox = bbox


def _find_cells(page, shapes: list[dict], bbox: tuple | None = None) -> list[list[list[tuple | None]]]:
    """Cell boxes of each ruled table, row by row (pdfplumber's lattice algorithm)."""
    from pdfplumber.table import TableFinder

    try:
        tables = TableFinder(_RulingView(shapes, bbox or tuple(page.bbox))).tables
    except (AttributeError, KeyError, TypeError):  # a pdfplumber whose finder reads more: full model
        tables = page.find_tables()
    return [[list(row.cells) for row in t.rows] for t in tables]


def _grid_top(grid: list[list[tuple | None]]) -> float:
    return min((c[1] for row in grid for c in row if c is not None), default=0.0)


def _tables(page, shapes: list[dict], words: list[Word], bbox: tuple) -> list[RawTable]:
    """Ruled tables with at least two rows and two columns (a framed paragraph is not a table);
    cell text comes from the page's words (center inside the cell)."""
    out = []
    for grid in sorted(_find_cells(page, shapes, bbox), key=_grid_top):
        boxes = [c for row in grid for c in row if c is not None]
        if not boxes:
            continue
        x0, top = min(c[0] for c in boxes), min(c[1] for c in boxes)
        x1, bottom = max(c[2] for c in boxes), max(c[3] for c in boxes)
        inside = [w for w in words if x0 <= (w.x0 + w.x1) / 2 <= x1 and top <= (w.top + w.bottom) / 2 <= bottom]
        rows = ruled_rows(grid, inside, _cell_text)  # a ruled row holding several rows is split
        rows = [r for r in rows if any(r)]
        ncols = max((len(r) for r in rows), default=0)
        if len(rows) < 2 or ncols < 2:
            continue
        xs = sorted({round(c[0], 1) for c in boxes} | {round(x1, 1)})
        out.append(RawTable(top, bottom, x0, x1, [r + [""] * (ncols - len(r)) for r in rows], xs))
    return drop_frames(out)  # a frame round the page's content is not a table


def _cell_text(box: tuple | None, words: list[Word]) -> str:
    """The words of one cell in reading order, lines joined (a word broken by a hyphen rejoined)."""
    if box is None:
        return ""
    x0, top, x1, bottom = box
    ws = [w for w in words if x0 <= (w.x0 + w.x1) / 2 <= x1 and top <= (w.top + w.bottom) / 2 <= bottom]
    if not ws:
        return ""
    lines = group_lines(ws)
    lines.sort(key=lambda ln: (ln.top, ln.x0))
    return _cell([ln.text for ln in lines])


def _cell(lines: list[str]) -> str:
    """A cell's lines re-flowed like a paragraph (no document vocabulary at this stage)."""
    return join_lines(lines, _NO_VOCAB) if lines else ""


def _inside(w: Word, tables: list[RawTable]) -> bool:
    cx, cy = (w.x0 + w.x1) / 2, (w.top + w.bottom) / 2
    return any(t.x0 <= cx <= t.x1 and t.top <= cy <= t.bottom for t in tables)


def extract_page(page, number: int) -> RawPage:
    """One pdfplumber page → lines in reading order (table text removed) and tables."""
    chars: list[dict] = []
    shapes: list[dict] = []
    images: list[tuple] = []
    turned: list[tuple[int, dict]] = []
    mb = (float(page.mediabox[0]), float(page.mediabox[1]))
    _walk(page.layout, chars, shapes, float(page.height), mb, images, turned)
    width, height = float(page.width), float(page.height)
    turn = _reading_turn(chars, turned)
    if turn != UPRIGHT:  # a page set sideways: read it in its own frame, as if upright
        chars = [turn_char(ch, turn, width, height) for d, ch in turned if d == turn]
        shapes = [turn_shape(s, turn, width, height) for s in shapes]
        width, height = frame_size(turn, width, height)
    words, dropped = _words(chars)
    if looks_overprinted(w.text for w in words):  # fake bold: every glyph drawn twice
        words, dropped = _words(dedupe(chars))
    bbox = tuple(page.bbox) if turn == UPRIGHT else (0.0, 0.0, width, height)
    tables = _tables(page, shapes, words, bbox) if _may_hold_table(shapes) else []
    raw = page_from_words(number, width, height, words, tables, bool(images))
    raw.unmapped = dropped  # reported once per document with its name (ADA406), not per page
    return raw


def page_from_words(number: int, width: float, height: float, words: list[Word], ruled: list[RawTable],
                    has_images: bool) -> RawPage:
    """A page's words (and ruled tables) → its borderless tables and its lines in reading order:
    the stages every page goes through, a text page's or a scan's words read by OCR.

    Args:
        number: the page number (1-based).
        width: page width in points, in the reading frame.
        height: page height in points, in the reading frame.
        words: the page's words.
        ruled: tables found from ruling lines (a scan has none); their words are removed here.
        has_images: whether the page shows images (a scan, a figure).
    """
    tables = [t for t in ruled if not undivided(t)]  # rules round column groups: read by alignment
    page_words = words
    if tables:
        words = [w for w in words if not _inside(w, tables)]
    borderless = find_tables(words)
    if tables and borderless:  # a grid that leaves out its label column: the two read as one
        tables, borderless = mend_beside(tables, borderless, page_words, find_tables)
    if borderless:
        words = [w for w in words if not _inside(w, borderless)]
        tables = sorted(tables + borderless, key=lambda t: t.top)
    tables = [tidy_table(t) for t in tables]  # signs in their figures' cells
    tables, words = take_heads(tables, words)  # column headers set above a table belong to it
    lines, fell_back = order_page(words, tables, width, height)
    has_text = bool(words) or any(any(c for r in t.rows for c in r) for t in tables)
    return RawPage(number, width, height, lines, tables, has_text, has_images, fell_back)


def _reading_turn(chars: list[dict], turned: list[tuple[int, dict]]) -> int:
    """The direction a page reads in: upright unless most of its glyphs are turned one way."""
    if len(turned) <= len(chars):
        return UPRIGHT
    counts = Counter(d for d, _ in turned)
    counts[UPRIGHT] = len(chars)
    return dominant(counts)


def iter_pages(pdf, source: str, start: int = 0, stop: int | None = None, budget_s: float = 0
               ) -> Iterator[RawPage]:
    """Pages ``start..stop`` (0-based, ``stop`` excluded) of an open pdfplumber PDF; a page whose
    content cannot be parsed is ``ADA310``, one that takes more than ``budget_s`` s ``ADA322``."""
    for i, page in enumerate(pdf.pages[start:stop], start + 1):
        try:
            with time_budget(budget_s, source, f"page {i}"):
                raw = extract_page(page, i)
        except InputError:
            raise
        except Exception as exc:
            raise corrupt_error(source, f"page {i} cannot be read ({type(exc).__name__}: {exc})") from None
        finally:
            page.close()  # drop pdfplumber's per-page caches: memory stays flat on long files
        yield raw


def _extract_range(data: bytes, source: str, password: str | None, start: int, stop: int,
                   budget_s: float = 0) -> list[RawPage]:
    """Worker: open the PDF and extract one range of pages (pages pickle, pdfplumber objects do not)."""
    pdf = open_pdf(data, source, password, budget_s)
    try:
        return list(iter_pages(pdf, source, start, stop, budget_s))
    finally:
        pdf.close()


def extract_all(data: bytes, source: str, password: str | None, workers: int = 1, budget_s: float = 0
                ) -> list[RawPage]:
    """Every page of the PDF, extracted in ``workers`` processes when the file is long enough;
    opening and each page run under a time budget of ``budget_s`` seconds (0: none; ``ADA322``).

    Extraction is pure Python (pdfminer) and CPU-bound, so page ranges run in separate processes
    (spawned: forking a process that holds numba or torch state is unsafe); each worker opens
    the bytes itself. Short files stay in this process, where start-up costs nothing.
    """
    pdf = open_pdf(data, source, password, budget_s)
    try:
        n = len(pdf.pages)
        if workers <= 1 or n < MIN_PAGES_PER_WORKER * workers:
            return _report_pages(list(iter_pages(pdf, source, budget_s=budget_s)), source)
    finally:
        pdf.close()
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    step = -(-n // workers)
    ranges = [(a, min(a + step, n)) for a in range(0, n, step)]
    with ProcessPoolExecutor(max_workers=len(ranges), mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = pool.map(_extract_range, *zip(*[(data, source, password, a, b, budget_s) for a, b in ranges]))
        return _report_pages([page for part in parts for page in part], source)


def _report_pages(pages: list[RawPage], source: str) -> list[RawPage]:
    """The document's page notices, each once with the file's name: ``ADA405`` for the pages
    whose layout analysis failed (read in line order), ``ADA406`` for glyphs dropped because
    the font maps them to no character."""
    from ...errors import notice

    failed = [p.number for p in pages if p.layout_fallback]
    if failed:
        notice("ADA405", f"layout analysis failed on {_pages(failed)}: read in line order (columns may be "
                         "interleaved there)", source)
    unmapped = [p for p in pages if p.unmapped]
    if unmapped:
        total = sum(p.unmapped for p in unmapped)
        notice("ADA406", f"{total} glyph{'s' if total > 1 else ''} without a Unicode mapping dropped on "
                         f"{_pages([p.number for p in unmapped])} (the font maps them to no character: "
                         "bullets and symbols, usually)", source)
    return pages


def _pages(numbers: list[int]) -> str:
    """``page 3`` / ``pages 3, 5-9, 12``."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    shown = ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)
    return f"page{'s' if len(numbers) > 1 else ''} {shown}"
