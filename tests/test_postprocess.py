"""Post-processing QC (paper §4): oversize re-split, tiny merge, gap check, statistics.

The paper's tiny-merge unit tests use ``len`` as the size function; the ``chars`` tokenizer gives
the same sizes, so they are pinned with the paper's numbers.
"""

from __future__ import annotations

import pytest

from adachunk.components.builtins import ensure_builtins
from adachunk.errors import InternalError
from adachunk.policy import Policy
from adachunk.policy_types import SolverSpec
from adachunk.policy_types import PostprocessSpec
from adachunk.split.postprocess import check_tiling, merge_tiny, postprocess, resplit_oversize
from adachunk.split.common import DocumentTokens, make_chunking
from adachunk.selection.candidates import make_splitter
from adachunk.tokens import get_counter
from adachunk.datatypes import Chunking, Document

ensure_builtins()


def policy(tokenizer="chars", **post) -> Policy:
    return Policy(name="t", fingerprint="fp", detectors={}, rules=(), solver=SolverSpec(tokenizer=tokenizer),
                  postprocess=PostprocessSpec(**post))


def merged(parts: list[str], min_size: int, max_size: int) -> list[str]:
    """The paper's ``merge_small_chunks_to_neighbours(parts, len, min, max, "next")`` on spans."""
    text = "".join(parts)
    spans, pos = [], 0
    for p in parts:
        spans.append((pos, pos, pos + len(p)))
        pos += len(p)
    out, _ = merge_tiny(DocumentTokens(text, get_counter("chars")), spans, min_size, max_size)
    return [text[s:e] for s, _, e in out]


def chunking_of(text: str, parts: list[str], splitter: str, pol: Policy) -> tuple[Document, Chunking]:
    doc = Document(id="d", text=text)
    spans, pos = [], 0
    for p in parts:
        spans.append((pos, pos + len(p)))
        pos += len(p)
    return doc, make_chunking(doc, pol, spans, splitter)


# --- tiny merge, the paper's cases (paper-spec §8.2) -------------------------------------------

@pytest.mark.parametrize("parts,min_size,max_size,expected", [
    (["aaa", "x", "ccc"], 3, 100, ["aaa", "xccc"]),
    (["aaa", "ccc", "x"], 3, 100, ["aaa", "cccx"]),
    (["x", "aaa", "ccc"], 3, 100, ["xaaa", "ccc"]),
    (["aaaa", "x", "bbbb"], 3, 4, ["aaaa", "x", "bbbb"]),
    (["a", "b", "c", "d"], 3, 100, ["abcd"]),
    (["aaaaa", "b", "c", "ddddd"], 3, 7, ["aaaaa", "bcddddd"]),
    (["aaaa", "x", "bbbbbb"], 3, 6, ["aaaax", "bbbbbb"]),          # next too big: previous
    (["only"], 10, 100, ["only"]),
])
def test_tiny_merge_cases(parts, min_size, max_size, expected):
    assert merged(parts, min_size, max_size) == expected


def test_tiny_merge_rechecks_the_grown_chunk():
    # "x" takes in "y" (2 < 3), then "z" too: the same chunk is checked again after a merge
    assert merged(["aaa", "x", "y", "zzz"], 3, 100) == ["aaa", "xyzzz"]


# --- oversize re-split -------------------------------------------------------------------------

def test_resplit_only_oversize_chunks():
    text = "short page\n" + ("A sentence of text. " * 30) + "\n"
    index = DocumentTokens(text, get_counter("chars"))
    spans = [(0, 0, 11), (11, 11, len(text))]
    out, n = resplit_oversize(index, spans, 100)
    assert n == 1 and out[0] == (0, 0, 11) and all(e - s <= 100 for s, _, e in out)
    assert [c for _, c, _ in out] == [0, 11] + [e for _, _, e in out[1:-1]]


def test_postprocess_page_resplits_and_merges():
    pol = policy(max_tokens=100, min_tokens=20, merge_max_tokens=110)
    text = "p1 tiny\n" + "Long page sentence here. " * 20 + "tail"
    doc, raw = chunking_of(text, ["p1 tiny\n", text[8:-4], "tail"], "page.v1", pol)
    out = postprocess(raw, doc, pol)
    assert "".join(c.text for c in out.chunks) == text and out.splitter == "page.v1"
    assert all(c.tokens <= 110 for c in out.chunks) and all(c.tokens >= 20 for c in out.chunks)
    assert [c.index for c in out.chunks] == list(range(len(out.chunks)))
    stats = out.meta["postprocess"]
    assert stats["resplit_pass"] and stats["resplit"] == 1 and stats["merges"] >= 2
    assert stats["before"]["chunks"] == 3 and stats["before"]["max_tokens"] == len(text) - 12
    assert stats["after"]["chunks"] == len(out.chunks) and stats["after"]["max_tokens"] <= 110


def test_recursive_chunks_are_not_resplit():
    pol = policy(max_tokens=10, min_tokens=0, merge_max_tokens=10)
    text = "x" * 50
    doc, raw = chunking_of(text, [text], "recursive.v1", pol)
    assert [c.text for c in postprocess(raw, doc, pol).chunks] == [text]
    assert len(postprocess(raw, doc, pol, resplit=True).chunks) == 5


def test_disabled_postprocess_returns_input():
    pol = policy(enabled=False, min_tokens=100)
    doc, raw = chunking_of("ab", ["a", "b"], "page.v1", pol)
    assert postprocess(raw, doc, pol) is raw


def test_overlap_chunks_keep_first_overlap_on_merge():
    pol = policy("chars", max_tokens=1000, min_tokens=30, merge_max_tokens=1000)
    text = " ".join(f"w{i}" for i in range(60))
    doc = Document(id="d", text=text)
    raw = make_splitter("recursive.v1", {"chunk_size": 40, "chunk_overlap": 8}).split(doc, pol)
    out = postprocess(raw, doc, pol)
    assert "".join(text[c.core_start:c.end] for c in out.chunks) == text
    assert all(c.start <= c.core_start for c in out.chunks)
    assert len(out.chunks) <= len(raw.chunks) and all(c.text == text[c.start:c.end] for c in out.chunks)


def test_heading_paths_and_ids_recomputed_after_merge():
    pol = policy("o200k_base", min_tokens=1000, merge_max_tokens=5000)
    text = "# A\n\nalpha text.\n\n## B\n\nbeta text.\n"
    doc, raw = chunking_of(text, ["# A\n\nalpha text.\n\n", "## B\n\nbeta text.\n"], "sentence.v1", pol)
    out = postprocess(raw, doc, pol)
    assert len(out.chunks) == 1 and out.chunks[0].heading_path == ("A",)
    assert out.chunks[0].id not in {c.id for c in raw.chunks}


# --- gap check (paper repair -> an internal error here: splitters tile by construction) --------

def test_gap_check_accepts_tiling():
    check_tiling([(0, 0, 6), (6, 6, 12)], "Hello world.", "t")
    check_tiling([], "", "t")


@pytest.mark.parametrize("spans,text", [
    ([(0, 0, 6), (6, 6, 12)], "Hello beautiful world."),      # trailing text not covered
    ([(0, 0, 10), (15, 15, 19)], "AAAA BBBB CCCC DDDD"),      # a gap in the middle
    ([(0, 0, 5), (3, 3, 10)], "AAAA BBBB "),                  # overlapping cores
    ([], "AAAA"),                                              # nothing covers the text
    ([(0, 0, 0), (0, 0, 4)], "AAAA"),                          # an empty chunk
])
def test_gap_check_rejects_non_tiling(spans, text):
    with pytest.raises(InternalError) as err:
        check_tiling(spans, text, "t")
    assert err.value.code == "ADA101"


def test_postprocess_rejects_a_chunking_with_a_gap():
    pol = policy(min_tokens=0)
    doc = Document(id="d", text="AAAA BBBB EXTRA")
    _, raw = chunking_of("AAAA BBBB EXTRA", ["AAAA ", "BBBB "], "page.v1", pol)
    with pytest.raises(InternalError, match="ADA101"):
        postprocess(raw, doc, pol)
