"""The coreference backend contract used by References Completeness (RC).

A backend is a class registered in :data:`adachunk.components.registry.coref` under a versioned name
(``precomputed.v1``, ``heuristic.v1``, ``maverick.v1``). It is built as ``Backend(params)``
with its own :class:`~adachunk.components.params.ComponentParams` model ``Params`` (the profile's
``metrics.coref`` fields other than ``type``), and answers :meth:`CorefBackend.pairs` with a
:class:`PairSet`: entity→pronoun pairs in code-point offsets of ``doc.text`` with INCLUSIVE ends
(the paper's convention), ``[[e_start, e_end], [p_start, p_end]]``.

Backends never raise for bad data: pairs that do not fit the text are dropped and counted, so
RC can say how much it ignored. ``available()`` tells ``coref.type: auto`` whether the backend's
offline dependencies (a spaCy model, a checkpoint) are installed, without loading them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Iterable

from ...components.params import ComponentParams
from ...datatypes import Document

Span = tuple[int, int]
Pair = tuple[Span, Span]


@dataclass(frozen=True)
class PairSet:
    """Entity→pronoun pairs of one document.

    Attributes:
        pairs: ``((e_start, e_end), (p_start, p_end))`` with inclusive ends, valid for the text.
        dropped: how many supplied/predicted pairs were discarded (offsets outside the text,
            malformed entries).
        reason: why ``pairs`` is empty, or a note about what was dropped; None when all is well.
        backend: registered name of the backend that produced the pairs.
    """

    pairs: tuple[Pair, ...] = ()
    dropped: int = 0
    reason: str | None = None
    backend: str = ""


class CorefParams(ComponentParams):
    """Base for backend parameter models (strict, every field described)."""


class CorefBackend:
    """Base class of coreference backends (see module docstring)."""

    name: ClassVar[str] = ""
    Params: ClassVar[type[CorefParams]] = CorefParams

    def __init__(self, params: CorefParams | None = None):
        self.params = params or self.Params()

    @classmethod
    def available(cls) -> bool:
        """Whether the backend can run offline here (dependencies installed); cheap to call."""
        return True

    def pairs(self, doc: Document) -> PairSet:  # pragma: no cover - interface
        """Entity→pronoun pairs of ``doc`` (inclusive ends, offsets into ``doc.text``)."""
        raise NotImplementedError


def _span(obj: Any) -> Span | None:
    """``[start, end]`` of two non-negative integers with start <= end, else None."""
    if not isinstance(obj, (list, tuple)) or len(obj) != 2:
        return None
    s, e = obj
    # bool is an int subclass; a JSON true is not an offset
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (s, e)):
        return None
    return (s, e) if 0 <= s <= e else None


def validate_pairs(raw: Iterable[Any] | None, text_len: int) -> tuple[tuple[Pair, ...], int]:
    """Keep the well-formed pairs that lie inside a text of ``text_len`` code points.

    A span's inclusive end must point at a character (``end < text_len``). Everything else
    (offsets past the end, as in the French CLAIR documents whose pairs were computed on another
    text version; negative or reversed spans; malformed entries) is dropped and counted.

    Returns:
        ``(pairs, dropped)``.
    """
    kept: list[Pair] = []
    dropped = 0
    for item in raw or ():
        spans = [_span(x) for x in item] if isinstance(item, (list, tuple)) and len(item) == 2 else [None]
        if any(s is None or s[1] >= text_len for s in spans):
            dropped += 1
            continue
        kept.append((spans[0], spans[1]))  # type: ignore[arg-type]
    return tuple(kept), dropped
