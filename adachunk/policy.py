"""The resolved, executable form of a profile, handed to the engine stages.

``detect/``, ``cost/``, ``solve/`` and ``split/`` receive a :class:`Policy`; they never import
``profile/`` (which owns YAML, validation and error locations).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .cost.lattice import CostRule


@dataclass(frozen=True)
class SolverSettings:
    """Solver parameters (see :class:`adachunk.profile.schema.SolverSpec` for their meaning)."""

    granularity: str = "tokens"
    tokenizer: str = "o200k_base"
    min_size: int = 0
    max_size: int = 512
    chunk_cost: int = 0
    overlap: int = 0
    overlap_units: tuple[str, ...] = ("sentence", "word")
    backend: str = "numba"
    target_size: int | None = None
    over_target_cost: int = 1
    under_target_cost: int = 1

    def with_overrides(self, **kw: Any) -> "SolverSettings":
        """Copy with some fields replaced (None values are ignored)."""
        return replace(self, **{k: v for k, v in kw.items() if v is not None})


@dataclass(frozen=True)
class Policy:
    """Everything the engine needs to chunk: detectors, rules, solver settings, identity.

    Attributes:
        name: profile name.
        fingerprint: sha256 of the canonical resolved profile and every referenced file.
        detectors: structure label → detector instance (order = profile order).
        rules: resolved punishment rules.
        solver: solver settings.
        candidates: the candidate pool as ``(type, params dict, display name)``.
        postprocess: post-processing settings (plain dict).
        metrics: metric settings (plain dict).
        select: selection settings (plain dict).
        index: vector-index settings (plain dict).
        data: the canonical resolved profile (plain data).
    """

    name: str
    fingerprint: str
    detectors: dict[str, Any]
    rules: tuple[CostRule, ...]
    solver: SolverSettings
    candidates: tuple[tuple[str, dict, str], ...] = ()
    postprocess: dict = field(default_factory=dict)
    metrics: dict = field(default_factory=dict)
    select: dict = field(default_factory=dict)
    index: dict = field(default_factory=dict)
    data: dict = field(default_factory=dict)
