"""Large-document mode: chunk a very large document segment by segment.

The whole-document pipeline keeps per-position arrays (token boundaries, prefix sizes, cut
costs, structures) for the entire text: about 40 bytes of working memory per input byte. A
document longer than ``segment_chars`` is therefore cut at safe top-level boundaries into
segments that are chunked independently, one at a time, so the working set is one segment's
while the chunks are written as they come.

A segment ends at a blank line outside fenced code, preferably right before a heading (a
Markdown table or paragraph never spans a blank line); with no blank line in reach, at a line
end; with none either, at ``segment_chars``. Offsets, pages and chunk ids are those of the whole
document. It is an approximation at the seams: the optimum is per segment (a seam is always a
cut, and the chunks beside it are not balanced across it), and heading paths, sentence and
other structures are those seen inside the segment. Documents at most ``segment_chars`` long
never go through here, so their output is unchanged.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import replace
from typing import Callable, Iterator

from ..errors import ProfileError
# the cut rule lives with the streaming reader, which must cut a file it never holds whole where
# this mode cuts the whole text
from ..ingest.stream import segment_bounds
from ..datatypes import Chunk, Chunking, Document, Page, chunk_id

DEFAULT_SEGMENT_CHARS = 2_000_000  # above every CLAIR document (the largest: 1.8M)
SEGMENT_ENV = "ADACHUNK_SEGMENT_CHARS"

def segment_chars() -> int:
    """The large-document threshold and segment length in code points (``ADACHUNK_SEGMENT_CHARS``,
    default 2,000,000; ``ADA203`` when it is not a positive integer)."""
    raw = os.environ.get(SEGMENT_ENV, "").strip()
    if not raw:
        return DEFAULT_SEGMENT_CHARS
    value = int(raw) if raw.isdigit() else 0
    if value <= 0:
        raise ProfileError(code="ADA203", message=f"{SEGMENT_ENV} must be a positive integer, got {raw!r}",
                           key_path=SEGMENT_ENV)
    return value


def _segment_doc(doc: Document, a: int, b: int) -> Document:
    """The segment ``[a, b)`` as a document of its own (pages clipped and shifted)."""
    pages = None
    if doc.pages:
        pages = [Page(p.number, max(p.start, a) - a, min(p.end, b) - a) for p in doc.pages if p.start < b and p.end > a]
    sp = None if doc.split_points is None else [p - a for p in doc.split_points if a < p < b]
    return Document(id=doc.id, text=doc.text[a:b], source=doc.source, pages=pages, split_points=sp,
                    titles=None, entity_pron_pairs=None, meta={**doc.meta, "segment": [a, b]})


def chunk_segments(doc: Document, chunker: Callable[[Document], Chunking], fingerprint: str,
                   max_chars: int | None = None) -> Iterator[Chunking]:
    """Chunk ``doc`` segment by segment with ``chunker``; one :class:`Chunking` per segment, its
    chunks in whole-document offsets, indices and ids (see the module docstring).

    Each segment's document (and its analysis) is dropped before the next one is made, so a
    caller that writes each Chunking's chunks and drops them holds one segment at a time.
    """
    max_chars = max_chars or segment_chars()
    bounds = segment_bounds(doc.text, max_chars)
    content_hash = _content_hash(doc.text)
    index = 0
    for a, b in zip(bounds, bounds[1:]):
        part = chunker(_segment_doc(doc, a, b))
        chunks = [shift_chunk(c, a, index + i, doc.id, fingerprint, content_hash) for i, c in enumerate(part.chunks)]
        index += len(chunks)
        meta = {**part.meta, "segment": [a, b], "segments": len(bounds) - 1}
        yield Chunking(chunks, part.splitter, meta)


def _content_hash(text: str, step: int = 1 << 20) -> str:
    """:attr:`Document.content_hash` without the whole text's UTF-8 copy (slice by slice; the
    bytes are the same, ``surrogatepass`` encodes each code point on its own)."""
    h = hashlib.sha256()
    for i in range(0, len(text), step):
        h.update(text[i : i + step].encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def shift_chunk(c: Chunk, offset: int, index: int, doc_id: str, fingerprint: str, content_hash: str) -> Chunk:
    """A segment's chunk in whole-document offsets, index and id."""
    start, end = c.start + offset, c.end + offset
    return replace(c, index=index, start=start, end=end, core_start=c.core_start + offset if c.core_start >= 0 else -1,
                   id=chunk_id(doc_id, fingerprint, start, end, content_hash))
