"""``adachunk convert`` under the per-document bounds (issue 50, item 1): in a folder, a file
past ``--doc-timeout`` fails alone with ``ADA325``, its worker is replaced, and the files
around it are written."""

from __future__ import annotations

from . import gen
from .bounded import cli_in_child, write_file


def test_a_hanging_pdf_fails_alone_at_its_deadline_and_the_others_are_converted(tmp_path):
    corpus = tmp_path / "in"
    corpus.mkdir()
    write_file(corpus, "a_good.pdf", gen.text_pdf("First good page."))
    write_file(corpus, "b_loop.pdf", gen.reference_loop())  # hangs pdfminer (its own budget: 60 s)
    write_file(corpus, "c_good.html", b"<html><body><p>Second good page.</p></body></html>")
    out = tmp_path / "out"
    o = cli_in_child("convert", str(corpus), "-o", str(out), "--doc-timeout", "3", "--ocr", "off", limit_s=60)
    assert not o.timed_out and o.rc == 2, (o.rc, o.err[-3000:])
    assert "Traceback" not in o.err
    assert any("b_loop.pdf" in line and "ADA325" in line for line in o.err.splitlines()), o.err[-3000:]
    assert o.wall_s < 30
    assert "First good page." in (out / "a_good.md").read_text()
    assert "Second good page." in (out / "c_good.md").read_text()
    assert not (out / "b_loop.md").exists()


def test_one_input_with_a_deadline_runs_bounded_too(tmp_path):
    f = write_file(tmp_path, "loop.pdf", gen.reference_loop())
    o = cli_in_child("convert", str(f), "-o", str(tmp_path / "loop.md"), "--doc-timeout", "2", limit_s=60)
    assert not o.timed_out and o.rc == 2 and "ADA325" in o.err, (o.rc, o.err[-3000:])
    assert o.wall_s < 30
