"""``adachunk run``: the adaptive main job end to end (outputs, determinism, resume, faults)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adachunk.datatypes import METRIC_KEYS

from adachunk.cli.main import main
from adachunk.errors import InputError
from adachunk.runner import run_corpus

from .conftest import FAST_PROFILE, copy_examples

FAST = FAST_PROFILE


@pytest.fixture()
def fast_profile(tmp_path) -> str:
    p = tmp_path / "fast.yaml"
    p.write_text(FAST)
    return str(p)


@pytest.fixture()
def corpus(tmp_path) -> Path:
    return copy_examples(tmp_path / "corpus")


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_run_writes_every_output(corpus, fast_profile, tmp_path):
    out = tmp_path / "out"
    res = run_corpus([str(corpus)], fast_profile, out, workers=1, progress=False)
    assert res.ok and res.documents == 3 and res.failed == 0
    chunks = _lines(out / "chunks.jsonl")
    assert chunks and {"id", "doc_id", "source", "start", "end", "text", "splitter", "scores", "profile_fingerprint"} <= set(chunks[0])
    for doc in {c["source"] for c in chunks}:
        text = Path(doc).read_text(encoding="utf-8")
        mine = [c for c in chunks if c["source"] == doc]
        assert "".join(c["text"] for c in mine) == text
        assert all(text[c["start"]:c["end"]] == c["text"] for c in mine)
    decisions = _lines(out / "decisions.jsonl")
    assert len(decisions) == 3
    for d in decisions:
        assert [c["name"] for c in d["candidates"]] == ["dp.v1", "recursive_600", "fixed"]
        assert d["winner"] in ("dp.v1", "recursive_600", "fixed")
        assert all(set(METRIC_KEYS) == set(c["scores"]) for c in d["candidates"])
        assert all("split_s" in c["seconds"] and c["stats"]["chunks"] > 0 for c in d["candidates"])
    summary = json.loads((out / "summary.json").read_text())
    assert summary["totals"]["chunks"] == len(chunks)
    assert abs(sum(summary["selection_frequency"].values()) - 100) < 0.1
    assert set(summary["candidates"]) == {"dp.v1", "recursive_600", "fixed"}
    import pyarrow.parquet as pq

    table = pq.read_table(out / "chunks.parquet")
    assert table.num_rows == len(chunks) and table.column("id").to_pylist() == [c["id"] for c in chunks]
    from adachunk.sink.vectors import LanceDBSink

    assert LanceDBSink(out / "lancedb").count() == len(chunks)


def test_search_finds_indexed_chunks(corpus, fast_profile, tmp_path, capsys):
    out = tmp_path / "out"
    run_corpus([str(corpus)], fast_profile, out, workers=1, progress=False)
    assert main(["search", str(out), "lease liabilities maturity", "-k", "3", "--format", "json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert len(hits) == 3 and all("score" in h and h["text"] for h in hits)
    assert any("financial" in h["source"] for h in hits)


def test_search_table_shows_pages(fast_profile, tmp_path, capsys):
    """The table of `search` names each hit's pages (as `--format json` does) when it has any."""
    from adachunk.cli.run_cmd import _pages

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "paged.md").write_text("# Title\n\nPage one about leases.\n\n<!-- PageBreak -->\n\n"
                                     "Page two about the maturity of lease liabilities.\n", encoding="utf-8")
    (corpus / "plain.md").write_text("# Plain\n\nNo page markers in this lease note.\n", encoding="utf-8")
    out = tmp_path / "out"
    run_corpus([str(corpus)], fast_profile, out, workers=1, progress=False)
    capsys.readouterr()
    assert main(["search", str(out), "maturity of lease liabilities", "-k", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any("paged.md #0 pp. 1-2 [Title]" in x for x in lines)
    assert any("plain.md #0 [Plain]" in x for x in lines)  # no pages: no column text
    assert main(["search", str(out), "maturity of lease liabilities", "-k", "2", "--format", "json"]) == 0
    assert {h["doc_id"]: h["pages"] for h in json.loads(capsys.readouterr().out)}["paged.md"] == [1, 2]
    assert (_pages([3]), _pages([1, 2, 3, 5, 7, 8]), _pages([])) == ("p. 3", "pp. 1-3, 5, 7-8", "")


def test_deterministic_and_rerun_upserts(corpus, fast_profile, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    run_corpus([str(corpus)], fast_profile, a, workers=2, progress=False)
    run_corpus([str(corpus)], fast_profile, b, workers=1, progress=False)
    assert (a / "chunks.jsonl").read_bytes() == (b / "chunks.jsonl").read_bytes()
    run_corpus([str(corpus)], fast_profile, a, workers=1, progress=False)  # re-run: upsert, no duplicates
    from adachunk.sink.vectors import LanceDBSink

    assert LanceDBSink(a / "lancedb").count() == len(_lines(a / "chunks.jsonl"))


def test_resume_skips_done_documents(corpus, fast_profile, tmp_path):
    out = tmp_path / "out"
    first = run_corpus([str(corpus)], fast_profile, out, workers=1, progress=False)
    again = run_corpus([str(corpus)], fast_profile, out, workers=1, resume=True, progress=False)
    assert again.skipped == 3 and again.processed == 0
    assert again.chunks == first.chunks
    (corpus / "regulation_excerpt.md").write_text("# Changed\n\nNew content.\n", encoding="utf-8")
    third = run_corpus([str(corpus)], fast_profile, out, workers=1, resume=True, progress=False)
    assert third.processed == 1 and third.skipped == 2


def test_resume_after_an_upgrade_chunks_everything_again(corpus, fast_profile, tmp_path, monkeypatch):
    """A resumed run keeps no document chunked by another adachunk version: its reading or cuts
    may have changed (a PDF reader that takes page numbers out), and the folder would mix two
    versions' chunks. The version is the code's digest (adachunk.runtime.code)."""
    from adachunk.runtime import code

    out = tmp_path / "out"
    run_corpus([str(corpus)], fast_profile, out, workers=1, progress=False)
    assert run_corpus([str(corpus)], fast_profile, out, workers=1, resume=True, progress=False).processed == 0
    monkeypatch.setattr(code, "code_digest", lambda: "9.9.9+upgraded")
    again = run_corpus([str(corpus)], fast_profile, out, workers=1, resume=True, progress=False)
    assert again.processed == 3 and again.skipped == 0
    # a resume on part of the inputs keeps no other document of the former version either
    monkeypatch.setattr(code, "code_digest", lambda: "9.9.10+upgraded")
    part = run_corpus([str(corpus / "regulation_excerpt.md")], fast_profile, out, workers=1, resume=True,
                      progress=False)
    assert part.processed == 1 and part.skipped == 0
    sources = {Path(d["source"]).name for d in _lines(out / "decisions.jsonl")}
    assert sources == {"regulation_excerpt.md"}


def test_code_digest_is_the_version_and_a_stable_hash():
    from adachunk.runtime import code

    first = code.code_digest()
    assert first.startswith("0.") and len(first.split("+")[1]) == 16 and code.code_digest() == first
    code.code_digest.cache_clear()
    assert code.code_digest() == first  # deterministic


def test_corrupt_input_is_recorded_and_others_done(corpus, fast_profile, tmp_path):
    (corpus / "broken.md").write_bytes(b"valid start \xff\xfe then garbage")
    out = tmp_path / "out"
    res = run_corpus([str(corpus)], fast_profile, out, workers=1, progress=False)
    assert res.failed == 1 and not res.ok
    decisions = {Path(d["source"]).name: d for d in _lines(out / "decisions.jsonl")}
    assert not decisions["broken.md"]["ok"] and "ADA301" in decisions["broken.md"]["error"]
    assert sum(d["ok"] for d in decisions.values()) == 3
    assert main(["run", str(corpus), "--profile", fast_profile, "--out", str(tmp_path / "o2"), "-j", "1", "-q"]) == 2


def test_llm_endpoint_down_records_fallback(corpus, tmp_path):
    prof = tmp_path / "llm.yaml"
    prof.write_text(FAST.replace("  - {type: fixed.v1, name: fixed}\n",
                                 "  - {type: llm_regex.v1, base_url: 'http://127.0.0.1:9/v1', timeout_s: 1, max_retries: 0,"
                                 " name: llm, cache: false}\n"))
    out = tmp_path / "out"
    res = run_corpus([str(corpus)], str(prof), out, workers=1, progress=False)
    assert res.ok
    for d in _lines(out / "decisions.jsonl"):
        llm = next(c for c in d["candidates"] if c["name"] == "llm")
        assert llm["status"] == "fallback" and llm["fallback"]["reason"] in ("endpoint_unreachable", "no_api_key")
        assert d["winner"] != "llm"  # fallbacks are excluded while another candidate is ok


def test_unwritable_output_is_coded_error(corpus, fast_profile, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InputError) as exc:
        run_corpus([str(corpus)], fast_profile, blocker / "out", workers=1, progress=False)
    assert exc.value.code == "ADA307"


def test_disk_full_during_assembly_is_coded_error(corpus, fast_profile, tmp_path, monkeypatch):
    import adachunk.sink.outputs as outputs

    class Full:
        def __init__(self, *a, **k):
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(outputs, "ParquetWriter", Full)
    with pytest.raises(InputError) as exc:
        run_corpus([str(corpus)], fast_profile, tmp_path / "out", workers=1, progress=False)
    assert exc.value.code == "ADA307" or "No space" in str(exc.value)


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def test_killed_worker_then_resume_gives_identical_outputs(corpus, fast_profile, tmp_path):
    for i in range(6):  # enough documents that the kill lands mid-run
        shutil.copy(corpus / "technical_manual_excerpt.md", corpus / f"copy_{i}.md")
    ref = tmp_path / "ref"
    run_corpus([str(corpus)], fast_profile, ref, workers=1, progress=False, sink="none")
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "adachunk.cli.main", "run", str(corpus), "--profile", fast_profile, "--out", str(out),
           "-j", "2", "-q", "--sink", "none"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = out / ".adachunk" / "results"
    deadline = time.time() + 240
    killed = False
    while time.time() < deadline and proc.poll() is None:
        if results.is_dir() and any(results.glob("*.json")):
            # pool workers are spawned children running spawn_main (not the resource tracker);
            # the one killed is running (state R): an idle worker, killed between two documents,
            # holds none and fails nothing
            for child in _children(proc.pid):
                try:
                    cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
                    state = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0]
                except (OSError, IndexError):
                    continue
                if b"spawn_main" in cmdline and state == "R":
                    os.kill(child, signal.SIGKILL)
                    killed = True
                    break
            if killed:
                break
        time.sleep(0.05)
    _, err = proc.communicate(timeout=240)
    if not killed:
        pytest.skip("the run finished before a worker could be killed")
    summary = out / "summary.json"
    failures = json.loads(summary.read_text(encoding="utf-8"))["failures"] if summary.is_file() else None
    if proc.returncode == 0 and not failures:  # it finished its document between the read and the kill
        pytest.skip("the worker killed held no document at that instant")
    # the run went on: the killed worker's document alone failed (ADA327), named in the summary
    assert proc.returncode == 2, err
    assert len(failures) == 1 and failures[0]["error"].startswith(f"ADA327 {failures[0]['source']}")
    assert str(corpus) in failures[0]["source"]
    # a plain --resume keeps that failure (a bound's); --retry-failed processes it again
    args = ["run", str(corpus), "--profile", fast_profile, "--out", str(out), "-j", "2", "-q", "--sink", "none",
            "--resume"]
    assert main(args) == 2
    assert main(args + ["--retry-failed"]) == 0
    assert (out / "chunks.jsonl").read_bytes() == (ref / "chunks.jsonl").read_bytes()
    assert len(_lines(out / "decisions.jsonl")) == len(_lines(ref / "decisions.jsonl"))


def test_dask_local_cluster_matches_local_pool(corpus, fast_profile, tmp_path):
    pytest.importorskip("dask.distributed")
    a, b = tmp_path / "a", tmp_path / "b"
    run_corpus([str(corpus)], fast_profile, a, workers=1, progress=False, sink="none")
    res = run_corpus([str(corpus)], fast_profile, b, backend="dask", workers=2, progress=False, sink="none")
    assert res.ok
    assert (a / "chunks.jsonl").read_bytes() == (b / "chunks.jsonl").read_bytes()


def test_qdrant_local_sink(corpus, fast_profile, tmp_path, capsys):
    pytest.importorskip("qdrant_client")
    out = tmp_path / "out"
    res = run_corpus([str(corpus)], fast_profile, out, workers=1, progress=False, sink="qdrant")
    from adachunk.sink.vectors import QdrantSink

    sink = QdrantSink(path=out / "qdrant")
    assert sink.count() == res.chunks
    sink.close()
    assert main(["search", str(out), "installation steps", "-k", "2"]) == 0
    assert "1. " in capsys.readouterr().out


def test_analysis_cache_is_filled_by_workers_and_changes_nothing(corpus, fast_profile, tmp_path):
    """`run --analysis-cache` with worker processes: the store is written by the workers, and a
    second run that loads it gives the same chunks as a run without a store."""
    from adachunk.analysis.store import AnalysisStore, use_store

    cache = tmp_path / "cache"
    try:
        use_store(cache)
        run_corpus([str(corpus)], fast_profile, tmp_path / "a", workers=2, sink="none", progress=False)
        entries = AnalysisStore(cache).entries()
        assert entries > 0
        run_corpus([str(corpus)], fast_profile, tmp_path / "b", workers=2, sink="none", progress=False)
        assert AnalysisStore(cache).entries() == entries  # everything loaded, nothing new
    finally:
        use_store(None)
    run_corpus([str(corpus)], fast_profile, tmp_path / "c", workers=1, sink="none", progress=False)
    rows = [[(r["id"], r["start"], r["end"], r["tokens"]) for r in _lines(tmp_path / d / "chunks.jsonl")]
            for d in "abc"]
    assert rows[0] == rows[1] == rows[2]
