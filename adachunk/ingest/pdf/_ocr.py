"""OCR for PDF pages without a text layer (scans), behind the optional extra ``adachunk[ocr]``.

A scanned page is rendered with pypdfium2 (already required by pdfplumber) and read by an OCR
engine; the words it finds become the same :class:`~adachunk.ingest.pdf._model.Word` boxes, in
PDF points, that the text-layer extraction produces, so the layout stages (lines, reading order,
borderless tables, headings) and the page/offset bookkeeping treat a scan like any other page.

The engine is Tesseract (Debian's ``tesseract-ocr``, through ``pytesseract``; both Apache-2.0),
imported lazily. It was chosen by ``bench/bench_ocr.py`` over RapidOCR (``rapidocr-onnxruntime``,
models inside the wheel): on image-only renderings of corpus PDFs Tesseract recovers 87-100% of
the text layer's words at 1-3 s a page, RapidOCR 8-72% at 10-65 s a page, its bundled
(Chinese/English) recognition model dropping the spaces between English words.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
from collections import Counter
from typing import Any, Callable, Iterator

from ...errors import InputError, Location
from ._extract import page_from_words
from ._model import RawPage, Word

log = logging.getLogger("adachunk.ingest")

# a word box in pixels: text, x0, top, x1, bottom; a line is a list of them, left to right
PxWord = tuple[str, float, float, float, float]
DEFAULT_DPI = 300  # a little better than 200 on small print (bench/bench_ocr.py), ~1.5x slower
# a page is rendered at its dpi unless that makes more pixels than this (A4 at 600 dpi is 35
# million) or a side longer than _MAX_SIDE: a 725-byte PDF may declare a MediaBox of kilometres,
# which at 300 dpi would need gigabytes. Such a page is scaled down to fit (to_words converts
# pixels back to points from the image's real size, so the boxes stay right)
MAX_RENDER_PIXELS = 50_000_000
_MAX_SIDE = 20_000
# page segmentation mode 3 (automatic, Tesseract's default): on the bench it reads table cells
# better than mode 11 ("sparse text": 90% against 82% of a ruled table's words), which finds more
# isolated margin numbers (a transcript's line numbers, which the converter drops anyway)
TESSERACT_PSM = 3
_DARK = 160  # grey level under which a pixel is ink, for finding ruling lines
_RULE_INCHES = 0.5  # an ink run this long (horizontal or vertical) is a ruling line, not a glyph
_SNAP = 0.15  # a row height within 15% of the page's dominant one is the body size (OCR jitter)
# mean word confidence (0-100, weighted by length) below which a page is noise, not text: printed
# text reads at 88-95 (bench/bench_ocr.py), paper grain, photos and drawings at 20-30
MIN_PAGE_CONFIDENCE = 50.0
# a word this many times taller than the page's median word, read at a confidence under _UNSURE,
# is a stroke taken for a glyph: kept, its box would merge the rows it spans into one line
_TALL, _UNSURE = 2.5, 30.0


def _has_module(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def _tesseract_ready() -> bool:
    return _has_module("pytesseract") and shutil.which("tesseract") is not None


# engine name -> whether it is installed; READERS (below) -> its reader. One engine is built in;
# bench/bench_ocr.py registers RapidOCR here to compare it
ENGINES: dict[str, Callable[[], bool]] = {"tesseract": _tesseract_ready}
PREFERENCE = ["tesseract"]  # the order 'auto' tries them


def available_engine(name: str = "auto") -> str | None:
    """The engine to use: ``name`` if it is installed, the first installed one for ``auto``."""
    names = PREFERENCE if name == "auto" else (name,)
    return next((n for n in names if n in ENGINES and ENGINES[n]()), None)


def _tesseract_lines(image: Any, lang: str) -> list[list[PxWord]]:
    """Tesseract's words grouped by its own line numbers (block, paragraph, line)."""
    import pytesseract

    # Tesseract's OpenMP threads make it 5-8x slower on a busy machine (measured: 5.4 s against
    # 0.7 s a page on two shared cores); one thread per page is its authors' advice for batches
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    data = pytesseract.image_to_data(image, lang=lang, config=f"--psm {TESSERACT_PSM}",
                                     output_type=pytesseract.Output.DICT)
    found = [i for i, text in enumerate(data["text"]) if (text or "").strip() and float(data["conf"][i]) >= 0]
    confidence = [(data["text"][i].strip(), float(data["conf"][i])) for i in found]
    if not is_text(confidence):
        return []
    heights = sorted(data["height"][i] for i in found)
    tall = _TALL * heights[len(heights) // 2]
    lines: dict[tuple[int, int, int], list[PxWord]] = {}
    for i in found:
        if data["height"][i] > tall and float(data["conf"][i]) < _UNSURE:
            continue  # a stroke read as a glyph ('|' from a rule's stub), several rows tall
        left, top = float(data["left"][i]), float(data["top"][i])
        box = (data["text"][i].strip(), left, top, left + float(data["width"][i]), top + float(data["height"][i]))
        lines.setdefault((data["block_num"][i], data["par_num"][i], data["line_num"][i]), []).append(box)
    return list(lines.values())


def is_text(words: list[tuple[str, float]]) -> bool:
    """Whether OCR read text rather than noise: the words' mean confidence (0-100, weighted by
    length) reaches :data:`MIN_PAGE_CONFIDENCE`. Words are not filtered one by one: dropping
    the uncertain words of a real page costs more recall than the few wrong ones cost."""
    total = sum(len(t) for t, _ in words)
    mean = sum(len(t) * c for t, c in words) / total if total else 0.0
    if words and mean < MIN_PAGE_CONFIDENCE:
        log.info("OCR read %d words at %.0f%% mean confidence: noise, not text", len(words), mean)
    return mean >= MIN_PAGE_CONFIDENCE


READERS: dict[str, Callable[[Any, str], list[list[PxWord]]]] = {"tesseract": _tesseract_lines}


def read_image(image: Any, engine: str, lang: str = "eng", dpi: int = DEFAULT_DPI) -> tuple[list[list[PxWord]], Any]:
    """OCR one page image (rendered at ``dpi``) with ``engine``.

    Returns:
        Its lines of words (boxes in pixels), and the image they were read on: the page turned
        upright when it was scanned sideways or upside down (so that rows of words are
        horizontal for the layout stages, as on a rotated text page read in its own frame).
    """
    image = erase_rules(image, dpi)
    lines = READERS[engine](image, lang)
    if engine in ORIENTATION and (not lines or _sideways(lines)):
        angle = ORIENTATION[engine](image)
        if angle:
            image = image.rotate(angle, expand=True, fillcolor=255)
            lines = READERS[engine](image, lang)
    return lines, image


def _sideways(lines: list[list[PxWord]]) -> bool:
    """Most words of three letters or more are taller than wide: the text runs up or down."""
    long = [w for ln in lines for w in ln if len(w[0]) >= 3]
    return sum(w[4] - w[2] > w[3] - w[1] for w in long) > len(long) / 2


def _tesseract_rotation(image: Any) -> int:
    """Degrees (counter-clockwise, as PIL turns images) that set the page upright, from
    Tesseract's orientation detection (0 when it cannot tell: too little text)."""
    import pytesseract

    try:
        osd = pytesseract.image_to_osd(image, output_type=pytesseract.Output.DICT)
    except pytesseract.TesseractError:  # "too few characters": a blank page or a picture
        return 0
    return -int(osd.get("rotate", 0)) % 360


# engine name -> how it finds the page's orientation (engines without one read pages as they come)
ORIENTATION: dict[str, Callable[[Any], int]] = {"tesseract": _tesseract_rotation}


def erase_rules(image: Any, dpi: int) -> Any:
    """The image with its ruling lines (table borders, underlines) painted white.

    Tesseract reads the text of ruled tables badly: the borders join glyphs into shapes it does
    not know (bench/bench_ocr.py, medicine.pdf: 42-71% of the words, 82-90% once erased). An ink
    run longer than ``_RULE_INCHES`` is no glyph. Only rows and columns that hold that much ink
    at all are scanned, so a page of plain text costs little.
    """
    import numpy as np
    from PIL import Image

    grey = np.asarray(image.convert("L"))
    dark = grey < _DARK
    length = max(2, int(dpi * _RULE_INCHES))
    mask = np.zeros_like(dark)
    rows = np.flatnonzero(dark.sum(axis=1) >= length)
    mask[rows] = _long_runs(dark[rows], length)
    cols = np.flatnonzero(dark.sum(axis=0) >= length)
    mask[:, cols] |= _long_runs(dark[:, cols].T, length).T
    if not mask.any():
        return image
    out = grey.copy()
    out[mask] = 255
    return Image.fromarray(out)


def _long_runs(dark: Any, length: int) -> Any:
    """Boolean mask of the pixels of each row that lie in a run of ``length`` or more dark pixels."""
    import numpy as np

    n_rows, n = dark.shape
    # each row framed by a light pixel on both sides, then read as one flat sequence: a run can
    # never cross into the next row, and the edges of every run are where the sequence changes
    framed = np.zeros((n_rows, n + 2), np.int8)
    framed[:, 1:-1] = dark
    steps = np.diff(framed.ravel())
    starts, ends = np.flatnonzero(steps == 1) + 1, np.flatnonzero(steps == -1) + 1
    flat = np.zeros(framed.size, bool)
    for a, b in zip(starts[ends - starts >= length], ends[ends - starts >= length]):
        flat[a:b] = True  # few: only the rules are this long
    return flat.reshape(n_rows, n + 2)[:, 1:-1]


def to_words(lines: list[list[PxWord]], scale: float) -> list[Word]:
    """Pixel lines → :class:`Word` boxes in PDF points (``scale``: points per pixel).

    OCR gives ink boxes, not font sizes. A row (the words of an engine line that overlap
    vertically: an engine's "line" may span two rows) stands for a text line: its words share
    its top and bottom, as the glyph boxes of a text layer share the font's, and its height is
    their size. Heights within ``_SNAP`` of the page's dominant height are set to it, since a
    row without descenders is shorter than its neighbours and would otherwise look like another
    size.
    """
    from ._lines import cluster_rows

    rows: list[list[Word]] = []
    for ln in _even_lines(lines):
        words = [Word(t, x0 * scale, x1 * scale, top * scale, bottom * scale, 0.0, False)
                 for t, x0, top, x1, bottom in ln]
        rows.extend(cluster_rows(words))
    heights = [max(w.bottom for w in row) - min(w.top for w in row) for row in rows]
    weight: Counter[float] = Counter()
    for h, row in zip(heights, rows):
        weight[round(h * 2) / 2] += sum(len(w.text) for w in row)
    body = max(weight, key=lambda s: (weight[s], -s)) if weight else 0.0
    for h, row in zip(heights, rows):
        size = body if body and abs(h - body) <= _SNAP * body else round(h * 2) / 2
        top, bottom = min(w.top for w in row), max(w.bottom for w in row)
        for w in row:
            w.size, w.top, w.bottom = size, top, bottom
    return [w for row in rows for w in row]


def _even_lines(lines: list[list[PxWord]]) -> list[list[PxWord]]:
    """Lines whose over-tall word boxes are cut to the line's median top and bottom: an engine
    sometimes boxes a word with ink of the row above or below (a date 30 px tall among 16 px
    words), and that box would merge the rows downstream."""
    out = []
    for ln in lines:
        tops, bottoms = sorted(w[2] for w in ln), sorted(w[4] for w in ln)
        top, bottom = tops[len(ln) // 2], bottoms[len(ln) // 2]
        limit = 1.5 * max(1.0, bottom - top)
        out.append([w if w[4] - w[2] <= limit else (w[0], w[1], top, w[3], bottom) for w in ln])
    return out


def render_scale(width: float, height: float, dpi: int) -> float:
    """Pixels per point to render a ``width`` x ``height`` point page at: ``dpi / 72``, scaled down
    to :data:`MAX_RENDER_PIXELS` pixels and sides of at most ``_MAX_SIDE``."""
    scale = dpi / 72
    w, h = max(float(width), 1.0), max(float(height), 1.0)
    if w * h * scale * scale > MAX_RENDER_PIXELS:
        scale = (MAX_RENDER_PIXELS / (w * h)) ** 0.5
    return min(scale, _MAX_SIDE / max(w, h))


def render_pages(data: bytes, numbers: list[int], dpi: int = DEFAULT_DPI,
                 password: str | None = None) -> Iterator[tuple[int, Any, float, float]]:
    """Render the 1-based ``numbers`` pages: (number, grey PIL image, width and height in points)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(data, password=password)
    try:
        for n in numbers:
            page = doc[n - 1]
            try:
                width, height = page.get_size()
                image = page.render(scale=render_scale(width, height, dpi), grayscale=True).to_pil()
            finally:
                page.close()
            yield n, image, float(width), float(height)
    finally:
        doc.close()


def ocr_words(data: bytes, numbers: list[int], engine: str, *, dpi: int = DEFAULT_DPI, lang: str = "eng",
              password: str | None = None) -> dict[int, list[Word]]:
    """The words of each page in ``numbers`` read by OCR, in PDF points with a top-left origin.

    Args:
        data: the PDF's bytes.
        numbers: 1-based page numbers to read.
        engine: an installed engine (see :func:`available_engine`).
        dpi: rendering resolution.
        lang: Tesseract language code(s), e.g. ``eng`` or ``eng+deu``.
        password: the user password of an encrypted PDF.

    Returns:
        Page number → its words (unordered; the layout stages order them).
    """
    out = {}
    for n, image, width, _ in render_pages(data, numbers, dpi, password):
        scale = width / image.width  # points per pixel, whatever rounding the renderer did
        out[n] = to_words(read_image(image, engine, lang, dpi)[0], scale)
        log.info("page %d: %d words read by OCR (%s)", n, len(out[n]), engine)
    return out


def ocr_pages(data: bytes, numbers: list[int], engine: str, *, dpi: int = DEFAULT_DPI, lang: str = "eng",
              password: str | None = None, source: str = "<input>") -> dict[int, RawPage]:
    """The pages in ``numbers`` read by OCR, as the converter's geometric pages (see
    :func:`ocr_words` for the arguments; ``source`` names the file in errors).

    Raises:
        InputError: ``ADA309`` when the engine fails on a page (a language pack that is not
            installed, a broken engine install).
    """
    out = {}
    for n, image, width, height in render_pages(data, numbers, dpi, password):
        try:
            lines, upright = read_image(image, engine, lang, dpi)
        except Exception as exc:  # each engine raises its own types (TesseractError, OSError...)
            raise ocr_error(source, n, engine, exc) from None
        scale = width / image.width  # points per pixel; a page turned upright swaps its sides
        words = to_words(lines, scale)
        log.info("page %d: %d words read by OCR (%s)", n, len(words), engine)
        # a scan has no ruling vectors to find ruled tables by
        out[n] = page_from_words(n, upright.width * scale, upright.height * scale, words, [], True)
    return out


def ocr_error(source: str, page: int, engine: str, exc: Exception) -> InputError:
    """``ADA309``: the OCR engine failed on a scanned page."""
    detail = " ".join(str(exc).split())[:300]
    return InputError(code="ADA309", message=f"OCR ({engine}) failed on page {page}: {type(exc).__name__}: {detail}",
                      location=Location(source),
                      hint="check the engine install (tesseract --list-langs shows the languages; Debian packages "
                           "tesseract-ocr-<lang>), or convert with --ocr off --scanned-pages warn")
