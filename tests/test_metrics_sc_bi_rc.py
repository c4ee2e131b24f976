"""SC, BI and RC on hand-computed cases (paper-spec §8, adapted to exact offsets)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from adachunk.errors import AdachunkWarning
from adachunk.datatypes import METRIC_KEYS

from adachunk.models import coref as coref_pkg
from adachunk.metrics.base import MetricContext
from adachunk.metrics.blocks import BIParams, BlockIntegrity, markdown_blocks
from adachunk.models.coref import NO_BACKEND, CorefBackend, PairSet, get_backend, validate_pairs
from adachunk.models.coref.precomputed import PrecomputedBackend
from adachunk.metrics.references import ReferencesCompleteness
from adachunk.metrics.size import SizeCompliance
from adachunk.metrics.suite import score_chunking
from adachunk.components.registry import coref
from adachunk.split.assemble import build_chunks
from adachunk.datatypes import Document


class Words:
    """Whitespace word counter, as in the paper's unit tests."""

    name = "words"

    def count(self, text: str) -> int:
        return len(text.split())


def ctx_for(doc: Document, **settings) -> MetricContext:
    return MetricContext(doc, settings, counter=Words())


def chunks_of(doc: Document, spans, core_starts=None):
    return build_chunks(doc, spans, fingerprint="test", count_tokens=Words().count,
                        unit_size=lambda s, e: e - s, core_starts=core_starts)


def tile(doc: Document, cuts):
    bounds = [0, *cuts, len(doc.text)]
    return chunks_of(doc, list(zip(bounds, bounds[1:])))


def word_doc(*sizes: int) -> tuple[Document, list]:
    """A document of consecutive chunks of ``sizes`` words each."""
    parts = [" ".join(["w"] * n) + " " for n in sizes]
    doc = Document(id="d", text="".join(parts))
    cuts, pos = [], 0
    for p in parts[:-1]:
        pos += len(p)
        cuts.append(pos)
    return doc, tile(doc, cuts)


# ---- SC (paper §8.1) ------------------------------------------------------------------------

@pytest.mark.parametrize("sizes, bounds, expected", [
    ((200,) * 5, (100, 300), 1.0),
    ((5, 5, 5), (100, 1100), 0.0),
    ((200, 5), (100, 1100), 0.5),
    ((10, 10, 10), (5, 15), 1.0),
    ((100, 1100, 99, 1101), (100, 1100), 0.5),  # bounds are inclusive
])
def test_sc_paper_cases(sizes, bounds, expected):
    doc, chunks = word_doc(*sizes)
    ctx = ctx_for(doc, sc_min_tokens=bounds[0], sc_max_tokens=bounds[1])
    res = SizeCompliance().score(chunks, ctx)
    assert res.value == expected
    assert [d["tokens"] for d in res.detail] == list(sizes)


def test_sc_empty_list_is_none():
    res = SizeCompliance().score([], ctx_for(Document(id="d", text="x")))
    assert res.value is None and res.reason == "no chunks"


def test_sc_recounts_when_chunks_were_counted_with_another_tokenizer():
    doc, chunks = word_doc(3, 3)
    fake = [dataclasses.replace(c, tokens=500) for c in chunks]
    same = ctx_for(doc, sc_min_tokens=100, sc_max_tokens=1100, chunk_tokenizer="words")
    other = ctx_for(doc, sc_min_tokens=100, sc_max_tokens=1100, chunk_tokenizer="cl100k_base")
    assert SizeCompliance().score(fake, same).value == 1.0  # trusts chunk.tokens
    assert SizeCompliance().score(fake, other).value == 0.0  # recounts: 3 words each


# ---- BI (paper §8.2, PR #6) -----------------------------------------------------------------

def bi(doc, chunks, **kw):
    return BlockIntegrity(BIParams(**kw)).score(chunks, ctx_for(doc, bi_tolerance=5))


@pytest.mark.parametrize("text, split_points, cuts, expected", [
    ("a" * 10 + "b" * 10, [], [10], 0.0),
    ("a" * 10 + "b" * 10, [10], [10], 1.0),
    ("a" * 10 + "b" * 10 + "c" * 10, [20], [10, 20], 0.5),
])
def test_bi_pr6_cases(text, split_points, cuts, expected):
    doc = Document(id="d", text=text, split_points=split_points)
    assert bi(doc, tile(doc, cuts)).value == expected


def test_bi_none_and_single_chunk():
    doc = Document(id="d", text="a" * 20, split_points=[])
    assert bi(doc, []).value is None
    assert bi(doc, tile(doc, [])).value == 1.0


@pytest.mark.parametrize("cut, broken", [(5, False), (6, True), (24, True), (25, False)])
def test_bi_tolerance_is_strict(cut, broken):
    # block [0, 30): a cut exactly 5 characters from an edge is tolerated
    doc = Document(id="d", text="x" * 40, split_points=[30])
    res = bi(doc, tile(doc, [cut]))
    assert res.value == (0.5 if broken else 1.0)
    assert [d["cuts"] for d in res.detail] == ([[cut]] if broken else [])


def test_bi_counts_chunk_ends_with_overlap_unless_paper_mode():
    doc = Document(id="d", text="x" * 60, split_points=[20, 40])
    # chunk 2 starts at 20 (a gold split point) but chunk 1 ends at 30, inside block [20, 40)
    chunks = chunks_of(doc, [(0, 30), (20, 60)])
    assert bi(doc, chunks).value == pytest.approx(2 / 3)
    assert bi(doc, chunks, count_chunk_ends=False).value == 1.0


MD = "# Title\n\nFirst paragraph here.\n\n## Sub\n### Subsub\n\n- alpha\n- beta\n\nLast words.\n"


def test_bi_markdown_blocks_glue_headings_to_the_next_block():
    lists = markdown_blocks(MD)
    heading_para = (0, MD.index("here.") + 5)
    headings_list = (MD.index("## Sub"), MD.index("- beta") + 6)
    assert lists == [heading_para, headings_list, (MD.index("Last"), len(MD) - 1)]


@pytest.mark.parametrize("cut_at, expected", [
    ("First", 2 / 3),   # between a heading and its paragraph: the protected block is broken
    ("## Sub", 1.0),    # between blocks
    ("- beta", 2 / 3),  # inside the list
])
def test_bi_markdown_cuts(cut_at, expected):
    doc = Document(id="d", text=MD)
    assert bi(doc, tile(doc, [MD.index(cut_at)])).value == pytest.approx(expected)


def test_bi_document_without_blocks_is_none():
    doc = Document(id="d", text="\n\n\n\n")
    res = bi(doc, tile(doc, [2]))
    assert res.value is None and "no protected blocks" in res.reason


# ---- RC (paper §8.1, exact offsets) ---------------------------------------------------------

ALICE = "Alice went home. She slept."
PAIR = [[0, 4], [17, 19]]


def rc(doc, chunks, **settings):
    return ReferencesCompleteness().score(chunks, ctx_for(doc, **settings))


def test_rc_paper_case():
    doc = Document(id="d", text=ALICE, entity_pron_pairs=[PAIR])
    split = rc(doc, tile(doc, [17]))
    assert split.value == 0.0
    assert split.detail == [{"entity": [0, 4], "pronoun": [17, 19], "boundary": 17}]
    assert rc(doc, tile(doc, [])).value == 1.0


@pytest.mark.parametrize("cuts, expected", [([1], 0.0), ([19], 0.0), ([20], 1.0), ([], 1.0)])
def test_rc_boundary_semantics(cuts, expected):
    # missing iff a < x <= b, with b the INCLUSIVE end of the later span ("She" is [17, 19])
    doc = Document(id="d", text=ALICE, entity_pron_pairs=[PAIR])
    assert rc(doc, tile(doc, cuts)).value == expected


def test_rc_cataphoric_pair_is_reordered():
    text = "When she arrived, Alice slept."
    doc = Document(id="d", text=text, entity_pron_pairs=[[[18, 22], [5, 7]]])
    assert rc(doc, tile(doc, [10])).value == 0.0  # cut between "she" and "Alice"
    assert rc(doc, tile(doc, [24])).value == 1.0  # after both


def test_rc_hand_computed_mixture():
    text = "Bob ran. He fell. Ann sat. She ate. It rained."
    pairs = [[[0, 2], [9, 10]], [[18, 20], [27, 29]], [[0, 2], [27, 29]]]
    doc = Document(id="d", text=text, entity_pron_pairs=pairs)
    # cut at 18 separates Bob..She only; cut at 9 separates Bob/He and Bob/She
    assert rc(doc, tile(doc, [18])).value == pytest.approx(2 / 3)
    assert rc(doc, tile(doc, [9, 18])).value == pytest.approx(1 / 3)


def test_rc_overlap_uses_core_starts_and_ends():
    text = "x" * 10 + "Alice" + "y" * 10 + "she" + "z" * 10
    doc = Document(id="d", text=text, entity_pron_pairs=[[[10, 14], [25, 27]]])
    # chunk 2 copies [5, 20) as overlap; its core starts at 20, inside the pair's extent
    with_core = chunks_of(doc, [(0, 20), (5, len(text))], core_starts=[0, 20])
    assert rc(doc, with_core).value == 0.0
    # boundaries are core starts (20) and ends (30): a pair inside [0, 20) survives
    inside = Document(id="d", text=text, entity_pron_pairs=[[[0, 3], [12, 13]]])
    assert rc(inside, chunks_of(inside, [(0, 20), (5, len(text))], core_starts=[0, 20])).value == 1.0
    ends = chunks_of(inside, [(0, 13), (5, len(text))])  # first chunk ends inside the pair
    assert rc(inside, ends).value == 0.0


def test_rc_none_cases():
    empty_pairs = Document(id="d", text=ALICE, entity_pron_pairs=[])
    res = rc(empty_pairs, tile(empty_pairs, [17]))
    assert res.value is None and "no entity→pronoun pairs" in res.reason
    assert rc(Document(id="d", text=ALICE, entity_pron_pairs=[PAIR]), []).reason == "no chunks"


def test_rc_drops_pairs_beyond_the_text():
    pairs = [PAIR, [[0, 4], [30, 33]], [[5, 9], [-1, 2]], "junk", [[0, 4], [17, True]]]
    doc = Document(id="d", text=ALICE, entity_pron_pairs=pairs)
    with pytest.warns(AdachunkWarning, match=r"^ADA402 d: 4 of 5 precomputed pairs dropped"):
        res = rc(doc, tile(doc, [17]))
    assert res.value == 0.0  # the one valid pair is cut
    assert res.reason.startswith("4 of 5 precomputed pairs dropped")
    only_bad = Document(id="d", text=ALICE, entity_pron_pairs=[[[0, 4], [27, 28]]])  # end == len(text)
    res = rc(only_bad, tile(only_bad, [17]))
    assert res.value is None and "1 of 1" in res.reason


def test_validate_pairs_inclusive_end():
    pairs, dropped = validate_pairs([[[0, 0], [2, 3]], [[0, 0], [2, 4]]], 4)
    assert pairs == (((0, 0), (2, 3)),) and dropped == 1


# ---- coreference backends -------------------------------------------------------------------

class CountingBackend(CorefBackend):
    name = "test.counting.v1"
    calls = 0

    def pairs(self, doc):
        CountingBackend.calls += 1
        return PairSet(pairs=(((0, 4), (17, 19)),), backend=self.name)


class BrokenBackend(CorefBackend):
    name = "test.broken.v1"

    def pairs(self, doc):
        raise OSError("model checkpoint missing")


class AbsentBackend(CorefBackend):
    name = "test.absent.v1"

    @classmethod
    def available(cls):
        return False


for _cls in (CountingBackend, BrokenBackend, AbsentBackend):
    coref.register(_cls.name, _cls)


def test_coref_runs_once_per_document_across_candidates():
    CountingBackend.calls = 0
    doc = Document(id="d", text=ALICE)
    ctx = ctx_for(doc, coref={"type": "test.counting.v1"})
    values = [ReferencesCompleteness().score(tile(doc, cuts), ctx).value for cuts in ([17], [], [5])]
    assert values == [0.0, 1.0, 0.0]
    assert CountingBackend.calls == 1


def test_auto_prefers_precomputed_then_offline_defaults(monkeypatch):
    with_pairs = Document(id="d", text=ALICE, entity_pron_pairs=[])
    assert isinstance(get_backend({"type": "auto"}, with_pairs), PrecomputedBackend)
    plain = Document(id="d", text=ALICE)
    fallbacks = (("test.absent.v1", __name__), ("test.counting.v1", __name__))
    monkeypatch.setattr(coref_pkg, "OFFLINE_DEFAULTS", fallbacks)
    assert isinstance(get_backend(None, plain), CountingBackend)  # the unavailable one is skipped
    monkeypatch.setattr(coref_pkg, "OFFLINE_DEFAULTS", (("nope.v1", "adachunk.models.coref.nope"),))
    assert get_backend({"type": "auto"}, plain) is None
    res = rc(plain, tile(plain, [17]), coref={"type": "auto"})
    assert res.value is None and res.reason == NO_BACKEND


def test_precomputed_side_file(tmp_path):
    src = tmp_path / "note.md"
    src.write_text(ALICE, encoding="utf-8")
    (tmp_path / "note.md.pairs.json").write_text(json.dumps({"entity_pron_pairs": [PAIR]}), encoding="utf-8")
    doc = Document(id="note", text=ALICE, source=str(src))
    assert isinstance(get_backend({"type": "auto"}, doc), PrecomputedBackend)
    assert rc(doc, tile(doc, [17])).value == 0.0
    (tmp_path / "note.md.pairs.json").write_text("{broken", encoding="utf-8")
    res = rc(doc, tile(doc, [17]))
    assert res.value is None and "cannot read note.md.pairs.json" in res.reason


def test_backend_errors_become_none_with_reason():
    doc = Document(id="d", text=ALICE)
    broken = rc(doc, tile(doc, [17]), coref={"type": "test.broken.v1"})
    assert broken.value is None and "model checkpoint missing" in broken.reason
    unknown = rc(doc, tile(doc, [17]), coref={"type": "maverik.v9"})
    assert unknown.value is None and "ADA205" in unknown.reason
    bad_params = rc(doc, tile(doc, [17]), coref={"type": "precomputed.v1", "model": "x"})
    assert bad_params.value is None and "ADA203" in bad_params.reason


# ---- the suite ------------------------------------------------------------------------------

def test_empty_document_gives_none_everywhere():
    doc = Document(id="empty", text="")
    res = score_chunking([], ctx_for(doc))
    assert set(res) == set(METRIC_KEYS)
    assert all(r.value is None and r.reason for r in res.values())


def test_suite_reports_unregistered_keys():
    doc = Document(id="d", text=ALICE, entity_pron_pairs=[PAIR])
    res = score_chunking(tile(doc, [17]), ctx_for(doc), keys=("rc", "nope"))
    assert res["rc"].value == 0.0
    assert res["nope"].value is None and "no metric registered" in res["nope"].reason
