"""The resolved, executable form of a profile, handed to the engine stages.

``detect/``, ``cost/``, ``solve/`` and ``split/`` receive a :class:`Policy`; they never import
``profile/`` (which owns YAML, validation and error locations).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .cost.lattice import CostRule
from .policy_types import HardRulesSpec, IndexSpec, MetricsSpec, PostprocessSpec, RetrievalSpec, SelectSpec, SolverSpec


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
        postprocess: post-processing settings.
        metrics: metric settings.
        select: selection settings.
        index: vector-index settings.
        retrieval: the retrieval regime the selection fits (embedder, retrievers, budgets).
        hard_rules: the rules every candidate keeps (headings with their body, atomic structures).
        data: the canonical resolved profile (plain data).
    """

    name: str
    fingerprint: str
    detectors: dict[str, Any]
    rules: tuple[CostRule, ...]
    solver: SolverSpec
    candidates: tuple[tuple[str, dict, str], ...] = ()
    # the sections' defaults are the schema's (adachunk.policy_types), never restated here
    postprocess: PostprocessSpec = field(default_factory=PostprocessSpec)
    metrics: MetricsSpec = field(default_factory=MetricsSpec)
    select: SelectSpec = field(default_factory=SelectSpec)
    index: IndexSpec = field(default_factory=IndexSpec)
    retrieval: RetrievalSpec = field(default_factory=RetrievalSpec)
    hard_rules: HardRulesSpec = field(default_factory=HardRulesSpec)
    data: dict = field(default_factory=dict)
