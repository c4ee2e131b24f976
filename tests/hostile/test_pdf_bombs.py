"""Hostile PDFs (issue 50, item 3): a reference loop and a content-stream bomb stop at the time
budget of their step (``ADA322``), and a huge MediaBox renders for OCR within a pixel cap.

Before: an indirect-reference loop (884 bytes) hung pdfminer forever, a content stream inflating
to 300 MB ran past 300 s, and an image-only page with a huge MediaBox (725 bytes) took 6 GB to
render or raised MemoryError.
"""

from __future__ import annotations

import threading

from adachunk.ingest.pdf._budget import time_budget
from adachunk.ingest.pdf._ocr import MAX_RENDER_PIXELS, render_scale
from adachunk.ingest.pdf import PdfOptions

from . import gen
from .bounded import run_child, write_file

BOUND_S = 30.0
RSS_MB = 1500
# convert each file with a time budget of argv[1] s: one JSON line per file (code, seconds, text)
_CONVERT = """
import json, sys, time
from adachunk.errors import AdachunkError
from adachunk.ingest.pdf import convert_pdf
for path in sys.argv[2:]:
    t = time.monotonic()
    try:
        row = {"code": None, "text": convert_pdf(path, time_budget_s=float(sys.argv[1]), ocr="off").text}
    except AdachunkError as e:
        row = {"code": e.code, "text": e.render()}
    print(json.dumps({"path": path, "seconds": time.monotonic() - t, **row}), flush=True)
"""
_RENDER = """
import sys
from adachunk.ingest.pdf._ocr import render_pages
for n, image, width, height in render_pages(open(sys.argv[1], "rb").read(), [1]):
    print(image.width, image.height, width, height)
"""


def test_a_reference_loop_and_a_content_bomb_stop_at_the_budget_and_good_files_are_read(tmp_path):
    files = [write_file(tmp_path, "good1.pdf", gen.text_pdf("First good page.")),
             write_file(tmp_path, "loop.pdf", gen.reference_loop()),
             write_file(tmp_path, "bomb.pdf", gen.content_bomb(30)),  # 30 MB: minutes unbounded
             write_file(tmp_path, "good2.pdf", gen.text_pdf("Second good page."))]
    o = run_child(["-c", _CONVERT, "2", *map(str, files)])
    assert not o.timed_out and o.rc == 0, o.err[-2000:]
    assert o.wall_s < BOUND_S and o.rss_mb < RSS_MB
    rows = o.rows()
    assert rows["loop.pdf"]["code"] == "ADA322" and "opening the PDF" in rows["loop.pdf"]["text"]
    assert rows["bomb.pdf"]["code"] == "ADA322" and "page 1" in rows["bomb.pdf"]["text"]
    for name in ("loop.pdf", "bomb.pdf"):
        assert rows[name]["seconds"] < 2 * 5, name  # the budget, and what the interruption costs
    assert "First good page." in rows["good1.pdf"]["text"] and "Second good page." in rows["good2.pdf"]["text"]


def test_the_budget_is_on_by_default():
    assert PdfOptions().time_budget_s > 0


def test_a_step_within_its_budget_leaves_no_timer_behind():
    import signal

    with time_budget(5, "x.pdf", "page 1"):
        pass
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


def test_the_budget_outside_the_main_thread_lets_the_step_run():
    done = []

    def step():
        with time_budget(0.01, "x.pdf", "page 1"):
            done.append(sum(range(10_000)))

    t = threading.Thread(target=step)
    t.start()
    t.join()
    assert done == [sum(range(10_000))]


def test_a_huge_mediabox_renders_within_the_pixel_cap(tmp_path):
    f = write_file(tmp_path, "huge.pdf", gen.huge_mediabox())
    o = run_child(["-c", _RENDER, str(f)])
    assert not o.timed_out and o.rc == 0, o.err[-2000:]
    w, h, pw, ph = (float(x) for x in o.out.split())
    assert w * h <= MAX_RENDER_PIXELS * 1.01 and pw == ph == 720000
    assert o.wall_s < BOUND_S and o.rss_mb < RSS_MB


def test_ordinary_pages_render_at_their_dpi():
    assert render_scale(595, 842, 300) == 300 / 72  # A4
    assert render_scale(595, 842, 600) == 600 / 72  # 35 million pixels: under the cap
    assert render_scale(14400, 14400, 300) < 300 / 72
    assert render_scale(10, 10**6, 300) * 10**6 <= 20_000
