"""QA sets: spans, answer strings (exact, normalised, every occurrence), located warnings, ADA315,
the shipped examples/qa.jsonl, and the proxy generator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adachunk.errors import InputError
from adachunk.evaluate import generate_qa, load_qa, locate_answer
from adachunk.retrieval.questions import sentences
from adachunk.ingest import read_document
from adachunk.datatypes import Document

from .conftest import EXAMPLES, clair_files

TEXT = "Alpha beta.  The  ‘Quick’\nBrown fox.\n\nPrice: €10. Price: €10.\n"
DOCS = {"doc": Document(id="doc", text=TEXT, source="corpus/doc.md"),
        "other": Document(id="other", text="Nothing here.", source="corpus/other.txt")}


def write(tmp_path: Path, lines: list) -> Path:
    p = tmp_path / "qa.jsonl"
    p.write_text("".join((x if isinstance(x, str) else json.dumps(x, ensure_ascii=False)) + "\n" for x in lines),
                 encoding="utf-8")
    return p


def test_spans_answers_and_document_names(tmp_path):
    p = write(tmp_path, [
        {"id": "a", "question": "first?", "doc": "doc", "evidence": [[0, 5], [6, 10], [3, 6]]},
        {"question": "price?", "doc": "doc.md", "answer": "Price: €10."},
        {"question": "fox?", "doc": "corpus/doc.md", "answer": "the 'quick' brown"},
        {"question": "checked?", "doc": "doc", "evidence": [[0, 5]], "evidence_text": ["Alpha"]},
    ])
    qa = load_qa(p, DOCS)
    assert not qa.warnings and [q.id for q in qa.questions] == ["a", "q2", "q3", "q4"]
    a, price, fox, _ = qa.questions
    assert a.evidence == (((0, 10),),)  # one set, merged spans
    i = TEXT.index("Price")
    assert price.doc == "doc" and price.evidence == (((i, i + 11),), ((i + 12, i + 23),))  # every occurrence
    s, e = fox.evidence[0][0]  # normalised: case, curly quotes, the whitespace run and the newline
    assert TEXT[s:e] == "The  ‘Quick’\nBrown" and fox.doc == "doc"
    assert qa.record()["questions"] == 4 and qa.docs == ["doc"]


def test_locate_answer_exact_before_normalised():
    assert locate_answer("a A a", "A") == [(2, 3)]  # exact wins over the case-folded matches
    assert locate_answer("a A a", "a") == [(0, 1), (4, 5)]
    assert locate_answer("Straße  X", "STRASSE x") == [(0, 9)]  # casefold lengthens ß; offsets map back
    assert locate_answer("abc", "zz") == [] and locate_answer("abc", "  ") == []


def test_bad_lines_are_located_warnings(tmp_path):
    p = write(tmp_path, [
        {"question": "ok?", "doc": "doc", "evidence": [[0, 5]]},
        "{not json",
        {"question": "unknown?", "doc": "missing", "evidence": [[0, 1]]},
        {"question": "out of range?", "doc": "doc", "evidence": [[5, 9999]]},
        {"question": "malformed?", "doc": "doc", "evidence": [[1, "2"]]},
        {"question": "empty span?", "doc": "doc", "evidence": [[3, 3]]},
        {"question": "not found?", "doc": "doc", "answer": "gamma"},
        {"question": "nothing?", "doc": "doc"},
        {"question": "changed?", "doc": "doc", "evidence": [[0, 5]], "evidence_text": ["Omega"]},
        "",
        {"id": "q1", "question": "dup id?", "doc": "doc", "evidence": [[0, 5]]},
    ])
    qa = load_qa(p, DOCS)
    assert len(qa.questions) == 2
    got = [str(w) for w in qa.warnings]
    lines = [w.line for w in qa.warnings]
    assert lines == [2, 3, 4, 5, 6, 7, 8, 9, 11]
    assert all(g.startswith(f"{p}:") for g in got)
    assert "not JSON" in got[0] and "unknown document 'missing'" in got[1] and "outside the document" in got[2]
    assert "malformed evidence span" in got[3] and "not found" in got[5] and "no evidence" in got[6]
    assert "evidence_text" in got[7] and "duplicate id 'q1'" in got[8]


@pytest.mark.parametrize("content,why", [
    ("", "empty"),
    ("this is not json\nnor this\n", "no line is a JSON object"),
    ('{"question": "q?", "doc": "doc", "evidence": [[0, 1]]}\n{"id": 1, "text": "a chunk"}\n', "question"),
    ('{"question": "q?", "doc": "missing", "answer": "x"}\n', "no usable question"),
])
def test_unreadable_qa_files_are_ada315(tmp_path, content, why):
    p = tmp_path / "qa.jsonl"
    p.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_qa(p, DOCS)
    assert exc.value.code == "ADA315" and why in exc.value.render()
    with pytest.raises(InputError) as exc:
        load_qa(tmp_path / "absent.jsonl", DOCS)
    assert exc.value.code == "ADA315"


def example_docs() -> dict[str, Document]:
    docs = [read_document(p) for p in sorted(EXAMPLES.glob("*.md")) if p.name != "SOURCES.md"]
    return {d.id: d for d in docs}


def test_shipped_qa_set_loads_exactly():
    docs = example_docs()
    qa = load_qa(EXAMPLES / "qa.jsonl", docs)
    assert not qa.warnings and 24 <= len(qa.questions) <= 40 and len(qa.docs) == 3
    for line in (EXAMPLES / "qa.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        text = docs[rec["doc"] + ".md"].text  # the QA names the stem; the id has the suffix
        assert [text[s:e] for s, e in rec["evidence"]] == rec["evidence_text"]
        assert rec["question"] not in text  # paraphrases, not copies


def test_generator_is_deterministic_and_its_evidence_is_in_the_document():
    docs = list(example_docs().values())
    a, b = generate_qa(docs, per_doc=6, seed=3), generate_qa(docs, per_doc=6, seed=3)
    assert a == b and len(a) == 18
    assert generate_qa(docs, per_doc=6, seed=4) != a
    by_id = {d.id: d for d in docs}
    for r in a:
        (s, e), = r["evidence"]
        text = by_id[r["doc"]].text
        assert text[s:e] == r["answer"] and r["question"].startswith("What does the document say about")
        assert "|" not in r["answer"] and not r["answer"].startswith("#")
    assert len({r["id"] for r in a}) == len(a)


def test_generated_file_loads_without_warnings(tmp_path):
    docs = example_docs()
    p = write(tmp_path, generate_qa(docs.values(), per_doc=4, seed=0))
    qa = load_qa(p, docs)
    assert len(qa.questions) == 12 and not qa.warnings


def test_sentences_skip_tables_code_and_headings():
    text = "# Heading with many words in it for sure\n\n| a | b | c | d | e | f | g | h |\n\n```\ncode code code code code code code code.\n```\n\nThe gateway stores every document with a tamper evident hash. Short one.\n"
    spans = sentences(text)
    assert [text[s:e] for s, e in spans] == ["The gateway stores every document with a tamper evident hash."]


def test_generator_on_clair_when_available():
    files = clair_files()[:2]
    if not files:
        pytest.skip("../shared/corpus/clair is not available")
    docs = [read_document(p) for p in files]
    recs = generate_qa(docs, per_doc=5, seed=0)
    assert recs and all(next(d for d in docs if d.id == r["doc"]).text[slice(*r["evidence"][0])] == r["answer"]
                        for r in recs)
