"""Property tests of the candidate splitters and post-processing on random Markdown.

Documents mix headings, paragraphs, nested lists, tables, code fences, emoji, CJK, accents and
CRLF line ends. Every splitter must tile the text exactly with no empty chunk, be deterministic,
and (recursive, fixed) keep every chunk within ``chunk_size`` own o200k tokens.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adachunk.components.builtins import ensure_builtins
from adachunk.policy import Policy
from adachunk.policy_types import SolverSpec
from adachunk.policy_types import PostprocessSpec
from adachunk.split.postprocess import postprocess
from adachunk.selection.candidates import make_splitter
from adachunk.tokens import get_counter
from adachunk.datatypes import Document, Page

ensure_builtins()
ENC = get_counter("o200k_base")
SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

WORDS = st.sampled_from([
    "the", "Article", "5(1)(a)", "e.g.", "data", "naïve", "café", "日本語", "テキスト", "😀", "👍🏽", "x" * 30,
    "U.S.", "§", "-", "—", "1.", "(iv)", "word,", "end.", "why?", "http://a.b/c",
])


@st.composite
def sentence(draw) -> str:
    words = draw(st.lists(WORDS, min_size=1, max_size=8))
    return " ".join(words) + draw(st.sampled_from([".", "!", "?", "", ";"]))


@st.composite
def block(draw) -> str:
    kind = draw(st.sampled_from(["heading", "para", "list", "table", "code", "blank"]))
    if kind == "heading":
        return "#" * draw(st.integers(1, 6)) + " " + draw(sentence()) + "\n"
    if kind == "para":
        return " ".join(draw(st.lists(sentence(), min_size=1, max_size=4))) + "\n"
    if kind == "list":
        items = draw(st.lists(st.tuples(st.integers(0, 2), st.sampled_from(["-", "*", "1.", "a)", "•"]), sentence()),
                              min_size=1, max_size=4))
        return "".join("  " * depth + marker + " " + text + "\n" for depth, marker, text in items)
    if kind == "table":
        rows = draw(st.integers(1, 3))
        return "| a | b |\n|---|---|\n" + "".join(f"| {draw(sentence())} | {i} |\n" for i in range(rows))
    if kind == "code":
        return "```\n" + draw(sentence()) + "\n    indented(code)\n```\n"
    return "\n" * draw(st.integers(1, 3))


@st.composite
def markdown(draw) -> str:
    text = "\n".join(draw(st.lists(block(), min_size=1, max_size=10)))
    return text.replace("\n", "\r\n") if draw(st.booleans()) else text


def policy(**post) -> Policy:
    return Policy(name="p", fingerprint="fp", detectors={}, rules=(), solver=SolverSpec(),
                  postprocess=PostprocessSpec(enabled=True, **post))


def check_tiling(chunking, text: str) -> None:
    chunks = chunking.chunks
    assert "".join(text[c.core_start:c.end] for c in chunks) == text
    pos = 0
    for k, c in enumerate(chunks):
        assert c.index == k and c.core_start == pos and c.start <= c.core_start < c.end
        assert c.text == text[c.start:c.end] and c.text
        assert c.tokens == ENC.count(c.text)
        pos = c.end
    assert pos == len(text)


def run(type_name: str, params: dict, text: str, doc: Document | None = None):
    doc = doc or Document(id="h", text=text)
    first = make_splitter(type_name, params).split(doc, policy())
    again = make_splitter(type_name, params).split(doc, policy())
    assert [(c.id, c.start, c.core_start, c.end) for c in first.chunks] == \
        [(c.id, c.start, c.core_start, c.end) for c in again.chunks]
    check_tiling(first, text)
    return first


@SETTINGS
@given(markdown(), st.integers(12, 80), st.sampled_from([0, 0, 3, 8]), st.booleans())
def test_recursive_properties(text, size, overlap, paper):
    chunking = run("recursive.v1", {"chunk_size": size, "chunk_overlap": overlap, "paper_compat": paper}, text)
    assert all(c.tokens <= size for c in chunking.chunks)
    assert all(ENC.count(text[c.core_start:c.end]) <= size - overlap for c in chunking.chunks)


@SETTINGS
@given(markdown(), st.integers(8, 60), st.integers(0, 30))
def test_recursive_small_only_properties(text, size, min_size):
    chunking = run("recursive.v1", {"chunk_size": size, "merging": "small_only", "min_chunk_size": min_size}, text)
    assert all(c.tokens <= size for c in chunking.chunks)


@SETTINGS
@given(markdown(), st.integers(4, 64), st.integers(0, 3))
def test_fixed_properties(text, size, overlap):
    chunking = run("fixed.v1", {"chunk_size": size, "chunk_overlap": min(overlap, size - 1)}, text)
    assert all(c.tokens <= size for c in chunking.chunks)


@SETTINGS
@given(markdown(), st.integers(1, 6))
def test_sentence_properties(text, n):
    run("sentence.v1", {"sentences_per_chunk": n}, text)


@st.composite
def paged_doc(draw) -> Document:
    pages = draw(st.lists(st.one_of(st.just(""), markdown()), min_size=1, max_size=4))
    spans, pos = [], 0
    for i, page in enumerate(pages, 1):
        spans.append(Page(i, pos, pos + len(page)))
        pos += len(page)
    return Document(id="pg", text="".join(pages), pages=spans)


@SETTINGS
@given(paged_doc())
def test_page_properties(doc):
    if not doc.text:
        assert make_splitter("page.v1").split(doc, policy()).chunks == []
        return
    chunking = run("page.v1", {}, doc.text, doc)
    empty = [p.number for p in doc.pages if p.end == p.start]
    assert chunking.meta.get("empty_pages", []) == empty or "fallback" in chunking.meta


@SETTINGS
@given(paged_doc(), st.integers(10, 60), st.integers(0, 30), st.integers(0, 40))
def test_postprocess_invariants(doc, max_tokens, min_tokens, extra):
    if not doc.text:
        return
    pol = policy(max_tokens=max_tokens, min_tokens=min_tokens, merge_max_tokens=max_tokens + extra)
    raw = make_splitter("page.v1").split(doc, pol)
    out = postprocess(raw, doc, pol)
    check_tiling(out, doc.text)
    counts = [c.tokens for c in out.chunks]
    assert max(counts) <= max_tokens + extra  # re-split to max_tokens, merges up to merge_max
    for k, n in enumerate(counts):  # a chunk left small could not join either neighbour
        if n < min_tokens:
            assert k == 0 or counts[k - 1] + n > max_tokens + extra or \
                ENC.count(doc.text[out.chunks[k - 1].start:out.chunks[k].end]) > max_tokens + extra
            assert k == len(counts) - 1 or counts[k + 1] + n > max_tokens + extra or \
                ENC.count(doc.text[out.chunks[k].start:out.chunks[k + 1].end]) > max_tokens + extra
    stats = out.meta["postprocess"]
    assert stats["after"]["chunks"] == len(counts) and stats["before"]["chunks"] == len(raw.chunks)
    assert stats["after"]["max_tokens"] == max(counts)
    assert stats["resplit"] == sum(c.tokens > max_tokens for c in raw.chunks)
