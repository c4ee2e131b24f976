"""The retrieval benchmark's own arithmetic: evidence words, page hits, prefix forms, a missing corpus."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
rb = pytest.importorskip("retrieval_bench")


def test_evidence_words_are_normalised():
    assert rb.norm_words("Total net revenue was $1,577.5 million, UP 9.7% in 2020.") == \
        ["total", "net", "revenue", "1577.5", "million", "9.7", "2020"]  # "was", "up", "in": stop words
    assert rb.norm_words("1,577") == rb.norm_words("1577")


def test_evidence_recall_is_a_bag_of_words_min_count():
    bag = Counter(rb.norm_words("revenue 100 revenue 200"))
    assert rb.bag_recall(bag, Counter(rb.norm_words("revenue 100"))) == pytest.approx(2 / 4)
    assert rb.bag_recall(bag, Counter(rb.norm_words("revenue revenue revenue 100 200"))) == 1.0
    assert rb.bag_recall(Counter(), Counter(["x"])) == 0.0


def test_a_chunks_pages_are_the_pages_its_span_overlaps():
    pages = [(0, 0, 10), (1, 12, 20), (2, 22, 30)]  # pages joined by two characters
    starts = [s for _, s, _ in pages]
    assert rb.chunk_pages(pages, starts, 0, 10) == {0}
    assert rb.chunk_pages(pages, starts, 9, 13) == {0, 1}
    assert rb.chunk_pages(pages, starts, 10, 12) == set()  # only the separator
    assert rb.chunk_pages(pages, starts, 5, 30) == {0, 1, 2}


def test_prefix_forms():
    texts = ["## Revenue\n\nText.", "More text.", "Intro."]
    paths = [["Results", "Revenue"], ["Results", "Revenue"], []]
    assert rb.prefix_form("heading_path", texts, paths) == ["Results > Revenue\n\n"] * 2 + [""]
    assert rb.prefix_form("heading_last", texts, paths) == ["Revenue\n\n"] * 2 + [""]
    assert rb.prefix_form("heading_path_if_not_start", texts, paths) == ["", "Results > Revenue\n\n", ""]
    assert rb.prefix_form("none", texts, paths) == ["", "", ""]


def test_financebench_is_skipped_without_shared(tmp_path, monkeypatch):
    monkeypatch.setattr(rb, "SHARED", tmp_path)
    assert rb.open_corpus("financebench-dev", SimpleNamespace(cache=tmp_path, per_doc=1)) is None
    assert rb.open_corpus("chroma-dev", SimpleNamespace(cache=tmp_path, per_doc=1)) is None


def test_the_run_row_embeds_what_the_index_embeds(tmp_path):
    from adachunk.datatypes import Document

    table = "<Table>\n| (in millions) | 2022 | 2021 |\n| --- | --- | --- |\n" + "".join(
        f"| Line item {i} | {i},100 | {i},200 |\n" for i in range(60)) + "</Table>\n"
    docs = {"d": Document(id="d", text="# Statements\n\nThe company's results follow.\n\n" + table)}
    plain = tmp_path / "plain.yaml"
    plain.write_text("schema_version: 1\nname: plain\nextends: default\nindex:\n  table_rows: plain\n")
    got = rb.run_chunking(docs, str(plain))
    assert got["meta"]["table_rows"] == "plain"
    emb = got["embedded"]["d"]
    assert len(emb) == len(got["spans"]["d"]) > 1
    assert not any("| " in e or "<Table>" in e for e in emb)  # every row embedded plain
    assert any("Line item 59 59,100 59,200" in e for e in emb)
    same = rb.run_chunking(docs, "default")  # markdown rows: the dense text is prefix + text
    assert same["embedded"] is None and same["spans"] == got["spans"]
