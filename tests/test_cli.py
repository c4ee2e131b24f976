"""The ``adachunk`` CLI: JSONL output, explain, profile commands, coded errors without tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from adachunk.cli.main import main

FIELDS = ["id", "doc_id", "source", "index", "start", "end", "text", "size", "tokens", "heading_path",
          "pages", "profile", "profile_fingerprint", "splitter", "prev_id", "next_id", "embed_prefix"]
DOC = "# Title\n\nFirst paragraph. It has two sentences.\n\n## Part\n\n- one\n- two\n"


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "adachunk.cli.main", *args], capture_output=True, text=True,
                          input=stdin)


def test_chunk_writes_jsonl(tmp_path, capsys):
    f = tmp_path / "doc.md"
    f.write_text(DOC, encoding="utf-8")
    assert main(["chunk", str(f), "--max-size", "12", "--min-size", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    recs = [json.loads(x) for x in lines]
    assert len(recs) >= 2 and list(recs[0]) == FIELDS
    assert "".join(r["text"] for r in recs) == DOC
    assert all(DOC[r["start"]:r["end"]] == r["text"] for r in recs)
    assert recs[0]["source"] == str(f) and recs[0]["splitter"] == "dp.v1" and recs[0]["profile"] == "default"
    assert [r["next_id"] for r in recs[:-1]] == [r["id"] for r in recs[1:]] and recs[-1]["next_id"] is None
    assert recs[0]["prev_id"] is None and recs[1]["prev_id"] == recs[0]["id"]


def test_chunk_output_file_and_paper_json(tmp_path):
    doc = {"document_name": "D", "full_text": "Page one text.\n\nPage two text.\n",
           "pages": {"1": "Page one text.\n\n", "2": "Page two text.\n"}, "split_points": [16]}
    f = tmp_path / "d.json"
    f.write_text(json.dumps(doc))
    out = tmp_path / "o.jsonl"
    assert main(["chunk", str(f), "-o", str(out), "--granularity", "chars", "--max-size", "20", "--min-size", "0"]) == 0
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["pages"] for r in recs] == [[1], [2]] and recs[0]["doc_id"] == "d.json"  # the file names it, as in run


def test_explain_table_and_json(tmp_path, capsys):
    f = tmp_path / "doc.md"
    f.write_text(DOC * 3)
    assert main(["explain", str(f), "--max-size", "20", "--min-size", "0"]) == 0
    out = capsys.readouterr().out
    assert "total cost" in out and "line:col" in out
    assert main(["explain", str(f), "--max-size", "20", "--min-size", "0", "--format", "json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["cuts"] and all({"position", "cost", "contributions"} <= set(c) for c in obj["cuts"])
    for cut in obj["cuts"]:
        assert sum(c["value"] for c in cut["contributions"]) == cut["cost"]


def test_profile_commands(capsys):
    assert main(["profile", "check", "default"]) == 0
    assert "ok: default" in capsys.readouterr().out
    assert main(["profile", "fingerprint", "darn"]) == 0
    assert len(capsys.readouterr().out.strip()) == 64
    assert main(["profile", "show", "default", "--origins"]) == 0
    out = capsys.readouterr().out
    assert "max_size: 512" in out and "default.yaml:" in out


def test_bad_profile_is_one_line_per_error_no_traceback(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("name: x\nsolver: {max_sise: 1, granularity: words}\n")
    r = run_cli("profile", "check", str(p))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("ADA2") for line in lines)
    assert f"{p}:2:" in r.stderr and "Did you mean 'max_size'?" in r.stderr


def test_invalid_utf8_is_coded_error_with_byte_offset(tmp_path):
    f = tmp_path / "bad.md"
    f.write_bytes(b"hello \xff\xfe world")
    r = run_cli("chunk", str(f))
    assert r.returncode == 2 and "ADA301" in r.stderr and "byte offset 6" in r.stderr and str(f) in r.stderr
    assert "Traceback" not in r.stderr
    r = run_cli("chunk", str(f), "--errors", "replace")
    assert r.returncode == 0 and "\ufffd" in json.loads(r.stdout.splitlines()[0])["text"]


@pytest.mark.parametrize("content,code", [(b"\x89PNG\r\n\x1a\n\x00\x00data", "ADA305"), (None, "ADA302")])
def test_binary_and_directory_inputs(tmp_path, content, code):
    target = tmp_path / "x.md"
    if content is None:
        target.mkdir()
    else:
        target.write_bytes(content)
    r = run_cli("chunk", str(target))
    assert r.returncode == 2 and code in r.stderr and "Traceback" not in r.stderr


def test_unsupported_suffix_and_missing_file(tmp_path):
    r = run_cli("chunk", str(tmp_path / "nope.md"), str(tmp_path / "a.xlsx"))
    assert r.returncode == 2 and "ADA302" in r.stderr and "ADA303" in r.stderr


def test_empty_and_whitespace_files(tmp_path):
    (tmp_path / "e.md").write_text("")
    (tmp_path / "w.md").write_text("  \n\n\t \n")
    r = run_cli("chunk", str(tmp_path / "e.md"), str(tmp_path / "w.md"), "--min-size", "0")
    assert r.returncode == 0
    recs = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(recs) == 1 and recs[0]["text"] == "  \n\n\t \n"


def test_folder_input(tmp_path, capsys):
    (tmp_path / "a.md").write_text("alpha beta.\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("gamma delta.\n")
    assert main(["chunk", str(tmp_path)]) == 0
    recs = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [Path(r["source"]).name for r in recs] == ["a.md", "b.txt"]


def test_chunk_with_workers_writes_the_same_bytes_in_input_order(tmp_path, capsys):
    import shutil

    from .conftest import EXAMPLES

    files = []
    for i, p in enumerate(sorted(EXAMPLES.glob("*.md")) * 2):
        files.append(tmp_path / f"{i:02d}_{p.name}")
        shutil.copy(p, files[-1])
    bad = tmp_path / "05_bad.md"
    bad.write_bytes(b"valid start \xff then garbage")
    files.insert(5, bad)
    args = [str(f) for f in files]
    assert main(["chunk", *args, "-o", str(tmp_path / "one.jsonl")]) == 2
    one_err = capsys.readouterr().err
    assert main(["chunk", *args, "-j", "2", "-o", str(tmp_path / "two.jsonl")]) == 2
    two_err = capsys.readouterr().err
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()
    assert one_err == two_err and "ADA301" in two_err and str(bad) in two_err
    sources = [json.loads(x)["source"] for x in (tmp_path / "two.jsonl").read_text().splitlines()]
    assert list(dict.fromkeys(sources)) == [a for a in args if a != str(bad)]


def test_chunk_with_workers_keeps_reader_warnings(tmp_path, capsys):
    """A worker's warnings (here: invalid split points dropped) reach stderr as in one process."""
    docs = []
    for i in range(3):
        f = tmp_path / f"d{i}.json"
        f.write_text(json.dumps({"document_name": f"D{i}", "full_text": "Block one.\n\nBlock two.\n",
                                 "split_points": [12, 500]}))
        docs.append(str(f))
    assert main(["chunk", *docs, "-j", "2", "-o", str(tmp_path / "o.jsonl")]) == 0
    assert capsys.readouterr().err.count("invalid split point") == 3
