"""``adachunk score``: JSON/table output, scoring chunks made elsewhere, coded errors."""

from __future__ import annotations

import json

import pytest

from adachunk.cli.main import main
from adachunk.cli.score_cmd import spans_from_records
from adachunk.errors import InputError

TEXT = ("Alice went home. She slept well that night.\n\n"
        "Bob wrote a long report about it. He sent it on Monday.\n\n"
        "The end of the story comes here.\n")
PARA2 = TEXT.index("Bob")
PARA3 = TEXT.index("The end")
PAIRS = [[[0, 4], [17, 19]], [[PARA2, PARA2 + 2], [PARA2 + 34, PARA2 + 35]]]


@pytest.fixture()
def paper_doc(tmp_path):
    obj = {"document_name": "story", "full_text": TEXT,
           "pages": {"1": TEXT[:PARA3], "2": TEXT[PARA3:]},
           "split_points": [PARA2, PARA3], "entity_pron_pairs": PAIRS}
    path = tmp_path / "story.json"
    path.write_text(json.dumps(obj), encoding="utf-8")
    return path


def score_json(capsys, *args) -> dict:
    assert main(["score", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def test_json_output_for_a_dp_chunking(paper_doc, capsys):
    out = score_json(capsys, str(paper_doc), "--param", "max_size=14", "--param", "min_size=0",
                     "--no-postprocess", "--metrics", "sc,bi,rc")
    assert out["doc_id"] == "story" and out["splitter"] == "dp.v1" and out["chunks"] >= 3
    for key in ("sc", "bi", "rc"):
        assert 0.0 <= out[key] <= 1.0
    assert out["sc"] == 0.0  # every chunk is under SC's 100-token floor
    assert out["icc"] is None and out["dcc"] is None and out["reasons"]["icc"] == "not requested"
    spans = [(c["start"], c["end"]) for c in out["detail"]["chunks"]]
    assert spans[0][0] == 0 and spans[-1][1] == len(TEXT)
    assert len(out["detail"]["sc"]) == out["chunks"]
    assert 0.0 <= out["score"] <= 1.0


def test_chunks_file_with_offsets_scores_like_the_direct_run(paper_doc, tmp_path, capsys):
    direct = score_json(capsys, str(paper_doc), "--param", "max_size=14", "--param", "min_size=0",
                        "--no-postprocess", "--metrics", "sc,bi,rc")
    out_file = tmp_path / "chunks.jsonl"
    assert main(["chunk", str(paper_doc), "--max-size", "14", "--min-size", "0", "-o", str(out_file)]) == 0
    again = score_json(capsys, str(paper_doc), "--chunks", str(out_file), "--metrics", "sc,bi,rc")
    assert [again[k] for k in ("sc", "bi", "rc")] == [direct[k] for k in ("sc", "bi", "rc")]
    assert again["detail"]["chunks"] == direct["detail"]["chunks"]


def test_chunks_file_with_text_only(paper_doc, tmp_path, capsys):
    pages = write_jsonl(tmp_path / "p.jsonl", [{"text": TEXT[:PARA3]}, {"text": TEXT[PARA3:]}])
    out = score_json(capsys, str(paper_doc), "--chunks", pages, "--metrics", "bi,rc")
    assert out["bi"] == 1.0 and out["rc"] == 1.0
    # a cut between "Alice" and "She": the first pair is missing; the cut is 17 chars into a block
    cut = write_jsonl(tmp_path / "c.jsonl", [{"text": TEXT[:17]}, {"text": TEXT[17:]}])
    out = score_json(capsys, str(paper_doc), "--chunks", cut, "--metrics", "bi,rc")
    assert out["rc"] == 0.5 and out["bi"] == pytest.approx(2 / 3)
    assert out["detail"]["rc"] == [{"entity": [0, 4], "pronoun": [17, 19], "boundary": 17}]


def test_overlapping_text_chunks_are_located_in_order():
    text = "aaa bbb aaa bbb ccc"
    spans = spans_from_records([{"text": "aaa bbb ", "_line": 1}, {"text": "bbb aaa bbb ", "_line": 2},
                                {"text": "bbb ccc", "_line": 3}], text, "x")
    assert spans == [(0, 8, 0), (4, 16, 4), (12, 19, 12)]


@pytest.mark.parametrize("records, message", [
    ([{"text": "Alice went home. "}, {"text": "Bob wrote"}], "gap"),
    ([{"text": TEXT[:20]}, {"text": "zzz"}], "nowhere"),
    ([{"start": 0, "end": 20}, {"start": 25, "end": len(TEXT)}], "gap at [20, 25)"),
    ([{"start": 0, "end": 40}, {"start": 30, "end": len(TEXT)}, {"start": 10, "end": 50}], "out of order"),
    ([{"start": 0, "end": 20}], "stop at offset 20"),
    ([{"start": 0, "end": 20, "text": "nope"}, {"start": 20, "end": len(TEXT)}], "differs"),
    ([{"start": 0, "end": 10**6}], "outside the document"),
    ([{"start": 0}], "needs integer 'start' and 'end'"),
    ([{"doc_id": "other", "start": 0, "end": len(TEXT)}], "doc_id 'story'"),
])
def test_chunk_lists_that_do_not_cover_the_document(paper_doc, tmp_path, capsys, records, message):
    path = write_jsonl(tmp_path / "bad.jsonl", records)
    assert main(["score", str(paper_doc), "--chunks", path]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ADA313") and message in err


def test_spans_error_is_an_input_error():
    with pytest.raises(InputError) as info:
        spans_from_records([{"start": 0, "end": 1, "_line": 1}], "ab", "f.jsonl")
    assert info.value.code == "ADA313"


def test_empty_document(tmp_path, capsys):
    f = tmp_path / "empty.md"
    f.write_text("", encoding="utf-8")
    out = score_json(capsys, str(f), "--no-postprocess")
    assert out["chunks"] == 0
    assert all(out[k] is None and out["reasons"][k] for k in ("sc", "bi", "rc", "icc", "dcc"))


def test_table_format(paper_doc, capsys):
    assert main(["score", str(paper_doc), "--no-postprocess", "--metrics", "sc,rc"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("profile default") and "1 chunks from dp.v1" in lines[0]
    # one chunk of 32..1100 tokens: within the default profile's SC bounds
    assert lines[2].split()[:2] == ["sc", "1.0000"] and lines[3].split()[:2] == ["rc", "1.0000"]
    assert lines[-1].startswith("score")


@pytest.mark.parametrize("args, code", [
    (["--metrics", "sc,xyz"], "ADA203"),
    (["--param", "max_size=-3"], "ADA203"),
    (["--param", "oops"], "ADA203"),
    (["--splitter", "nosuch.v1"], "ADA205"),
])
def test_bad_arguments(paper_doc, capsys, args, code):
    assert main(["score", str(paper_doc), "--no-postprocess", *args]) == 2
    assert capsys.readouterr().err.startswith(code)


def test_other_splitters_with_and_without_post_processing(paper_doc, capsys):
    pytest.importorskip("adachunk.split.postprocess")
    raw = score_json(capsys, str(paper_doc), "--splitter", "page.v1", "--no-postprocess", "--metrics", "sc,bi,rc")
    assert raw["splitter"] == "page.v1" and raw["postprocessed"] is False and raw["chunks"] == 2
    assert [c["start"] for c in raw["detail"]["chunks"]] == [0, PARA3]
    assert (raw["bi"], raw["rc"]) == (1.0, 1.0)  # the page break is a gold split point
    done = score_json(capsys, str(paper_doc), "--splitter", "page.v1", "--metrics", "sc,bi,rc")
    assert done["postprocessed"] is True and done["chunks"] == 1  # tiny pages merged (< 100 tokens)
