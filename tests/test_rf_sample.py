"""``retrieval.sample``: the retrieval fit asks its questions in evenly spread slices of a long
document and ranks only the chunks that meet them, so the model reads about that share of the
text while choosing (issue 47: the choice at a fraction of an index's cost)."""

from __future__ import annotations

import pytest

from adachunk.datatypes import Document
from adachunk.metrics import _sample
from adachunk.metrics.base import MetricContext
from adachunk.metrics.retrieval import probe_index
from adachunk.metrics.suite import score_one
from adachunk.policy_types import RetrievalSpec

from .test_rf_estimate import _chunks

WORDS = 40


def _long_text(n: int = 1500) -> str:
    paras = [f"Station{i} measured the river silt of basin{i % 97} every {i % 7 + 2} days and published "
             f"the maps for region{i} with the survey team of district{i % 13}." for i in range(n)]
    return "\n\n".join(paras) + "\n"


def _ctx(doc: Document, **regime) -> MetricContext:
    regime = {"queries": 32, "document_share": 1.0, "budgets": (80, 200), "retrievers": ("dense", "bm25"),
              **regime}
    return MetricContext(doc, {"embedder": {"type": "hash.v1", "max_tokens": WORDS}},
                         retrieval=RetrievalSpec(**regime))


def test_windows_are_evenly_spread_slices_and_short_texts_are_read_whole():
    w = _sample.windows(600_000, 0.2)
    assert _sample.share_of(w, 600_000) == pytest.approx(0.2)
    gaps = [b[0] - a[1] for a, b in zip(w, w[1:])]
    assert len(set(gaps)) == 1  # even spread
    assert _sample.windows(600_000, 1.0) is None
    assert _sample.windows(_sample.FLOOR_CHARS, 0.1) is None  # under the floor: whole
    # above the floor the sample never reads less than the floor
    assert _sample.share_of(_sample.windows(100_000, 0.1), 100_000) >= 0.9 * _sample.FLOOR_CHARS / 100_000
    assert _sample.meets(5, 10, [(0, 6)]) and not _sample.meets(6, 10, [(0, 6)])
    assert _sample.meets(10, 20, [(0, 6), (19, 30)]) and not _sample.meets(10, 19, [(0, 6), (19, 30)])


def test_a_sampled_fit_embeds_about_the_share_and_ranks_the_candidates_alike():
    text = _long_text()
    assert len(text) > 3 * _sample.FLOOR_CHARS
    fits, embedded = {}, {}
    for share in (0.25, 1.0):
        doc = Document(id=f"d{share}", text=text + " " * int(share * 4))  # its own text: no shared vectors
        ctx = _ctx(doc, sample=share)
        fits[share] = [score_one("rf", _chunks(doc.text, every), ctx).value for every in (1, 3, 12)]
        embedded[share] = probe_index(ctx).spans.stats["embedded"]
    # the same order of the three candidates (one paragraph, three, twelve per chunk)
    order = lambda xs: sorted(range(len(xs)), key=lambda i: -xs[i])  # noqa: E731
    assert order(fits[1.0]) == order(fits[0.25])
    # the model reads about the sampled share of the text (the queries aside)
    assert 0.15 < embedded[0.25] / embedded[1.0] < 0.4, embedded
    res = score_one("rf", _chunks(text, 3), _ctx(Document(id="n", text=text), sample=0.25))
    assert "of the text" in res.reason


def test_sample_at_1_is_left_out_of_the_fingerprint(tmp_path):
    """``sample: 1`` (every document read whole) is dropped from the canonical form, as a profile
    written before the setting existed has it; the default samples a tenth of a long document."""
    from adachunk.profile.resolve import canonical, resolve

    whole = tmp_path / "whole.yaml"
    whole.write_text("schema_version: 1\nname: whole\nextends: default\nretrieval: {sample: 1}\n")
    assert "sample" not in canonical(resolve(str(whole)).profile)["retrieval"]
    assert canonical(resolve("default").profile)["retrieval"]["sample"] == 0.1
