"""The adaptive candidate pool: run every candidate splitter of a profile on one document.

Each candidate is ``(type, params, display name)`` from ``policy.candidates``. A candidate that
fails (a coded :class:`~adachunk.errors.AdachunkError` or any other exception) yields a
:class:`CandidateRun` with ``error`` set and no chunking; the others still run. Post-processing
(:mod:`adachunk.postprocess`) follows the profile unless disabled.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ..components import ensure_builtins
from ..errors import AdachunkError, ProfileError, ProfileErrors, did_you_mean
from ..policy import Policy
from ..postprocess import postprocess as qc
from ..registry import splitters
from ..types import Chunking, Document

log = logging.getLogger("adachunk.split.pool")


@dataclass
class CandidateRun:
    """The outcome of one candidate on one document.

    Attributes:
        name: the candidate's display name (``our_recurs_1100``).
        type: the registered splitter (``recursive.v1``).
        chunking: the (post-processed) chunking, or None when the candidate failed.
        error: why it failed (a rendered ``ADAxxx`` line or ``ExceptionType: message``), or None.
        seconds: wall time of splitting plus post-processing.
    """

    name: str
    type: str
    chunking: Chunking | None
    error: str | None
    seconds: float

    @property
    def ok(self) -> bool:
        """True when the candidate produced a chunking."""
        return self.chunking is not None


def _params_error(type_name: str, model: Any, exc: ValidationError) -> ProfileError:
    """Coded errors for invalid splitter parameters (ADA202 unknown key, ADA203 bad value)."""
    fields = sorted(model.model_fields)
    errors = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err.get("loc", ()))
        if err.get("type") == "extra_forbidden":
            errors.append(ProfileError(code="ADA202", message=f"{type_name} has no parameter '{key}'",
                                       key_path=key, allowed=fields, hint=did_you_mean(key, fields)))
        else:
            errors.append(ProfileError(code="ADA203", message=f"{type_name}: {err.get('msg', 'invalid value')}",
                                       key_path=key or None))
    return errors[0] if len(errors) == 1 else ProfileErrors(errors)


def make_splitter(type_name: str, params: dict[str, Any] | None = None) -> Any:
    """Instantiate the registered splitter ``type_name`` with validated ``params``.

    Raises:
        ProfileError: ``ADA205`` for an unknown splitter (listing the known ones), ``ADA202`` for
            an unknown parameter, ``ADA203`` for a bad value.
    """
    ensure_builtins()
    cls = splitters.get(type_name)
    model = getattr(cls, "Params", None)
    if model is None:
        return cls(dict(params or {}))
    try:
        return cls(model.model_validate(dict(params or {})))
    except ValidationError as exc:
        raise _params_error(type_name, model, exc) from None


def run_candidate(doc: Document, policy: Policy, type_name: str, params: dict[str, Any] | None = None,
                  name: str | None = None, *, postprocess: bool = True) -> CandidateRun:
    """Run one candidate (split, then post-process per the profile); never raises for its failures."""
    t0 = time.perf_counter()
    try:
        chunking = make_splitter(type_name, params).split(doc, policy)
        if postprocess:
            chunking = qc(chunking, doc, policy)
        error = None
    except AdachunkError as exc:
        chunking, error = None, exc.render()
    except Exception as exc:  # a broken candidate (a plugin bug) must not stop the others
        log.debug("candidate %s failed on %s", name or type_name, doc.id, exc_info=True)
        chunking, error = None, f"{type(exc).__name__}: {exc}"
    if error is not None:
        log.warning("candidate %s failed on %s: %s", name or type_name, doc.id, error)
    return CandidateRun(name=name or type_name, type=type_name, chunking=chunking, error=error,
                        seconds=time.perf_counter() - t0)


def run_candidates(doc: Document, policy: Policy, *, postprocess: bool = True) -> list[CandidateRun]:
    """Run every candidate of ``policy.candidates`` on ``doc``, in profile order."""
    return [run_candidate(doc, policy, type_name, params, name, postprocess=postprocess)
            for type_name, params, name in policy.candidates]
