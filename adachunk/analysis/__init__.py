"""One analysis per document: everything that does not depend on a policy's rules, done once.

Detection (the DP, its explanations, ``view``), post-processing, the other splitters and the
metrics of one document all need the same facts about it: its Markdown block parse and heading
paths, its token boundaries per tokenizer, every detected structure, its coreference pairs and
its span embeddings. :func:`analysis_of` hands every stage the same :class:`DocumentAnalysis`
for one :class:`~adachunk.datatypes.Document` object, so each is computed once per document: the
pairs the DP avoids cutting (``coref.pair.v1``) are the very pairs References Completeness
counts, and a tuning trial that changes only rules, sizes, chunk cost or weights costs a
lattice and a solve, never a detector call.

The analysis is content-addressed (:func:`~adachunk.analysis.keys.document_key`; each
structure by :func:`~adachunk.analysis.keys.detector_key`), so with a store configured
(:func:`~adachunk.analysis.store.use_store`, ``--analysis-cache DIR``) another process —
``tune``, ``ab``, ``run --resume`` — loads the token boundaries, structures and Markdown parse
from disk instead of computing them.

Only facts that are pure functions of the document and of the key's own parameters are stored
here; anything that depends on a profile's settings carries those settings in its key (the
coreference spec, a detector's parameters).
"""

from __future__ import annotations

import weakref
from collections import Counter
from itertools import starmap
from typing import Any, Callable

import numpy as np

from ..errors import AdachunkError, Location
from ..datatypes import ANALYSIS_ATTR as _ATTR
from ..datatypes import Document, Memo, SpanArrays, Structure, span_arrays
from .keys import detector_key, document_key
from .store import current_store

MARKDOWN_BLOCKS = ("markdown.blocks",)
MARKDOWN_ROWS = ("markdown.block_rows",)
# The text's code points and their property table, made by the compiled text-unit scan for one
# detection and forgotten after it: four bytes a character, not worth keeping for the
# document's lifetime.
CODE_POINTS = ("text.code_points",)


class DocumentAnalysis(Memo):
    """The shared per-document analysis (see module docstring).

    Attributes:
        doc: the document it describes.
        text: the document text (every offset points into it).
        stats: ``detected`` (detector runs), ``reused`` (structures found in memory),
            ``loaded`` (entries read from the store), ``saved`` (entries written to it).
    """

    def __init__(self, doc: Document):
        super().__init__()
        # The document holds its analysis (analysis_of); a strong reference back would make the
        # pair a cycle, so every parse, structure list and array of a chunked document would
        # wait for a full garbage collection (0.1-0.15 s each in a process with numpy and
        # Numba loaded) instead of going with the document.
        self._doc = weakref.ref(doc)
        self.text = doc.text
        self.stats: Counter = Counter()
        self._key: str | None = None
        self._store = current_store()
        # A detector that failed here (a pattern past its deadline) fails again at once: every
        # candidate of the document asks for the same structures, and the deadline is paid once.
        self._failures: dict[str, AdachunkError] = {}

    @property
    def doc(self) -> Document:
        """The document this analysis describes (held weakly: the document holds the analysis)."""
        doc = self._doc()
        if doc is None:
            raise ReferenceError("the document of this analysis is gone")
        return doc

    @property
    def key(self) -> str:
        """Content address of the document (text and reader facts; computed once)."""
        if self._key is None:
            self._key = document_key(self.doc)
        return self._key

    def _persisted(self, name: str, compute: Callable[[], Any], dump, load) -> Any:
        """``compute()`` memoised in memory, and in the store when one is configured."""
        def make():
            store = self._store
            if store is not None:
                found = store.get(self.key, name)
                if found is not None:
                    self.stats["loaded"] += 1
                    return load(found)
            value = compute()
            if store is not None and store.put(self.key, name, dump(value)):
                self.stats["saved"] += 1
            return value

        return self.memo(("persisted", name), make)

    # -- structures ----------------------------------------------------------------------------
    def spans(self, det: Any, ctx: Any) -> SpanArrays:
        """The spans ``det`` finds in this document, detected at most once per detector spec.

        Raises:
            AdachunkError: the detector's own (``ADA306`` past its deadline), with the key path
                ``structures.<label>`` and the document's source as its location; raised again,
                without running the detector, when asked a second time.
        """
        name = "det." + detector_key(det, ctx.metrics)
        if name in self._failures:
            raise self._failures[name]
        try:
            return self._spans(name, det, ctx)
        except AdachunkError as exc:
            self._failures[name] = _structure_failure(exc, getattr(det, "name", None), self.doc)
            raise

    def _spans(self, name: str, det: Any, ctx: Any) -> SpanArrays:
        before = self.stats["detected"]

        def compute() -> SpanArrays:
            self.stats["detected"] += 1
            return span_arrays(det.detect_arrays(ctx))  # sorted once: the cost cache keys on these arrays

        out = self._persisted(name, compute, lambda v: {"starts": v[0], "ends": v[1]},
                              lambda d: (d["starts"], d["ends"]))
        if self.stats["detected"] == before:
            self.stats["reused"] += 1
        return out

    def structures(self, detectors: dict[str, Any], ctx: Any) -> dict[str, SpanArrays]:
        """label → spans for every detector of a policy (see :meth:`spans`)."""
        return {label: self.spans(det, ctx) for label, det in detectors.items()}

    def memo(self, key: Any, compute: Callable[[], Any]) -> Any:
        """:meth:`Memo.memo`; the Markdown parse, asked for by its memo key, is persisted too.

        The analysis never computes a stage's fact itself: the stage that asks passes the
        producer (``compute``), so this layer imports no stage (``tests/test_layering.py``).
        """
        if key == MARKDOWN_ROWS:
            return self.markdown_block_rows(compute)
        if key == MARKDOWN_BLOCKS and MARKDOWN_ROWS in self._cache:
            # the blocks are the rows as Structures: made from the parse already kept, never parsed again
            return super().memo(key, lambda: list(starmap(Structure, self._cache[MARKDOWN_ROWS])))
        return super().memo(key, compute)

    def markdown_block_rows(self, parse: Callable[[], list[tuple[int, int, str, int]]]) -> list[tuple[int, int, str, int]]:
        """The Markdown block parse as ``(start, end, label, level)`` rows, shared by detectors,
        headings and metrics (persisted when a store is set).

        Args:
            parse: the Markdown reader's parse of this document (called at most once; not
                called when the store holds the rows).
        """
        def load(d) -> list[tuple[int, int, str, int]]:
            return list(zip(d["starts"].tolist(), d["ends"].tolist(), d["labels"].tolist(), d["levels"].tolist()))

        return super().memo(MARKDOWN_ROWS, lambda: self._persisted("markdown.blocks", parse, _dump_blocks, load))

    def vector_log(self, name: str) -> "VectorLog | None":
        """Persisted model outputs ``name`` (e.g. one embedder's vectors) when a store is set."""
        if self._store is None:
            return None
        return self.memo(("vector_log", name), lambda: VectorLog(self._store, self.key, name))

    # -- units ---------------------------------------------------------------------------------
    def boundaries(self, unit: str) -> tuple[np.ndarray, np.ndarray]:
        """Candidate positions and prefix sizes ``(P, S)`` for a tokenizer name or ``chars``."""
        from ..tokens import CharCounter, get_counter

        if unit == "chars":
            return self.memo(("boundaries", "chars"), lambda: CharCounter().boundaries(self.text))
        return self._persisted("units." + unit, lambda: get_counter(unit).boundaries(self.text),
                               lambda v: {"P": v[0], "S": v[1]}, lambda d: (d["P"], d["S"]))


class VectorLog:
    """Vectors keyed by content hash, appended in write-once batches to the analysis store.

    A model's outputs (an embedder's vectors of a document's pieces) grow as stages ask for new
    spans; each batch is one entry ``<name>.<hash of its keys>``, and :meth:`load` reads them
    all, so another process asks the model only for what no earlier one embedded.
    """

    def __init__(self, store, doc_key: str, name: str):
        self.store, self.doc_key, self.name = store, doc_key, name

    def load(self) -> dict[str, np.ndarray]:
        """Every stored key → vector of this log."""
        out: dict[str, np.ndarray] = {}
        for entry in self.store.names(self.doc_key, self.name + "."):
            found = self.store.get(self.doc_key, entry)
            if found is not None and "keys" in found and "vectors" in found:
                out.update(zip(found["keys"].tolist(), found["vectors"]))
        return out

    def append(self, keys: list[str], vectors: np.ndarray) -> None:
        """Store one batch (nothing when the store cannot be written)."""
        if not keys:
            return
        import hashlib

        tag = hashlib.sha256("\0".join(keys).encode()).hexdigest()[:20]
        self.store.put(self.doc_key, f"{self.name}.{tag}",
                       {"keys": np.array(keys, dtype=np.str_), "vectors": np.asarray(vectors, np.float32)})


def _structure_failure(exc: AdachunkError, label: str | None, doc: Document) -> AdachunkError:
    """``exc`` naming the structure (key path) and the document (location) it failed on."""
    if label and not exc.key_path:
        exc.key_path = f"structures.{label}"
    if exc.location.file is None and (doc.source or doc.id):
        exc.location = Location(doc.source or doc.id, exc.location.line, exc.location.column)
    return exc


def is_structure_failure(exc: BaseException | None) -> bool:
    """Whether ``exc`` is a failure of one of a profile's structures on a document (see
    :meth:`DocumentAnalysis.spans`), as opposed to a splitter's own."""
    return isinstance(exc, AdachunkError) and (exc.key_path or "").startswith("structures.")


def _dump_blocks(rows: list[tuple[int, int, str, int]]) -> dict[str, np.ndarray]:
    starts, ends, labels, levels = zip(*rows) if rows else ((), (), (), ())
    return {"starts": np.array(starts, np.int64), "ends": np.array(ends, np.int64),
            "labels": np.array(labels, dtype=np.str_), "levels": np.array(levels, np.int64)}


def analysis_of(doc: Document) -> DocumentAnalysis:
    """The :class:`DocumentAnalysis` of ``doc`` (made on first use, then always the same).

    It lives on the document object itself, so it goes when the document goes and is never
    pickled with it (:meth:`Document.__getstate__`). A document whose text was replaced since
    (an in-place edit) gets a fresh analysis.
    """
    found = doc.__dict__.get(_ATTR)
    if found is None or found.text is not doc.text:
        found = DocumentAnalysis(doc)
        doc.__dict__[_ATTR] = found
    return found


def shared_memo(doc: Document | None) -> Callable[[Any, Callable[[], Any]], Any] | None:
    """The analysis memo of ``doc`` (None for None)."""
    return analysis_of(doc).memo if doc is not None else None


__all__ = ["DocumentAnalysis", "analysis_of", "is_structure_failure", "shared_memo", "detector_key", "document_key", "MARKDOWN_BLOCKS", "CODE_POINTS"]
