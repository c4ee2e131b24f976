"""The run says how many texts its embedders computed against how many the stages asked for."""

from __future__ import annotations

import json
import shutil

from adachunk.runner.run import run_corpus
from adachunk.datatypes import Memo

from .conftest import EXAMPLES


def test_memo_lists_the_values_of_one_kind():
    memo = Memo()
    memo.memo(("span_embeddings", "a"), lambda: 1)
    memo.memo(("span_embeddings", "b"), lambda: 2)
    memo.memo(("other",), lambda: 3)
    memo.memo("span_embeddings", lambda: 4)  # not a tuple key: not an entry of the kind
    assert memo.cached("span_embeddings") == [1, 2] and memo.cached("none") == []


def test_summary_and_decisions_count_embedding_work(tmp_path):
    shutil.copy(EXAMPLES / "regulation_excerpt.md", tmp_path / "regulation_excerpt.md")
    summary = run_corpus([str(tmp_path / "regulation_excerpt.md")], out=tmp_path / "out", backend="serial",
                         sink="none", progress=False)
    counts = summary.summary["embedding"]
    # candidates share their chunks and sentences: far fewer texts computed than asked for
    assert 0 < counts["embedded"] < counts["asked"] / 2 and counts["model_calls"] > 0
    (decision,) = [json.loads(line) for line in (tmp_path / "out" / "decisions.jsonl").read_text().splitlines()]
    assert decision["embedding"] == counts
