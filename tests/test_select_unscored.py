"""A selection that can say "nothing to compare": where no candidate can be scored, the profile's
``select.unscored`` order decides, the decision says so and summary.json counts the documents."""

from __future__ import annotations

import json

import adachunk
from adachunk.selection.choose import by_order, select_document
from adachunk.datatypes import Document

TABLE = "| Item | 2023 | 2022 |\n|---|---:|---:|\n" + "".join(
    f"| Line item {i} | {1000 + i:,} | {900 + i:,} |\n" for i in range(120))


def test_a_table_only_document_is_decided_by_the_profile_order():
    rp = adachunk.load_profile("default")
    dec = select_document(Document(id="t", text=TABLE), rp.policy)
    assert all(c.scores.get("rf") is None for c in dec.candidates if c.chunking is not None)
    assert dec.decided_by == "unscored"
    assert dec.best.name == next(c.name for c in dec.candidates if c.name.startswith("dp_"))
    assert dec.record()["decided_by"] == "unscored"


def test_prose_is_decided_by_the_scores():
    rp = adachunk.load_profile("default")
    text = open("examples/regulation_excerpt.md", encoding="utf-8").read()
    dec = select_document(Document(id="r", text=text), rp.policy)
    assert dec.decided_by == "score"


def test_order_patterns_then_pool_order():
    class R:
        def __init__(self, name):
            self.name = name

    rs = [R("recursive_254"), R("dp_254"), R("dp_127"), R("page")]
    assert by_order(rs, [0, 1, 2, 3], ("dp_127", "dp_*")) == 2
    assert by_order(rs, [0, 1, 3], ("dp_127", "dp_*")) == 1
    assert by_order(rs, [0, 3], ("dp_*",)) == 0
    assert by_order(rs, [], ("dp_*",)) is None


def test_summary_counts_the_unscored_documents(tmp_path, capsys):
    from adachunk.cli.main import main

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "table.md").write_text(TABLE)
    (tmp_path / "in" / "prose.md").write_text(open("examples/regulation_excerpt.md", encoding="utf-8").read())
    assert main(["run", str(tmp_path / "in"), "--out", str(tmp_path / "out"), "--sink", "none"]) == 0
    # the closing report says it too, not only summary.json (issue 49: a selection that gives up)
    err = capsys.readouterr().err
    assert "  selection: 1 of 2 documents had nothing to compare (decided by select.unscored)" in err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["unscored"]["documents"] == 1
    assert summary["unscored"]["list"][0]["source"].endswith("table.md")
    assert summary["hard_rules"]["winners_remaining"] == 0
