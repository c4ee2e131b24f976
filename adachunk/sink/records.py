"""The JSON record of a chunk, shared by ``adachunk chunk``, ``adachunk run`` and the sinks."""

from __future__ import annotations

import json
from typing import Any

from ..types import Chunk, Document

# Field order is fixed so that output files are byte-identical across runs.
CHUNK_FIELDS = ("id", "doc_id", "source", "index", "start", "end", "text", "size", "tokens", "heading_path",
                "pages", "profile", "profile_fingerprint", "splitter")


def chunk_record(chunk: Chunk, doc: Document, profile_name: str, fingerprint: str, splitter: str,
                 **extra: Any) -> dict[str, Any]:
    """One chunk as a plain dict (``core_start`` added only when the chunk has overlap)."""
    rec = {
        "id": chunk.id, "doc_id": doc.id, "source": doc.source, "index": chunk.index,
        "start": chunk.start, "end": chunk.end, "text": chunk.text, "size": chunk.size,
        "tokens": chunk.tokens, "heading_path": list(chunk.heading_path), "pages": list(chunk.pages),
        "profile": profile_name, "profile_fingerprint": fingerprint, "splitter": splitter,
    }
    if chunk.core_start != chunk.start:
        rec["core_start"] = chunk.core_start
    rec.update(extra)
    return rec


def embed_text(record: dict[str, Any], mode: str | list[str] = "heading_path+text") -> str:
    """What the vector index embeds for a chunk: its text, optionally after its context.

    The source slice (``text``) stays untouched; only the embedded string carries the context
    (like Docling's ``contextualize()``).
    """
    return embed_prefix(record, mode) + record["text"]


def embed_prefix(record: dict[str, Any], mode: str | list[str] = "heading_path+text") -> str:
    """What :func:`embed_text` puts before the chunk text ("" when nothing).

    ``mode`` is the profile's ``index.embed_text``: ``heading_path+text``, ``text``, or a recipe
    (a list of parts), whose prefix :func:`adachunk.enrich.enrich_records` stored in the record
    as ``embed_prefix`` (a record made without it falls back to its heading path).
    """
    if isinstance(mode, (list, tuple)):
        if "embed_prefix" in record:
            return record["embed_prefix"]
        mode = "heading_path+text" if "heading_path" in mode else "text"
    path = record.get("heading_path") or []
    if mode == "heading_path+text" and path:
        return " > ".join(path) + "\n\n"
    return ""


def dumps(obj: Any) -> str:
    """Compact, deterministic JSON (non-ASCII kept readable)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
