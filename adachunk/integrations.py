"""Hand chunks to RAG frameworks: LangChain ``Document`` and LlamaIndex ``TextNode``.

Both frameworks are optional extras (``pip install "adachunk[langchain]"`` /
``"adachunk[llamaindex]"``), imported only when these functions are called. The input is either
:class:`~adachunk.datatypes.Chunk` objects (with the document they belong to) or the chunk records
of ``adachunk run`` (``chunks.jsonl`` lines), so a finished run can be loaded straight into an
index. The metadata keeps exact offsets, the heading path, pages and the profile fingerprint,
so a retrieved passage can always be traced back to its source and policy, and the chunk metadata
of :mod:`adachunk.enrich` (neighbours, parent, structure path, defined terms, cross-references,
table context) for small-to-big retrieval: LlamaIndex nodes get PREVIOUS/NEXT/PARENT/CHILD
relationships and the parent nodes themselves, LangChain documents get the ids in metadata.
"""

from __future__ import annotations

import importlib
from typing import Any, Iterable

from .enrich import enrich_records, parent_records
from .sink.records import RECORD_FIELDS, chunk_record, embed_text, read_chunks_jsonl  # noqa: F401 - public here
from .errors import missing_dependency
from .datatypes import Chunk, Document

# a node's metadata: the record's fields but the text itself, its size and the embedded prefix
_META_KEYS = tuple(f for f in RECORD_FIELDS if f not in ("text", "size", "embed_prefix"))
# context for the embedding (LlamaIndex puts non-excluded metadata in the embedded string)
_EMBED_KEYS = ("heading_path", "structure_path")


def _records(items: Iterable[Chunk | dict[str, Any]], doc: Document | None, profile: Any, fingerprint: str,
             splitter: str) -> list[dict[str, Any]]:
    """Records of the items; Chunk objects are made records and enriched (with the profile's
    metadata when ``profile`` is a resolved profile, else with neighbour links only)."""
    out, chunks = [], False
    policy = getattr(profile, "policy", None)
    name = getattr(profile, "name", profile)
    fingerprint = fingerprint or getattr(policy, "fingerprint", "")
    for item in items:
        if isinstance(item, Chunk):
            if doc is None:
                raise ValueError("pass doc= when converting Chunk objects (their metadata needs the document)")
            chunks = True
            out.append(chunk_record(item, doc, name, fingerprint, splitter))
        else:
            out.append(item)
    return enrich_records(out, doc, policy) if chunks else out


def _framework(module: str) -> Any:
    """The framework's module, imported now (an optional extra): not installed, the coded
    ``ADA223`` naming the extra to install, as the CLI reports any other missing extra."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise (missing_dependency(exc) or exc) from exc


def metadata(record: dict[str, Any]) -> dict[str, Any]:
    """The metadata carried into the frameworks (flat, JSON-able)."""
    return {k: record[k] for k in _META_KEYS if k in record}


def to_langchain(items: Iterable[Chunk | dict[str, Any]], doc: Document | None = None, *, profile: Any = "",
                 fingerprint: str = "", splitter: str = "dp.v1", contextualize: bool = False) -> list[Any]:
    """LangChain ``Document`` objects (``page_content`` = the chunk text, or its embedded string
    when ``contextualize``: the profile's ``embed_prefix`` when the record has one, else the
    heading path), with ``id`` and metadata (``prev_id``, ``next_id``, ``parent_id``, ...).

    ``profile`` is a name, or a resolved profile (:func:`adachunk.load_profile`), whose chunk
    metadata is then added to Chunk objects."""
    LCDocument = _framework("langchain_core.documents").Document

    out = []
    for rec in _records(items, doc, profile, fingerprint, splitter):
        content = (rec.get("embed_prefix", "") + rec["text"] if "embed_prefix" in rec else embed_text(rec)) \
            if contextualize else rec["text"]
        out.append(LCDocument(page_content=content, metadata=metadata(rec), id=rec.get("id")))
    return out


def to_llamaindex(items: Iterable[Chunk | dict[str, Any]], doc: Document | None = None, *, profile: Any = "",
                  fingerprint: str = "", splitter: str = "dp.v1", parents: bool = True) -> list[Any]:
    """LlamaIndex ``TextNode`` objects with exact ``start_char_idx``/``end_char_idx``, the chunk id
    as ``id_``, and PREVIOUS/NEXT relationships between consecutive chunks of a document.

    Leaves with a ``parent_id`` (a profile with ``parents:``) get a PARENT relationship, and, with
    ``parents``, their parent nodes are appended after the leaves with CHILD relationships, as
    ``HierarchicalNodeParser`` returns them: put every node in the docstore, index the leaves
    (``get_leaf_nodes``), and ``AutoMergingRetriever`` climbs to the parents. ``profile`` is a
    name, or a resolved profile whose chunk metadata is then added to Chunk objects.
    """
    schema = _framework("llama_index.core.schema")
    NodeRelationship, RelatedNodeInfo, TextNode = schema.NodeRelationship, schema.RelatedNodeInfo, schema.TextNode

    nodes = []
    records = _records(items, doc, profile, fingerprint, splitter)
    for rec in records:
        meta = metadata(rec)
        node = TextNode(id_=rec["id"], text=rec["text"], start_char_idx=rec["start"], end_char_idx=rec["end"],
                        metadata={k: v for k, v in meta.items() if k != "scores"})
        # the heading path is context for the embedding, not for the LLM prompt twice
        node.excluded_llm_metadata_keys = [k for k in node.metadata if k != "heading_path"]
        node.excluded_embed_metadata_keys = [k for k in node.metadata if k not in _EMBED_KEYS
                                             and k not in _META_KEYS[:14]]
        prev = nodes[-1] if nodes and nodes[-1].metadata.get("doc_id") == rec.get("doc_id") else None
        if prev is not None:
            prev.relationships[NodeRelationship.NEXT] = RelatedNodeInfo(node_id=node.id_)
            node.relationships[NodeRelationship.PREVIOUS] = RelatedNodeInfo(node_id=prev.id_)
        if rec.get("parent_id"):
            node.relationships[NodeRelationship.PARENT] = RelatedNodeInfo(node_id=rec["parent_id"])
        nodes.append(node)
    if parents:
        for p in parent_records(records):
            parent = TextNode(id_=p["id"], text=p["text"], start_char_idx=p["start"], end_char_idx=p["end"],
                              metadata={k: p[k] for k in ("doc_id", "source", "heading_path", "structure_path")})
            parent.relationships[NodeRelationship.CHILD] = [RelatedNodeInfo(node_id=c) for c in p["child_ids"]]
            nodes.append(parent)
    return nodes
