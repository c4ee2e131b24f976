"""OCR of scanned PDF pages (optional extra ``adachunk[ocr]``): pages without a text layer read
into the converter's word model, with pages and offsets as for text PDFs; ``--ocr off`` and a
missing engine give ``ADA309`` with the way out. Tests that run an engine skip where none is
installed (``.ci/run`` installs Tesseract)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

pytest.importorskip("pdfplumber")
pytest.importorskip("pypdfium2")
from PIL import Image, ImageDraw, ImageFont  # noqa: E402

from adachunk.errors import InputError  # noqa: E402
from adachunk.ingest.pdf import _ocr as _pdf_ocr  # noqa: E402
from adachunk.ingest.pdf import convert_pdf, reader_options  # noqa: E402

DPI = 200
PAGES = [
    ("Quarterly Report", ["The committee approved the budget for the coming year.",
                          "Revenue grew in every region except the north."]),
    ("Second Section", ["Auditors found no material weakness in the controls.",
                        "The board will meet again in October."]),
]
needs_engine = pytest.mark.skipif(_pdf_ocr.available_engine() is None,
                                  reason="no OCR engine installed (pip install 'adachunk[ocr]' + tesseract-ocr)")


def _page_image(title: str, lines: list[str]) -> Image.Image:
    """A Letter page at 200 dpi: a large title and 14 pt body lines, black on white."""
    img = Image.new("L", (int(8.5 * DPI), 11 * DPI), 255)
    draw = ImageDraw.Draw(img)
    draw.text((200, 200), title, fill=0, font=ImageFont.load_default(size=70))
    body = ImageFont.load_default(size=40)
    for k, line in enumerate(lines):
        draw.text((200, 400 + k * 60), line, fill=0, font=body)
    return img


def build_scan(path: Path) -> Path:
    """An image-only PDF (no text layer): the pages of ``PAGES`` saved by Pillow."""
    images = [_page_image(t, ls) for t, ls in PAGES]
    buf = io.BytesIO()
    images[0].save(buf, "PDF", resolution=float(DPI), save_all=True, append_images=images[1:])
    path.write_bytes(buf.getvalue())
    return path


def _words(text: str) -> list[str]:
    return [w.strip(".,").casefold() for w in text.split()]


@needs_engine
def test_scan_is_read_with_pages_and_offsets(tmp_path):
    doc = convert_pdf(build_scan(tmp_path / "scan.pdf"))
    assert doc.meta["ocr_pages"] == [1, 2] and doc.meta["ocr_engine"] == _pdf_ocr.available_engine()
    assert [p.number for p in doc.pages] == [1, 2]
    assert doc.pages[0].start == 0 and doc.pages[0].end == doc.pages[1].start and doc.pages[1].end == len(doc.text)
    for page, (title, lines) in zip(doc.pages, PAGES):
        got = _words(doc.text[page.start:page.end])
        want = _words(title + " " + " ".join(lines))
        assert sum(w in got for w in want) >= 0.95 * len(want), (want, got)
    first = doc.text[doc.pages[0].start:doc.pages[0].end]
    # the title (70 px against 40 px body lines) is a heading, the body lines one paragraph, in order
    assert first.lstrip().startswith("#") and "Quarterly Report" in first
    assert first.index("committee approved") < first.index("every region")
    assert "Auditors" not in first


@needs_engine
def test_cli_convert_reads_a_scan_and_ocr_off_is_ada309(tmp_path, capsys):
    from adachunk.cli.main import main

    path = build_scan(tmp_path / "scan.pdf")
    assert main(["convert", str(path), "-o", str(tmp_path / "scan.md")]) == 0
    assert "budget" in (tmp_path / "scan.md").read_text(encoding="utf-8")
    assert main(["convert", str(path), "-o", str(tmp_path / "off.md"), "--ocr", "off"]) == 2
    err = capsys.readouterr().err
    assert "ADA309" in err and "OCR is off" in err and not (tmp_path / "off.md").exists()


def test_ocr_off_is_ada309(tmp_path):
    with pytest.raises(InputError) as err:
        convert_pdf(build_scan(tmp_path / "scan.pdf"), ocr="off")
    assert err.value.code == "ADA309" and "OCR is off" in err.value.message and "--ocr auto" in err.value.hint


def test_missing_engine_is_ada309_naming_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pytesseract", None)  # find_spec() then says: not installed
    path = build_scan(tmp_path / "scan.pdf")
    with pytest.raises(InputError) as err:
        convert_pdf(path)
    assert err.value.code == "ADA309" and "OCR is not installed" in err.value.message
    assert "pip install 'adachunk[ocr]'" in err.value.hint and "tesseract-ocr" in err.value.hint


def test_reader_options_reach_the_registered_reader(tmp_path):
    from adachunk.ingest import read_document

    path = build_scan(tmp_path / "scan.pdf")
    with reader_options(ocr="off"), pytest.raises(InputError, match="OCR is off"):
        read_document(path)
    with pytest.raises(Exception):
        with reader_options(ocr="sometimes"):
            pass


def test_job_options_key_unchanged_for_default_ocr():
    from adachunk.runner.job import JobOptions

    assert JobOptions(ocr="auto").key() == JobOptions().key() != JobOptions(ocr="off").key()


def test_to_words_scales_keeps_boxes_and_snaps_row_heights():
    # body rows of 40 px (one without descenders: 34 px) and a 70 px title; 0.5 pt per px; the
    # engine's second "line" spans two rows, which become two rows of their own
    lines = [[("Title", 100, 100, 300, 170)],
             [("body", 100, 200, 180, 240), ("text", 190, 200, 260, 240),
              ("more", 100, 260, 180, 294), ("xxxx", 190, 262, 260, 294)],
             [("last", 100, 320, 180, 360)]]
    words = _pdf_ocr.to_words(lines, 0.5)
    sizes = {w.text: w.size for w in words}
    assert sizes["body"] == sizes["more"] == sizes["last"] == 20.0 and sizes["Title"] == 35.0
    xxxx = next(w for w in words if w.text == "xxxx")
    assert (xxxx.x0, xxxx.top, xxxx.x1, xxxx.bottom) == (95.0, 130.0, 130.0, 147.0)  # its row's top and bottom
    assert not any(w.bold for w in words)


def test_long_runs_match_a_plain_scan_of_each_row():
    import random

    import numpy as np

    rng = random.Random(7)
    dark = np.array([[rng.random() < 0.8 for _ in range(60)] for _ in range(40)])
    got = _pdf_ocr._long_runs(dark, 5)
    want = np.zeros_like(dark)
    for r in range(dark.shape[0]):
        c = 0
        while c < dark.shape[1]:
            end = c
            while end < dark.shape[1] and dark[r, end]:
                end += 1
            if end - c >= 5:
                want[r, c:end] = True
            c = max(end, c + 1)
    assert (got == want).all()


def test_erase_rules_keeps_glyphs_and_drops_borders():
    import numpy as np

    img = _page_image("Ruled", ["A cell of text"])
    draw = ImageDraw.Draw(img)
    draw.rectangle((150, 380, 1500, 480), outline=0, width=3)  # a table border round the line
    out = _pdf_ocr.erase_rules(img, DPI)
    assert out.getpixel((800, 380)) == 255 and out.getpixel((150, 430)) == 255  # border gone
    assert np.asarray(out.crop((200, 400, 700, 450))).min() < 100  # the text's ink is kept


def test_run_and_chunk_take_ocr_off(tmp_path, capsys):
    from adachunk.cli.main import main

    path = build_scan(tmp_path / "scan.pdf")
    assert main(["run", str(path), "-o", str(tmp_path / "out"), "--sink", "none", "--backend", "serial",
                 "--ocr", "off", "--quiet"]) == 2
    summary = (tmp_path / "out" / "summary.json").read_text(encoding="utf-8")
    assert "ADA309" in summary and "OCR is off" in summary
    assert main(["chunk", str(path), "-o", str(tmp_path / "c.jsonl"), "--ocr", "off"]) != 0
    assert "OCR is off" in capsys.readouterr().err


@needs_engine
@pytest.mark.parametrize("turn", [90, 180, 270])
def test_scan_set_sideways_or_upside_down_is_read_upright(tmp_path, turn):
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(build_scan(tmp_path / "scan.pdf"))
    doc[0].set_rotation(turn)  # the page shows the scan turned, as a scanner fed sideways would
    buf = io.BytesIO()
    doc.save(buf)
    doc.close()
    (tmp_path / "turned.pdf").write_bytes(buf.getvalue())
    text = convert_pdf(tmp_path / "turned.pdf").text
    assert "# Quarterly Report" in text and "The committee approved the budget" in text
