"""Turn boundary spans into :class:`~adachunk.datatypes.Chunk` objects (shared by every splitter).

Adds what every chunk carries: exact text, own token count, size in the solver's unit, heading
path, pages and a deterministic id; and, when asked, overlap in whole structural units.
"""

from __future__ import annotations

import bisect
from typing import Sequence

import numpy as np

from ..datatypes import Chunk, Document, Structure, chunk_id, make_chunk
from .furniture import absorb_furniture


class HeadingIndex:
    """Answers "which headings govern position p" in O(log n) after an O(h) build."""

    def __init__(self, text: str, headings: Sequence[Structure]):
        from ..detect.markdown import heading_title

        hs = sorted(headings, key=lambda s: s.start)
        self._starts = [h.start for h in hs]
        # path after each heading: pop deeper-or-equal levels, push this one
        self._paths: list[tuple[str, ...]] = []
        levels: list[int] = []  # the stack of headings in force: their levels and titles
        titles: list[str] = []
        for h in hs:
            level = h.level or 1
            while levels and levels[-1] >= level:
                levels.pop()
                titles.pop()
            levels.append(level)
            titles.append(heading_title(text, h))
            self._paths.append(tuple(titles))

    def path_at(self, pos: int) -> tuple[str, ...]:
        """Headings in force at ``pos`` (a heading starting exactly at ``pos`` included)."""
        i = bisect.bisect_right(self._starts, pos) - 1
        return self._paths[i] if i >= 0 else ()


def markdown_headings(ctx) -> list[Structure]:
    """All Markdown headings of the document (shares the detection pass's parse)."""
    from ..detect.markdown import shared_rows

    return [Structure(*r) for r in shared_rows(ctx) if r[2] == "heading"]


class PageIndex:
    """Maps spans to page numbers with binary search over the page map."""

    def __init__(self, doc: Document):
        self.pages = sorted(doc.pages or [], key=lambda p: p.start)
        self._starts = [p.start for p in self.pages]
        self._known: dict[tuple[int, int], tuple[int, ...]] = {}

    def pages_of(self, start: int, end: int) -> tuple[int, ...]:
        """Numbers of the pages ``[start, end)`` touches (memoised: candidates share spans)."""
        if not self.pages:
            return ()
        found = self._known.get((start, end))
        if found is None:
            found = self._known[(start, end)] = self._find(start, end)
        return found

    def _find(self, start: int, end: int) -> tuple[int, ...]:
        hi = max(end, start + 1)
        i = max(bisect.bisect_right(self._starts, start) - 1, 0)
        out = []
        while i < len(self.pages) and self.pages[i].start < hi:
            p = self.pages[i]
            if start < max(p.end, p.start + 1):
                out.append(p.number)
            i += 1
        return tuple(out)


def build_chunks(
    doc: Document,
    spans: Sequence[tuple[int, int]],
    *,
    fingerprint: str,
    count_tokens,
    unit_size=None,
    headings: HeadingIndex | None = None,
    core_starts: Sequence[int] | None = None,
    token_counts: Sequence[int] | None = None,
    sizes: Sequence[int] | None = None,
    absorb: bool = True,
) -> list[Chunk]:
    """Chunks for ``spans`` (``[start, end)`` in code points, overlap included in ``start``).

    Args:
        doc: the document.
        spans: text span of every chunk, in order.
        fingerprint: profile fingerprint (part of every id).
        count_tokens: callable giving a text's own token count.
        unit_size: callable ``(start, end) -> size`` in the solver's unit (core span); not
            called when ``sizes`` is given.
        headings: heading index for heading paths (None: empty paths).
        core_starts: core start of each chunk when there is overlap (default: the span start).
        token_counts: each chunk text's own token count when the caller already has it.
        sizes: each chunk's size in the solver's unit when the caller already has it.
        absorb: give a chunk of nothing but page furniture to its neighbour
            (:mod:`adachunk.split.furniture`); False keeps the spans as given (a chunking read
            from a file to be scored as it is).
    """
    from ..analysis import analysis_of

    analysis = analysis_of(doc)
    pages = analysis.memo(("page_index",), lambda: PageIndex(doc))
    # ids by (fingerprint, span): candidates and tuning variants of one document share most spans
    ids = analysis.memo(("chunk_ids", doc.id), dict)
    if len(ids) > _IDS_KEPT:
        ids.clear()
    text = doc.text
    cores = core_starts if core_starts is not None else [s for s, _ in spans]
    groups = absorb_furniture(text, cores, [e for _, e in spans]) if absorb else None
    if groups is not None:  # a chunk of nothing but page furniture joins its neighbour
        spans, cores, sizes, token_counts = _merged(groups, spans, cores, sizes, token_counts, text, count_tokens)
    if sizes is None:
        sizes = [int(unit_size(c, e)) for c, (_, e) in zip(cores, spans)]
    if token_counts is None:
        token_counts = [count_tokens(text[s:e]) for s, e in spans]
    path_at = headings.path_at if headings else None
    pages_of = pages.pages_of if pages.pages else None
    content = None
    out = []
    for i, (start, end) in enumerate(spans):
        core = cores[i]
        cid = ids.get((fingerprint, start, end))
        if cid is None:
            if content is None:
                content = analysis.memo(("content_hash",), lambda: doc.content_hash)
            cid = ids[(fingerprint, start, end)] = chunk_id(doc.id, fingerprint, start, end, content)
        out.append(make_chunk(i, start, end, text[start:end], int(sizes[i]), token_counts[i],
                              path_at(core) if path_at else (), pages_of(core, end) if pages_of else (),
                              cid, core))
    return out


def _merged(groups: list[list[int]], spans, cores, sizes, token_counts, text: str, count_tokens):
    """Spans, core starts, sizes and token counts once each group of chunks is one chunk.

    A merged chunk's size is the sum of its members' (core sizes in the solver's unit add up:
    they are slices of the document's prefix sums); its own token count is counted afresh.
    """
    new_spans = [(spans[g[0]][0], spans[g[-1]][1]) for g in groups]
    new_cores = [cores[g[0]] for g in groups]
    new_sizes = None if sizes is None else [sum(int(sizes[i]) for i in g) for g in groups]
    new_counts = None
    if token_counts is not None:
        new_counts = [token_counts[g[0]] if len(g) == 1 else count_tokens(text[s:e])
                      for g, (s, e) in zip(groups, new_spans)]
    return new_spans, new_cores, new_sizes, new_counts


_IDS_KEPT = 200_000  # chunk ids kept per document (a tuning run's memory bound)


def overlap_starts(
    cores: Sequence[tuple[int, int]],
    units: Sequence[tuple[np.ndarray, np.ndarray]],
    budget: int,
    size_of,
    fits,
) -> list[int]:
    """Start of each chunk once whole units from the previous chunk's end are prepended.

    For chunk k > 0 with core ``[c, e)`` and previous core ``[pc, c)``, take the units of the
    first kind that gives a non-empty overlap (sentences, then words) lying inside ``[pc, c)``,
    from the last one backwards, while ``size_of(start, c) <= budget`` and ``fits(start, e)``.

    Args:
        cores: core spans in order (they tile the document).
        units: ``(starts, ends)`` arrays per unit kind, in preference order.
        budget: overlap budget in the solver's unit.
        size_of: ``(start, end) -> size`` in the solver's unit.
        fits: ``(start, end) -> bool``: whether the enlarged chunk still respects max size.
    """
    by_end = []
    for starts, ends in units:
        order = np.lexsort((starts, ends))
        by_end.append((starts[order].tolist(), ends[order].tolist()))
    out = [cores[0][0]] if cores else []
    for k in range(1, len(cores)):
        pc, c = cores[k - 1][0], cores[k][0]
        e = cores[k][1]
        chosen = c
        for starts, ends in by_end:
            i = bisect.bisect_right(ends, c) - 1
            best = c
            while i >= 0 and starts[i] >= pc:
                s = starts[i]
                if s < best and size_of(s, c) <= budget and fits(s, e):
                    best = s
                elif s < best:
                    break
                i -= 1
            if best < c:
                chosen = best
                break
        out.append(chosen)
    return out
