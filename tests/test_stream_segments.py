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
