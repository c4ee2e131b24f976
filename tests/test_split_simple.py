"""``page.v1``, ``sentence.v1``, ``fixed.v1``, the candidate pool and ``adachunk chunk --splitter``."""

from __future__ import annotations

import json

import pytest

from adachunk.cli.main import main
from adachunk.components.builtins import ensure_builtins
from adachunk.errors import ProfileError
from adachunk.policy import Policy
from adachunk.policy_types import SolverSpec
from adachunk.policy_types import PostprocessSpec
from adachunk.components.registry import splitters
from adachunk.selection.candidates import CandidateRun, make_splitter, run_candidates
from adachunk.tokens import get_counter
from adachunk.datatypes import Chunking, Document, Page

ensure_builtins()
TEXT = ("# Report\n\nThe Commission shall act. It may adopt rules. See Art. 5 of the Act.\n\n"
        "## Scope\n\n- item one. Still item one.\n- item two!\n\nEnd? Yes. ") * 6


def policy(candidates=(), tokenizer="o200k_base", **post) -> Policy:
    return Policy(name="t", fingerprint="fp", detectors={}, rules=(), solver=SolverSpec(tokenizer=tokenizer),
                  candidates=tuple(candidates), postprocess=PostprocessSpec(enabled=True, **post))


def tiles(chunking: Chunking, text: str) -> bool:
    cores = [(c.core_start, c.end) for c in chunking.chunks]
    return (all(c.text == text[c.start:c.end] and c.end > c.start for c in chunking.chunks)
            and [a for a, _ in cores] == [0] + [b for _, b in cores[:-1]] and cores[-1][1] == len(text))


def paged(texts: list[str]) -> Document:
    pages, pos = [], 0
    for i, t in enumerate(texts, 1):
        pages.append(Page(i, pos, pos + len(t)))
        pos += len(t)
    return Document(id="p", text="".join(texts), pages=pages)


# --- page.v1 ---------------------------------------------------------------------------------

def test_page_chunks_are_the_pages():
    doc = paged(["AAAA\n<!-- PageBreak -->\n\n", "BBBB\n", "CCCC"])
    chunking = make_splitter("page.v1").split(doc, policy())
    assert [c.text for c in chunking.chunks] == ["AAAA\n<!-- PageBreak -->\n\n", "BBBB\n", "CCCC"]
    assert [c.pages for c in chunking.chunks] == [(1,), (2,), (3,)]


def test_empty_page_is_merged_and_recorded():
    doc = paged(["AAAA", "", "CCCC", ""])
    chunking = make_splitter("page.v1").split(doc, policy())
    assert [c.text for c in chunking.chunks] == ["AAAA", "CCCC"] and chunking.meta["empty_pages"] == [2, 4]
    assert tiles(chunking, doc.text)


def test_no_page_map_falls_back_to_one_chunk():
    chunking = make_splitter("page.v1").split(Document(id="x", text=TEXT), policy())
    assert [c.text for c in chunking.chunks] == [TEXT] and "fallback" in chunking.meta


def test_chunk_pages_follow_the_page_map():
    # paper get_page_info: pages AAAA|BBBB|CCCC, chunks "AAAAB" | "BBBCCCC" -> [1, 2], [2, 3]
    doc = paged(["AAAA", "BBBB", "CCCC"])
    from adachunk.split.common import make_chunking

    chunking = make_chunking(doc, policy(), [(0, 5), (5, 12)], "test")
    assert [c.pages for c in chunking.chunks] == [(1, 2), (2, 3)]


# --- sentence.v1 ------------------------------------------------------------------------------

def test_sentence_groups_tile_and_hold_n_sentences():
    text = "  Lead space. " + " ".join(f"Sentence number {i}." for i in range(12)) + "\n"
    chunking = make_splitter("sentence.v1", {"sentences_per_chunk": 5}).split(Document(id="s", text=text), policy())
    assert tiles(chunking, text) and len(chunking.chunks) == 3
    assert chunking.chunks[0].text.startswith("  Lead") and chunking.chunks[1].text.startswith("Sentence number 4.")
    assert chunking.meta["sentences"] == 13


def test_sentence_whitespace_only_document():
    chunking = make_splitter("sentence.v1").split(Document(id="w", text="   \n "), policy())
    assert [c.text for c in chunking.chunks] == ["   \n "]


# --- fixed.v1 ---------------------------------------------------------------------------------

@pytest.mark.parametrize("size,overlap", [(16, 0), (16, 4), (5, 0)])
def test_fixed_windows(size, overlap):
    text = TEXT + "日本語のテキスト😀👍🏽 " * 5
    chunking = make_splitter("fixed.v1", {"chunk_size": size, "chunk_overlap": overlap}).split(
        Document(id="f", text=text), policy())
    enc = get_counter("o200k_base")
    assert tiles(chunking, text)
    assert all(enc.count(c.text) <= size for c in chunking.chunks)
    assert all(c.end - c.core_start >= 1 for c in chunking.chunks)
    if overlap:
        assert any(c.start < c.core_start for c in chunking.chunks[1:])
    # windows are full, up to a code point of several tokens that does not fit any more
    assert all(c.size >= size - overlap - 3 for c in chunking.chunks[:-1])


# --- pool -------------------------------------------------------------------------------------

def test_make_splitter_validates_params():
    with pytest.raises(ProfileError) as err:
        make_splitter("recursive.v1", {"chunk_sise": 10})
    assert err.value.code == "ADA202" and "chunk_size" in (err.value.allowed or [])
    with pytest.raises(ProfileError) as err:
        make_splitter("recursive.v1", {"chunk_size": "big"})
    assert err.value.code == "ADA203"
    with pytest.raises(ProfileError) as err:
        make_splitter("recursiv.v1")
    assert err.value.code == "ADA205" and "recursive.v1" in (err.value.hint or "")


class _Broken:
    """A splitter that always fails (the pool must carry on)."""

    def __init__(self, params=None):
        self.params = params

    def split(self, doc, policy):
        raise RuntimeError("boom")


def test_run_candidates_runs_all_and_isolates_failures(monkeypatch):
    # registered for this test only (the registry has no public removal)
    monkeypatch.setitem(splitters._items, "test_broken.v1", _Broken)
    cands = [("recursive.v1", {"chunk_size": 40}, "rec40"), ("test_broken.v1", {}, "broken"),
             ("page.v1", {}, "page"), ("nope.v1", {}, "missing")]
    doc = Document(id="d", text=TEXT)
    runs = run_candidates(doc, policy(cands, max_tokens=60, min_tokens=10, merge_max_tokens=70))
    assert [r.name for r in runs] == ["rec40", "broken", "page", "missing"]
    assert all(isinstance(r, CandidateRun) and r.seconds >= 0 for r in runs)
    rec, broken, page, missing = runs
    assert rec.ok and rec.error is None and tiles(rec.chunking, TEXT)
    assert "postprocess" in rec.chunking.meta and rec.chunking.meta["postprocess"]["resplit_pass"] is False
    assert not broken.ok and broken.error == "RuntimeError: boom"
    assert page.ok and page.chunking.meta["postprocess"]["resplit"] == 1  # one page over 60 tokens
    assert all(c.tokens <= 70 for c in page.chunking.chunks)
    assert not missing.ok and missing.error.startswith("ADA205")


def test_run_candidates_without_postprocess():
    runs = run_candidates(Document(id="d", text=TEXT), policy([("page.v1", {}, "page")]), postprocess=False)
    assert [c.text for c in runs[0].chunking.chunks] == [TEXT] and "postprocess" not in runs[0].chunking.meta


# --- CLI --------------------------------------------------------------------------------------

def test_cli_splitter_writes_jsonl(tmp_path, capsys):
    f = tmp_path / "doc.md"
    f.write_text(TEXT, encoding="utf-8")
    assert main(["chunk", str(f), "--splitter", "recursive.v1", "--param", "chunk_size=40", "--no-postprocess"]) == 0
    recs = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(recs) > 3 and "".join(r["text"] for r in recs) == TEXT
    assert all(r["splitter"] == "recursive.v1" and r["tokens"] <= 40 for r in recs)
    assert main(["chunk", str(f), "--splitter", "recursive.v1", "--param", "chunk_size=40"]) == 0
    merged = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(merged) < len(recs)  # the default profile's tiny merge (min 100 tokens)


def test_cli_splitter_errors(tmp_path, capsys):
    f = tmp_path / "doc.md"
    f.write_text(TEXT, encoding="utf-8")
    assert main(["chunk", str(f), "--splitter", "recursive.v1", "--param", "chunk_size"]) == 2
    assert "ADA203" in capsys.readouterr().err
    assert main(["chunk", str(f), "--param", "chunk_size=4"]) == 2
    assert "need --splitter" in capsys.readouterr().err
