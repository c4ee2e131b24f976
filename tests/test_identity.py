"""One document, one id: ``chunk`` and ``run`` name a file alike, files of one stem stay two,
and a folder's documents are the files its ignore rules do not name (issue 49, item 5)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from adachunk.cli.main import main
from adachunk.ingest.discover import IgnoreRules, expand_inputs
from adachunk.runner import run_corpus

from .conftest import EXAMPLES, FAST_PROFILE

SAMPLES = ["financial_report_excerpt.md", "regulation_excerpt.md", "service_agreement.docx",
           "technical_manual_excerpt.md"]
SUFFIXES = (".md", ".html", ".docx", ".txt")


@pytest.fixture()
def fast_profile(tmp_path) -> str:
    p = tmp_path / "fast.yaml"
    p.write_text(FAST_PROFILE)
    return str(p)


def _doc_ids(path: Path) -> set[str]:
    return {json.loads(x)["doc_id"] for x in path.read_text(encoding="utf-8").splitlines()}


def _folder(tmp_path: Path) -> Path:
    """``a.md`` and ``a.html`` (one stem) and ``sub/a.md`` (one name)."""
    d = tmp_path / "docs"
    (d / "sub").mkdir(parents=True)
    (d / "a.md").write_text("# A\n\nThe Markdown one.\n", encoding="utf-8")
    (d / "a.html").write_text("<html><body><h1>A</h1><p>The HTML one.</p></body></html>", encoding="utf-8")
    (d / "sub" / "a.md").write_text("# Sub A\n\nThe nested one.\n", encoding="utf-8")
    return d


def test_chunk_and_run_give_one_file_one_id(tmp_path, fast_profile):
    src = tmp_path / "supply_agreement.md"
    shutil.copy(EXAMPLES / "regulation_excerpt.md", src)
    assert main(["chunk", str(src), "-o", str(tmp_path / "c.jsonl")]) == 0
    run_corpus([str(src)], fast_profile, tmp_path / "out", workers=1, progress=False, sink="none")
    assert _doc_ids(tmp_path / "c.jsonl") == _doc_ids(tmp_path / "out" / "chunks.jsonl") == {"supply_agreement.md"}


def test_one_stem_two_documents_in_chunk_and_run(tmp_path, fast_profile):
    d = _folder(tmp_path)
    want = {"a.md", "a.html", "sub/a.md"}
    assert main(["chunk", str(d), "-o", str(tmp_path / "c.jsonl")]) == 0
    assert _doc_ids(tmp_path / "c.jsonl") == want
    res = run_corpus([str(d)], fast_profile, tmp_path / "out", workers=1, progress=False, sink="none")
    assert res.documents == 3 and _doc_ids(tmp_path / "out" / "chunks.jsonl") == want


def test_run_examples_chunks_exactly_the_samples(tmp_path, fast_profile, capsys):
    out = tmp_path / "out"
    assert main(["run", str(EXAMPLES), "--profile", fast_profile, "--out", str(out), "-j", "1",
                 "--sink", "none"]) == 0
    assert _doc_ids(out / "chunks.jsonl") == set(SAMPLES)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert [Path(p).name for p in summary["documents"]["ignored"]] == ["SOURCES.md"]
    assert "skipped: 1 file(s) named by .adachunkignore/--exclude" in capsys.readouterr().err


def test_ignore_file_and_exclude_flag(tmp_path):
    d = _folder(tmp_path)
    (d / "README.md").write_text("# About this folder\n", encoding="utf-8")
    every = sorted(str(p) for p in d.rglob("*") if p.is_file())
    assert sorted(expand_inputs([str(d)], SUFFIXES)) == every  # the default skips nothing
    (d / ".adachunkignore").write_text("# not documents\nREADME.md\n", encoding="utf-8")
    skipped: list[str] = []
    got = list(expand_inputs([str(d)], SUFFIXES, ["sub/"], skipped))
    assert sorted(Path(p).relative_to(d).as_posix() for p in got) == ["a.html", "a.md"]
    assert sorted(Path(p).relative_to(d).as_posix() for p in skipped) == ["README.md", "sub/a.md"]
    # a file named directly is read whatever the rules say
    assert list(expand_inputs([str(d / "README.md")], SUFFIXES, ["README.md"])) == [str(d / "README.md")]


def test_chunk_exclude_flag(tmp_path, capsys):
    d = _folder(tmp_path)
    assert main(["chunk", str(d), "--exclude", "*.html", "-o", str(tmp_path / "c.jsonl")]) == 0
    assert _doc_ids(tmp_path / "c.jsonl") == {"a.md", "sub/a.md"}
    assert "1 file(s) skipped" in capsys.readouterr().err


@pytest.mark.parametrize("patterns, rel, ignored", [
    (["README.md"], "README.md", True),
    (["README.md"], "x/README.md", True),          # no slash: a name anywhere
    (["/README.md"], "x/README.md", False),        # leading slash: from the folder only
    (["/README.md"], "README.md", True),
    (["drafts"], "drafts/a.md", True),             # a folder's name skips its files
    (["drafts/"], "x/drafts/a.md", True),
    (["notes/*.md"], "notes/a.md", True),
    (["notes/*.md"], "other/notes/a.md", False),
    (["*.txt", "!keep.txt"], "keep.txt", False),   # the last match decides
    (["*.txt", "!keep.txt"], "drop.txt", True),
    (["# *.md", ""], "a.md", False),               # comments and blank lines
])
def test_ignore_patterns(patterns, rel, ignored):
    assert IgnoreRules(patterns).ignores(rel) is ignored
