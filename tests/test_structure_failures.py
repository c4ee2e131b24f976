"""A profile whose rules cannot run is a failure, not a silent fallback (issue 37).

A structure of the profile that fails on a document (here a catastrophic pattern past its
deadline, ``ADA306``) fails the document in ``adachunk run`` (exit 2, listed in ``summary.json``,
the error naming the document), paying the deadline once however many DP candidates need it;
``select.on_detector_error: fallback`` selects among the other candidates with a counted, visible
``ADA404`` notice. Notices are one coded, located line; a parsed JSON's ``document_name`` becomes
the document id only when it is a usable name.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from adachunk.cli.main import main
from adachunk.detect.regex import RegexDetector
from adachunk.errors import AdachunkWarning
from adachunk.ingest import InputWarning, read_document

EVIL = """name: redos
extends: default
structures:
  evil: {type: regex.v1, pattern: '(a|aa)+$', timeout_s: 0.3}
rules:
  items:
    - {name: evil, structure: evil, on: {shape: const, scale: 100}}
"""


@pytest.fixture
def corpus(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("# Title\n\n" + ("Some text here. " * 20 + "\n\n") * 5 + "a" * 40 + "b\n\nEnd.\n")
    good = tmp_path / "good.md"
    good.write_text("# Other\n\nA short note without the pattern's run of letters.\n")
    return tmp_path, doc, good


@pytest.fixture
def evil_calls(monkeypatch):
    """How many times the structure 'evil' is matched against a document."""
    calls = []
    real = RegexDetector.spans

    def counting(self, text):
        if self.name == "evil":
            calls.append(len(text))
        return real(self, text)

    monkeypatch.setattr(RegexDetector, "spans", counting)
    return calls


def _run(tmp_path, profile_text, *inputs, capsys):
    prof = tmp_path / "p.yaml"
    prof.write_text(profile_text)
    out = tmp_path / "out"
    code = main(["run", *map(str, inputs), "--profile", str(prof), "--out", str(out), "--sink", "none",
                 "--workers", "1", "--backend", "serial"])
    err = capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    decisions = {Path(d["source"]).name: d for d in map(json.loads, (out / "decisions.jsonl").read_text().splitlines())}
    return code, err, summary, decisions


def test_a_failing_structure_fails_the_document_and_the_run(corpus, evil_calls, capsys):
    tmp_path, doc, good = corpus
    code, err, summary, decisions = _run(tmp_path, EVIL, doc, good, capsys=capsys)
    assert code == 2
    assert summary["totals"]["failed"] == 1 and summary["totals"]["ok"] == 1
    (failure,) = summary["failures"]
    assert failure["source"].endswith("doc.md")
    assert failure["error"].startswith(f"ADA306 {doc} structures.evil:")  # names the document
    assert not decisions["doc.md"]["ok"] and decisions["good.md"]["ok"]
    # three DP candidates need the structure; the deadline was paid on the first only
    assert len([n for n in evil_calls if n == len(doc.read_text())]) == 1
    assert "candidate dp_" not in err  # one failure line, not one per candidate


def test_fallback_is_opt_in_counted_and_visible(corpus, evil_calls, capsys, recwarn):
    tmp_path, doc, good = corpus
    # a pool with a candidate that needs no structure: the DP candidates fail, the recursive one wins
    pool = ("candidates:\n  - {type: dp.v1, name: dp, max_size: auto}\n"
            "  - {type: recursive.v1, name: recursive, chunk_size: auto}\n")
    code, err, summary, decisions = _run(tmp_path, EVIL + pool + "select: {on_detector_error: fallback}\n", doc,
                                         good, capsys=capsys)
    assert code == 0
    assert summary["totals"]["failed"] == 0
    assert summary["detector_fallbacks"]["documents"] == 1
    (entry,) = summary["detector_fallbacks"]["list"]
    assert entry["structures"] == ["evil"] and entry["error"].startswith("ADA306")
    rec = decisions["doc.md"]
    (detector_error,) = rec["detector_errors"]
    assert detector_error["candidates"] == ["dp_254", "dp_180", "dp_127", "dp_90"]
    assert not rec["winner"].startswith("dp_")
    assert "detector_errors" not in decisions["good.md"]
    notices = [w.message for w in recwarn if isinstance(w.message, AdachunkWarning)]
    assert [n.code for n in notices] == ["ADA404"] and notices[0].location.file == str(doc)
    assert "without a failed structure (ADA404)" in err
    assert len([n for n in evil_calls if n == len(doc.read_text())]) == 1


def test_the_setting_is_validated(tmp_path, capsys):
    prof = tmp_path / "p.yaml"
    prof.write_text("name: p\nselect: {on_detector_error: ignore}\n")
    assert main(["profile", "check", str(prof)]) == 2
    assert "select.on_detector_error" in capsys.readouterr().err


# --- notices: one coded, located format --------------------------------------------------------


def test_a_notice_prints_as_one_coded_line(tmp_path):
    doc = tmp_path / "d.json"
    doc.write_text(json.dumps({"document_name": "D", "full_text": "Block one.\n\nBlock two.\n",
                               "split_points": [12, 500]}))
    res = subprocess.run([sys.executable, "-m", "adachunk.cli.main", "chunk", str(doc), "-o", str(tmp_path / "o.jsonl")],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert lines == [f"ADA401 {doc}: dropped 1 invalid split point(s) (not an integer, outside 1..22 or "
                     "duplicated); 1 kept."]


# --- doc_id from a parsed JSON --------------------------------------------------------------------


@pytest.mark.parametrize("name", [{"a": 1}, "../../x", "a/b", "..", "  ", "x\ny", ["l"], 7])
def test_an_unusable_document_name_becomes_the_file_name(tmp_path, name):
    f = tmp_path / "contract-7.json"
    f.write_text(json.dumps({"document_name": name, "full_text": "Text.\n"}))
    with pytest.warns(InputWarning, match=r"^ADA403 .*contract-7\.json: document_name"):
        doc = read_document(str(f))
    assert doc.id == "contract-7.json"


@pytest.mark.parametrize("name", ["GDPR", "Norma (légal)_CCPA Act", "a.b-c_d 2024"])
def test_a_usable_document_name_is_kept(tmp_path, name, recwarn):
    f = tmp_path / "x.json"
    f.write_text(json.dumps({"document_name": name, "full_text": "Text.\n"}))
    assert read_document(str(f)).id == name
    assert not [w for w in recwarn if isinstance(w.message, AdachunkWarning)]
