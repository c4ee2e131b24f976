"""Profiles as strict data: pydantic models with ``extra="forbid"`` and every field described.

Component-specific fields (a detector's ``pattern``, a splitter's ``chunk_size``) are not listed
here: they are validated by the ``Params`` model of the registered component named by ``type``
(see :mod:`adachunk.profile.resolve`), so plugins bring their own schema.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

# the policy sections (and their defaults) are defined once, outside profile/, so the stages can
# take them; re-exported here as part of the schema
from ..policy_types import (ComponentSpec, CorefSpec, EmbedderSpec, EmbedPart, HardRulesSpec, IndexSpec,  # noqa: F401
                            MetricKey, MetricsSpec, ParentsSpec, PostprocessSpec, RetrievalSpec, SelectSpec, SolverSpec,
                            WeightPreset)


class Strict(BaseModel):
    """Base: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")


class StructureSpec(ComponentSpec):
    """A structure to detect; the profile key is its label (used by rules)."""

    emit: Literal["path", "definition", "reference", "table"] | None = Field(
        default=None,
        description="chunk metadata this structure feeds (adachunk.enrich): path (the structure path), "
        "definition (defined terms), reference (cross-references), table (table context); "
        "None: none. Never changes a boundary")


class ShapeSpec(Strict):
    """A punishment shape with its scale."""

    shape: str = Field(
        description="registered shape: const, linear, reverse_linear, triangular, inverse_triangular"
    )
    scale: float = Field(ge=0, le=1e9, allow_inf_nan=False,
                         description="peak cost of a cut in the region (integer units after rounding; at most 10^9)")
    width: float | None = Field(
        default=None,
        gt=0, le=1e9,
        description="for linear/reverse_linear: characters over which the ramp runs (None: the whole region)",
    )


class RuleSpec(Strict):
    """A punishment rule on one structure label."""

    name: str | None = Field(default=None, description="display name in explanations (default: the label)")
    structure: str = Field(description="structure label the rule applies to")
    on: ShapeSpec | None = Field(default=None, description="cost of cutting strictly inside the structure")
    off: ShapeSpec | None = Field(
        default=None, description="cost of cutting in the gap after the structure, up to the next one"
    )


class RulesSpec(Strict):
    """Punishment rules: rule packs from ``rules/`` plus the profile's own items."""

    include: list[str] = Field(default_factory=list, description="rule packs (file stems in rules/) to include")
    items: list[RuleSpec] = Field(default_factory=list, description="the profile's own rules (added after packs)")


class CandidateSpec(ComponentSpec):
    """A candidate splitter of the adaptive pool (fields checked by the splitter's Params)."""

    name: str | None = Field(default=None, description="label of this candidate in reports")


SizeKey = Literal["max_size", "min_size", "target_size", "chunk_cost"]


def _ordered(value: tuple) -> tuple:
    if value[0] > value[1]:
        raise ValueError(f"range [{value[0]}, {value[1]}]: the low end is above the high end")
    return value


# [low, high] ranges of the tune search space, checked where they stand (errors name the item)
Multiplier = Annotated[tuple[Annotated[float, Field(gt=0, le=1e6)], Annotated[float, Field(gt=0, le=1e6)]],
                       AfterValidator(_ordered)]
IntRange = Annotated[tuple[Annotated[int, Field(ge=0, le=10**9)], Annotated[int, Field(ge=0, le=10**9)]],
                     AfterValidator(_ordered)]
WeightRange = Annotated[tuple[Annotated[float, Field(ge=0, le=1e6)], Annotated[float, Field(ge=0, le=1e6)]],
                        AfterValidator(_ordered)]


class TuneSpaceSpec(Strict):
    """What ``adachunk tune`` may change, each with its range (both ends included).

    Names are checked against the resolved profile when the tune starts (``ADA215``).
    """

    rules: dict[str, Multiplier] = Field(
        default_factory=dict,
        description="rule name → [low, high] multiplier (> 0) of that rule's scales (on and off together), "
        "searched log-uniformly; 1 keeps the profile's value")
    solver: dict[SizeKey, IntRange] = Field(
        default_factory=dict,
        description="solver setting → [low, high] integer range (applies to the tuned DP candidate "
        "where that candidate does not set the value itself)")
    candidates: dict[str, dict[SizeKey, IntRange]] = Field(
        default_factory=dict,
        description="dp.v1 candidate name → its own size overrides → [low, high] integer range")
    weights: dict[MetricKey, WeightRange] = Field(
        default_factory=dict,
        description="metric key → [low, high] weight range; only with a QA objective (the intrinsic "
        "score would just reward its own weights); renormalised to sum 1")

    def is_empty(self) -> bool:
        """True when nothing would be searched."""
        return not (self.rules or self.solver or self.weights or any(self.candidates.values()))


class TuneSpec(Strict):
    """Defaults of ``adachunk tune`` for this profile (the command line overrides each)."""

    target: str | None = Field(
        default=None,
        description="what is chunked and scored: a dp.v1 candidate name, 'solver' (the solver section "
        "alone), or 'pool' (the whole pool, winner per document); None: the first dp.v1 candidate, "
        "else the solver section ('pool' when the space tunes weights)")
    objective: Literal["intrinsic", "qa", "both"] = Field(
        default="intrinsic",
        description="intrinsic: mean weighted metric score (the profile's weights); qa: a retrieval "
        "measure on a QA set; both: the mean of the two")
    qa_measure: str = Field(default="coverage@5", description="QA summary measure to maximise, e.g. recall@5, mrr")
    folds: int = Field(default=5, ge=2, le=100, description="cross-validation folds over documents")
    trials: int = Field(default=30, ge=1, le=100000, description="trials per fold")
    seed: int = Field(default=0, ge=0, le=2**32 - 1, description="seed of the fold split and of the TPE sampler")
    space: TuneSpaceSpec = Field(default_factory=TuneSpaceSpec, description="the search space")


class Profile(Strict):
    """A chunking policy (after ``extends`` and rule packs are merged)."""

    schema_version: Literal[1] = Field(default=1, description="profile format version")
    name: str = Field(description="profile name")
    description: str = Field(default="", description="what the profile is for")
    extends: str | None = Field(default=None, description="base profile (builtin name or path), deep-merged")
    structures: dict[str, StructureSpec] = Field(default_factory=dict, description="label → detector spec")
    rules: RulesSpec = Field(default_factory=RulesSpec, description="punishment rules")
    hard_rules: HardRulesSpec = Field(
        default_factory=HardRulesSpec,
        description="rules that bind every candidate of the pool, not only the DP: headings kept with their body, "
        "atomic structures never cut when they fit (adachunk.split.bind)")
    solver: SolverSpec = Field(default_factory=SolverSpec, description="solver settings")
    candidates: list[CandidateSpec] = Field(
        default_factory=lambda: [CandidateSpec(type="dp.v1")], description="adaptive candidate pool"
    )
    postprocess: PostprocessSpec = Field(default_factory=PostprocessSpec, description="post-processing QC")
    metrics: MetricsSpec = Field(default_factory=MetricsSpec, description="metrics and weights")
    select: SelectSpec = Field(default_factory=SelectSpec, description="adaptive selection rules")
    index: IndexSpec = Field(default_factory=IndexSpec, description="vector index of the winning chunks")
    retrieval: RetrievalSpec = Field(
        default_factory=RetrievalSpec,
        description="how the chunks will be retrieved and read (embedder, retrievers, token budgets): what the "
        "rf metric measures and what 'auto' candidate sizes derive from")
    parents: ParentsSpec | None = Field(
        default=None, description="parent chunks containing the leaf chunks (each leaf gets parent_id); None: none")
    # excluded from dumps, hence from the canonical profile and its fingerprint: how a profile is
    # tuned does not change the chunks it makes
    tune: TuneSpec = Field(default_factory=TuneSpec, exclude=True,
                           description="search space and defaults of `adachunk tune` (not part of the fingerprint)")


class RulePack(Strict):
    """A reusable rule pack file in ``rules/``: structures and rules to include."""

    description: str = Field(default="", description="what the pack covers")
    structures: dict[str, StructureSpec] = Field(default_factory=dict, description="label → detector spec")
    rules: list[RuleSpec] = Field(default_factory=list, description="punishment rules")
