"""One shared analysis per document: work that every stage needs is done once.

Detection (the DP and its explanations), post-processing and the metrics of one document all
need the same facts about it: its Markdown block parse, its sentence and word spans, its
coreference pairs. :func:`analysis_of` hands every stage the same :class:`DocumentAnalysis` for
one :class:`~adachunk.types.Document` object, so the Markdown parse is done once per document
and the coreference resolver runs once: the pairs the DP avoids cutting (``coref.pair.v1``) are
the very pairs References Completeness counts.

Only facts that are pure functions of the document (its text, split points, precomputed pairs)
and of the key's own parameters are stored here; anything that depends on a profile's settings
carries those settings in its key (the coreference spec, a detector's abbreviations).
"""

from __future__ import annotations

from typing import Any, Callable

from .types import ANALYSIS_ATTR as _ATTR
from .types import Document, Memo


class DocumentAnalysis(Memo):
    """The shared per-document cache (see module docstring).

    Attributes:
        doc: the document it describes.
        text: the document text (every offset points into it).
    """

    def __init__(self, doc: Document):
        super().__init__()
        self.doc = doc
        self.text = doc.text


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
