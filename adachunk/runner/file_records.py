"""One file to its chunk records, any size: the library form of ``adachunk chunk FILE``.

:func:`file_records` (a file) and :func:`document_records` (a document in memory) yield the JSONL records of one input file in order, as ``adachunk chunk``
writes them. A file longer than the segment length (``segment_chars``; default
:func:`adachunk.split.segments.segment_chars`) is chunked in segments (large-document mode,
:mod:`adachunk.split.segments`):

* a Markdown or text file, under a profile that declares no whole-document metadata (none, or
  only what a segment gives alone: the default's table context, :func:`adachunk.enrich.segment_local`),
  is read from disk one segment at a time (:mod:`adachunk.ingest.stream`): memory holds one
  segment, never the whole text;
* any other long document is read whole, then chunked, enriched and yielded segment by segment.

Either way the neighbour links (``prev_id``/``next_id``) run across the seams as in a
whole-document run: the last record of a segment is yielded once the next segment's first is
known. A caller that writes each record as it comes and drops it holds one segment's records.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterator

from ..enrich import declares_metadata, enrich_records, segment_local
from ..ingest import check_input_file, read_document
from ..profile.cached import load_profile
from ..ingest.stream import STREAMED_SUFFIXES, PageCounter, segments, text_facts
from ..sink.records import chunk_record
from ..split.segments import chunk_segments, segment_chars, shift_chunk
from ..datatypes import Chunking, Document

Chunker = Callable[[Document], Chunking]


def file_records(path: str | os.PathLike, profile: Any = "default", chunker: Chunker | None = None, *,
                 doc_id: str | None = None,
                 max_chars: int | None = None, errors: str = "strict", max_bytes: int | None = None,
                 ocr: str = "auto") -> Iterator[dict[str, Any]]:
    """The chunk records of one file, in order (see the module docstring).

    Args:
        path: the input file (any format :func:`adachunk.ingest.read_document` reads).
        profile: a shipped profile's name, a profile file, or a resolved profile
            (:func:`adachunk.load_profile`).
        chunker: ``doc -> Chunking`` (default: the profile's DP, as ``chunk_document``).
        doc_id: the records' ``doc_id`` (default: the reader's id, the file name).
        max_chars: the segment length in code points (default: :func:`segment_chars`).
        errors: ``strict`` or ``replace`` for invalid UTF-8.
        max_bytes: the input size limit (``ADA318``; default: the environment's or 512 MB).
        ocr: for a PDF, ``auto`` or ``off``.

    Raises:
        AdachunkError: a coded error of the reader or the chunker. In the streamed mode the
            records of the segments before it have been yielded.
    """
    rp = load_profile(profile)
    chunker = chunker or _dp(rp)
    path = os.fspath(path)
    limit = max_chars or segment_chars()
    if is_text_like(path) and file_size(path) > limit and segment_local(rp.policy):
        streamed = _streamed(path, rp, chunker, doc_id, limit, errors, max_bytes)
        if streamed is not None:
            yield from streamed
            return
    doc = read_document(path, errors=errors, max_bytes=max_bytes, ocr=ocr)
    if doc_id:
        doc.id = doc_id
    yield from document_records(doc, rp, chunker, max_chars=limit)


def document_records(doc: Document, profile: Any = "default", chunker: Chunker | None = None, *,
                     max_chars: int | None = None) -> Iterator[dict[str, Any]]:
    """The chunk records of a document in memory, in order: chunked whole, or segment by segment
    when its text is longer than ``max_chars`` (default: :func:`segment_chars`), the records
    linked across the seams (arguments as :func:`file_records`)."""
    rp = load_profile(profile)
    chunker = chunker or _dp(rp)
    limit = max_chars or segment_chars()
    if len(doc.text) > limit:
        yield from _linked(_segmented(doc, chunker, rp, limit))
        return
    chunking = chunker(doc)
    records = [chunk_record(c, doc, rp.name, rp.fingerprint, chunking.splitter) for c in chunking.chunks]
    yield from enrich_records(records, doc, rp.policy)


def _dp(rp) -> Chunker:
    """The profile's DP (``chunk_document``'s path)."""
    from ..split.dp import dp_chunk

    return lambda doc: dp_chunk(doc, rp.policy)


def is_text_like(path: str) -> bool:
    """Whether the file's bytes are its characters (Markdown, text): the streamed mode reads it."""
    return path.lower().endswith(STREAMED_SUFFIXES)


def file_size(path: str) -> int:
    """The file's size in bytes (0 when it cannot be read: the reader reports why, in its turn)."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _streamed(path: str, rp, chunker: Chunker, doc_id: str | None, limit: int, errors: str,
              max_bytes: int | None) -> Iterator[dict[str, Any]] | None:
    """Records of a text file read segment by segment; None when the text fits one segment after
    all (multi-byte characters: code points < bytes), so that the whole-document path takes it."""
    check_input_file(path, max_bytes=max_bytes)
    facts = text_facts(path, path, errors)
    if facts.chars <= limit:
        return None
    key = doc_id or os.path.basename(path)
    local = declares_metadata(rp.policy)  # segment-local fields (the caller checked segment_local)

    def parts() -> Iterator[list[dict[str, Any]]]:
        stub = Document(id=key, text="", source=path)
        pages, index = PageCounter(facts.has_pages), 0
        for offset, text in segments(path, path, limit, errors):
            seg = Document(id=key, text=text, source=path, pages=pages.pages(text),
                           meta={"format": "markdown", "segment": [offset, offset + len(text)]})
            part = chunker(seg)
            chunks = [shift_chunk(c, offset, index + i, key, rp.fingerprint, facts.content_hash)
                      for i, c in enumerate(part.chunks)]
            index += len(chunks)
            records = [chunk_record(c, stub, rp.name, rp.fingerprint, part.splitter) for c in chunks]
            enrich_records(records, None, None)  # links within the segment only
            if local:
                _segment_fields(records, part, seg, rp)
            yield records

    return _linked(parts())


def _segment_fields(records: list[dict[str, Any]], part: Chunking, seg: Document, rp) -> None:
    """Add the profile's segment-local fields (:func:`adachunk.enrich.segment_local`) to one
    segment's records: enriched against the segment with its own offsets, then copied over."""
    own = [chunk_record(c, seg, rp.name, rp.fingerprint, part.splitter) for c in part.chunks]
    before = [set(r) for r in own]
    enrich_records(own, seg, rp.policy)
    for rec, mine, keys in zip(records, own, before):
        for k in mine:  # in the order enriching added them, as the whole-document path writes them
            if k not in keys and k not in ("prev_id", "next_id"):
                rec[k] = mine[k]


def _segmented(doc: Document, chunker: Chunker, rp, limit: int) -> Iterator[list[dict[str, Any]]]:
    """Each segment's enriched records (:func:`adachunk.split.segments.chunk_segments`)."""
    for chunking in chunk_segments(doc, chunker, rp.fingerprint, limit):
        records = [chunk_record(c, doc, rp.name, rp.fingerprint, chunking.splitter) for c in chunking.chunks]
        yield enrich_records(records, doc, rp.policy)


def _linked(parts: Iterator[list[dict[str, Any]]]) -> Iterator[dict[str, Any]]:
    """The records of consecutive segments, ``prev_id``/``next_id`` linked across each seam: a
    segment's last record is held until the next segment's first is known."""
    pending = None
    for records in parts:
        if not records:
            continue
        if pending is not None:
            pending["next_id"], records[0]["prev_id"] = records[0]["id"], pending["id"]
            yield pending
        yield from records[:-1]
        pending = records[-1]
    if pending is not None:
        yield pending
