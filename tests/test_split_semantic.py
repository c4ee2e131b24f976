"""``semantic.v1``: gradient breakpoints, exact tiling and the hard size limit (hash.v1 embedder)."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from adachunk.api import load_profile
from adachunk.components.registry import splitters
from adachunk.split.semantic import SemanticParams, SemanticSplitter, gradient_breaks, hard_split
from adachunk.tokens import get_counter
from adachunk.datatypes import Document

HASH = {"type": "hash.v1", "dim": 1024}


@pytest.fixture(scope="module")
def policy():
    return load_profile("default").policy


def split(text: str, policy, **params):
    return SemanticSplitter(SemanticParams(embedder=HASH, **params)).split(Document(id="t", text=text), policy)


def assert_tiles(text: str, chunking):
    chunks = chunking.chunks
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    assert all(a.end == b.start for a, b in zip(chunks, chunks[1:]))
    assert "".join(c.text for c in chunks) == text and all(c.text for c in chunks)


def test_breakpoint_follows_langchain_gradient_rule(policy):
    cats = [f"Cats purr softly {w}." for w in ("today", "again", "often", "here")]
    cars = [f"Engines burn diesel {w}." for w in ("today", "again", "often", "here")]
    text = " ".join(cats + cars)
    out = split(text, policy, buffer_size=0)
    # distances are ~0 inside a topic and high between sentences 3 and 4; np.gradient peaks one
    # step earlier (central differences), so LangChain's rule ends the first chunk after sentence 2
    assert [c.text.strip() for c in out.chunks] == [" ".join(cats[:3]), " ".join(cats[3:] + cars)]
    assert out.splitter == "semantic.v1" and out.meta["sentences"] == 8 and out.meta["breakpoints"] == 1
    assert_tiles(text, out)


def test_gradient_breaks_threshold_is_the_percentile():
    v = np.eye(4, dtype=np.float32)[[0, 0, 0, 1, 1, 1, 2]]
    breaks, dist, thr = gradient_breaks(v, 50)
    assert dist.tolist() == [0, 0, 1, 0, 0, 1]
    grad = np.gradient(dist)
    assert thr == pytest.approx(np.percentile(grad, 50))
    assert breaks == [k for k in range(6) if grad[k] > thr]


def test_max_tokens_cuts_groups_at_sentence_boundaries(policy):
    text = "\n\n".join(f"Paragraph {i} says the same thing about the same topic again." for i in range(40))
    out = split(text, policy, max_tokens=50)
    counter = get_counter("o200k_base")
    assert all(counter.count(c.text) <= 50 for c in out.chunks) and out.meta["size_cuts"] > 0
    assert all(c.start == 0 or c.text.startswith("Paragraph") for c in out.chunks)  # sentence starts only
    assert_tiles(text, out)
    assert [c.tokens for c in out.chunks] == [counter.count(c.text) for c in out.chunks]


def test_a_single_oversize_sentence_is_cut_at_whitespace(policy):
    text = " ".join(f"word{i}" for i in range(300))
    out = split(text, policy, max_tokens=40)
    counter = get_counter("o200k_base")
    assert len(out.chunks) > 1 and all(counter.count(c.text) <= 40 for c in out.chunks)
    assert all(text[c.start - 1] == " " for c in out.chunks[1:])
    assert_tiles(text, out)


def test_hard_split_without_whitespace_uses_token_boundaries():
    text = "x" * 2000
    counter = get_counter("o200k_base")
    spans = hard_split(text, 0, len(text), 30, counter)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(counter.count(text[a:b]) <= 30 for a, b in spans)


def test_small_inputs(policy):
    assert split("", policy).chunks == []
    one = split("Only one sentence here.", policy)
    assert [c.text for c in one.chunks] == ["Only one sentence here."]
    two = split("First sentence. Second sentence.", policy)
    assert [c.text for c in two.chunks] == ["First sentence. ", "Second sentence."]


def test_registered_and_params_validated():
    assert splitters.get("semantic.v1") is SemanticSplitter
    assert SemanticParams().percentile == 95 and SemanticParams().max_tokens == 1100
    with pytest.raises(ValidationError, match="unknown embedders 'hash.v9'"):
        SemanticParams(embedder={"type": "hash.v9"})
    with pytest.raises(ValidationError):
        SemanticParams(percentile=0)


def test_uses_the_profile_embedder_when_none_is_given(policy):
    from dataclasses import replace

    pol = replace(policy, metrics=policy.metrics.updated(embedder=HASH))
    text = "Alpha beta gamma. Delta epsilon zeta. Eta theta iota. Kappa lambda mu."
    out = SemanticSplitter().split(Document(id="t", text=text), pol)
    assert '"hash.v1"' in out.meta["embedder"]
    assert_tiles(text, out)
