"""Bounded inputs (issue 15, items 10, 12, 15): non-regular files, the input size limit, JSON
nested too deeply, invalid ``split_points``.

A FIFO once blocked ``adachunk chunk`` forever and a glob reaching ``/dev/zero`` read until a
MemoryError; a 100k-deep JSON was a RecursionError traceback; out-of-range, boolean, duplicate
split points were accepted and Block Integrity counted phantom blocks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pytest

from adachunk.errors import CODES, InputError
from adachunk.ingest import InputWarning, check_input_file, read_document
from adachunk.ingest.discover import expand_inputs

from .conftest import EXAMPLES, FAST_PROFILE

ROOT = Path(__file__).resolve().parent.parent
HANG_S = 60  # a refused input answers at once; this only bounds a regression to a failure
fifo_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([sys.executable, "-m", "adachunk.cli.main", *args], capture_output=True, text=True,
                              timeout=HANG_S, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    except subprocess.TimeoutExpired:
        pytest.fail(f"adachunk {' '.join(args)} hangs")


@pytest.fixture()
def fifo(tmp_path) -> Path:
    path = tmp_path / "pipe.md"
    os.mkfifo(path)
    return path


def call_on_fifo(fifo: Path, fn, wait_s: float = 20):
    """``fn()`` in a thread; should it block (in ``open`` of the FIFO), write EOF into the pipe to
    free the thread, then fail. Returns fn's result or the exception it raised."""
    box: dict = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the test
            box["value"] = exc

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(wait_s)
    blocked = t.is_alive()
    if blocked:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # a reader is waiting: this opens, EOF
        t.join(HANG_S)
    assert not blocked, f"{fn} blocks on a FIFO"
    return box["value"]


@fifo_only
def test_fifo_named_directly_is_refused(fifo):
    err = call_on_fifo(fifo, lambda: read_document(fifo))
    assert isinstance(err, InputError), err
    assert err.code == "ADA302" and "FIFO" in err.message and str(fifo) in err.render()
    r = run_cli("chunk", str(fifo))
    assert r.returncode == 2 and "ADA302" in r.stderr and str(fifo) in r.stderr and "Traceback" not in r.stderr


@fifo_only
def test_fifo_via_glob_is_refused_and_the_rest_is_chunked(tmp_path, fifo):
    (tmp_path / "real.md").write_text("# Title\n\nSome text here.\n", encoding="utf-8")
    r = run_cli("chunk", str(tmp_path / "*.md"))
    assert r.returncode == 2 and "ADA302" in r.stderr and str(fifo) in r.stderr and "Traceback" not in r.stderr
    assert [json.loads(x)["source"] for x in r.stdout.splitlines()] == [str(tmp_path / "real.md")]


@fifo_only
def test_folder_expansion_skips_fifos(tmp_path, fifo):
    (tmp_path / "real.md").write_text("text\n", encoding="utf-8")
    assert list(expand_inputs([str(tmp_path)], [".md"])) == [str(tmp_path / "real.md")]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_glob_reaching_dev_zero_is_refused(tmp_path):
    (tmp_path / "zero.md").symlink_to("/dev/zero")
    with pytest.raises(InputError) as err:
        check_input_file(tmp_path / "zero.md")
    assert err.value.code == "ADA302" and "character device" in err.value.message
    r = run_cli("chunk", str(tmp_path / "*.md"))
    assert r.returncode == 2 and "ADA302" in r.stderr and "zero.md" in r.stderr
    assert "MemoryError" not in r.stderr and "Traceback" not in r.stderr


def test_file_over_the_size_limit_is_refused_before_reading(tmp_path, monkeypatch):
    f = tmp_path / "big.md"
    f.write_text("word " * 1000, encoding="utf-8")  # 5000 bytes
    with pytest.raises(InputError) as err:
        read_document(f, max_bytes=4000)
    assert err.value.code == "ADA318" and str(f) in err.value.render() and "ADA318" in CODES
    assert read_document(f, max_bytes=5000).text == "word " * 1000
    monkeypatch.setenv("ADACHUNK_MAX_INPUT_BYTES", "4999")
    with pytest.raises(InputError):
        read_document(f)
    assert read_document(f, max_bytes=10_000).text  # an explicit limit wins over the environment
    r = run_cli("chunk", str(f), "--max-input-mb", "0.004")
    assert r.returncode == 2 and "ADA318" in r.stderr and "--max-input-mb" in r.stderr
    r = run_cli("chunk", str(f), env={"ADACHUNK_MAX_INPUT_BYTES": "1000"})
    assert r.returncode == 2 and "ADA318" in r.stderr
    assert run_cli("chunk", str(f), "--max-input-mb", "1").returncode == 0


def test_size_limit_also_bounds_pdf_reads(tmp_path):
    f = tmp_path / "x.pdf"
    f.write_bytes(b"%PDF-1.4\n" + b"0" * 3000)
    with pytest.raises(InputError) as err:
        read_document(f, max_bytes=2000)
    assert err.value.code == "ADA318"


def deep_json(tmp_path: Path, depth: int = 100_000) -> Path:
    f = tmp_path / "deep.json"
    f.write_text('{"full_text": "Some text.", "titles": ' + "[" * depth + "]" * depth + "}", encoding="utf-8")
    return f


def test_deeply_nested_json_is_an_input_error(tmp_path):
    f = deep_json(tmp_path)
    with pytest.raises(InputError) as err:
        read_document(f)
    assert err.value.code == "ADA304" and "nested too deeply" in err.value.message
    r = run_cli("chunk", str(f))
    assert r.returncode == 2 and "ADA304" in r.stderr and "RecursionError" not in r.stderr


def _job_options(tmp_path: Path):
    from adachunk.runner.job import JobOptions

    profile = tmp_path / "fast.yaml"
    profile.write_text(FAST_PROFILE, encoding="utf-8")
    return JobOptions(profile=str(profile), index=False)


def test_deeply_nested_json_in_run_is_a_failed_document_with_its_code(tmp_path):
    from adachunk.runner.job import process_path

    res = process_path(str(deep_json(tmp_path)), _job_options(tmp_path))
    assert not res.ok and res.error_code == "ADA304", res.error


@fifo_only
def test_fifo_in_run_is_a_failed_document_with_its_code(tmp_path, fifo):
    """The per-document job of ``adachunk run``: a FIFO is a failed document (ADA302), never a
    worker blocked in ``open``."""
    from adachunk.runner.job import process_path

    res = call_on_fifo(fifo, lambda: process_path(str(fifo), _job_options(tmp_path)))
    assert not res.ok and res.error_code == "ADA302", res.error


def parsed(tmp_path: Path, split_points) -> Path:
    f = tmp_path / "doc.json"
    text = "Block one.\n\nBlock two.\n\nBlock three.\n"  # 37 characters
    f.write_text(json.dumps({"document_name": "D", "full_text": text, "split_points": split_points}))
    return f


@pytest.mark.parametrize("bad", [[12, 24, 500], [12, True, 24], [12, 24.5, "24", None, 24], [24, 12, 12, 24],
                                 [0, 12, 24, 37], [-3, 12, 24]])
def test_invalid_split_points_are_dropped_with_a_counted_warning(tmp_path, bad):
    with pytest.warns(InputWarning, match=r"dropped \d+ invalid split point") as rec:
        doc = read_document(parsed(tmp_path, bad))
    assert doc.split_points == [12, 24]
    dropped = len(bad) - 2
    assert doc.meta["split_points_dropped"] == dropped and f"dropped {dropped} " in str(rec[0].message)
    assert str(tmp_path / "doc.json") in str(rec[0].message)


def test_valid_split_points_pass_silently(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        doc = read_document(parsed(tmp_path, [12, 24]))
    assert doc.split_points == [12, 24] and "split_points_dropped" not in doc.meta


def test_block_integrity_sees_no_phantom_block(tmp_path):
    from adachunk.metrics.blocks import protected_blocks

    with pytest.warns(InputWarning):
        doc = read_document(parsed(tmp_path, [12, 24, 500, True]))
    blocks, origin = protected_blocks(doc)
    assert origin == "gold" and blocks == [(0, 12), (12, 24), (24, 37)]


def test_split_points_that_are_not_a_list_stay_an_error(tmp_path):
    with pytest.raises(InputError) as err:
        read_document(parsed(tmp_path, True))
    assert err.value.code == "ADA304"


def test_examples_are_within_the_default_limit():
    for f in sorted(EXAMPLES.glob("*.md")):
        assert check_input_file(f) == f.stat().st_size


# Large-document mode (item 14): segments cut at safe boundaries, whole-document offsets and ids.

SECTION = "## Part {i}\n\nA sentence about part {i}. Another one follows it here.\n\n```\ncode {i}\n\nmore code\n```\n\n"


def test_segment_bounds_fall_before_headings_and_outside_fences():
    from adachunk.split.segments import segment_bounds

    text = "".join(SECTION.format(i=i) for i in range(200))
    bounds = segment_bounds(text, 1000)
    assert bounds[0] == 0 and bounds[-1] == len(text) and len(bounds) > 10
    assert all(0 < b - a <= 1000 for a, b in zip(bounds, bounds[1:]))
    assert all(text.startswith("## Part", b) for b in bounds[1:-1])
    fence_less = "x" * 5000
    assert segment_bounds(fence_less, 1000) == [0, 1000, 2000, 3000, 4000, 5000]
    # a fence (blank lines inside) across the second half of the window: the cut is outside it
    fenced = "para.\n\n" * 100 + "```\n" + "line\n\n" * 70 + "```\n\n" + "tail.\n\n" * 200
    inner = segment_bounds(fenced, 1000)[1:-1]
    assert inner and all(fenced[:b].count("```") % 2 == 0 for b in inner)


def test_large_document_mode_keeps_exact_offsets_ids_and_links(tmp_path):
    from adachunk.datatypes import Document, chunk_id

    text = "# Title\n\n" + "".join(SECTION.format(i=i) for i in range(120))
    f = tmp_path / "big.md"
    f.write_text(text, encoding="utf-8")
    r = run_cli("chunk", str(f), "--segment-chars", "2000", "--max-size", "60", "--min-size", "0")
    assert r.returncode == 0, r.stderr
    recs = [json.loads(x) for x in r.stdout.splitlines()]
    digest = Document(id="big", text=text).content_hash
    pos = 0
    for i, rec in enumerate(recs):
        assert rec["index"] == i and rec["start"] == pos and text[rec["start"]:rec["end"]] == rec["text"]
        assert rec["id"] == chunk_id("big.md", rec["profile_fingerprint"], rec["start"], rec["end"], digest)
        pos = rec["end"]
    assert pos == len(text) and len({rec["id"] for rec in recs}) == len(recs)
    if "prev_id" in recs[0]:
        assert all(a["next_id"] == b["id"] and b["prev_id"] == a["id"] for a, b in zip(recs, recs[1:]))
    whole = run_cli("chunk", str(f), "--max-size", "60", "--min-size", "0")
    assert whole.returncode == 0 and whole.stdout != r.stdout  # the segmented run did take the other path
    # under the threshold nothing changes: the same bytes as the whole-document run
    assert run_cli("chunk", str(f), "--segment-chars", str(len(text)), "--max-size", "60",
                   "--min-size", "0").stdout == whole.stdout


def test_reading_does_not_allocate_the_size_limit(tmp_path):
    import tracemalloc

    f = tmp_path / "small.md"
    f.write_text("word " * 20_000, encoding="utf-8")
    tracemalloc.start()
    try:
        read_document(f)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20  # a read(limit + 1) would ask for the 512 MB limit at once


@fifo_only
def test_fifo_in_a_whole_run_fails_that_document_only(tmp_path, fifo):
    """``adachunk run`` over a folder's files and a FIFO named beside them: the FIFO is a failed
    document with ADA302, the others are chunked, and nothing blocks."""
    from adachunk.runner import run_corpus

    from .conftest import EXAMPLES, FAST_PROFILE

    prof = tmp_path / "fast.yaml"
    prof.write_text(FAST_PROFILE)
    doc = EXAMPLES / "regulation_excerpt.md"
    res = call_on_fifo(fifo, lambda: run_corpus([str(doc), str(fifo)], str(prof), tmp_path / "out", workers=1,
                                                progress=False, sink="none"))
    assert res.failed == 1 and res.chunks > 0
    assert "ADA302" in res.summary["failures"][0]["error"]


def test_a_detector_time_limit_names_the_document(tmp_path, capsys):
    """ADA306 (a catastrophic regular expression) says which document, not ``<input>``."""
    from adachunk.cli.main import main

    prof = tmp_path / "evil.yaml"
    prof.write_text("name: evil\nextends: default\nstructures:\n"
                    "  evil: {type: regex.v1, pattern: '(a|aa)+$', timeout_s: 0.5}\n"
                    "rules:\n  items:\n    - {name: evil, structure: evil, on: {shape: const, scale: 10}}\n")
    doc = tmp_path / "doc.md"
    doc.write_text("Some words in a paragraph.\n\n" * 300 + "a" * 40 + "b\n")  # over one chunk: detected
    assert main(["chunk", str(doc), "--profile", str(prof)]) == 2
    err = capsys.readouterr().err
    assert f"ADA306 {doc}" in err and "<input>" not in err


def test_suffix_function_is_called_only_for_folders(tmp_path):
    """A command naming its files never lists the readers (that scans plugins' entry points)."""
    (tmp_path / "a.md").write_text("text\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("text\n", encoding="utf-8")
    calls = []

    def suffixes():
        calls.append(1)
        return [".MD"]

    assert list(expand_inputs([str(tmp_path / "a.md")], suffixes)) == [str(tmp_path / "a.md")]
    assert calls == []
    assert list(expand_inputs([str(tmp_path), str(tmp_path)], suffixes)) == [str(tmp_path / "a.md")] * 2
    assert calls == [1]
