"""``adachunk eval`` end to end on examples/: tables, eval.json, chunkings from files, the gate, errors,
and ``adachunk eval generate``."""

from __future__ import annotations

import json

import pytest

from adachunk.cli.main import main
from adachunk.evaluate import load_chunking, read_documents

from .conftest import EXAMPLES, FAST_PROFILE

QA = str(EXAMPLES / "qa.jsonl")
DOCS = str(EXAMPLES)


@pytest.fixture(scope="module")
def fast_profile(tmp_path_factory):
    p = tmp_path_factory.mktemp("eval") / "fast.yaml"
    p.write_text(FAST_PROFILE, encoding="utf-8")
    return str(p)


def test_eval_bm25_two_chunkings_writes_table_and_json(tmp_path, capsys, fast_profile):
    code = main(["eval", DOCS, "--qa", QA, "-c", f"adaptive=profile:{fast_profile}", "-c", "fixed:512",
                 "--out", str(tmp_path / "ev"), "-q", "--bootstrap", "300"])
    out = capsys.readouterr().out
    assert code == 0
    assert "retriever bm25" in out and "adaptive" in out and "fixed:512" in out and "paired delta vs adaptive" in out
    assert "P(best)" in out
    rep = json.loads((tmp_path / "ev" / "eval.json").read_text(encoding="utf-8"))
    assert rep["qa"]["questions"] == 40 and rep["settings"]["scope"] == "corpus"
    res = rep["results"]["bm25"]
    assert set(res) == {"adaptive", "fixed:512"} and 0 < res["fixed:512"]["recall@5"] <= 1
    assert len(rep["per_question"]) == 80 and rep["chunkings"][0]["winners"]
    d = rep["comparisons"]["bm25"]["deltas"]["fixed:512"]["recall@5"]
    assert d["ci95"][0] <= d["delta"] <= d["ci95"][1]
    sel = rep["comparisons"]["bm25"]["selection"]
    assert sum(o["p_best"] for o in sel["options"]) == pytest.approx(1.0)


def test_eval_dense_and_hybrid_with_hashing_embedder_and_budget(capsys):
    code = main(["eval", DOCS, "--qa", QA, "-c", "dp:default", "-c", "fixed:256", "-r", "dense,hybrid",
                 "--embedder", "hash.v1", "--budget", "512*k", "--k", "1,5", "--json", "-q", "--bootstrap", "200"])
    rep = json.loads(capsys.readouterr().out)
    assert code == 0 and list(rep["results"]) == ["dense", "hybrid"] and rep["settings"]["budget"] == "512*k"
    for ret in ("dense", "hybrid"):
        for summ in rep["results"][ret].values():
            assert summ["tokens@1"] <= 512 and summ["tokens@5"] <= 5 * 512
    assert rep["settings"]["embedder"] == {"type": "hash.v1"}


def test_eval_is_deterministic(capsys):
    args = ["eval", DOCS, "--qa", QA, "-c", "dp:default", "-c", "fixed:512", "--json", "-q", "--bootstrap", "200",
            "--scope", "doc"]
    main(args)
    first = capsys.readouterr().out
    main(args)
    assert capsys.readouterr().out == first and json.loads(first)["settings"]["scope"] == "doc"


def test_fail_if_exit_codes(capsys):
    base = ["eval", DOCS, "--qa", QA, "-c", "dp:default", "-c", "fixed:512", "-q", "--bootstrap", "100"]
    assert main(base + ["--fail-if", "recall@10 < 0.01"]) == 0
    assert main(base + ["--fail-if", "recall@5 < 1.01"]) == 1
    assert "fail-if: recall@5 < 1.01 holds" in capsys.readouterr().err
    assert main(base + ["--fail-if", "delta mrr < -2", "--fail-if", "delta bm25/coverage@5 <= 1"]) == 1
    with pytest.raises(SystemExit) as exc:  # a measure that --k does not give: usage error
        main(base + ["--fail-if", "recall@7 < 1"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        main(base + ["--fail-if", "score < 0"])


def test_chunkings_from_a_chunks_file_and_run_folder(tmp_path, capsys):
    f = EXAMPLES / "regulation_excerpt.md"
    assert main(["chunk", str(f), "-o", str(tmp_path / "chunks.jsonl")]) == 0
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "chunks.jsonl").write_text((tmp_path / "chunks.jsonl").read_text(encoding="utf-8"),
                                                   encoding="utf-8")
    docs, _ = read_documents([DOCS])
    a = load_chunking(str(tmp_path / "chunks.jsonl"), docs)
    b = load_chunking(f"mine={tmp_path / 'run'}", docs)
    assert b.label == "mine" and [c.text for c in a.chunks["regulation_excerpt.md"]] == \
        [c.text for c in b.chunks["regulation_excerpt.md"]]
    capsys.readouterr()
    code = main(["eval", DOCS, "--qa", QA, "-c", str(tmp_path / "run"), "--bootstrap", "100"])
    cap = capsys.readouterr()
    assert code == 0 and "no chunks for document 'financial_report_excerpt.md'" in cap.err


def test_chunk_text_mismatch_and_unknown_chunkings_are_ada316(tmp_path, capsys):
    rec = {"doc_id": "regulation_excerpt", "start": 0, "end": 5, "text": "Hello"}
    (tmp_path / "bad.jsonl").write_text(json.dumps(rec) + "\n", encoding="utf-8")
    other = {"doc_id": "elsewhere", "start": 0, "end": 1, "text": "x"}
    (tmp_path / "other.jsonl").write_text(json.dumps(other) + "\n", encoding="utf-8")
    for spec, why in ((str(tmp_path / "bad.jsonl"), "differs"), (str(tmp_path / "other.jsonl"), "no chunk belongs"),
                      (str(tmp_path / "nothing"), "no such chunking"), ("fixed:x", "bad fixed")):
        assert main(["eval", DOCS, "--qa", QA, "-c", spec, "-q"]) == 2
        err = capsys.readouterr().err
        assert "ADA316" in err and why in err
    # chunks of an input document that the QA set does not ask about
    rec = {"doc_id": "service_agreement.docx", "start": 0, "end": 3}
    (tmp_path / "src.jsonl").write_text(json.dumps(rec) + "\n", encoding="utf-8")
    assert main(["eval", DOCS, "--qa", QA, "-c", str(tmp_path / "src.jsonl"), "-q"]) == 2
    assert "no chunk for any document of the QA set" in capsys.readouterr().err


def test_bad_qa_file_is_ada315_and_warnings_are_located(tmp_path, capsys):
    bad = tmp_path / "qa.jsonl"
    bad.write_text("not json at all\n", encoding="utf-8")
    assert main(["eval", DOCS, "--qa", str(bad), "-c", "fixed:512"]) == 2
    assert "ADA315" in capsys.readouterr().err
    lines = (EXAMPLES / "qa.jsonl").read_text(encoding="utf-8").splitlines()[:3] + ['{"question": "x?", "doc": "nope", "answer": "y"}']
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["eval", DOCS, "--qa", str(bad), "-c", "fixed:512", "--bootstrap", "50"]) == 0
    assert f"{bad}:4: unknown document 'nope'" in capsys.readouterr().err


def test_usage_errors(capsys):
    for args in (["eval", DOCS, "-c", "fixed:512"], ["eval", DOCS, "--qa", QA], ["eval", DOCS, "--qa", QA, "-c",
                 "fixed:512", "-r", "tfidf"], ["eval", "generate", DOCS], ["eval", DOCS, "--qa", QA, "--k", "0,1"]):
        with pytest.raises(SystemExit) as exc:
            main(args)
        assert exc.value.code == 2


def test_generate_then_eval(tmp_path, capsys):
    qa = tmp_path / "gen.jsonl"
    assert main(["eval", "generate", DOCS, "--out", str(qa), "--per-doc", "3", "--seed", "5"]) == 0
    first = qa.read_text(encoding="utf-8")
    assert main(["eval", "generate", DOCS, "--out", str(qa), "--per-doc", "3", "--seed", "5", "-q"]) == 0
    assert qa.read_text(encoding="utf-8") == first and len(first.splitlines()) == 12  # 4 documents x 3 (.adachunkignore: not SOURCES.md)
    capsys.readouterr()
    assert main(["eval", DOCS, "--qa", str(qa), "-c", "fixed:512", "--json", "-q"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["qa"]["questions"] == 12 and rep["results"]["bm25"]["fixed:512"]["recall@10"] > 0.5
