"""An output folder is a store: a lock, a manifest, and an index that holds exactly its chunks.

Each test reproduces one reported failure (stale rows, same-stem ids, aliases, concurrent runs,
index.json before the index, raw store errors) and checks the fixed behaviour.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adachunk.cli.main import main
from adachunk.errors import InputError
from adachunk.runner import run_corpus
from adachunk.runner.lock import OutputLock
from adachunk.sink.vectors import LanceDBSink

from .conftest import FAST_PROFILE, copy_examples

LEGAL_FAST = FAST_PROFILE.replace("extends: default", "extends: legal").replace("name: fast", "name: fast_legal")


@pytest.fixture()
def profiles(tmp_path) -> tuple[str, str]:
    a, b = tmp_path / "fast.yaml", tmp_path / "fast_legal.yaml"
    a.write_text(FAST_PROFILE)
    b.write_text(LEGAL_FAST)
    return str(a), str(b)


@pytest.fixture()
def corpus(tmp_path) -> Path:
    """The examples (SOURCES.md aside) copied into a folder the test may edit."""
    return copy_examples(tmp_path / "corpus")


def _chunks(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "chunks.jsonl").read_text(encoding="utf-8").splitlines()]


def _manifest_ids(out: Path) -> set[str]:
    data = json.loads((out / ".adachunk" / "manifest.json").read_text(encoding="utf-8"))
    return {cid for d in data["documents"] for cid in d["chunk_ids"]}


def _assert_consistent(out: Path) -> set[str]:
    """Index rows == chunks.jsonl == Parquet == manifest, no duplicate, one LanceDB version."""
    import pyarrow.parquet as pq

    ids = [c["id"] for c in _chunks(out)]
    assert len(ids) == len(set(ids))
    sink = LanceDBSink(out / "lancedb")
    assert sink.ids() == set(ids) == _manifest_ids(out)
    assert sink.count() == len(ids)
    assert pq.read_table(out / "chunks.parquet").column("id").to_pylist() == ids
    assert len(sink.db.open_table("chunks").list_versions()) == 1  # compacted, old versions cleaned
    assert (out / "index.json").exists()
    return set(ids)


def _run(inputs, profile, out, **kw):
    return run_corpus([str(i) for i in inputs], profile, out, workers=1, progress=False, **kw)


def test_another_profile_into_the_same_folder_leaves_no_stale_rows(corpus, profiles, tmp_path, capsys):
    fast, legal = profiles
    out = tmp_path / "out"
    _run([corpus], fast, out)
    first = _assert_consistent(out)
    res = _run([corpus], legal, out)
    second = _assert_consistent(out)
    assert first != second  # other fingerprint, other chunks: the old rows are gone
    idx = res.summary["index"]
    # legal embeds another string (its embed_text recipe): the index is rebuilt, else pruned
    assert idx["rebuilt"] or idx["deleted"] == len(first - second)
    assert main(["search", str(out), "retention of customer records", "-k", "10", "--format", "json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert len({h["id"] for h in hits}) == len(hits)


def test_edit_then_resume_and_fresh_run_into_an_old_folder(corpus, profiles, tmp_path):
    fast, _ = profiles
    out = tmp_path / "out"
    _run([corpus], fast, out)
    _assert_consistent(out)
    (corpus / "regulation_excerpt.md").write_text("# Changed\n\nNew content of the regulation.\n", encoding="utf-8")
    res = _run([corpus], fast, out, resume=True)
    assert res.processed == 1
    _assert_consistent(out)
    one = corpus / "technical_manual_excerpt.md"
    _run([one], fast, out)  # a fresh run: the folder now holds that one document only
    ids = _assert_consistent(out)
    assert {c["source"] for c in _chunks(out)} == {str(one)} and ids


def test_noop_resume_does_not_grow_the_index(corpus, profiles, tmp_path):
    fast, _ = profiles
    out = tmp_path / "out"
    _run([corpus], fast, out)

    def size() -> int:
        return sum(p.stat().st_size for p in (out / "lancedb").rglob("*") if p.is_file())

    before = size()
    for _ in range(3):
        res = _run([corpus], fast, out, resume=True)
        assert res.processed == 0 and res.summary["index"]["added"] == 0
        _assert_consistent(out)
    assert size() <= before


def test_same_file_name_in_two_folders_gives_two_documents(tmp_path, profiles):
    fast, _ = profiles
    for sub, text in (("a", "# Lease A\n\nThe tenant pays rent monthly.\n"), ("b", "# Lease B\n\nRent is due yearly.\n")):
        (tmp_path / "in" / sub).mkdir(parents=True)
        (tmp_path / "in" / sub / "contract.md").write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    res = _run([tmp_path / "in"], fast, out)
    chunks = _chunks(out)
    assert res.documents == 2 and {c["doc_id"] for c in chunks} == {"a/contract.md", "b/contract.md"}
    assert len(_assert_consistent(out)) == len(chunks) == 2
    # listed as two files, the keys still differ (the root is their common folder)
    out2 = tmp_path / "out2"
    _run([tmp_path / "in" / "a" / "contract.md", tmp_path / "in" / "b" / "contract.md"], fast, out2)
    assert {c["doc_id"] for c in _chunks(out2)} == {"a/contract.md", "b/contract.md"}


def test_identical_texts_under_two_names_keep_two_ids(tmp_path, profiles):
    fast, _ = profiles
    (tmp_path / "in").mkdir()
    for name in ("x.md", "y.md"):
        (tmp_path / "in" / name).write_text("# Same\n\nSame text.\n", encoding="utf-8")
    out = tmp_path / "out"
    _run([tmp_path / "in"], fast, out)
    assert len(_assert_consistent(out)) == 2


def test_one_file_listed_three_times_is_chunked_once(corpus, profiles, tmp_path):
    fast, _ = profiles
    doc = corpus / "financial_report_excerpt.md"
    alias = tmp_path / "alias.md"
    alias.symlink_to(doc)
    out = tmp_path / "out"
    res = _run([corpus, doc, alias], fast, out)
    assert res.documents == 3
    sources = [c["source"] for c in _chunks(out)]
    assert len(sources) == len(set(c["id"] for c in _chunks(out)))
    assert len(res.summary["documents"]["aliases"]) == 2
    _assert_consistent(out)


def test_a_held_folder_is_refused_with_a_coded_error(corpus, profiles, tmp_path):
    fast, _ = profiles
    out = tmp_path / "out"
    with OutputLock(out):
        with pytest.raises(InputError) as err:
            _run([corpus], fast, out)
        assert err.value.code == "ADA319" and str(os.getpid()) in err.value.message
    _run([corpus], fast, out)  # released: the next run goes
    _assert_consistent(out)


def test_wait_takes_the_folder_when_the_holder_finishes(corpus, profiles, tmp_path):
    import threading

    fast, _ = profiles
    out = tmp_path / "out"
    lock = OutputLock(out).__enter__()
    threading.Timer(1.0, lock.release).start()
    res = _run([corpus], fast, out, wait=30)
    assert res.ok


def test_two_concurrent_runs_one_wins_one_gets_the_lock_error(corpus, profiles, tmp_path):
    fast, _ = profiles
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "adachunk.cli.main", "run", str(corpus), "--out", str(out), "--profile", fast,
           "-j", "1", "-q"]
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    procs = [subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=env)]
    deadline = time.time() + 60
    while not (out / ".adachunk" / "lock").exists() and time.time() < deadline:
        time.sleep(0.05)
    procs.append(subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=env))
    results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    codes = sorted(rc for rc, _ in results)
    assert codes == [0, 2], results
    loser = next(err for rc, err in results if rc == 2)
    assert "ADA319" in loser and "Traceback" not in loser
    _assert_consistent(out)


def test_index_json_only_after_a_complete_index(corpus, profiles, tmp_path, monkeypatch, capsys):
    from adachunk.sink import sync

    fast, _ = profiles
    out = tmp_path / "out"
    _run([corpus], fast, out)
    (corpus / "regulation_excerpt.md").write_text("# Changed\n\nOther text.\n", encoding="utf-8")

    def killed(self):
        raise KeyboardInterrupt  # the run dies while the index is being written

    monkeypatch.setattr(sync.IndexSync, "finish", killed)
    with pytest.raises(KeyboardInterrupt):
        _run([corpus], fast, out, resume=True)
    assert not (out / "index.json").exists()
    assert main(["search", str(out), "rent", "--format", "json"]) == 2
    assert "ADA312" in capsys.readouterr().err
    monkeypatch.undo()
    _run([corpus], fast, out, resume=True)  # the next run completes the index
    _assert_consistent(out)


def test_a_failing_index_write_is_a_coded_error(corpus, profiles, tmp_path, monkeypatch):
    fast, _ = profiles

    def full(self, records, vectors, *, new=False):
        raise RuntimeError("LanceError(IO): No space left on device (os error 28)")

    monkeypatch.setattr(LanceDBSink, "upsert", full)
    with pytest.raises(InputError) as err:
        _run([corpus], fast, tmp_path / "out")
    assert err.value.code == "ADA320" and "free some disk space" in err.value.hint
    assert (tmp_path / "out" / "chunks.jsonl").exists()  # the results are saved


def test_five_resumes_with_edits_renames_removals_and_a_profile_change(corpus, profiles, tmp_path):
    fast, legal = profiles
    out = tmp_path / "out"
    _run([corpus], fast, out)
    _assert_consistent(out)
    steps = [
        lambda: (corpus / "regulation_excerpt.md").write_text("# Edited\n\nA new rule.\n", encoding="utf-8"),
        lambda: (corpus / "technical_manual_excerpt.md").rename(corpus / "manual.md"),
        lambda: (corpus / "financial_report_excerpt.md").unlink(),
        lambda: (corpus / "added.md").write_text("# Added\n\nA new document.\n", encoding="utf-8"),
        None,  # the profile changes
    ]
    for i, step in enumerate(steps):
        if step:
            step()
        res = _run([corpus], legal if step is None else fast, out, resume=True)
        ids = _assert_consistent(out)
        on_disk = {p.name for p in corpus.glob("*.md")}
        assert {c["doc_id"] for c in _chunks(out)} == on_disk, i
        assert res.summary["index"]["rows"] == len(ids)


def test_resume_keeps_unlisted_documents_unless_pruned(corpus, profiles, tmp_path):
    fast, _ = profiles
    out = tmp_path / "out"
    _run([corpus], fast, out)
    one = corpus / "regulation_excerpt.md"
    res = _run([one], fast, out, resume=True)
    assert res.summary["documents"]["kept"] == 2 and len({c["doc_id"] for c in _chunks(out)}) == 3
    res = _run([one], fast, out, resume=True, prune=True)
    assert {c["doc_id"] for c in _chunks(out)} == {"regulation_excerpt.md"}
    assert len(res.summary["documents"]["dropped"]) == 2
    _assert_consistent(out)
    results = list((out / ".adachunk" / "results").glob("*.json"))
    assert len(results) == 1  # the dropped documents' saved results are gone too


@pytest.fixture()
def dask_cluster(tmp_path):
    """A real ``dask scheduler`` + ``dask worker`` on loopback, the worker in another folder."""
    pytest.importorskip("dask.distributed")
    exe = Path(sys.executable).with_name("dask")
    if not exe.exists():
        pytest.skip("the dask command line is not installed")
    elsewhere = tmp_path / "worker-home"
    elsewhere.mkdir()
    info = tmp_path / "scheduler.json"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    procs = [subprocess.Popen([str(exe), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                               "--scheduler-file", str(info)], cwd=elsewhere, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        deadline = time.time() + 60
        while not info.exists() and time.time() < deadline:
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        procs.append(subprocess.Popen([str(exe), "worker", "--scheduler-file", str(info), "--nworkers", "1",
                                       "--nthreads", "1", "--no-dashboard", "--local-directory", str(elsewhere)],
                                      cwd=elsewhere, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        from dask.distributed import Client

        with Client(address, timeout=60) as client:
            client.wait_for_workers(1, timeout=60)
        yield address
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


@pytest.mark.parametrize("ship", [False, True])
def test_dask_workers_in_another_folder_read_relative_inputs(corpus, profiles, tmp_path, monkeypatch, dask_cluster,
                                                            ship):
    fast, _ = profiles
    monkeypatch.chdir(tmp_path)
    serial = tmp_path / "serial"
    _run([corpus.relative_to(tmp_path)], fast, serial, sink="none")
    out = tmp_path / "dask"
    res = run_corpus([str(corpus.relative_to(tmp_path))], os.path.relpath(fast, tmp_path), out, backend="dask",
                     scheduler=dask_cluster, progress=False, sink="none", ship_inputs=ship)
    assert res.ok, res.summary["failures"]
    assert (out / "chunks.jsonl").read_bytes() == (serial / "chunks.jsonl").read_bytes()


def test_a_run_without_index_retires_the_old_one(corpus, profiles, tmp_path, capsys):
    fast, _ = profiles
    out = tmp_path / "out"
    _run([corpus], fast, out)
    (corpus / "regulation_excerpt.md").unlink()
    _run([corpus], fast, out, sink="none")
    assert not (out / "index.json").exists()
    assert main(["search", str(out), "rent", "--format", "json"]) == 2
    assert "ADA312" in capsys.readouterr().err


def test_qdrant_index_is_brought_to_the_manifest_too(corpus, profiles, tmp_path):
    pytest.importorskip("qdrant_client")
    from adachunk.sink.vectors import QdrantSink

    fast, legal = profiles
    out = tmp_path / "out"
    _run([corpus], fast, out, sink="qdrant")
    _run([corpus], legal, out, sink="qdrant")
    sink = QdrantSink(path=out / "qdrant")
    try:
        assert sink.ids() == {c["id"] for c in _chunks(out)} == _manifest_ids(out)
        assert sink.count() == len(_chunks(out))
    finally:
        sink.close()


def test_an_index_of_another_recipe_is_rebuilt_from_the_saved_vectors(corpus, profiles, tmp_path):
    fast, _ = profiles
    out = tmp_path / "out"
    _run([corpus], fast, out)
    meta = json.loads((out / "index.json").read_text())
    meta["embedder"]["model"] = "another-model"
    (out / "index.json").write_text(json.dumps(meta))
    res = _run([corpus], fast, out, resume=True)
    assert res.processed == 0 and res.summary["index"]["rebuilt"] is True
    assert res.summary["index"]["added"] == len(_chunks(out))
    _assert_consistent(out)
    res = _run([corpus], fast, out, resume=True)  # the recipe matches again: every row kept
    assert res.summary["index"]["kept"] == len(_chunks(out)) and res.summary["index"]["added"] == 0


def test_keys_stay_stable_when_later_inputs_have_another_common_folder(tmp_path, profiles):
    fast, _ = profiles
    (tmp_path / "in" / "sub").mkdir(parents=True)
    (tmp_path / "in" / "c.md").write_text("# Top\n\nThe top-level note.\n", encoding="utf-8")
    (tmp_path / "in" / "sub" / "c.md").write_text("# Sub\n\nThe nested note.\n", encoding="utf-8")
    out = tmp_path / "out"
    _run([tmp_path / "in"], fast, out)
    assert {c["doc_id"] for c in _chunks(out)} == {"c.md", "sub/c.md"}
    # alone, sub/c.md would be "c.md" (its folder is the root): the folder keeps its key, re-chunks nothing
    res = _run([tmp_path / "in" / "sub" / "c.md"], fast, out, resume=True)
    assert res.processed == 0 and {c["doc_id"] for c in _chunks(out)} == {"c.md", "sub/c.md"}
    _assert_consistent(out)
    # a new file whose natural key another held file has gets its absolute path
    (tmp_path / "other").mkdir()
    new = tmp_path / "other" / "c.md"
    new.write_text("# Other\n\nAnother note.\n", encoding="utf-8")
    _run([new], fast, out, resume=True)
    assert {c["doc_id"] for c in _chunks(out)} == {"c.md", "sub/c.md", new.resolve().as_posix()}
    _assert_consistent(out)
