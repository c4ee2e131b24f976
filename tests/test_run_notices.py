"""``adachunk run`` keeps a document's notices (issue 49, "Notices lost"): captured where the
document is processed (a worker too), printed once by the main process in the one-line coded
form, recorded per document in decisions.jsonl and counted in summary.json; ``failed:`` lines
name the file once; the closing report says how many documents had nothing to compare."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from adachunk.errors import AdachunkWarning
from adachunk.runner import run_corpus
from adachunk.runner.progress import Progress

from .conftest import FAST_PROFILE

ROOT = Path(__file__).resolve().parents[1]
REAL_PDF = ROOT.parent / "shared" / "corpus" / "pdf-real" / "diesel_engines.pdf"
ADA401 = ("dropped 1 invalid split point(s) (not an integer, outside 1..22 or duplicated); 1 kept")


@pytest.fixture()
def corpus(tmp_path) -> tuple[Path, Path, Path]:
    """A folder with a parsed JSON whose split points raise a real ADA401, a clean Markdown file
    and a corrupt PDF (ADA310); and the fast profile."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "bad.json").write_text(json.dumps({"document_name": "D", "full_text": "Block one.\n\nBlock two.\n",
                                                 "split_points": [12, 500]}))
    (folder / "good.md").write_text("# Title\n\nSome prose here. Another sentence.\n")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 garbage")
    prof = tmp_path / "fast.yaml"
    prof.write_text(FAST_PROFILE)
    return folder, prof, tmp_path / "out"


def _cli(*args: str) -> subprocess.CompletedProcess:
    """The console command in a fresh process: what a user sees, workers' stderr included."""
    return subprocess.run([sys.executable, "-m", "adachunk.cli.main", "run", *args],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


def _outputs(out: Path) -> tuple[dict, dict]:
    decisions = {Path(d["source"]).name: d for d in map(json.loads, (out / "decisions.jsonl").read_text().splitlines())}
    return decisions, json.loads((out / "summary.json").read_text())


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_notice_is_printed_once_recorded_and_counted(corpus, workers):
    folder, prof, out = corpus
    res = _cli(str(folder), "--profile", str(prof), "--out", str(out), "--sink", "none", "--workers", workers)
    assert res.returncode == 2, res.stderr  # the corrupt PDF failed
    lines = res.stderr.splitlines()
    # one coded line, as a one-process `chunk` prints it: no "file.py:290: InputWarning:" and source line
    assert lines.count(f"ADA401 {folder / 'bad.json'}: {ADA401}.") == 1
    assert not [x for x in lines if "Warning:" in x or x.startswith("  return ")], res.stderr
    assert "  notices: ADA401 ×1 (each document's in decisions.jsonl)" in lines
    # the failure names the file once
    (failed,) = [x for x in lines if x.startswith("  failed:")]
    assert failed.startswith(f"  failed: ADA310 {folder / 'broken.pdf'}: ") and failed.count("broken.pdf") == 1
    decisions, summary = _outputs(out)
    assert decisions["bad.json"]["notices"] == [{"code": "ADA401", "message": ADA401}]
    assert decisions["good.md"]["notices"] == [] and decisions["broken.pdf"]["notices"] == []
    assert summary["notices"] == {"ADA401": 1}
    # the closing report says what summary.json says about documents decided without a comparison
    n, ok = summary["unscored"]["documents"], summary["totals"]["ok"]
    line = f"  selection: {n} of {ok} documents had nothing to compare (decided by select.unscored)"
    assert (line in lines) == bool(n)


def test_resumed_documents_keep_their_notices(corpus):
    folder, prof, out = corpus
    with pytest.warns(AdachunkWarning, match="^ADA401 .*bad.json: dropped 1 invalid split point"):
        run_corpus([str(folder)], str(prof), out, workers=1, sink="none", progress=False)
    with warnings.catch_warnings(record=True) as again:
        warnings.simplefilter("always")
        res = run_corpus([str(folder)], str(prof), out, workers=1, sink="none", progress=False, resume=True)
    assert res.skipped == 2  # the two chunked documents, not processed again: no notice shown again
    assert not [w for w in again if isinstance(w.message, AdachunkWarning)]
    decisions, summary = _outputs(out)
    assert decisions["bad.json"]["notices"][0]["code"] == "ADA401" and summary["notices"] == {"ADA401": 1}


def test_a_notice_is_shown_again_when_the_document_is_processed_again(corpus):
    folder, prof, out = corpus
    for _ in range(2):  # the same text in one process: not swallowed by warnings' once-per-place registry
        with pytest.warns(AdachunkWarning, match="^ADA401"):
            run_corpus([str(folder / "bad.json")], str(prof), out, workers=1, sink="none", progress=False)


def test_notices_clear_the_progress_line_first():
    stream = io.StringIO()
    bar = Progress(3, stream=stream, enabled=True)
    bar.update(2, False)
    bar.above(lambda: stream.write("ADA406 a.pdf: 3 glyphs dropped.\n"))
    bar.update(1, False)  # drawn again at once, below the notice
    text = stream.getvalue()
    drawn = "[1/3] chunks 2, failed 0, ETA "
    assert text.startswith("\r" + drawn)
    cleared = text.index("\r" + " " * (len(text.split("\r")[1])) + "\rADA406 a.pdf: 3 glyphs dropped.\n")
    assert text[cleared:].split("\n", 1)[1].startswith("\r[2/3] chunks 3")


@pytest.mark.parametrize("real", [False, True], ids=["generated", "real"])
def test_a_pdf_with_unmapped_glyphs_reports_ada406_from_a_worker(tmp_path, real):
    """A PDF whose font maps glyphs to no character (a generated one, and a real one where
    ../shared is at hand), in a two-worker run: one ADA406 line, in decisions.jsonl and counted
    in summary.json."""
    if real and not REAL_PDF.exists():
        pytest.skip("../shared/corpus/pdf-real is not available")
    from .hostile import gen

    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "d.pdf").write_bytes(REAL_PDF.read_bytes() if real else gen.unmapped_glyphs())
    (folder / "good.md").write_text("# Title\n\nSome prose here.\n")
    prof = tmp_path / "fast.yaml"
    prof.write_text(FAST_PROFILE)
    res = _cli(str(folder), "--profile", str(prof), "--out", str(tmp_path / "out"), "--sink", "none", "--workers", "2")
    assert res.returncode == 0, res.stderr
    lines = res.stderr.splitlines()
    assert len([x for x in lines if x.startswith(f"ADA406 {folder / 'd.pdf'}: ")]) == 1
    assert not [x for x in lines if "Warning:" in x], res.stderr
    decisions, summary = _outputs(tmp_path / "out")
    assert [n["code"] for n in decisions["d.pdf"]["notices"]] == ["ADA406"] and summary["notices"] == {"ADA406": 1}
