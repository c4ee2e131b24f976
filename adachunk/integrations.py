"""Hand chunks to RAG frameworks: LangChain ``Document`` and LlamaIndex ``TextNode``.

Both frameworks are optional extras (``pip install "adachunk[langchain]"`` /
``"adachunk[llamaindex]"``), imported only when these functions are called. The input is either
:class:`~adachunk.types.Chunk` objects (with the document they belong to) or the chunk records
of ``adachunk run`` (``chunks.jsonl`` lines), so a finished run can be loaded straight into an
index. The metadata keeps exact offsets, the heading path, pages and the profile fingerprint,
so a retrieved passage can always be traced back to its source and policy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Iterator

from .sink.records import chunk_record, embed_text
from .types import Chunk, Document

_META_KEYS = ("id", "doc_id", "source", "index", "start", "end", "tokens", "heading_path", "pages", "profile",
              "profile_fingerprint", "splitter", "candidate", "scores")


def _records(items: Iterable[Chunk | dict[str, Any]], doc: Document | None, profile: str, fingerprint: str,
             splitter: str) -> Iterator[dict[str, Any]]:
    for item in items:
        if isinstance(item, Chunk):
            if doc is None:
                raise ValueError("pass doc= when converting Chunk objects (their metadata needs the document)")
            yield chunk_record(item, doc, profile, fingerprint, splitter)
        else:
            yield item


def read_chunks_jsonl(path: str | Path) -> Iterator[dict[str, Any]]:
    """Stream the chunk records of a ``chunks.jsonl`` file (or a run's output folder)."""
    p = Path(path)
    if p.is_dir():
        p = p / "chunks.jsonl"
    with open(p, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def metadata(record: dict[str, Any]) -> dict[str, Any]:
    """The metadata carried into the frameworks (flat, JSON-able)."""
    return {k: record[k] for k in _META_KEYS if k in record}


def to_langchain(items: Iterable[Chunk | dict[str, Any]], doc: Document | None = None, *, profile: str = "",
                 fingerprint: str = "", splitter: str = "dp.v1", contextualize: bool = False) -> list[Any]:
    """LangChain ``Document`` objects (``page_content`` = the chunk text, or the heading path +
    text when ``contextualize``), with ``id`` and metadata."""
    from langchain_core.documents import Document as LCDocument

    out = []
    for rec in _records(items, doc, profile, fingerprint, splitter):
        content = embed_text(rec) if contextualize else rec["text"]
        out.append(LCDocument(page_content=content, metadata=metadata(rec), id=rec.get("id")))
    return out


def to_llamaindex(items: Iterable[Chunk | dict[str, Any]], doc: Document | None = None, *, profile: str = "",
                  fingerprint: str = "", splitter: str = "dp.v1") -> list[Any]:
    """LlamaIndex ``TextNode`` objects with exact ``start_char_idx``/``end_char_idx``, the chunk id
    as ``id_``, and PREVIOUS/NEXT relationships between consecutive chunks of a document."""
    from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode

    nodes = []
    for rec in _records(items, doc, profile, fingerprint, splitter):
        meta = metadata(rec)
        node = TextNode(id_=rec["id"], text=rec["text"], start_char_idx=rec["start"], end_char_idx=rec["end"],
                        metadata={k: v for k, v in meta.items() if k != "scores"})
        # the heading path is context for the embedding, not for the LLM prompt twice
        node.excluded_llm_metadata_keys = [k for k in node.metadata if k != "heading_path"]
        prev = nodes[-1] if nodes and nodes[-1].metadata.get("doc_id") == rec.get("doc_id") else None
        if prev is not None:
            prev.relationships[NodeRelationship.NEXT] = RelatedNodeInfo(node_id=node.id_)
            node.relationships[NodeRelationship.PREVIOUS] = RelatedNodeInfo(node_id=prev.id_)
        nodes.append(node)
    return nodes
