"""The JSON record of a chunk, shared by ``adachunk chunk``, ``adachunk run`` and the sinks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from ..ingest.converted import SOURCE_MAP, origins_of
from ..ingest.furniture import furniture_of
from ..datatypes import METRIC_KEYS, Chunk, Document

# Field order is fixed so that output files are byte-identical across runs.
CHUNK_FIELDS = ("id", "doc_id", "source", "index", "start", "end", "text", "size", "tokens", "heading_path",
                "pages", "profile", "profile_fingerprint", "splitter")


def chunk_record(chunk: Chunk, doc: Document, profile_name: str, fingerprint: str, splitter: str,
                 **extra: Any) -> dict[str, Any]:
    """One chunk as a plain dict (``core_start`` added only when the chunk has overlap, and
    ``furniture`` only when it holds running headers, footers or page numbers: their texts,
    searchable as such; :mod:`adachunk.ingest.furniture`)."""
    rec = {
        "id": chunk.id, "doc_id": doc.id, "source": doc.source, "index": chunk.index,
        "start": chunk.start, "end": chunk.end, "text": chunk.text, "size": chunk.size,
        "tokens": chunk.tokens, "heading_path": list(chunk.heading_path), "pages": list(chunk.pages),
        "profile": profile_name, "profile_fingerprint": fingerprint, "splitter": splitter,
    }
    if chunk.core_start != chunk.start:
        rec["core_start"] = chunk.core_start
    if doc.meta and doc.meta.get(SOURCE_MAP):
        # a converted Word/HTML file: which paragraphs, numbers, tables or elements it holds
        rec["origin"] = origins_of(doc, chunk.start, chunk.end)
    if "<!--" in chunk.text and (furniture := furniture_of(chunk.text)):
        rec["furniture"] = furniture
    rec.update(extra)
    return rec


def embed_text(record: dict[str, Any], mode: str | list[str] = "heading_path+text", table_rows: str = "markdown") -> str:
    """What the vector index embeds for a chunk: its text, optionally after its context.

    The source slice (``text``) stays untouched; only the embedded string carries the context
    (like Docling's ``contextualize()``). ``table_rows="plain"`` (the profile's
    ``index.table_rows``) writes its pipe-table rows, the prefix's header row included, as
    plain rows (:mod:`adachunk.sink.table_rows`).
    """
    out = embed_prefix(record, mode) + record["text"]
    if table_rows == "plain":
        from .table_rows import plain_rows

        return plain_rows(out)
    return out


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


# Every field a record of `adachunk run` can hold, in column order (chunks.parquet; the JSONL
# writes the keys a record has, in this order for the ones of CHUNK_FIELDS).
RECORD_FIELDS = CHUNK_FIELDS + (
    "candidate", "scores", "prev_id", "next_id", "parent_id", "parent_start", "parent_end", "structure_path",
    "structure_covers", "defines", "defined_terms", "references", "table_context", "embed_prefix", "origin",
    "furniture")

# What a converted file's source map says of a block (adachunk.ingest.converted): a Word
# paragraph (its index, the number Word displays, its style), table, header/footer part, note or
# comment (their ids in the package), an HTML element's path and the id it can be linked by.
ORIGIN_FIELDS = (("docx_paragraph", "int64"), ("docx_table", "int64"), ("numbering", "string"),
                 ("style", "string"), ("docx_part", "string"), ("docx_footnote", "string"),
                 ("docx_endnote", "string"), ("docx_comment", "string"), ("html_path", "string"),
                 ("id", "string"))


def arrow_schema():
    """The Arrow schema of a chunk record: ``chunks.parquet``'s columns, and the types of the
    vector payload's (:data:`adachunk.sink.vectors.PAYLOAD_FIELDS`). pyarrow is imported lazily."""
    import pyarrow as pa

    reference = pa.struct([("text", pa.string()), ("target", pa.string()), ("start", pa.int64()), ("end", pa.int64()),
                           ("target_start", pa.int64()), ("chunk_index", pa.int64()), ("chunk_id", pa.string()),
                           ("external", pa.bool_()), ("other_act", pa.bool_())])
    term = pa.struct([("term", pa.string()), ("chunk_index", pa.int64()), ("chunk_id", pa.string())])
    schema = pa.schema([
        ("id", pa.string()), ("doc_id", pa.string()), ("source", pa.string()), ("index", pa.int64()),
        ("start", pa.int64()), ("end", pa.int64()), ("text", pa.string()), ("size", pa.int64()),
        ("tokens", pa.int64()), ("heading_path", pa.list_(pa.string())), ("pages", pa.list_(pa.int64())),
        ("profile", pa.string()), ("profile_fingerprint", pa.string()), ("splitter", pa.string()),
        ("candidate", pa.string()), ("scores", pa.struct([(k, pa.float64()) for k in METRIC_KEYS])),
        # chunk metadata (adachunk.enrich): links, structure, terms, references, table context
        ("prev_id", pa.string()), ("next_id", pa.string()), ("parent_id", pa.string()),
        ("parent_start", pa.int64()), ("parent_end", pa.int64()), ("structure_path", pa.list_(pa.string())),
        ("structure_covers", pa.list_(pa.string())), ("defines", pa.list_(pa.string())),
        ("defined_terms", pa.list_(term)), ("references", pa.list_(reference)),
        ("table_context", pa.string()), ("embed_prefix", pa.string()),
        ("origin", pa.list_(pa.struct([(k, getattr(pa, t)()) for k, t in ORIGIN_FIELDS]))),
        # running headers, footers and page numbers the chunk holds (adachunk.ingest.furniture)
        ("furniture", pa.list_(pa.string())),
    ])
    assert tuple(schema.names) == RECORD_FIELDS  # one list of fields, typed here
    return schema


def read_chunks_jsonl(path: str | Path) -> Iterator[dict[str, Any]]:
    """Stream the chunk records of a ``chunks.jsonl`` file (or a run's output folder)."""
    p = Path(path)
    if p.is_dir():
        p = p / "chunks.jsonl"
    with open(p, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)
