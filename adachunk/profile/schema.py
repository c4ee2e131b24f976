"""Profiles as strict data: pydantic models with ``extra="forbid"`` and every field described.

Component-specific fields (a detector's ``pattern``, a splitter's ``chunk_size``) are not listed
here: they are validated by the ``Params`` model of the registered component named by ``type``
(see :mod:`adachunk.profile.resolve`), so plugins bring their own schema.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from ..metrics.aggregate import WEIGHT_PRESETS
from ..types import METRIC_KEYS

MetricKey = Literal[METRIC_KEYS]  # type: ignore[valid-type]  # the five metric names
WeightPreset = Literal["balanced", "finance", "legal", "support", "technical"]


class Strict(BaseModel):
    """Base: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")


class ComponentSpec(BaseModel):
    """A registered component: ``type`` plus that component's own fields (checked later)."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(description="registered component name, e.g. 'regex.v1' or 'recursive.v1'")


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


class SolverSpec(Strict):
    """Optimal-boundary solver settings (same names as the CLI flags and API overrides)."""

    granularity: Literal["tokens", "chars"] = Field(default="tokens", description="unit of sizes")
    tokenizer: str = Field(default="o200k_base", description="token counter: o200k_base, cl100k_base")
    min_size: int = Field(default=0, ge=0, le=10**9, description="smallest chunk (only the last one may undershoot)")
    max_size: int = Field(default=512, ge=1, le=10**9, description="largest chunk, own token count in tokens mode")
    chunk_cost: int = Field(default=0, ge=0, le=10**9, description="cost added per chunk: higher means fewer, larger chunks")
    overlap: int = Field(default=0, ge=0, le=10**9, description="overlap budget in units, filled with whole sentences then words")
    overlap_units: list[str] = Field(
        default_factory=lambda: ["sentence", "word"],
        description="structure labels used as overlap units, tried in order",
    )
    backend: Literal["numba", "reference"] = Field(default="numba", description="solver implementation")
    target_size: int | None = Field(
        default=None, ge=1, le=10**9,
        description="preferred chunk size (None: none): each chunk then also costs over_target_cost per unit "
        "above it and under_target_cost per unit below it, so chunks sit near it instead of at max_size")
    over_target_cost: int = Field(default=1, ge=0, le=10**6, description="cost per unit a chunk is larger than target_size")
    under_target_cost: int = Field(default=1, ge=0, le=10**6, description="cost per unit a chunk is smaller than target_size")

    @model_validator(mode="after")
    def _sizes(self) -> "SolverSpec":
        if self.min_size > self.max_size:
            raise ValueError(f"min_size ({self.min_size}) is larger than max_size ({self.max_size})")
        if self.target_size is not None and not self.min_size <= self.target_size <= self.max_size:
            raise ValueError(f"target_size ({self.target_size}) must lie between min_size ({self.min_size}) "
                             f"and max_size ({self.max_size})")
        if self.overlap >= self.max_size:
            raise ValueError(f"overlap ({self.overlap}) must be smaller than max_size ({self.max_size})")
        return self


class CandidateSpec(ComponentSpec):
    """A candidate splitter of the adaptive pool (fields checked by the splitter's Params)."""

    name: str | None = Field(default=None, description="label of this candidate in reports")


class PostprocessSpec(Strict):
    """Post-processing QC applied to candidate chunkings (paper §4)."""

    enabled: bool = Field(default=True, description="run post-processing on candidates")
    max_tokens: int = Field(default=1100, ge=1, le=10**9, description="re-split chunks above this many tokens")
    min_tokens: int = Field(default=100, ge=0, le=10**9, description="merge chunks below this many tokens")
    merge_max_tokens: int = Field(default=1150, ge=1, le=10**9, description="a merge may not exceed this many tokens")


class EmbedderSpec(ComponentSpec):
    """Embedding model used by ICC/DCC."""

    type: str = Field(default="sentence_transformers.v1", description="registered embedder")


class CorefSpec(ComponentSpec):
    """Coreference backend used by RC."""

    type: str = Field(default="auto", description="registered coreference backend or 'auto'")


class MetricsSpec(Strict):
    """Intrinsic metrics and how they combine into one score."""

    weights: dict[MetricKey, float] | WeightPreset = Field(
        default_factory=lambda: {"sc": 0.2, "bi": 0.2, "rc": 0.2, "icc": 0.2, "dcc": 0.2},
        description="weight per metric, or a preset name: balanced (the paper's 0.2 each), finance "
        "(favours BI), legal (BI and RC), support (DCC), technical (BI and SC); a preset becomes its "
        "weights when the profile is loaded",
    )
    none_policy: Literal["drop", "neutral", "penalise"] = Field(
        default="neutral",
        description="a metric that is None: drop it and renormalise (paper), count 0.5, or count 0",
    )
    sc_min_tokens: int = Field(default=100, ge=0, le=10**9, description="SC lower bound (inclusive)")
    sc_max_tokens: int = Field(default=1100, ge=1, le=10**9, description="SC upper bound (inclusive)")
    bi_tolerance: int = Field(default=5, ge=0, le=10**9, description="BI tolerance in characters")
    dcc_window_tokens: int = Field(default=3000, ge=1, le=10**9, description="DCC window budget in tokens")
    dcc_mode: Literal["exact", "fast"] = Field(
        default="exact",
        description="DCC windows: exact embeds each window; fast uses the token-weighted mean of chunk embeddings",
    )
    embedder: EmbedderSpec = Field(default_factory=lambda: EmbedderSpec(), description="embedding model")
    coref: CorefSpec = Field(default_factory=lambda: CorefSpec(), description="coreference backend")

    @field_validator("weights", mode="before")
    @classmethod
    def _preset(cls, value):
        """A preset name becomes its weights (so the policy always holds a dict)."""
        if not isinstance(value, str):
            return value
        if value not in WEIGHT_PRESETS:
            # literal-style context: the loader turns 'expected' into allowed names and a hint
            raise PydanticCustomError("weights_preset", "unknown weights preset {input}; expected {expected}",
                                      {"input": repr(value),
                                       "expected": ", ".join(repr(k) for k in WEIGHT_PRESETS)})
        return dict(WEIGHT_PRESETS[value])


class SelectSpec(Strict):
    """How the adaptive selection picks one candidate per document."""

    exclude_fallbacks: bool = Field(
        default=True,
        description="leave out candidates that fell back (e.g. LLM unreachable) unless nothing else is left",
    )
    min_score_gap: float = Field(
        default=0.0, ge=0, le=1e6,
        description="a later candidate must beat the best earlier one by more than this to win (ties: profile order)",
    )
    score_ineligible: bool = Field(
        default=False,
        description="also score candidates that cannot win (fell back while another is ok): "
        "their scores then show in decisions.jsonl, at the cost of their embedding work",
    )


EmbedPart = Literal["heading_path", "structure_path", "definitions", "table_context", "text"]


class ParentsSpec(Strict):
    """Parent chunks for small-to-big retrieval: a coarser DP over the leaf chunks' boundaries."""

    max_size: int = Field(ge=1, le=10**9, description="largest parent, in the solver's unit (tokens or chars)")
    min_size: int = Field(default=0, ge=0, le=10**9, description="smallest parent but the last, same unit")
    chunk_cost: int | None = Field(default=None, ge=0, le=10**9,
                                   description="cost per parent (None: the solver's chunk_cost)")


class IndexSpec(Strict):
    """Where and how ``adachunk run`` indexes the winning chunks for retrieval."""

    sink: Literal["lancedb", "qdrant", "none"] = Field(default="lancedb", description="vector store")
    embed_text: Literal["heading_path+text", "text"] | list[EmbedPart] = Field(
        default="heading_path+text",
        description="what is embedded: the chunk text, with its heading path prepended or not, or a recipe: "
        "the parts in order (heading_path, structure_path, definitions, table_context; text last)"
    )
    definition_tokens: int = Field(
        default=200, ge=0, le=100_000,
        description="recipe part 'definitions': at most this many tokens of definitions of the terms a chunk uses")
    embedder: EmbedderSpec | None = Field(
        default=None, description="embedding model for the index (default: the metrics embedder)"
    )
    qdrant_url: str | None = Field(default=None, description="Qdrant server URL (None: local mode under the output folder)")
    collection: str = Field(default="chunks", description="table / collection name")
    batch_size: int = Field(default=64, ge=1, le=65536, description="embedding batch size")


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
    solver: SolverSpec = Field(default_factory=SolverSpec, description="solver settings")
    candidates: list[CandidateSpec] = Field(
        default_factory=lambda: [CandidateSpec(type="dp.v1")], description="adaptive candidate pool"
    )
    postprocess: PostprocessSpec = Field(default_factory=PostprocessSpec, description="post-processing QC")
    metrics: MetricsSpec = Field(default_factory=MetricsSpec, description="metrics and weights")
    select: SelectSpec = Field(default_factory=SelectSpec, description="adaptive selection rules")
    index: IndexSpec = Field(default_factory=IndexSpec, description="vector index of the winning chunks")
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
