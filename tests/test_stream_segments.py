"""Large-document mode read from the file (never the whole text in memory) == read whole."""

from __future__ import annotations

import json
import random

import pytest

from adachunk.api import load_profile
from adachunk.cli.main import main
from adachunk.errors import InputError
from adachunk.ingest import read_document
from adachunk.ingest.readers import markdown_pages
from adachunk.ingest.stream import PageCounter, segments, text_facts
from adachunk.runner.file_records import document_records, file_records
from adachunk.sink.records import dumps
from adachunk.split.segments import segment_bounds

SEG = 3000


def big_markdown(seed: int, n: int = 220) -> str:
    """Headings, paragraphs, fenced code with blank lines, tables, page breaks (some followed
    by several line breaks), CRLF lines and characters beyond Latin-1."""
    rnd = random.Random(seed)
    parts = []
    for i in range(n):
        kind = rnd.random()
        if kind < 0.15:
            parts.append(f"## Section {i} — Überblick ✓\n\n")
        elif kind < 0.25:
            parts.append("```python\ndef f():\n\n    return 1  # a blank line inside the fence\n```\n\n")
        elif kind < 0.32:
            parts.append("| a | b |\n|---|---|\n| 1 | 2 |\n\n")
        elif kind < 0.40:
            parts.append("<!-- PageBreak -->" + "\n" * rnd.randint(1, 4))
        elif kind < 0.45:
            parts.append("A CRLF paragraph, with Ω and 中文.\r\n\r\n")
        else:
            parts.append(" ".join(rnd.choice(["contract", "lease", "party", "term", "shall", "Zürich", "€"])
                                  for _ in range(rnd.randint(8, 60))) + ".\n\n")
    return "".join(parts)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_segments_read_from_the_file_are_the_whole_text_cut(tmp_path, seed):
    text = big_markdown(seed)
    f = tmp_path / "big.md"
    f.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))  # a BOM, dropped as the reader does
    doc = read_document(f)
    assert doc.text == text
    got = list(segments(f, str(f), SEG))
    bounds = segment_bounds(text, SEG)
    assert [o for o, _ in got] == bounds[:-1] and "".join(t for _, t in got) == text
    facts = text_facts(f, str(f))
    assert facts.chars == len(text) and facts.content_hash == doc.content_hash and facts.has_pages
    # the pages of each segment are the whole text's pages, clipped and shifted
    counter = PageCounter(True)
    for a, seg in got:
        whole = [(p.number, max(p.start, a) - a, min(p.end, a + len(seg)) - a)
                 for p in markdown_pages(text) if p.start < a + len(seg) and p.end > a]
        assert [(p.number, p.start, p.end) for p in counter.pages(seg)] == whole


@pytest.mark.parametrize("seed", [4, 5])
def test_chunk_output_read_from_the_file_equals_the_whole_text_path(tmp_path, capsys, seed):
    f = tmp_path / "big.md"
    f.write_text(big_markdown(seed), encoding="utf-8", newline="")
    assert main(["chunk", str(f), "--segment-chars", str(SEG)]) == 0
    streamed = capsys.readouterr().out
    rp = load_profile("default")
    whole = "".join(dumps(r) + "\n" for r in document_records(read_document(f), rp, max_chars=SEG))
    assert streamed == whole
    # the library's form of the command: the same records, read from the file segment by segment
    assert "".join(dumps(r) + "\n" for r in file_records(f, rp, doc_id="big.md", max_chars=SEG)) == streamed
    recs = [json.loads(x) for x in streamed.splitlines()]
    assert len({r["id"] for r in recs}) == len(recs) and recs[-1]["next_id"] is None


def test_invalid_utf8_in_a_streamed_file_names_its_byte_offset(tmp_path):
    f = tmp_path / "bad.md"
    good = ("word " * 2000).encode()
    f.write_bytes(good + b"\xff" + good)
    with pytest.raises(InputError) as err:
        list(segments(f, str(f), SEG))
    assert err.value.code == "ADA301" and f"byte offset {len(good)}" in err.value.message


def test_file_records_take_a_profile_by_name_or_resolved_and_name_the_file(tmp_path):
    """The library's form of ``adachunk chunk``: a profile name or a resolved profile give the
    same records, whose ``doc_id`` is the file's name unless given; a long document read whole
    (a parsed JSON, a PDF...) is cut in linked segments like a streamed one."""
    f = tmp_path / "big.md"
    f.write_text(big_markdown(6), encoding="utf-8", newline="")
    by_name = list(file_records(f, "default", max_chars=SEG))
    assert by_name == list(file_records(f, load_profile("default"), max_chars=SEG))
    assert {r["doc_id"] for r in by_name} == {"big.md"} and len(by_name) > 3
    assert [r["next_id"] for r in by_name[:-1]] == [r["id"] for r in by_name[1:]]
    whole = list(document_records(read_document(f), "default", max_chars=SEG))
    assert [(r["start"], r["end"], r["prev_id"]) for r in whole] == [(r["start"], r["end"], r["prev_id"]) for r in by_name]


def statements_markdown(n: int = 40) -> str:
    """Prose and titled statements (title, unit line, a header row of years, rows), so that the
    default profile's table context has something to carry."""
    rnd = random.Random(7)
    parts = []
    for i in range(n):
        parts.append(" ".join(rnd.choice(["revenue", "grew", "segment", "margin", "lease", "the", "cash"])
                              for _ in range(rnd.randint(20, 80))) + ".\n\n")
        rows = "\n".join(f"| Line item {i}.{k} | {rnd.randint(100, 9999):,} | {rnd.randint(100, 9999):,} |"
                         for k in range(rnd.randint(3, 40)))
        parts.append(f"ACME CORP STATEMENT {i}\n\n(in millions)\n\n| Item | 2023 | 2022 |\n| --- | --- | --- |\n{rows}\n\n")
    return "".join(parts)


def test_the_default_streams_a_long_file_with_its_table_context(tmp_path, capsys):
    """The default profile's only metadata (table context, a [table_header, text] recipe) is made
    segment by segment: the file is read from disk in segments, never whole, and the records
    equal the whole-document path's, embedded prefix included; a table whose title lines ended
    the segment before keeps its header row but not that title in ``table_context``."""
    from adachunk.enrich import segment_local

    rp = load_profile("default")
    assert segment_local(rp) and not segment_local(load_profile("legal"))
    f = tmp_path / "statements.md"
    f.write_text(statements_markdown(), encoding="utf-8", newline="")
    seg = 6000
    assert main(["chunk", str(f), "--segment-chars", str(seg)]) == 0
    recs = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    whole = list(document_records(read_document(f), rp, max_chars=seg))
    assert len(recs) == len(whole)
    for got, want in zip(recs, whole):
        a, b = got.pop("table_context", ""), want.pop("table_context", "")
        assert got == want and b.endswith(a) and (a == b or "ACME CORP" in b[:len(b) - len(a)])
        got["table_context"] = a
    carried = [r for r in recs if r.get("table_context")]
    assert len(carried) >= 5 and all("| Item | 2023 | 2022 |" in r["table_context"] for r in carried)
    assert any(r.get("embed_prefix", "").startswith("| Item | 2023 | 2022 |") for r in carried)


def test_a_streamed_file_is_never_read_whole(tmp_path, monkeypatch):
    """The streamed mode does not call the whole-file reader for the default profile."""
    import adachunk.runner.file_records as fr

    f = tmp_path / "statements.md"
    f.write_text(statements_markdown(), encoding="utf-8", newline="")

    def whole(*a, **k):
        raise AssertionError("read whole")

    monkeypatch.setattr(fr, "read_document", whole)
    assert len(list(file_records(f, "default", max_chars=6000))) > 10
