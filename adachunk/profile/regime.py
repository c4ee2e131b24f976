"""The retrieval regime of a profile, checked at load time: its embedder, its budgets, the sizes
of its ``auto`` candidates.

A regime that cannot work is a located profile error: an unknown embedder type is ``ADA205``
(with its parameters checked like every embedder spec), a model whose input limit cannot be read
offline while ``auto`` sizes need it is ``ADA213``, and a budget below the smallest chunk the
pool can make (post-processing merges chunks under ``postprocess.min_tokens``) is ``ADA216``.
"""

from __future__ import annotations

from typing import Any

from ..components.build import component_params, errors_of, located
from ..errors import AdachunkError, ProfileError
from ..policy_types import regime_embedder
from ..components.registry import embedders
from ..split.ladder import is_auto, size_ladder, uses_embedder
from .schema import Profile
from .yamlmarks import mark_at


def embedder_spec(profile: Profile) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The regime's embedder as a plain spec, and the key path it was written under."""
    spec, path = regime_embedder(profile.retrieval, profile.index, profile.metrics)
    return spec.model_dump(), path


def _at(err: AdachunkError, data: Any, path: tuple) -> AdachunkError:
    return located(err, path, lambda key: mark_at(data, key))


def _embedder(profile: Profile, data: Any, errors: list) -> tuple[type, Any] | None:
    """The regime embedder's class and validated params (None, with located errors, when invalid)."""
    spec, path = embedder_spec(profile)
    try:
        return component_params(embedders, {"type": "sentence_transformers.v1", **spec}, path,
                                locate=lambda key: mark_at(data, key))
    except ProfileError as exc:
        errors.extend(_at(e, data, path) for e in errors_of(exc))
        return None


def input_limit(profile: Profile, data: Any, errors: list) -> tuple[bool, int | None]:
    """``(ok, limit)``: the regime embedder's declared input limit in model tokens (None:
    unlimited), read without loading the model; ``ok`` is False when it cannot be read (the
    located error is in ``errors``)."""
    got = _embedder(profile, data, errors)
    if got is None:
        return False, None
    cls, params = got
    try:
        return True, cls.declared_limit(params)
    except ProfileError as exc:  # ADA213: the model is not available offline
        path = embedder_spec(profile)[1] + ("model",)
        for e in errors_of(exc):
            e.key_path = ""  # the embedder names the metrics section; this one is the regime's
            errors.append(_at(e, data, path))
        return False, None


def check_budgets(profile: Profile, data: Any, errors: list) -> None:
    """ADA216 for a budget that no chunk of the pool fits (see the module docstring)."""
    pp = profile.postprocess
    smallest = pp.min_tokens if pp.enabled else 1
    for i, budget in enumerate(profile.retrieval.budgets):
        if budget < smallest:
            errors.append(_at(ProfileError(
                code="ADA216", message=f"budget of {budget} tokens is below the smallest chunk the pool makes "
                f"(post-processing merges chunks under postprocess.min_tokens = {smallest})",
                hint="raise the budget or lower postprocess.min_tokens"), data, ("retrieval", "budgets", i)))


def check(profile: Profile | None, data: Any, errors: list) -> list[int] | None:
    """Every regime check (located errors go to ``errors``); returns the ladder of the profile's
    ``auto`` candidates, or None when it has none or the regime is invalid."""
    if profile is None:
        return None
    check_budgets(profile, data, errors)
    r = profile.retrieval
    cands = data.get("candidates") if isinstance(data, dict) else None
    wants_auto = isinstance(cands, list) and any(is_auto(c) for c in cands)
    if wants_auto and uses_embedder(r.retrievers):
        ok, limit = input_limit(profile, data, errors)
        return size_ladder(r.retrievers, r.budgets, limit, r.sizes) if ok else None
    if r.embedder != "index":  # index and metrics embedders are checked with their sections
        _embedder(profile, data, errors)
    return size_ladder(r.retrievers, r.budgets, None, r.sizes) if wants_auto else None
