"""``adachunk run`` when the profile's embedding model is missing (fault injection, issue #8).

The run must stop before any document is processed: ``ADA213`` at the profile line that names
the model, with a hint, exit status 2, and no output written (an existing output folder is left
as it was). Without embeddings, a run is possible only when the profile says so: ICC/DCC weighing
0 and no vector index; then it completes with ICC/DCC recorded as None and their reason.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from adachunk.cli.main import main

from .conftest import EXAMPLES, FAST_PROFILE

ROOT = Path(__file__).resolve().parent.parent
FAST_EMBEDDER = "  embedder: {type: hash.v1}\n"
assert FAST_EMBEDDER in FAST_PROFILE


def missing_profile(tmp_path: Path, model: str) -> tuple[Path, int]:
    """The shared fast profile with an unavailable sentence-transformers model; the file and
    the line naming the model."""
    spec = f"  embedder: {{type: sentence_transformers.v1, model: {model}}}\n"
    text = FAST_PROFILE.replace(FAST_EMBEDDER, spec)
    path = tmp_path / "missing.yaml"
    path.write_text(text, encoding="utf-8")
    line = next(i for i, x in enumerate(text.splitlines(), 1) if model in x)
    return path, line


@pytest.fixture()
def corpus(tmp_path) -> Path:
    """Two small real documents (the run stops before reading them, or runs in seconds)."""
    d = tmp_path / "corpus"
    d.mkdir()
    for name in ("technical_manual_excerpt.md", "financial_report_excerpt.md"):
        shutil.copy(EXAMPLES / name, d / name)
    return d


@pytest.mark.parametrize("model", ["/nonexistent/dir", "adachunk-tests/no-such-model"])
def test_missing_model_fails_fast_from_the_cli(tmp_path, corpus, model):
    """The real command line, as a user runs it: a directory that does not exist, or a
    Hugging Face name that is not in the local cache (the hub is never contacted)."""
    profile, line = missing_profile(tmp_path, model)
    out = tmp_path / "out"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "adachunk.cli.main", "run", str(corpus),
            "--profile", str(profile), "--out", str(out), "-j", "1"]
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 2, proc.stderr
    first = proc.stderr.strip().splitlines()[0]
    assert first.startswith(f"ADA213 {profile}:{line}:"), proc.stderr
    assert "metrics.embedder.model" in first and model in first
    assert "huggingface-cli download" in first and "--sink none" in first  # the hints
    assert proc.stderr.count("ADA213") == 1  # one error, not one per document and metric
    assert proc.stdout == ""
    assert not out.exists()  # nothing processed, nothing written


def test_existing_outputs_are_left_untouched(tmp_path, corpus, capsys):
    """A failed run does not overwrite (or half-overwrite) the outputs of an earlier good run."""
    good = tmp_path / "fast.yaml"
    good.write_text(FAST_PROFILE, encoding="utf-8")
    out = tmp_path / "out"
    argv = ["run", str(corpus), "--profile", str(good), "--out", str(out), "-q", "-j", "1",
            "--sink", "none"]
    assert main(argv) == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert out / "summary.json" in before
    profile, line = missing_profile(tmp_path, "/nonexistent/dir")
    capsys.readouterr()
    assert main(["run", str(corpus), "--profile", str(profile), "--out", str(out), "--resume"]) == 2
    assert capsys.readouterr().err.startswith(f"ADA213 {profile}:{line}:")
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_missing_index_embedder_is_located_at_its_own_key(tmp_path, corpus, capsys):
    """The index may use its own embedder: its key is the one reported, and ``--sink none``
    (no index) makes it unnecessary."""
    extra = ("index:\n"
             "  embedder: {type: sentence_transformers.v1, model: /nonexistent/index-model}\n")
    profile = tmp_path / "index.yaml"
    profile.write_text(FAST_PROFILE + extra, encoding="utf-8")
    line = len(FAST_PROFILE.splitlines()) + 2
    out = tmp_path / "out"
    assert main(["run", str(corpus), "--profile", str(profile), "--out", str(out), "-j", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ADA213 {profile}:{line}:") and "index.embedder.model" in err
    assert not out.exists()
    assert main(["run", str(corpus), "--profile", str(profile), "--out", str(out), "-j", "1", "-q",
                 "--sink", "none"]) == 0
    assert (out / "chunks.jsonl").stat().st_size > 0


def test_run_without_embeddings_when_the_profile_says_so(tmp_path, corpus):
    """ICC/DCC weighing 0 and no index: the model is not needed (not even loaded), the run
    completes, and every decision records why ICC/DCC are None."""
    profile, _ = missing_profile(tmp_path, "/nonexistent/dir")
    text = profile.read_text(encoding="utf-8").replace(
        "metrics:\n", "metrics:\n  weights: {sc: 0.4, bi: 0.3, rc: 0.3, icc: 0, dcc: 0}\n")
    profile.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", str(corpus), "--profile", str(profile), "--out", str(out), "-j", "1", "-q",
                 "--sink", "none"]) == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    totals = summary["totals"]
    assert (totals["documents"], totals["ok"], totals["failed"]) == (2, 2, 0) and totals["chunks"] > 0
    for line in (out / "decisions.jsonl").read_text(encoding="utf-8").splitlines():
        for cand in json.loads(line)["candidates"]:
            assert cand["scores"]["icc"] is None and "weight 0" in cand["reasons"]["icc"]
            assert cand["score"] is not None
