"""LangChain and LlamaIndex conversions, with the real packages."""

from __future__ import annotations

import json

import pytest

from adachunk import Document, chunk_document
from adachunk.integrations import read_chunks_jsonl, to_langchain, to_llamaindex

TEXT = "# Title\n\n## Part A\n\nFirst paragraph here. " * 20


@pytest.fixture()
def chunked():
    doc = Document(id="d1", text=TEXT, source="mem.md")
    return doc, chunk_document(doc, "default", max_size=60, min_size=0).chunks


def test_langchain_documents(chunked):
    pytest.importorskip("langchain_core")
    doc, chunks = chunked
    docs = to_langchain(chunks, doc, profile="default", fingerprint="fp")
    assert len(docs) == len(chunks) > 1
    assert [d.page_content for d in docs] == [c.text for c in chunks]
    assert docs[0].metadata["start"] == 0 and docs[0].metadata["heading_path"] == list(chunks[0].heading_path)
    assert docs[1].id == chunks[1].id
    ctx = to_langchain(chunks, doc, contextualize=True)
    assert ctx[1].page_content.startswith(" > ".join(chunks[1].heading_path))


def test_llamaindex_nodes_from_run_records(chunked, tmp_path):
    pytest.importorskip("llama_index.core")
    from llama_index.core.schema import NodeRelationship

    doc, chunks = chunked
    from adachunk.sink.records import chunk_record

    path = tmp_path / "chunks.jsonl"
    path.write_text("".join(json.dumps(chunk_record(c, doc, "default", "fp", "dp.v1")) + "\n" for c in chunks))
    nodes = to_llamaindex(read_chunks_jsonl(tmp_path))
    assert [n.text for n in nodes] == [c.text for c in chunks]
    assert [(n.start_char_idx, n.end_char_idx) for n in nodes] == [(c.start, c.end) for c in chunks]
    assert nodes[0].relationships[NodeRelationship.NEXT].node_id == nodes[1].id_
    assert nodes[1].relationships[NodeRelationship.PREVIOUS].node_id == nodes[0].id_


def test_chunks_need_their_document(chunked):
    _, chunks = chunked
    with pytest.raises(ValueError):
        to_langchain(chunks)
