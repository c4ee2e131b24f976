"""What a converter (Word, HTML) hands the pipeline: Markdown with its gold blocks, titles and a
source map.

Converters of structured formats build the Markdown block by block; each block knows where it
came from (a Word paragraph and the number Word displays for it, an HTML element's path). That
origin travels with the text as a *source map*: ``(start, end, origin)`` code-point spans of the
Markdown, kept in ``Document.meta["source_map"]``, so that every chunk can say which parts of the
original file it holds (:func:`origins_of`, the chunk record's ``origin`` field).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Any

from ..datatypes import Document

SOURCE_MAP = "source_map"


@dataclass
class Block:
    """One Markdown block of a converted document.

    Attributes:
        text: the block's Markdown, without the blank line that separates it from the next.
        origin: where it came from (``{"docx_paragraph": 12, "numbering": "1.2"}``,
            ``{"html_path": "/html/body/div[2]/p[3]"}``); None for text the converter made.
        heading: the heading level (1-6) when the block is a heading, else 0.
        bind_next: the block is one gold block with the next (a heading with its first
            paragraph, a lead-in line with its list): ``split_points`` gets no start there.
    """

    text: str
    origin: dict[str, Any] | None = None
    heading: int = 0
    bind_next: bool = False


@dataclass
class Converted:
    """A converted document: Markdown text, gold block starts, heading spans and source map."""

    text: str
    split_points: list[int] = field(default_factory=list)
    titles: list[dict[str, Any]] = field(default_factory=list)
    source_map: list[tuple[int, int, dict[str, Any]]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    def document(self, doc_id: str, source: str | None) -> Document:
        """The :class:`~adachunk.datatypes.Document` of this conversion."""
        meta = {**self.meta, SOURCE_MAP: [[s, e, o] for s, e, o in self.source_map]}
        return Document(id=doc_id, text=self.text, source=source, split_points=self.split_points or None,
                        titles=self.titles or None, meta=meta)


def assemble(blocks: list[Block], meta: dict[str, Any] | None = None) -> Converted:
    """Join ``blocks`` with blank lines into one Markdown text, recording where each one lies.

    Gold blocks start at every block but those a ``bind_next`` block binds to its predecessor;
    a heading's title span runs to the next heading of the same or a higher level.
    """
    parts: list[str] = []
    at, splits, titles, smap = 0, [], [], []
    bound = False
    for block in blocks:
        text = block.text.strip("\n")
        if not text.strip():
            continue
        if parts:
            parts.append("\n\n")
            at += 2
        if not bound and at > 0:
            splits.append(at)
        if block.heading:
            titles.append({"title": text.lstrip("#").strip(), "start": at, "level": block.heading})
        if block.origin is not None:
            smap.append((at, at + len(text), dict(block.origin)))
        parts.append(text)
        at += len(text)
        bound = block.bind_next
    out = "".join(parts) + ("\n" if parts else "")
    title_ends(titles, len(out))
    return Converted(out, splits, titles, smap, dict(meta or {}))


def title_ends(titles: list[dict[str, Any]], n: int) -> None:
    """Set each title's ``end``: the start of the next title of the same or a higher level,
    else the text's end ``n`` (the converted formats and the PDF renderer alike)."""
    for i, t in enumerate(titles):
        t["end"] = next((u["start"] for u in titles[i + 1:] if u["level"] <= t["level"]), n)


def origins_of(doc: Document, start: int, end: int) -> list[dict[str, Any]]:
    """The origins of the source-map spans that overlap ``[start, end)`` of ``doc``, in order
    (empty when the document has no source map)."""
    smap = doc.meta.get(SOURCE_MAP) if doc.meta else None
    if not smap:
        return []
    starts = _starts(doc, smap)
    lo = max(0, bisect_right(starts, start) - 1)
    hi = bisect_left(starts, end)
    return [o for s, e, o in smap[lo:hi] if s < end and e > start]


def _starts(doc: Document, smap: list) -> list[int]:
    """The spans' starts (in text order, as recorded), computed once per document."""
    from ..analysis import analysis_of

    return analysis_of(doc).memo(("ingest.source_map_starts", len(smap)), lambda: [s for s, _, _ in smap])


__all__ = ["Block", "Converted", "SOURCE_MAP", "assemble", "origins_of"]
