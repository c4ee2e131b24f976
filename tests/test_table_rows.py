"""Tables embedded as plain rows (``index.table_rows: plain``): the rewrite, the index's vectors,
the evaluation's hook for it, and an index of the other form being rebuilt."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import adachunk
from adachunk.datatypes import Chunk, Document
from adachunk.evaluate import evaluate_chunks
from adachunk.evaluate.qa import QASet, Question
from adachunk.metrics.suite import context_for
from adachunk.models.embedders import load_embedder
from adachunk.sink.embedding import index_vectors
from adachunk.sink.records import embed_text
from adachunk.sink.sync import _comparable
from adachunk.sink.table_rows import plain_rows

STATEMENT = ("CONSOLIDATED BALANCE SHEETS (in millions)\n\n<Table>\n| | 2019 | 2018 |\n| --- | ---: | :---: |\n"
             "| Current assets: |  |  |\n| Cash and equivalents | $ 4,466 | $ 4,249 |\n| Total current assets | 16,525 |"
             " 15,134 |\n</Table>\n\nSee accompanying notes.")


@pytest.mark.parametrize("text, expected", [
    (STATEMENT, "CONSOLIDATED BALANCE SHEETS (in millions)\n\n2019 2018\nCurrent assets:\n"
                "Cash and equivalents $ 4,466 $ 4,249\nTotal current assets 16,525 15,134\n\nSee accompanying notes."),
    ("No table here.\nA line with a | pipe.", "No table here.\nA line with a | pipe."),
    ("| a \\| b | c |", "a | b c"),  # an escaped pipe stays inside its cell
    ("|  |  |\n| x | y |", "x y"),  # a row of empty cells says nothing
    ("a | b | c\n--- | --- | ---", "a | b | c\n--- | --- | ---"),  # no outer pipes: left as it is
    ("<!-- PageHeader: NIKE, INC. -->\n| Goodwill | 154 |", "<!-- PageHeader: NIKE, INC. -->\nGoodwill 154"),
    ("", ""),
])
def test_plain_rows(text, expected):
    assert plain_rows(text) == expected


def test_embed_text_writes_the_prefix_and_the_rows_plain():
    rec = {"text": "| Cash | 4,466 |", "embed_prefix": "| | 2019 |\n\n"}
    assert embed_text(rec, ["table_header", "text"]) == "| | 2019 |\n\n| Cash | 4,466 |"
    assert embed_text(rec, ["table_header", "text"], "plain") == "2019\n\nCash 4,466"


def test_index_vectors_embed_table_chunks_plain_and_keep_the_others():
    rp = adachunk.load_profile("default")
    assert rp.policy.index.table_rows == "markdown"  # the shipped default (bench/RESULTS.md)
    rp = dataclasses.replace(rp, policy=dataclasses.replace(rp.policy, index=rp.policy.index.updated(table_rows="plain")))
    prose = "The company reports its balance sheet at the end of each fiscal year in May.\n\n"
    doc = Document(id="d", text=prose + STATEMENT)
    records = [{"start": 0, "end": len(prose), "text": prose, "embed_prefix": ""},
               {"start": len(prose), "end": len(doc.text), "text": STATEMENT, "embed_prefix": ""}]
    markdown = dataclasses.replace(rp.policy, index=rp.policy.index.updated(table_rows="markdown"))
    got = index_vectors(records, rp.policy, context_for(doc, rp.policy))
    old = index_vectors(records, markdown, context_for(doc, markdown))
    model = load_embedder(rp.policy.metrics.embedder)
    assert np.array_equal(got[0], old[0])  # no table: the same cached vector
    assert np.allclose(got[1], model.embed([plain_rows(STATEMENT)])[0], atol=1e-5)
    assert not np.allclose(got[1], old[1], atol=1e-3)


def _setup():
    text = "Rivers carry salt to the sea. " * 10 + "\n\n" + "| Zanzibar | salt | 12 |\n" * 5
    doc = Document(id="d", text=text)
    cut = text.index("|")
    chunks = {"d": [Chunk(index=i, start=a, end=b, text=text[a:b], size=b - a, tokens=0)
                    for i, (a, b) in enumerate(((0, cut), (cut, len(text))))]}
    qa = QASet([Question("q", "where does zanzibar salt go", "d", (((0, 29),),))], documents={"d": doc})
    return chunks, qa


def test_evaluate_chunks_embeds_the_given_texts_for_dense_only():
    chunks, qa = _setup()

    class Recorder:  # a custom retriever gets what dense embeds
        texts: list[str] = []

        def rank(self, texts, queries, top=None):
            Recorder.texts = list(texts)
            return [np.arange(len(texts)) for _ in queries]

    given = {"d": ["first", "second"]}
    res = evaluate_chunks(chunks, qa, Recorder(), ks=(1,), budgets=(50,), tokenizer="cl100k_base",
                          embed_texts=given)
    assert Recorder.texts == ["first", "second"] and res.settings["embed_texts"]
    base = evaluate_chunks(chunks, qa, "bm25", ks=(1,), budgets=(50,), tokenizer="cl100k_base")
    same = evaluate_chunks(chunks, qa, "bm25", ks=(1,), budgets=(50,), tokenizer="cl100k_base", embed_texts=given)
    assert base.per_question == same.per_question  # BM25 and the budgets read the chunks
    with pytest.raises(ValueError, match="1 embedded texts for 2 chunks"):
        evaluate_chunks(chunks, qa, Recorder(), ks=(1,), embed_texts={"d": ["only one"]})


def test_an_index_of_the_other_row_form_is_not_reused():
    meta = {"sink": "lancedb", "collection": "chunks", "embed_text": "text", "payload": [], "embedder": {}}
    assert _comparable(meta) == _comparable({**meta, "table_rows": "markdown"})  # older indexes: markdown
    assert _comparable(meta) != _comparable({**meta, "table_rows": "plain"})
