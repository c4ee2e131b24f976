"""PDF → Markdown throughput: pages per second on a generated 200-page report.

The PDF is generated here with reportlab (tests/pdf_factory.py): about 3,000 characters per
page (sections, paragraphs, bulleted lists, a ruled table every few pages, running header,
footer and page numbers). Prints pages/s for the whole conversion and the share of each stage,
then pages per CPU-second on the generated finance report (tests/pdf_corpus.py: a 240-row
table without ruling lines over 7 A4 pages), where borderless-table detection does the most.

    /work/venv/bin/python bench/bench_pdf.py [--pages 200] [--repeat 1] [--backend pdfplumber] [--workers 2]

CPU time is this process's only: with --workers > 1 the extraction runs in child processes.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import pdf_corpus  # noqa: E402
import pdf_factory  # noqa: E402

from adachunk.ingest.pdf import _extract as ex  # noqa: E402
from adachunk.ingest.pdf._render import render  # noqa: E402
from adachunk.ingest.pdf import PdfOptions, convert_pdf, layout_pages  # noqa: E402


def stages(path: Path) -> dict[str, float]:
    """Seconds spent in extraction (pdfminer + words + tables) and in layout + rendering."""
    t0 = time.perf_counter()
    pdf = ex.open_pdf(path.read_bytes(), str(path))
    raw = list(ex.iter_pages(pdf, str(path)))
    pdf.close()
    t1 = time.perf_counter()
    pages, _ = layout_pages(raw, PdfOptions())
    render(pages)
    t2 = time.perf_counter()
    return {"extract": t1 - t0, "layout+render": t2 - t1}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=1, help="timed conversions (median reported)")
    ap.add_argument("--backend", default="pdfplumber")
    ap.add_argument("--workers", type=int, default=1, help="processes extracting page ranges in parallel")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = pdf_factory.build_long(Path(tmp) / "long.pdf", pages=args.pages)
        warm = pdf_factory.build_sample(Path(tmp) / "warm.pdf")
        convert_pdf(warm, backend=args.backend)  # imports and font caches out of the timing
        times, cpu, doc = [], [], None
        for _ in range(args.repeat):
            t, c = time.perf_counter(), time.process_time()
            doc = convert_pdf(path, backend=args.backend, workers=args.workers)
            times.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
        secs, cpu_secs = statistics.median(times), statistics.median(cpu)
        n = len(doc.pages)
        print(f"backend {args.backend}, {args.workers} worker(s): {n} pages, {path.stat().st_size / 1e3:,.0f} kB, "
              f"{len(doc.text) / n:,.0f} Markdown chars/page, {len(doc.meta['tables'])} tables")
        print(f"convert: {secs:.1f} s wall -> {n / secs:.2f} pages/s ({len(doc.text) / secs / 1e3:,.1f} k chars/s); "
              f"{cpu_secs:.1f} s CPU -> {n / cpu_secs:.2f} pages per CPU-second")
        fin, _ = pdf_corpus.build_finance(Path(tmp) / "finance.pdf")
        c = time.process_time()
        for _ in range(5):
            fdoc = convert_pdf(fin, backend=args.backend, workers=args.workers)
        fin_cpu = (time.process_time() - c) / 5
        print(f"finance report (borderless 240-row table): {len(fdoc.pages)} pages, {len(fdoc.meta['tables'])} "
              f"table(s), {fin_cpu:.2f} s CPU -> {len(fdoc.pages) / fin_cpu:.2f} pages per CPU-second")
        if args.backend == "pdfplumber" and args.workers == 1:
            parts = stages(path)
            total = sum(parts.values())
            print("stages: " + ", ".join(f"{k} {v:.1f} s ({100 * v / total:.0f}%)" for k, v in parts.items()))


if __name__ == "__main__":
    main()
