"""Coreference backends for RC and the ``coref.type: auto`` selection.

:func:`get_backend` turns the profile's ``metrics.coref`` section into a backend instance:

* an explicit ``type`` (``precomputed.v1``, ``heuristic.v1``, ``maverick.v1``, a plugin) is
  built with the section's other fields as its ``Params``;
* ``auto`` picks ``precomputed.v1`` when the document carries pairs (the paper's CLAIR JSON, a
  side file), else the first offline backend of :data:`OFFLINE_DEFAULTS` that is registered
  and available, else nothing (RC is then None with :data:`NO_BACKEND`).
"""

from __future__ import annotations

import importlib
import json
import logging
from typing import Any, Callable, Mapping

from ...components.build import build_component
from ...errors import AdachunkError, ProfileError
from ...components.registry import coref
from ...datatypes import Document
from .base import CorefBackend, CorefParams, PairSet, validate_pairs
from .precomputed import NAME as PRECOMPUTED, PrecomputedBackend, find_side_file, has_pairs

log = logging.getLogger("adachunk.metrics")

# Offline backends ``auto`` may fall back to, in preference order, with the module that
# registers each (imported on demand so spaCy & co. load only when used).
OFFLINE_DEFAULTS: tuple[tuple[str, str], ...] = (
    ("heuristic.v1", "adachunk.models.coref.heuristic"),
)
# Every built-in backend and the module that registers it, for explicit ``type:`` names.
MODULES: dict[str, str] = {
    **dict(OFFLINE_DEFAULTS),
    "maverick.v1": "adachunk.models.coref.maverick",
}
NO_BACKEND = "no coreference backend available"

__all__ = ["CorefBackend", "CorefParams", "PairSet", "PrecomputedBackend", "get_backend",
           "validate_pairs", "pairs_for", "spec_key", "NO_BACKEND", "OFFLINE_DEFAULTS"]


def _as_dict(spec: Any) -> dict[str, Any]:
    if spec is None:
        return {"type": "auto"}
    if hasattr(spec, "model_dump"):
        spec = spec.model_dump()
    if not isinstance(spec, Mapping):
        raise ProfileError(code="ADA203", message=f"metrics.coref must be a mapping, not {type(spec).__name__}",
                           key_path="metrics.coref")
    return dict(spec)


def _ensure_registered(name: str, module: str) -> bool:
    """Import ``module`` if ``name`` is not registered yet; False when the module is absent."""
    if name in coref:
        return True
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and module.startswith(exc.name):
            return False  # the backend is not part of this installation
        raise
    return name in coref


def _build(name: str, fields: dict[str, Any]) -> CorefBackend:
    """Instantiate the registered backend ``name`` with ``fields`` as its Params."""
    # every field problem is ADA203 here (RC reports it as its reason; callers match that code)
    return build_component(coref, {**fields, "type": name}, ("metrics", "coref"), code="ADA203",
                           subject=f"coreference backend {name}",
                           factory=lambda cls, params: cls() if getattr(cls, "Params", None) is None else cls(params))


def get_backend(spec: Any, doc: Document) -> CorefBackend | None:
    """The coreference backend for ``doc`` under the profile's ``metrics.coref`` ``spec``.

    Args:
        spec: the ``metrics.coref`` section (dict or pydantic model); ``None`` means ``auto``.
        doc: the document (``auto`` looks at whether it carries pairs).

    Returns:
        A backend instance, or None when ``auto`` finds no usable backend.

    Raises:
        ProfileError: an explicit ``type`` is unknown (``ADA205``) or its fields are invalid.
    """
    fields = _as_dict(spec)
    name = str(fields.pop("type", "auto"))
    if name != "auto":
        if name in MODULES:
            _ensure_registered(name, MODULES[name])
        return _build(name, fields)
    if has_pairs(doc):
        return _build(PRECOMPUTED, {})
    for known, module in OFFLINE_DEFAULTS:
        if _ensure_registered(known, module) and getattr(coref.get(known), "available", lambda: True)():
            return _build(known, {})
    log.debug("%s: %s", doc.id, NO_BACKEND)
    return None


def spec_key(spec: Any) -> str:
    """Canonical text of a ``metrics.coref`` spec (None is ``auto``): the pairs' cache key."""
    return json.dumps(_as_dict(spec), sort_keys=True, default=str)


def pairs_for(doc: Document, spec: Any = None,
              memo: Callable[[Any, Callable[[], Any]], Any] | None = None) -> PairSet:
    """The entity→pronoun pairs of ``doc`` under ``spec``, computed once per document and spec.

    References Completeness and the DP's ``coref.pair.v1`` structures both call this with the
    document's shared memo (:mod:`adachunk.analysis`), so the resolver runs once for both.
    Never raises: an unusable backend or a model that fails gives an empty :class:`PairSet`
    whose ``reason`` says why.

    Args:
        doc: the document.
        spec: the ``metrics.coref`` section (None: ``auto``).
        memo: a per-document memo (None: the document's shared analysis).
    """
    if memo is None:
        from ...analysis import analysis_of

        memo = analysis_of(doc).memo
    fields = _as_dict(spec)
    if fields.get("type", "auto") == "auto" and has_pairs(doc):
        spec = {"type": PRECOMPUTED}  # what auto picks: the same pairs as an explicit precomputed.v1
    return memo(("coref.pairs", spec_key(spec), _side_file_stamp(doc)), lambda: _run_backend(spec, doc))


def _side_file_stamp(doc: Document) -> tuple | None:
    """Identity of the pairs side file a document would read (an edited file is read again)."""
    if doc.entity_pron_pairs is not None:
        return None
    path = find_side_file(doc)
    if path is None:
        return None
    try:
        st = path.stat()
    except OSError:
        return (str(path),)
    return (str(path), st.st_mtime_ns, st.st_size)


def _run_backend(spec: Any, doc: Document) -> PairSet:
    try:
        backend = get_backend(spec, doc)
    except AdachunkError as err:
        return PairSet(reason=f"coreference backend unusable: {err.render()}")
    if backend is None:
        return PairSet(reason=NO_BACKEND)
    name = getattr(backend, "name", type(backend).__name__)
    try:
        return backend.pairs(doc)
    except Exception as exc:  # a model that cannot load must not take the other metrics down
        log.warning("%s: coreference backend %s failed: %s", doc.id, name, exc)
        return PairSet(reason=f"coreference backend {name} failed: {type(exc).__name__}: {exc}", backend=name)
