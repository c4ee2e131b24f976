"""The adaptive candidate pool: run every candidate splitter of a profile on one document.

Each candidate is ``(type, params, display name)`` from ``policy.candidates``. A candidate that
fails (a coded :class:`~adachunk.errors.AdachunkError` or any other exception) yields a
:class:`CandidateRun` with ``error`` set and no chunking; the others still run. Post-processing
(:mod:`adachunk.split.postprocess`) follows the profile unless disabled; then the profile's hard
rules are checked, and the candidate repaired, by :func:`adachunk.split.bind.bind`.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from ..components.builtins import ensure_builtins
from ..analysis import is_structure_failure
from ..components.build import build_component
from ..errors import AdachunkError
from ..policy import Policy
from ..split.bind import bind
from ..split.postprocess import postprocess as qc
from ..components.registry import splitters
from ..datatypes import Chunking, Document

log = logging.getLogger("adachunk.selection.candidates")


@dataclass
class CandidateRun:
    """The outcome of one candidate on one document.

    Attributes:
        name: the candidate's display name (``our_recurs_1100``).
        type: the registered splitter (``recursive.v1``).
        chunking: the (post-processed) chunking, or None when the candidate failed.
        error: why it failed (a rendered ``ADAxxx`` line or ``ExceptionType: message``), or None.
        seconds: wall time of splitting plus post-processing.
        failure: the coded error it failed with (None: it did not, or not with a coded error).
    """

    name: str
    type: str
    chunking: Chunking | None
    error: str | None
    seconds: float
    failure: AdachunkError | None = None

    @property
    def ok(self) -> bool:
        """True when the candidate produced a chunking."""
        return self.chunking is not None


def make_splitter(type_name: str, params: dict[str, Any] | None = None) -> Any:
    """Instantiate the registered splitter ``type_name`` with validated ``params``.

    Raises:
        ProfileError: ``ADA205`` for an unknown splitter (listing the known ones), ``ADA202`` for
            an unknown parameter, ``ADA203`` for a bad value (:func:`adachunk.components.build.build_component`).
    """
    ensure_builtins()
    # params may come from elsewhere than a resolved profile (tune variants, the API, benchmarks),
    # so they are validated here too
    return build_component(splitters, {**(params or {}), "type": type_name})


def run_candidate(doc: Document, policy: Policy, type_name: str, params: dict[str, Any] | None = None,
                  name: str | None = None, *, postprocess: bool = True) -> CandidateRun:
    """Run one candidate (split, then post-process per the profile); never raises for its failures."""
    t0 = time.perf_counter()
    failure = None
    try:
        chunking = make_splitter(type_name, params).split(doc, policy)
        if postprocess:
            chunking = qc(chunking, doc, policy)
        chunking = bind(chunking, doc, policy)  # the profile's hard rules bind every candidate
        error = None
    except AdachunkError as exc:
        chunking, error, failure = None, exc.render(), exc
    except Exception as exc:  # a broken candidate (a plugin bug) must not stop the others
        log.debug("candidate %s failed on %s", name or type_name, doc.id, exc_info=True)
        chunking, error = None, f"{type(exc).__name__}: {exc}"
    # a structure's failure is the document's (select_document fails it, or notes the fallback)
    if error is not None and not is_structure_failure(failure):
        log.warning("candidate %s failed on %s: %s", name or type_name, doc.id, error)
    return CandidateRun(name=name or type_name, type=type_name, chunking=chunking, error=error,
                        seconds=time.perf_counter() - t0, failure=failure)


def run_candidates(doc: Document, policy: Policy, *, postprocess: bool = True) -> list[CandidateRun]:
    """Run every candidate of ``policy.candidates`` on ``doc``, in profile order."""
    return [run_candidate(doc, policy, type_name, params, name, postprocess=postprocess)
            for type_name, params, name in policy.candidates]
