"""ICC and DCC on hand-computed examples (fixed vectors, no model), plus one CLAIR smoke run."""

from __future__ import annotations

import math

import numpy as np
import pytest

from adachunk.errors import ProfileError
from adachunk.metrics.base import MetricContext
from adachunk.metrics.cohesion import ICCParams, IntrachunkCohesion, chunk_pieces
from adachunk.metrics.coherence import (ContextualCoherence, DCCParams, Window, build_windows,
                                        kept_windows)
from adachunk.models.embedders import Embedder, span_embeddings
from adachunk.components.registry import metrics
from adachunk.split.assemble import build_chunks
from adachunk.datatypes import Document

from .conftest import clair_files


class FixedEmbedder(Embedder):
    """Returns the vector given for each exact text (unit-normalised); counts model calls."""

    type_name = "fixed.test"

    def __init__(self, table: dict[str, tuple[float, ...]]):
        super().__init__()
        self.table = table
        self.calls: list[list[str]] = []

    @property
    def dim(self) -> int:
        return len(next(iter(self.table.values())))

    def identity(self) -> dict:
        return {"id": id(self)}

    def encode(self, texts):
        self.calls.append(list(texts))
        v = np.array([self.table[t] for t in texts], dtype=np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


class WordCounter:
    """A token counter that counts words, and records what it counted."""

    name = "words"

    def __init__(self):
        self.seen: list[str] = []

    def count(self, text: str) -> int:
        self.seen.append(text)
        return len(text.split())


def make(text: str, spans, split_points=None) -> tuple[Document, list]:
    doc = Document(id="d", text=text, split_points=split_points)
    chunks = build_chunks(doc, spans, fingerprint="f", count_tokens=lambda t: len(t.split()),
                          unit_size=lambda s, e: e - s)
    return doc, chunks


def ctx_for(doc, embedder, counter=None, **settings) -> MetricContext:
    return MetricContext(doc, {"embedder": embedder, **settings}, counter=counter or WordCounter())


# ---------------------------------------------------------------- ICC
def test_chunk_pieces_cut_at_block_starts_with_partial_edges():
    assert chunk_pieces(3, 20, [0, 5, 10, 20, 25]) == [(3, 5), (5, 10), (10, 20)]
    assert chunk_pieces(5, 10, [5, 10]) == [(5, 10)]  # a start on the chunk start: no empty piece
    assert chunk_pieces(0, 4, []) == [(0, 4)]


def test_icc_hand_computed():
    # blocks: "AA " [0,3), "BB " [3,6), "CC " [6,9), "DD" [9,11); chunks [0,6) and [6,11)
    text = "AA BB CC DD"
    doc, chunks = make(text, [(0, 6), (6, 11)], split_points=[3, 6, 9])
    emb = FixedEmbedder({"AA BB ": (1, 0), "AA ": (1, 0), "BB ": (0, 1),
                         "CC DD": (1, 1), "CC ": (1, 0), "DD": (1, 1)})
    r = IntrachunkCohesion().score(chunks, ctx_for(doc, emb))
    c1 = (1 + 0) / 2
    c2 = (math.sqrt(0.5) + 1) / 2
    assert r.value == pytest.approx((c1 + c2) / 2)
    assert [d["pieces"] for d in r.detail] == [2, 2] and r.reason is None
    assert len(emb.calls) == 1  # chunks and pieces in one batch


def test_icc_skips_single_block_chunks_and_clips():
    text = "AA BB CC"
    doc, chunks = make(text, [(0, 6), (6, 8)], split_points=[3])
    emb = FixedEmbedder({"AA BB ": (1, 0), "AA ": (-1, 0), "BB ": (-1, 0.1), "CC": (0, 1)})
    r = IntrachunkCohesion().score(chunks, ctx_for(doc, emb))
    assert r.value == 0.0  # negative mean cosine clipped to 0
    assert "1 single-block chunk(s) skipped" in r.reason and [d["index"] for d in r.detail] == [0]


def test_icc_none_cases():
    doc, chunks = make("AA BB CC", [(0, 3), (3, 8)], split_points=[3])
    emb = FixedEmbedder({"x": (1, 0)})
    r = IntrachunkCohesion().score(chunks, ctx_for(doc, emb))
    assert r.value is None and "no chunk spans two blocks" in r.reason and not emb.calls
    r = IntrachunkCohesion().score([], ctx_for(doc, emb))
    assert r.value is None and "no block piece" in r.reason


def test_icc_markdown_blocks_without_split_points_and_blank_pieces():
    text = "# Title\n\nFirst para.\n\nSecond para."
    doc, chunks = make(text, [(0, len(text))])
    emb = FixedEmbedder({text: (1, 0), "# Title\n\n": (1, 0), "First para.\n\n": (0, 1), "Second para.": (1, 0)})
    r = IntrachunkCohesion().score(chunks, ctx_for(doc, emb))
    assert r.detail[0]["pieces"] == 3 and r.value == pytest.approx(2 / 3)
    # a chunk that starts on the blank line before a block: the "\n\n" piece is embedded (paper) or skipped
    doc, chunks = make(text, [(0, 7), (7, len(text))])
    emb = FixedEmbedder({text[7:]: (1, 0), "\n\n": (0, 1), "First para.\n\n": (1, 0), "Second para.": (1, 0),
                         "# Title": (1, 0)})
    paper = IntrachunkCohesion().score(chunks, ctx_for(doc, emb))
    assert paper.detail[0]["pieces"] == 3 and paper.value == pytest.approx(2 / 3)
    skip = IntrachunkCohesion(ICCParams(skip_blank_pieces=True)).score(chunks, ctx_for(doc, emb))
    assert skip.detail[0]["pieces"] == 2 and skip.value == pytest.approx(1.0)


# ---------------------------------------------------------------- DCC windows
def test_windows_budget_and_sub_window_removal():
    tokens = [1000, 1000, 1000, 500, 2500, 100]
    bounds = np.concatenate(([0], np.cumsum(tokens)))
    spans = list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))
    windows = build_windows(spans, lambda a, b: b - a, 3000)
    assert [w.members for w in windows] == [(0, 1, 2), (1, 2, 3), (2, 3), (3, 4), (4, 5), (5,)]
    kept = kept_windows(windows)  # (2, 3) ends where (1, 2, 3) ended: a sub-window; (5,) is alone
    assert [w.members for w in kept] == [(0, 1, 2), (1, 2, 3), (3, 4), (4, 5)]
    assert kept[2].tokens == 3000  # the budget is inclusive


def test_windows_a_chunk_too_large_to_share_is_excluded():
    spans = [(0, 500), (500, 1000), (1000, 5000), (5000, 5500), (5500, 6000)]
    kept = kept_windows(build_windows(spans, lambda a, b: b - a, 3000))
    assert [w.members for w in kept] == [(0, 1), (3, 4)]
    assert kept_windows(build_windows([(0, 500), (500, 4500), (4500, 5000)], lambda a, b: b - a, 3000)) == []


def test_windows_count_tails_of_overlapping_chunks_and_detect_gaps():
    w = build_windows([(0, 10), (5, 20), (15, 30)], lambda a, b: b - a, 100)[0]
    assert w.tails == (10, 10, 10) and w.segments == ((0, 10), (10, 20), (20, 30)) and w.span() == (0, 30)
    inside = build_windows([(0, 10), (2, 8)], lambda a, b: b - a, 100)[0]
    assert inside.tails == (10, 0) and inside.segments == ((0, 10),)  # fully overlapped: 0 tokens
    gapped = build_windows([(0, 5), (10, 15)], lambda a, b: b - a, 100)[0]
    assert gapped.span() is None
    assert Window((0,), (), (0,)).span() is None
    assert [x.members for x in build_windows([(0, 1)] * 5, lambda a, b: 1, 10, step=2)] == [
        (0, 1, 2, 3, 4), (2, 3, 4), (4,)]


# ---------------------------------------------------------------- DCC scores
def _three_chunks():
    text = "aa bb cc dd ee ff"
    return make(text, [(0, 6), (6, 12), (12, 17)])


def test_dcc_exact_hand_computed():
    doc, chunks = _three_chunks()  # 2 words each; budget 4 words → windows (0,1), (1,2)
    emb = FixedEmbedder({"aa bb ": (1, 0), "cc dd ": (0, 1), "ee ff": (1, 1),
                         "aa bb cc dd ": (1, 0), "cc dd ee ff": (0, 1)})
    r = ContextualCoherence(DCCParams(mode="exact")).score(chunks, ctx_for(doc, emb, dcc_window_tokens=4))
    s = math.sqrt(0.5)
    assert r.value == pytest.approx((1 + 0 + 1 + s) / 4)
    assert [(d["first"], d["last"], d["tokens"]) for d in r.detail] == [(0, 1, 4), (1, 2, 4)]
    assert r.reason == "exact" and len(emb.calls) == 1


def test_dcc_fast_is_the_tail_weighted_mean_of_chunk_vectors():
    doc, chunks = _three_chunks()
    emb = FixedEmbedder({"aa bb ": (1, 0), "cc dd ": (0, 1), "ee ff": (1, 1)})
    ctx = ctx_for(doc, emb, dcc_window_tokens=4, dcc_mode="fast")
    r = ContextualCoherence().score(chunks, ctx)  # mode from the profile's metrics.dcc_mode
    s = math.sqrt(0.5)
    w2 = np.array([0, 1]) + np.array([s, s])
    w2 = w2 / np.linalg.norm(w2)
    expected = [s, s, w2[1], float(w2 @ [s, s])]
    assert r.reason == "fast" and r.value == pytest.approx(np.mean(expected))
    # the mode given as a parameter wins over the profile's (exact by default)
    by_param = ContextualCoherence(DCCParams(mode="fast")).score(chunks, ctx_for(doc, emb, dcc_window_tokens=4))
    assert by_param.reason == "fast" and by_param.value == pytest.approx(r.value)
    assert all(len(c) <= 3 for c in emb.calls) and sum(map(len, emb.calls)) == 3  # chunks only


def test_dcc_none_and_exclusion_note():
    doc, chunks = _three_chunks()
    emb = FixedEmbedder({"aa bb ": (1, 0), "cc dd ": (0, 1), "ee ff": (1, 1),
                         "aa bb cc dd ": (1, 0), "cc dd ee ff": (0, 1)})
    r = ContextualCoherence().score(chunks[:1], ctx_for(doc, emb))
    assert r.value is None and r.reason == "fewer than 2 chunks"
    r = ContextualCoherence().score(chunks, ctx_for(doc, emb, dcc_window_tokens=3))
    assert r.value is None and "no window holds 2 chunks within 3 tokens" in r.reason
    big = make("aa bb cc dd ee ff gg hh", [(0, 3), (3, 6), (6, 15), (15, 18), (18, 23)])
    emb = FixedEmbedder({"aa ": (1, 0), "bb ": (1, 0), "aa bb ": (1, 0), "ff ": (0, 1), "gg hh": (0, 1),
                         "ff gg hh": (0, 1), "cc dd ee ": (1, 1)})
    r = ContextualCoherence().score(big[1], ctx_for(big[0], emb, dcc_window_tokens=3))
    assert r.value == pytest.approx(1.0) and "1 chunk(s) in no window" in r.reason


def test_dcc_clips_negative_similarity():
    doc, chunks = make("aa bb", [(0, 3), (3, 5)])
    emb = FixedEmbedder({"aa ": (1, 0), "bb": (1, 0), "aa bb": (-1, 0)})
    assert ContextualCoherence(DCCParams(mode="exact")).score(chunks, ctx_for(doc, emb)).value == 0.0


# ---------------------------------------------------------------- sharing across candidates
def test_candidates_share_embeddings_and_token_counts():
    text = "aa bb cc dd ee ff"
    doc = Document(id="d", text=text, split_points=[3, 6, 9, 12, 15])
    emb = FixedEmbedder({t: (1.0 + len(t), float(len(t.split()))) for t in _all_substrings(text)})
    counter = WordCounter()
    ctx = ctx_for(doc, emb, counter=counter, dcc_window_tokens=4)
    first = make(text, [(0, 6), (6, 12), (12, 17)])[1]
    second = make(text, [(0, 6), (6, 9), (9, 12), (12, 17)])[1]  # shares its first and last chunk
    for metric in (IntrachunkCohesion(), ContextualCoherence()):
        metric.score(first, ctx)
    calls, texts, counted = len(emb.calls), sum(map(len, emb.calls)), len(counter.seen)
    for metric in (IntrachunkCohesion(), ContextualCoherence()):
        metric.score(second, ctx)
    new_texts = [t for c in emb.calls[calls:] for t in c]
    assert "aa bb " not in new_texts and "ee ff" not in new_texts  # shared chunks: not re-embedded
    assert "aa " not in new_texts and "cc " not in new_texts  # shared block pieces too
    assert len(new_texts) == len(set(new_texts)) and sum(map(len, emb.calls)) - texts == len(new_texts)
    assert len(emb.calls) - calls <= 2  # one batched call per metric at most
    assert "aa bb " not in counter.seen[counted:]  # a shared chunk's tokens are not recounted
    assert span_embeddings(ctx).stats["hits"] > 0


def _all_substrings(text: str) -> set[str]:
    return {text[a:b] for a in range(len(text)) for b in range(a + 1, len(text) + 1)}


# ---------------------------------------------------------------- registration and a real document
def test_metrics_are_registered_with_their_keys():
    assert metrics.get("icc.v1").key == "icc"
    assert metrics.get("dcc.v1").key == "dcc"


def test_dcc_fast_name_is_gone_and_points_at_dcc_v1():
    """``dcc_fast.v1`` was never selectable (metrics are chosen by key); the fast mode is
    ``dcc.v1`` with ``mode: fast`` or ``metrics.dcc_mode: fast``."""
    assert "dcc_fast.v1" not in metrics.names()
    with pytest.raises(ProfileError) as err:
        metrics.get("dcc_fast.v1")
    assert err.value.code == "ADA205" and "dcc.v1" in (err.value.hint or "")


@pytest.mark.skipif(not clair_files(), reason="../shared/corpus/clair is not available")
def test_clair_document_with_hash_embedder():
    from adachunk.ingest import read_document

    path = min(clair_files(), key=lambda p: p.stat().st_size)
    doc = read_document(str(path))
    chunks = build_chunks(doc, [(p.start, p.end) for p in doc.pages], fingerprint="f",
                          count_tokens=len, unit_size=lambda s, e: e - s)
    ctx = MetricContext(doc, {"embedder": {"type": "hash.v1", "max_tokens": 64}})
    icc = IntrachunkCohesion().score(chunks, ctx)
    exact = ContextualCoherence(DCCParams(mode="exact")).score(chunks, ctx)
    fast = ContextualCoherence(DCCParams(mode="fast")).score(chunks, ctx)
    for r in (icc, exact, fast):
        assert r.value is not None and 0.0 <= r.value <= 1.0
    assert abs(exact.value - fast.value) < 0.2
