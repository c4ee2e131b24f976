"""The detector contract.

A detector is a class registered in :data:`adachunk.components.registry.detectors` under a versioned name
(``markdown.block.v1``, ``regex.v1``, ...). It declares its profile fields as a pydantic model in
``Params`` (``extra="forbid"``; the ``type`` key is handled by the profile layer and is *not* part
of ``Params``). The profile layer validates the fields, then builds the detector once per resolved
profile with ``Detector(params, name=..., base_dirs=...)``; ``detect(ctx)`` returns sorted
:class:`~adachunk.datatypes.Structure` spans labelled with the structure's *name* from the profile.

Construction errors that are the profile's fault (bad regex, grammar error) must raise
:class:`~adachunk.errors.ProfileError` with the right ``ADA2xx`` code; the loader adds the file
location and key path.
"""

from __future__ import annotations

from operator import attrgetter
from pathlib import Path
from typing import Any, Callable, ClassVar, Literal, Sequence

from pydantic import Field

from ..components.params import ComponentParams
from ..policy_types import metrics_section
from ..datatypes import Document, Memo, SpanArrays, Structure, span_arrays


class DetectorParams(ComponentParams):
    """Base for detector parameter models: strict, every field described."""

    # read by adachunk.enrich after the solve, never by detection: excluded from dumps, so the
    # detector's content address (analysis cache key) does not depend on it
    emit: Literal["path", "definition", "reference", "table"] | None = Field(
        default=None, exclude=True,
        description="which chunk metadata the structure feeds: path (structure path), definition "
        "(defined terms), reference (cross-references), table (table context); None: none")


class DetectContext(Memo):
    """Per-document scratch space shared by all detectors of one detection pass.

    Expensive parses (the mistletoe block tree, the sentence segmentation) are computed once per
    document and reused by every structure that needs them, via :meth:`memo`. Given the
    :class:`~adachunk.datatypes.Document`, the memo is the document's shared analysis
    (:func:`adachunk.analysis.analysis_of`): the metrics and every later pass over the same
    document reuse the same parses, and detectors can read what the ingester knew (its blocks,
    precomputed coreference pairs).

    Attributes:
        text: the text to detect in.
        doc: the document, when the caller has one (None for a bare text).
        metrics: the profile's ``metrics`` section, for detectors that see what a metric sees:
            the coreference backend (``coref``) and the embedder (``embedder``).
    """

    def __init__(self, text: str, doc: Document | None = None, metrics: Any = None):
        super().__init__()
        self.text = text
        self.doc = doc if doc is not None and doc.text is text else None
        self.metrics = metrics_section(metrics)  # a MetricsSpec (a mapping or None: made into one)
        self._shared = None
        if self.doc is not None:
            from ..analysis import analysis_of

            self._shared = analysis_of(self.doc)

    def memo(self, key: Any, compute: Callable[[], Any]) -> Any:
        """Like :meth:`Memo.memo`, in the document's shared analysis when there is a document."""
        if self._shared is not None:
            return self._shared.memo(key, compute)
        return super().memo(key, compute)

    @property
    def coref(self) -> Any:
        """The profile's ``metrics.coref`` spec (None: ``auto``)."""
        return self.metrics.coref

    def document(self) -> Document:
        """The document (a bare in-memory one for a text given alone, made once)."""
        if self.doc is None:
            self.doc = Document(id="text", text=self.text)
        return self.doc


class Detector:
    """Base class of detectors (see module docstring)."""

    Params: ClassVar[type[DetectorParams]] = DetectorParams
    # keys of the profile's ``metrics`` section the spans depend on (part of the analysis key)
    reads_metrics: ClassVar[tuple[str, ...]] = ()

    def __init__(self, params: DetectorParams, *, name: str, base_dirs: Sequence[Path] = ()):
        self.params = params
        self.name = name
        self.base_dirs = tuple(base_dirs)

    def detect(self, ctx: DetectContext) -> list[Structure]:  # pragma: no cover - interface
        """Return the spans found in ``ctx.text``, sorted by (start, end)."""
        raise NotImplementedError

    def detect_arrays(self, ctx: DetectContext) -> SpanArrays:
        """Starts and ends as int64 arrays sorted by start (what the cost lattice consumes).

        Detectors that find very many spans (words, sentences) override this to skip building
        one Python object per span.
        """
        return span_arrays(self.detect(ctx))


# Structure's own ordering compares (start, end, label, level) in Python for every pair; the
# same key extracted once per span sorts identically (stably) and several times faster.
SPAN_ORDER = attrgetter("start", "end", "label", "level")


def finalize(spans: list[Structure]) -> list[Structure]:
    """Sort spans and drop empty ones (every detector returns through this)."""
    return sorted((s for s in spans if s.end > s.start), key=SPAN_ORDER)
