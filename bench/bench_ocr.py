"""Which OCR engine for scanned PDF pages? Tesseract (Debian's tesseract-ocr via pytesseract) vs
RapidOCR (rapidocr-onnxruntime, models inside the wheel), on scans whose truth is known.

Each corpus PDF's pages are rendered with pypdfium2 at the scan resolution (grey, like an office
scanner) and re-wrapped as an image-only PDF with Pillow, so the original text layer is the
truth. The image-only PDF then goes through adachunk's OCR path (``_pdf_ocr.ocr_words``: render
at the OCR resolution, read, convert to word boxes) and, with ``--convert``, through the whole
converter (``convert_pdf``: lines, reading order, Markdown).

Word recall: the share of the text layer's words (runs of letters and digits, case-folded,
NFKC) found by OCR, counted as multisets. Seconds per page include rendering; CPU seconds (this
process and the Tesseract processes it ran) are steadier than wall time on a shared machine. The converter's
own losses (a transcript's margin line numbers are dropped, hyphenated words re-joined) show in
"text PDF": the converter on the original; "vs text PDF" is the recall of that conversion's
words in the scan's conversion (a scan should convert as its text PDF does).

Run: python bench/bench_ocr.py [--engines tesseract,rapidocr] [--dpi 300] [--scan-dpi 200]
     [--convert]   (prints a Markdown table; writes bench/out/ocr/results.json)
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "pdf-real"
OUT = ROOT / "bench" / "out" / "ocr"
sys.path.insert(0, str(ROOT))
from adachunk.ingest.pdf import _ocr as _pdf_ocr  # noqa: E402

# four kinds of page: a three-column gazette in small print, an agenda, a transcript with line
# numbers in its margin, a ruled table
FILES = {"federal-register-2020-17221.pdf": [1, 2], "cupertino_usd_4-6-16.pdf": [1],
         "scotus-transcript-p1.pdf": [1], "medicine.pdf": [1]}
_TOKEN = re.compile(r"\w+")


# ----------------------------------------------------------------------------- RapidOCR, for comparison
# (pip install rapidocr-onnxruntime: ONNX models inside the wheel; not an adachunk engine, see
# adachunk/ingest/pdf/_ocr.py for why)
_RAPID: Any = None  # the engine object loads three ONNX sessions: build it once


def _rapidocr_lines(image: Any, lang: str) -> list[list[tuple]]:
    """RapidOCR's text lines, split into words at the spaces of its per-character boxes."""
    global _RAPID
    import numpy as np

    if _RAPID is None:
        from rapidocr_onnxruntime import RapidOCR

        _RAPID = RapidOCR()
    result, _ = _RAPID(np.asarray(image.convert("RGB")), return_word_box=True)
    out = []
    for item in result or []:
        box, text = item[0], item[1]
        top, bottom = min(p[1] for p in box), max(p[1] for p in box)
        chars = item[3] if len(item) > 3 else None
        out.append(_split_line(text, box, chars, top, bottom))
    confidence = [(item[1], 100 * float(item[2])) for item in result or []]
    return [ln for ln in out if ln] if _pdf_ocr.is_text(confidence) else []


def _split_line(text: str, box: list, chars: list | None, top: float, bottom: float) -> list[tuple]:
    """A recognised line → words, with x extents from the character boxes when the engine gives
    one per character (spaces included), else shared out by character count."""
    x0, x1 = min(p[0] for p in box), max(p[0] for p in box)
    if not chars or len(chars) != len(text):
        step = (x1 - x0) / max(1, len(text))
        chars = [[[x0 + k * step, top], [x0 + (k + 1) * step, top]] for k in range(len(text))]
    words: list[tuple] = []
    start = None
    for k, ch in enumerate(text + " "):
        if ch.isspace():
            if start is not None:
                words.append((text[start:k], chars[start][0][0], top, max(p[0] for p in chars[k - 1]), bottom))
            start = None
        elif start is None:
            start = k
    return words


def register_rapidocr() -> None:
    """Make RapidOCR an engine of adachunk's OCR path for this process."""
    import importlib.util

    _pdf_ocr.ENGINES["rapidocr"] = lambda: importlib.util.find_spec("rapidocr_onnxruntime") is not None
    _pdf_ocr.READERS["rapidocr"] = _rapidocr_lines


def tokens(text: str) -> Counter[str]:
    """Words as runs of letters and digits, case-folded (punctuation spacing is not a word)."""
    return Counter(_TOKEN.findall(unicodedata.normalize("NFKC", text).casefold()))


def recall(truth: Counter[str], got: Counter[str]) -> float:
    """Share of the truth's words found (each occurrence counted once)."""
    total = sum(truth.values())
    return sum(min(n, got[w]) for w, n in truth.items()) / total if total else 1.0


def text_layer(data: bytes, pages: list[int]) -> dict[int, str]:
    """The text layer of each page (pdfium's reading, independent of adachunk's extraction)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(data)
    out = {n: doc[n - 1].get_textpage().get_text_range() for n in pages}
    doc.close()
    return out


def image_only(data: bytes, pages: list[int], dpi: int) -> bytes:
    """The pages rendered at ``dpi`` (grey) and saved as an image-only PDF: a scan."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(data)
    images = [doc[n - 1].render(scale=dpi / 72, grayscale=True).to_pil().convert("L") for n in pages]
    doc.close()
    buf = io.BytesIO()
    images[0].save(buf, "PDF", resolution=float(dpi), save_all=True, append_images=images[1:])
    return buf.getvalue()


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (Tesseract runs as a child process):
    steadier than wall time on a shared machine."""
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def run_engine(scan: bytes, n_pages: int, engine: str, dpi: int) -> tuple[dict[int, str], float, float]:
    """OCR every page of the scan: page → words joined, wall seconds and CPU seconds taken."""
    from adachunk.ingest.pdf._ocr import ocr_words

    start, cpu = time.perf_counter(), cpu_seconds()
    words = ocr_words(scan, list(range(1, n_pages + 1)), engine, dpi=dpi)
    secs, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    return {n: " ".join(w.text for w in ws) for n, ws in words.items()}, secs, cpu


def run_convert(pdf: bytes, engine: str, dpi: int, tmp: Path) -> tuple[str, float]:
    """The whole converter on a PDF: its Markdown and seconds taken (markup adds words, which
    recall does not count; re-joined hyphenated words lose both halves, on text PDFs too)."""
    from adachunk.ingest.pdf import convert_pdf

    path = tmp / "input.pdf"
    path.write_bytes(pdf)
    start = time.perf_counter()
    doc = convert_pdf(path, ocr="auto", ocr_engine=engine, ocr_dpi=dpi, scanned_pages="warn")
    return doc.text, time.perf_counter() - start


def measure(engine: str, name: str, pages: list[int], args: argparse.Namespace) -> dict:
    """One engine on one file's pages: recall and speed of OCR (and of the converter)."""
    data = (CORPUS / name).read_bytes()
    truth = tokens(" ".join(text_layer(data, pages).values()))
    scan = image_only(data, pages, args.scan_dpi)
    got, secs, cpu = run_engine(scan, len(pages), engine, args.dpi)
    row = {"engine": engine, "file": name, "pages": pages, "scan_dpi": args.scan_dpi, "dpi": args.dpi,
           "truth_words": sum(truth.values()), "recall": recall(truth, tokens(" ".join(got.values()))),
           "s_per_page": secs / len(pages), "cpu_s_per_page": cpu / len(pages)}
    if args.convert:
        with tempfile.TemporaryDirectory() as tmp:
            text, csecs = run_convert(scan, engine, args.dpi, Path(tmp))
            # the original, cut to the same pages (the scan has only those)
            original = tokens(run_convert(cut_pages(data, pages), engine, args.dpi, Path(tmp))[0])
        row.update(convert_recall=recall(truth, tokens(text)), convert_s_per_page=csecs / len(pages),
                   text_pdf_convert_recall=recall(truth, original),
                   recall_vs_text_pdf_convert=recall(original, tokens(text)))
    return row


def cut_pages(data: bytes, pages: list[int]) -> bytes:
    """The text PDF cut to ``pages`` (pypdfium2 imports them with their text layer)."""
    import pypdfium2 as pdfium

    src, out = pdfium.PdfDocument(data), pdfium.PdfDocument.new()
    out.import_pages(src, [n - 1 for n in pages])
    buf = io.BytesIO()
    out.save(buf)
    return buf.getvalue()


def all_files() -> dict[str, list[int]]:
    """Every corpus PDF with its first two pages (one for a one-page file)."""
    import pypdfium2 as pdfium

    out = {}
    for path in sorted(CORPUS.glob("*.pdf")):
        doc = pdfium.PdfDocument(str(path))
        out[path.name] = list(range(1, min(2, len(doc)) + 1))
        doc.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engines", default="tesseract,rapidocr")
    ap.add_argument("--dpi", type=int, default=300, help="OCR rendering resolution")
    ap.add_argument("--scan-dpi", type=int, default=200, help="resolution of the simulated scan")
    ap.add_argument("--convert", action="store_true", help="also measure the whole converter")
    ap.add_argument("--all", action="store_true", help="every corpus PDF (first two pages), not only FILES")
    args = ap.parse_args()
    if not CORPUS.is_dir():
        print(f"skipped: {CORPUS} is absent")
        return 0
    from adachunk.ingest.pdf._ocr import available_engine

    register_rapidocr()
    OUT.mkdir(parents=True, exist_ok=True)
    rows = []
    print(f"scan {args.scan_dpi} dpi, OCR {args.dpi} dpi\n")
    print("| engine | file | pages | word recall | s/page | CPU s/page | converter recall | converter s/page "
          "| text PDF | vs text PDF |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for engine in args.engines.split(","):
        if available_engine(engine) != engine:
            print(f"| {engine} | (not installed) | | | | | | | | |")
            continue
        for name, pages in (all_files() if args.all else FILES).items():
            row = measure(engine, name, pages, args)
            rows.append(row)
            conv = (f"{row['convert_recall']:.1%} | {row['convert_s_per_page']:.1f} | "
                    f"{row['text_pdf_convert_recall']:.1%} | {row['recall_vs_text_pdf_convert']:.1%}"
                    if args.convert else " | | | ")
            print(f"| {engine} | {name} | {len(pages)} | {row['recall']:.1%} | {row['s_per_page']:.1f} "
                  f"| {row['cpu_s_per_page']:.1f} | {conv} |", flush=True)
    suffix = ("-convert" if args.convert else "") + ("-all" if args.all else "")
    (OUT / f"results-{args.scan_dpi}-{args.dpi}{suffix}.json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
