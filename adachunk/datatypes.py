"""Plain typed objects that flow between the stages (ingest → detect → cost → solve → split).

Offsets are always Python ``str`` indices (Unicode code points) into ``Document.text``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

# The Adaptive Chunking paper's five intrinsic metrics (what `adachunk score` reports).
PAPER_METRIC_KEYS: tuple[str, ...] = ("sc", "bi", "rc", "icc", "dcc")
# Every metric the selection may weigh, in the order every report, record and schema lists them:
# the paper's five, the retrieval fit of the profile's retrieval regime, and Block Integrity and
# References Completeness per cut (the share of cuts that break no block / separate no pair:
# fair across chunk sizes, where the paper's definitions reward fewer, larger chunks).
METRIC_KEYS: tuple[str, ...] = (*PAPER_METRIC_KEYS, "rf", "bi_cut", "rc_cut")


@dataclass(frozen=True, slots=True, order=True)
class Structure:
    """A detected span ``text[start:end]`` carrying a label (``heading``, ``sentence``, ...).

    Attributes:
        start: first code point of the span.
        end: one past the last code point.
        label: the structure name the profile gave it; punishment rules refer to it.
        level: heading level or nesting depth (0 when meaningless).
    """

    start: int
    end: int
    label: str
    level: int = 0


def _set_structure(start_set, end_set, label_set, level_set):
    def __init__(self, start: int, end: int, label: str, level: int = 0) -> None:
        start_set(self, start)
        end_set(self, end)
        label_set(self, label)
        level_set(self, level)

    __init__.__qualname__ = "Structure.__init__"
    return __init__


# A frozen dataclass's generated __init__ sets each field through object.__setattr__ (a name
# lookup per field); the slots' own descriptors set them directly, which makes a Structure in
# 0.87 us instead of 1.5 (a document has tens of thousands). Still frozen: assigning a field
# raises FrozenInstanceError; equality, order and hash are the dataclass's.
Structure.__init__ = _set_structure(Structure.start.__set__, Structure.end.__set__,  # type: ignore[method-assign]
                                    Structure.label.__set__, Structure.level.__set__)


@dataclass(frozen=True, slots=True)
class Page:
    """Page ``number`` covers ``text[start:end]`` (1-based page numbers)."""

    number: int
    start: int
    end: int


ANALYSIS_ATTR = "_analysis"  # where adachunk.analysis keeps a document's shared analysis


@dataclass
class Document:
    """One input document after ingestion.

    Attributes:
        id: stable identifier (the file's name, or its path from the inputs' root in ``chunk``/``run``; a
            paper JSON's ``document_name`` as :func:`~adachunk.ingest.read_document` reads it).
        text: the text that is chunked; every offset points into it.
        source: the input path as given, or None for in-memory text.
        pages: page map when the input knows pages.
        split_points: gold block starts (paper JSON) used by Block Integrity.
        titles: title spans from the paper JSON (``title``, ``start``, ``end``, ``level``).
        entity_pron_pairs: precomputed coreference pairs (inclusive ends) for RC.
        meta: anything else the reader knows (domain, language, content hash ...).
    """

    id: str
    text: str
    source: str | None = None
    pages: list[Page] | None = None
    split_points: list[int] | None = None
    titles: list[dict[str, Any]] | None = None
    entity_pron_pairs: list[Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def __getstate__(self) -> dict[str, Any]:
        # the shared analysis (parses, pairs, embeddings) stays with the process that made it
        state = dict(self.__dict__)
        state.pop(ANALYSIS_ATTR, None)
        return state

    @property
    def content_hash(self) -> str:
        """sha256 of the UTF-8 text (used for resumable runs and chunk ids)."""
        return hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class Chunk:
    """One chunk with exact offsets.

    ``text == document.text[start:end]`` always. Without overlap, ``core_start == start`` and
    the chunks tile the document. With overlap, ``start`` is the overlap start (text copied
    from the end of the previous chunk) and ``[core_start, end)`` is the core span; the core
    spans tile the document.

    Attributes:
        index: position of the chunk in its document, from 0.
        start: first code point of ``text`` (overlap start when there is overlap).
        end: one past the last code point.
        text: the source slice.
        size: size in the solver's unit (tokens or characters) of the core span.
        tokens: the chunk text's own token count with the profile's tokenizer.
        heading_path: enclosing Markdown headings at the core start, outermost first.
        pages: page numbers the chunk touches.
        id: deterministic id: hash of document id, profile fingerprint and span.
        core_start: start of the core span (== start without overlap).
    """

    index: int
    start: int
    end: int
    text: str
    size: int
    tokens: int
    heading_path: tuple[str, ...] = ()
    pages: tuple[int, ...] = ()
    id: str = ""
    core_start: int = -1

    @property
    def overlap_start(self) -> int:
        """Start of the overlap copied from the previous chunk (== start)."""
        return self.start

    @property
    def core_span(self) -> tuple[int, int]:
        """``(core_start, end)``; the core spans of a chunking tile the document."""
        return (self.core_start if self.core_start >= 0 else self.start, self.end)


def _slot_setters(cls) -> tuple:
    return tuple(cls.__dict__[name].__set__ for name in cls.__slots__)


def make_chunk(index: int, start: int, end: int, text: str, size: int, tokens: int,
               heading_path: tuple[str, ...], pages: tuple[int, ...], id: str, core_start: int,
               _new=object.__new__, _sets=_slot_setters(Chunk)) -> Chunk:
    """``Chunk(index, start, ..., core_start)`` for the splitters' inner loops.

    The same object the constructor makes (``Chunk`` has no ``__post_init__``), filled
    through its slots' descriptors: a frozen dataclass's ``__init__`` goes through
    ``object.__setattr__`` by name for each field, 2.0 µs a chunk against 1.1 µs here
    (7,190 chunks a CLAIR pass at 1,000 characters). ``tests/test_types.py`` compares the two.
    """
    chunk = _new(Chunk)
    s_index, s_start, s_end, s_text, s_size, s_tokens, s_path, s_pages, s_id, s_core = _sets
    s_index(chunk, index)
    s_start(chunk, start)
    s_end(chunk, end)
    s_text(chunk, text)
    s_size(chunk, size)
    s_tokens(chunk, tokens)
    s_path(chunk, heading_path)
    s_pages(chunk, pages)
    s_id(chunk, id)
    s_core(chunk, core_start)
    return chunk


def chunk_id(doc_id: str, fingerprint: str, start: int, end: int, content_hash: str = "") -> str:
    """Deterministic chunk id: first 16 hex digits of sha256(doc id, text hash, fingerprint, span).

    The text hash makes an edited document's chunks new ids, so an index that holds chunks by
    id can tell stale rows from current ones.
    """
    h = hashlib.sha256(f"{doc_id}\x1f{content_hash}\x1f{fingerprint}\x1f{start}\x1f{end}".encode(
        "utf-8", "surrogatepass"))
    return h.hexdigest()[:16]


@dataclass
class Chunking:
    """A candidate chunking of one document.

    Attributes:
        chunks: the chunks in document order.
        splitter: registered name of the splitter that produced them (``dp.v1`` ...).
        meta: splitter metadata: parameters, fallbacks with reasons, post-processing stats,
            and for the DP splitter the chosen cuts with their costs.
    """

    chunks: list[Chunk]
    splitter: str
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def cuts(self) -> list[int]:
        """Interior core boundaries (core starts of chunks 2..n)."""
        return [c.core_span[0] for c in self.chunks[1:]]


class Memo:
    """Per-document cache shared by the components of one pass (detectors, or metrics across
    candidates): an expensive parse or embedding is computed once per document."""

    def __init__(self) -> None:
        self._cache: dict[Any, Any] = {}

    def memo(self, key: Any, compute: "Callable[[], Any]") -> Any:
        """Return ``compute()`` cached under ``key`` for this document."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def forget(self, key: Any) -> None:
        """Drop what is cached under ``key`` (nothing when there is none)."""
        self._cache.pop(key, None)

    def cached(self, kind: Any) -> list[Any]:
        """The values cached under tuple keys whose first element is ``kind`` (e.g. one
        ``("span_embeddings", fingerprint)`` entry per embedder), in insertion order."""
        return [v for k, v in self._cache.items() if isinstance(k, tuple) and k and k[0] == kind]


SpanArrays = tuple[np.ndarray, np.ndarray]


class _Sorted(tuple):
    """A ``(starts, ends)`` pair that :func:`span_arrays` made: int64 arrays sorted by start.

    A plain tuple in every other respect. Given back to :func:`span_arrays` (the analysis sorts
    a detector's arrays, the cost lattice asks again), it is returned as it is instead of being
    checked for order once more: two passes over every word of the document.
    """

    __slots__ = ()


def span_arrays(spans: "Sequence[Structure] | SpanArrays") -> SpanArrays:
    """Starts and ends as int64 arrays sorted by start (accepts Structures or arrays).

    Detectors with many spans (words, sentences) hand arrays straight to the cost lattice:
    building a Python object per word costs more than everything else the lattice does.
    """
    if type(spans) is _Sorted:
        return spans  # type: ignore[return-value]
    if isinstance(spans, tuple) and len(spans) == 2 and isinstance(spans[0], np.ndarray):
        starts, ends = np.asarray(spans[0], np.int64), np.asarray(spans[1], np.int64)
    elif not spans:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    else:
        arr = np.array([(s.start, s.end) for s in spans], dtype=np.int64).reshape(-1, 2)
        starts, ends = arr[:, 0], arr[:, 1]
    if len(starts) > 1 and (starts[1:] < starts[:-1]).any():  # the method: 2 us less than np.any
        order = np.argsort(starts, kind="stable")
        starts, ends = starts[order], ends[order]
    return _Sorted((starts, ends))
