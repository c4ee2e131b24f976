"""Per-document bounds and a run that survives its workers (issue 50, items 1 and 2).

The hostile documents are ordinary text; what makes them hostile is a plugin detector, declared
the way a third party declares one (an ``adachunk.detectors`` entry point of an installed
distribution, here a ``.dist-info`` folder on ``PYTHONPATH``), that hangs, allocates without end
or kills its own process when the text holds a marker word. Each test runs ``adachunk run`` in a
fresh interpreter, so the plugin is found by the ordinary entry-point scan in the main process
and in every spawned worker, and nothing is monkeypatched.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from .conftest import FAST_PROFILE, copy_examples

ROOT = Path(__file__).resolve().parent.parent

PLUGIN = '''
import os, signal, time
from adachunk.detect.base import Detector

class Hostile(Detector):
    """Misbehaves on a marker word: HANGS sleeps, HOGS allocates, DIES kills its process."""

    def detect(self, ctx):
        if "HANGS" in ctx.text:
            time.sleep(3600)  # blocked in a call: only a kill or a signal ends it
        if "HOGS" in ctx.text:
            hoard = []
            while True:
                hoard.append(b"x" * (32 << 20))  # written: resident at once
        if "DIES" in ctx.text:
            os.kill(os.getpid(), signal.SIGKILL)
        return []
'''

PROFILE = FAST_PROFILE.replace("name: fast", "name: hostile") + """\
structures:
  hostile: {type: hostile.test.v1}
rules:
  items:
    - {name: hostile, structure: hostile, on: {shape: const, scale: 10}}
"""

FILLER = "Some words in a paragraph about nothing in particular.\n\n" * 200  # over one chunk: detected


@pytest.fixture(scope="module")
def plugin(tmp_path_factory) -> dict[str, str]:
    """The environment of a process that has the hostile detector installed, and the profile."""
    root = tmp_path_factory.mktemp("plugin")
    (root / "hostile_plugin.py").write_text(PLUGIN, encoding="utf-8")
    info = root / "hostile_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hostile-plugin\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[adachunk.detectors]\nhostile.test.v1 = hostile_plugin:Hostile\n",
                                           encoding="utf-8")
    (root / "hostile.yaml").write_text(PROFILE, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), str(ROOT)]))
    return {"env": env, "profile": str(root / "hostile.yaml")}


def _corpus(tmp_path: Path, **bad: str) -> Path:
    """The examples plus one document per ``name=marker``."""
    corpus = copy_examples(tmp_path / "corpus")
    for name, marker in bad.items():
        (corpus / f"{name}.md").write_text(FILLER + marker + "\n", encoding="utf-8")
    return corpus


def _run(plugin, corpus: Path, out: Path, *flags: str, timeout: float = 180,
         quiet: bool = True) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "adachunk.cli.main", "run", str(corpus), "--profile", plugin["profile"],
           "--out", str(out), "--sink", "none", "-j", "2", *(["-q"] if quiet else []), *flags]
    return subprocess.run(cmd, env=plugin["env"], capture_output=True, text=True, timeout=timeout)


def _docs(out: Path) -> set[str]:
    """The documents that have chunks in ``chunks.jsonl``."""
    lines = (out / "chunks.jsonl").read_text(encoding="utf-8").splitlines()
    return {Path(json.loads(x)["source"]).name for x in lines}


def _failures(out: Path) -> dict[str, str]:
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    return {Path(f["source"]).name: f["error"] for f in summary["failures"]}


GOOD = {"financial_report_excerpt.md", "regulation_excerpt.md", "technical_manual_excerpt.md"}


def test_hung_hog_and_killed_documents_fail_alone(plugin, tmp_path):
    """Three hostile documents among good ones: each fails with its own code and name; every
    good document is written; the run exits 2 and lists them in summary.json."""
    corpus = _corpus(tmp_path, hangs="HANGS", hogs="HOGS", dies="DIES")
    out = tmp_path / "out"
    t0 = time.monotonic()
    proc = _run(plugin, corpus, out, "--doc-timeout", "8", "--doc-memory", "1000M", quiet=False)
    assert proc.returncode == 2, proc.stderr
    assert time.monotonic() - t0 < 150  # the hang was cut: far below the default 600 s deadline
    assert _docs(out) == GOOD
    failed = _failures(out)
    assert set(failed) == {"hangs.md", "hogs.md", "dies.md"}, failed
    assert failed["hangs.md"].startswith(f"ADA325 {corpus / 'hangs.md'}") and "8 s" in failed["hangs.md"]
    assert failed["hogs.md"].startswith(f"ADA326 {corpus / 'hogs.md'}") and "1000 MiB" in failed["hogs.md"]
    assert failed["dies.md"].startswith(f"ADA327 {corpus / 'dies.md'}") and "SIGKILL" in failed["dies.md"]
    for name, error in failed.items():  # the closing report names each, one line
        assert f"  failed: {error}\n" in proc.stderr
    assert "resource_tracker" not in proc.stderr


def test_chunk_workers_hold_the_bounds(plugin, tmp_path):
    """``adachunk chunk -j 2`` gives its pool the same bounds: each hostile file fails alone with
    its code, the good files' lines are all written, in input order, and the exit status is 2."""
    corpus = _corpus(tmp_path, hangs="HANGS", hogs="HOGS", dies="DIES")
    out = tmp_path / "chunks.jsonl"
    cmd = [sys.executable, "-m", "adachunk.cli.main", "chunk", str(corpus), "--profile", plugin["profile"],
           "-o", str(out), "-j", "2", "--doc-timeout", "8", "--doc-memory", "1000M"]
    proc = subprocess.run(cmd, env=plugin["env"], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 2, proc.stderr
    sources = [json.loads(x)["source"] for x in out.read_text(encoding="utf-8").splitlines()]
    assert {Path(x).name for x in sources} == GOOD and sources == sorted(sources)
    for name, code in (("hangs.md", "ADA325"), ("hogs.md", "ADA326"), ("dies.md", "ADA327")):
        assert f"{code} {corpus / name}: " in proc.stderr, proc.stderr


def test_resume_keeps_bound_failures_unless_asked(plugin, tmp_path):
    """``--resume`` does not start a document that failed for a bound again (with the deadline
    off it would hang for good); ``--retry-failed`` does."""
    corpus = _corpus(tmp_path, hangs="HANGS")
    out = tmp_path / "out"
    assert _run(plugin, corpus, out, "--doc-timeout", "5").returncode == 2
    results = out / ".adachunk" / "results"
    stamps = {p.name: p.stat().st_mtime_ns for p in results.glob("*.json")}
    again = _run(plugin, corpus, out, "--doc-timeout", "0", "--resume", timeout=120)
    assert again.returncode == 2
    assert _docs(out) == GOOD and _failures(out)["hangs.md"].startswith("ADA325")
    assert {p.name: p.stat().st_mtime_ns for p in results.glob("*.json")} == stamps  # nothing redone
    retried = _run(plugin, corpus, out, "--doc-timeout", "5", "--resume", "--retry-failed")
    assert retried.returncode == 2 and _failures(out)["hangs.md"].startswith("ADA325")
    changed = {n for n, t in stamps.items() if (results / n).stat().st_mtime_ns != t}
    assert len(changed) == 1  # the failed document only was processed again


def test_serial_backend_holds_the_deadline(plugin, tmp_path):
    """The in-process serial backend stops a hang at its deadline too (a blocked call included:
    the main thread's deadline is a timer signal)."""
    corpus = _corpus(tmp_path, hangs="HANGS")
    out = tmp_path / "out"
    proc = _run(plugin, corpus, out, "--doc-timeout", "5", "--backend", "serial")
    assert proc.returncode == 2, proc.stderr
    assert _docs(out) == GOOD and _failures(out)["hangs.md"].startswith("ADA325")


def test_kill_9_of_the_main_process_leaves_no_worker(plugin, tmp_path):
    """Workers (and the multiprocessing resource tracker) exit when the main process is killed."""
    corpus = _corpus(tmp_path, hangs="HANGS")
    cmd = [sys.executable, "-m", "adachunk.cli.main", "run", str(corpus), "--profile", plugin["profile"],
           "--out", str(tmp_path / "out"), "--sink", "none", "-j", "2", "-q", "--doc-timeout", "0"]
    proc = subprocess.Popen(cmd, env=plugin["env"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    main = psutil.Process(proc.pid)
    children: list[psutil.Process] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        children = main.children(recursive=True)
        workers = [c for c in children if "spawn_main" in " ".join(_cmdline(c))]
        if len(workers) >= 2:
            break
        time.sleep(0.1)
    assert proc.poll() is None, "the run ended before its workers started"
    time.sleep(1.0)  # the workers are past their start-up: one is hanging on hangs.md
    children = main.children(recursive=True)
    assert children
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    gone, alive = psutil.wait_procs(children, timeout=5)
    for p in alive:  # leave nothing behind, then fail
        p.kill()
    assert not alive, [(p.pid, _cmdline(p)) for p in alive]


def _cmdline(p: psutil.Process) -> list[str]:
    try:
        return p.cmdline()
    except psutil.Error:
        return []


def test_stale_temp_files_are_removed(tmp_path):
    """Temporary files of a killed run (a dead writer's pid) go; a live writer's stay."""
    from adachunk.sink.files import remove_stale_temps

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    results = tmp_path / ".adachunk" / "results"
    results.mkdir(parents=True)
    stale = [tmp_path / f"chunks.jsonl.tmp{dead.pid}", results / f"abc.json.tmp{dead.pid}"]
    live = results / f"def.json.tmp{os.getpid()}"
    for p in [*stale, live]:
        p.write_text("x")
    keep = tmp_path / "notes.tmp"  # no pid: not ours
    keep.write_text("x")
    assert sorted(remove_stale_temps(tmp_path)) == sorted(stale)
    assert live.exists() and keep.exists() and not any(p.exists() for p in stale)


def test_run_removes_stale_temp_files(tmp_path):
    """``run_corpus`` cleans its folder of a killed run's temporary files before it works."""
    from adachunk.api.corpus import run_corpus

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    out = tmp_path / "out"
    (out / ".adachunk" / "results").mkdir(parents=True)
    stale = out / ".adachunk" / "results" / f"x.json.tmp{dead.pid}"
    stale.write_text("x")
    doc = tmp_path / "a.md"
    doc.write_text("# Title\n\nA short document.\n", encoding="utf-8")
    prof = tmp_path / "fast.yaml"
    prof.write_text(FAST_PROFILE, encoding="utf-8")
    res = run_corpus([str(doc)], str(prof), out, workers=1, progress=False, sink="none", resume=True)
    assert res.ok and not stale.exists()


def test_a_file_name_with_a_newline_stays_on_one_line(tmp_path):
    """The one-line error escapes control characters of a file name."""
    from adachunk.errors import InputError, Location

    err = InputError(code="ADA302", message="not found", location=Location("bad\nname.md"))
    assert "\n" not in err.render() and "bad\\nname.md" in err.render()


def test_a_failed_file_with_a_newline_in_its_name_is_one_report_line(tmp_path, capsys):
    """``adachunk run``'s closing report prints such a failure on one line, name escaped."""
    from adachunk.cli.main import main

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "good.md").write_text("# Title\n\nA short document.\n", encoding="utf-8")
    (corpus / "bad\nname.md").write_bytes(b"caf\xe9 \xff\xfe invalid UTF-8\n")  # ADA301
    prof = tmp_path / "fast.yaml"
    prof.write_text(FAST_PROFILE, encoding="utf-8")
    code = main(["run", str(corpus), "--profile", str(prof), "--out", str(tmp_path / "out"), "-j", "1",
                 "--sink", "none"])
    assert code == 2
    lines = [x for x in capsys.readouterr().err.splitlines() if "failed:" in x]
    assert len(lines) == 1 and lines[0].startswith("  failed: ADA301 ") and "bad\\nname.md: " in lines[0]


def test_bounds_settings():
    """Sizes parse; 0 turns a bound off; a bad size is a coded error (ADA224)."""
    from adachunk.errors import ProfileError
    from adachunk.runner.bounds import Bounds, default_memory, parse_size

    assert parse_size("512M") == 512 << 20 and parse_size("1.5GiB") == int(1.5 * (1 << 30))
    assert parse_size("0") == 0 and parse_size(1024) == 1024
    assert Bounds.of(None, None) == Bounds(600.0, default_memory())
    assert not Bounds.of(0, 0).active
    with pytest.raises(ProfileError) as exc:
        parse_size("lots")
    assert exc.value.code == "ADA224"


def test_soft_bounds_stop_a_blocked_call_and_a_python_loop():
    """In-process bounds: the main thread's deadline interrupts a blocking sleep; in another
    thread a Python loop is stopped at its next bytecode. Finishing well within 10x the bound."""
    import threading

    from adachunk.runner.bounds import Bounds, soft_bounds

    t0 = time.monotonic()
    with soft_bounds(Bounds(0.3, 0), "slow.md") as breach:
        time.sleep(30)
    assert breach and breach[0].code == "ADA325" and breach[0].location.file == "slow.md"
    assert time.monotonic() - t0 < 3.0

    seen: list = []

    def spin() -> None:
        with soft_bounds(Bounds(0.3, 0), "loop.md") as errs:
            while True:
                sum(range(100))
        seen.extend(errs)

    worker = threading.Thread(target=spin, daemon=True)
    worker.start()
    worker.join(3.0)
    assert not worker.is_alive() and seen and seen[0].code == "ADA325"


def test_soft_bounds_leave_a_finished_document_alone():
    """Work that ends within its bounds runs to its end, and no timer is left armed."""
    import signal as _signal

    from adachunk.runner.bounds import Bounds, soft_bounds

    before = _signal.getsignal(_signal.SIGALRM)
    with soft_bounds(Bounds(5.0, 1 << 40), "fast.md") as breach:
        value = sum(range(1000))
    assert value == 499500 and not breach
    assert _signal.getitimer(_signal.ITIMER_REAL) == (0.0, 0.0) and _signal.getsignal(_signal.SIGALRM) == before


def test_chunk_without_workers_holds_a_bound_it_is_given(plugin, tmp_path):
    """``adachunk chunk FILE --doc-timeout S`` (no ``-j``): the file is chunked in one bounded
    worker, so a hang fails it with ADA325 at the deadline instead of blocking the command; the
    files after it are written."""
    corpus = _corpus(tmp_path, hangs="HANGS")
    good = corpus / "regulation_excerpt.md"
    out = tmp_path / "chunks.jsonl"
    cmd = [sys.executable, "-m", "adachunk.cli.main", "chunk", str(corpus / "hangs.md"), str(good),
           "--profile", plugin["profile"], "-o", str(out), "--doc-timeout", "5"]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, env=plugin["env"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert time.monotonic() - t0 < 90
    assert f"ADA325 {corpus / 'hangs.md'}: " in proc.stderr, proc.stderr
    assert {Path(json.loads(x)["source"]).name for x in out.read_text(encoding="utf-8").splitlines()} == {good.name}


def _nap(x):
    time.sleep(0.2)
    return x


def test_a_freed_worker_takes_the_next_task_before_the_caller_sees_the_result():
    """While the main process handles a finished task (writes its result), the worker that ran
    it already holds the next one: no worker waits idle on the main process."""
    import multiprocessing as mp

    from adachunk.runner.bounds import Bounds
    from adachunk.runner.pool import BoundedPool

    with BoundedPool(1, Bounds(0, 0), mp.get_context("fork")) as pool:
        for i in range(3):
            pool.submit(i, f"doc{i}", _nap, i)
        tag, outcome = pool.next_done()
        assert (tag, outcome.value) == (0, 0)
        assert [w.tag for w in pool.workers] == [1] and len(pool.queue) == 1
        assert [pool.next_done()[0] for _ in range(2)] == [1, 2]
