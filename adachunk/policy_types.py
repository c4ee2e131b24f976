"""Typed, frozen policy sections: the one definition of the ``solver``, ``postprocess``,
``metrics``, ``select``, ``index``, ``retrieval`` and ``hard_rules`` sections of a profile and of their defaults.

The profile schema (:mod:`adachunk.profile.schema`) validates a profile with these models and
:class:`~adachunk.policy.Policy` carries the validated instances to the stages, so a default is
written once, here. The module lives outside ``profile/`` because the stages (detect, cost,
solve, split, metrics) may not import the profile layer (import-linter contract).

The models are frozen: a stage cannot change the policy another stage sees. A copy with some
fields changed is :meth:`Section.updated` (validated) or ``model_copy(update=...)``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, field_serializer, field_validator, model_validator
from pydantic_core import PydanticCustomError

from .datatypes import METRIC_KEYS

MetricKey = Literal[METRIC_KEYS]  # type: ignore[valid-type]  # the metric names
# Metric-weight presets per scenario (``metrics.weights: finance`` in a profile). ``balanced`` is
# the paper's equal-weight mean; the others move weight to the metric that scenario's readers
# pay for: whole tables and statements (BI) in finance, whole articles and their references
# (BI + RC) in legal texts, whole code blocks and procedures (BI, SC) in technical documentation,
# answers that read well in their surrounding context (DCC) in customer support.
# Each preset sums to 1 so scores stay comparable across presets.
WEIGHT_PRESETS: dict[str, dict[str, float]] = {
    "balanced": {"sc": 0.2, "bi": 0.2, "rc": 0.2, "icc": 0.2, "dcc": 0.2},
    "finance": {"sc": 0.15, "bi": 0.4, "rc": 0.15, "icc": 0.15, "dcc": 0.15},
    "legal": {"sc": 0.1, "bi": 0.3, "rc": 0.3, "icc": 0.15, "dcc": 0.15},
    "support": {"sc": 0.15, "bi": 0.15, "rc": 0.15, "icc": 0.15, "dcc": 0.4},
    "technical": {"sc": 0.25, "bi": 0.35, "rc": 0.1, "icc": 0.15, "dcc": 0.15},
}
WeightPreset = Literal[tuple(WEIGHT_PRESETS)]  # type: ignore[valid-type]  # the preset names


class Section(BaseModel):
    """Base of the policy sections: unknown keys are errors, instances are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def updated(self, **changes: Any):
        """A validated copy with ``changes`` applied (the instance itself is never changed)."""
        return type(self).model_validate({**self.model_dump(), **changes})


def metrics_section(value: Any = None) -> "MetricsSpec":
    """The ``metrics`` section from a :class:`MetricsSpec`, a mapping of its keys, or None (defaults).

    For callers that build a context by hand (tests, benchmarks); a policy already holds one.
    """
    if value is None:
        return DEFAULT_METRICS
    if isinstance(value, MetricsSpec):
        return value
    return MetricsSpec.model_validate(value)


class ComponentSpec(Section):
    """A registered component: ``type`` plus that component's own fields (checked later)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    type: str = Field(description="registered component name, e.g. 'regex.v1' or 'recursive.v1'")


class SolverSpec(Section):
    """Optimal-boundary solver settings (same names as the CLI flags and API overrides)."""

    granularity: Literal["tokens", "chars"] = Field(default="tokens", description="unit of sizes")
    tokenizer: str = Field(default="o200k_base", description="token counter: o200k_base, cl100k_base")
    min_size: int = Field(default=0, ge=0, le=10**9, description="smallest chunk (only the last one may undershoot)")
    max_size: int = Field(default=512, ge=1, le=10**9, description="largest chunk, own token count in tokens mode")
    chunk_cost: int = Field(default=0, ge=0, le=10**9, description="cost added per chunk: higher means fewer, larger chunks")
    overlap: int = Field(default=0, ge=0, le=10**9, description="overlap budget in units, filled with whole sentences then words")
    overlap_units: tuple[str, ...] = Field(
        default=("sentence", "word"),
        description="structure labels used as overlap units, tried in order",
    )
    backend: Literal["numba", "reference"] = Field(default="numba", description="solver implementation")
    target_size: int | None = Field(
        default=None, ge=1, le=10**9,
        description="preferred chunk size (None: none): each chunk then also costs over_target_cost per unit "
        "above it and under_target_cost per unit below it, so chunks sit near it instead of at max_size")
    over_target_cost: int = Field(default=1, ge=0, le=10**6, description="cost per unit a chunk is larger than target_size")
    under_target_cost: int = Field(default=1, ge=0, le=10**6, description="cost per unit a chunk is smaller than target_size")
    isolate: tuple[str, ...] = Field(
        default=(),
        description="structure labels chunked on their own when larger than the chunk: the DP always cuts where "
        "such a structure starts and ends (unless a hard rule forbids it there), so the pieces of a paragraph too "
        "long for one chunk never share a chunk with its neighbours")
    grow: Annotated[tuple[tuple[str, int], ...], WithJsonSchema(
        {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1, "maximum": 10**9}})] = Field(
        default=(),
        description="structure label -> the largest chunk inside such a structure, in the solver's unit: a structure "
        "of this label larger than the candidate's max_size (and no larger than this) is chunked on its own (as "
        "isolate does) in pieces of up to this size, so a statement's rows stay together at the size a table "
        "retrieves best while the prose keeps the candidate's sizes; a structure larger than this is cut into "
        "pieces of up to this size. Chunks inside such a structure may exceed max_size (decisions say how many)")

    @field_serializer("grow")
    def _grow_mapping(self, value: tuple[tuple[str, int], ...]) -> dict[str, int]:
        """Dumped as the profile writes it (``profile show``, the fingerprint's canonical form)."""
        return dict(value)

    @field_validator("grow", mode="before")
    @classmethod
    def _grow_pairs(cls, value: Any) -> Any:
        """A profile writes ``grow`` as a mapping (``{titled_table: 768}``); the frozen section
        keeps it as sorted pairs, so that it hashes like every other setting."""
        return tuple(sorted(value.items())) if isinstance(value, dict) else value

    @model_validator(mode="after")
    def _sizes(self) -> "SolverSpec":
        if self.min_size > self.max_size:
            raise ValueError(f"min_size ({self.min_size}) is larger than max_size ({self.max_size})")
        if self.target_size is not None and not self.min_size <= self.target_size <= self.max_size:
            raise ValueError(f"target_size ({self.target_size}) must lie between min_size ({self.min_size}) "
                             f"and max_size ({self.max_size})")
        if self.overlap >= self.max_size:
            raise ValueError(f"overlap ({self.overlap}) must be smaller than max_size ({self.max_size})")
        bad = {k: v for k, v in self.grow if not 1 <= v <= 10**9}
        if bad:
            raise ValueError(f"grow sizes must lie between 1 and 10^9, got {bad}")
        return self

    def with_overrides(self, **kw: Any) -> "SolverSpec":
        """Copy with some fields replaced (None values are ignored; not re-validated, as a
        candidate's own sizes are checked by its ``Params``)."""
        unknown = sorted(set(kw) - set(type(self).model_fields))
        if unknown:  # model_copy would set them silently
            raise TypeError(f"SolverSpec has no field {', '.join(unknown)}")
        return self.model_copy(update={k: v for k, v in kw.items() if v is not None})


class PostprocessSpec(Section):
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


class MetricsSpec(Section):
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


class SelectSpec(Section):
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
    unscored: tuple[str, ...] = Field(
        default=(),
        description="when no candidate can be scored on a document (every weighted metric undefined: rf on a "
        "document without a prose sentence to ask about, a table-only statement), the candidates in this order "
        "decide: names or shell patterns ('dp_*'), the first eligible candidate matching the earliest entry wins, "
        "else the pool's first; decisions.jsonl says decided_by: unscored and summary.json counts such documents")
    on_detector_error: Literal["fail", "fallback"] = Field(
        default="fail",
        description="when one of the profile's structures fails on a document (e.g. ADA306, a "
        "pattern past its deadline): 'fail' fails the document (run exits 2, the document is "
        "listed in summary.json); 'fallback' selects among the candidates that do not need the "
        "structure, with an ADA404 notice on stderr and a count in summary.json",
    )


class HardRulesSpec(Section):
    """The rules that bind *every* candidate ``adachunk run`` can choose, not only the DP's.

    Punishments (``rules``) are costs the DP weighs; these are promises: a chunk never ends with a
    heading whose body follows, and a structure marked atomic is never cut when it fits the
    candidate's largest chunk. The DP treats them as forbidden cuts (whenever the sizes allow);
    every other candidate (recursive, page, LLM...) is checked after post-processing and, by
    ``enforce``, repaired (each offending cut moved to the nearest allowed place within the
    candidate's size limit) or left out of the selection. ``decisions.jsonl`` counts what each
    candidate broke and what was repaired (``adachunk.split.bind``).
    """

    keep_with_next: tuple[str, ...] = Field(
        default=(),
        description="structure labels that belong to what follows them (headings): no chunk ends with one "
        "while text follows it (blank lines and page-furniture comments between them do not count)")
    atomic: tuple[str, ...] = Field(
        default=(),
        description="structure labels never cut inside when the structure fits the candidate's largest chunk "
        "(a table row, a definition, a numbered point)")
    enforce: Literal["repair", "disqualify", "report"] = Field(
        default="repair",
        description="what happens to a candidate that breaks a hard rule: repair (move each offending cut to the "
        "nearest allowed place that keeps the candidate's size limit; a cut that cannot move leaves the candidate "
        "out of the selection unless every candidate breaks a rule), disqualify (no repair: left out the same "
        "way), report (only counted in decisions.jsonl)")

    @field_validator("keep_with_next", "atomic", mode="after")
    @classmethod
    def _distinct_labels(cls, value: tuple) -> tuple:
        return tuple(dict.fromkeys(value))

    def active(self) -> bool:
        """Whether any hard rule is declared."""
        return bool(self.keep_with_next or self.atomic)


EmbedPart = Literal["heading_path", "structure_path", "definitions", "table_context", "table_header", "text"]


class ParentsSpec(Section):
    """Parent chunks for small-to-big retrieval: a coarser DP over the leaf chunks' boundaries."""

    max_size: int = Field(ge=1, le=10**9, description="largest parent, in the solver's unit (tokens or chars)")
    min_size: int = Field(default=0, ge=0, le=10**9, description="smallest parent but the last, same unit")
    chunk_cost: int | None = Field(default=None, ge=0, le=10**9,
                                   description="cost per parent (None: the solver's chunk_cost)")


class IndexSpec(Section):
    """Where and how ``adachunk run`` indexes the winning chunks for retrieval."""

    sink: Literal["lancedb", "qdrant", "none"] = Field(default="lancedb", description="vector store")
    embed_text: Literal["heading_path+text", "text"] | list[EmbedPart] = Field(
        default="heading_path+text",
        description="what is embedded: the chunk text, with its heading path prepended or not, or a recipe: "
        "the parts in order (heading_path, structure_path, definitions, table_context or table_header: the header "
        "row alone, without the title lines; text last)"
    )
    table_rows: Literal["markdown", "plain"] = Field(
        default="markdown",
        description="how the embedded string writes a table's rows: 'markdown' as the chunk has them (pipe "
        "table), 'plain' each row's cells joined by spaces, without the separator row and <Table> lines (a "
        "sentence embedder reads pipes as words); the chunk's text, what a reader gets, is unchanged either way")
    definition_tokens: int = Field(
        default=200, ge=0, le=100_000,
        description="recipe part 'definitions': at most this many tokens of definitions of the terms a chunk uses")
    embedder: EmbedderSpec | None = Field(
        default=None, description="embedding model for the index (default: the metrics embedder)"
    )
    qdrant_url: str | None = Field(default=None, description="Qdrant server URL (None: local mode under the output folder)")
    collection: str = Field(default="chunks", description="table / collection name")
    batch_size: int = Field(default=64, ge=1, le=65536, description="embedding batch size")


RetrieverName = Literal["dense", "bm25", "hybrid"]


class RetrievalSpec(Section):
    """How the chunks will be read: the retrieval regime the adaptive selection fits.

    The ``rf`` metric (retrieval fit) asks each document questions made from its own text and
    measures, for each candidate chunking, the share of the answer passages a reader gets with
    these retrievers within these budgets; ``dp.v1`` candidates with ``max_size: auto`` (and
    ``recursive.v1`` with ``chunk_size: auto``) take their sizes from this section.
    """

    embedder: Literal["index"] | EmbedderSpec = Field(
        default="index",
        description="the embedding model of the reader's index: 'index' (the profile's index embedder, else its "
        "metrics embedder) or an embedder spec; its input limit is read from the model")
    retrievers: tuple[RetrieverName, ...] = Field(
        default=("dense", "bm25"), min_length=1,
        description="how the reader retrieves: dense (the embedder), bm25, hybrid (both fused by reciprocal rank); "
        "the retrieval fit is the mean over them")
    budgets: tuple[Annotated[int, Field(ge=1, le=10**7)], ...] = Field(
        default=(1000, 2000), min_length=1,
        description="the reader's context per query, in the solver's tokens: chunks are read in rank order while "
        "they fit, the last one truncated; the retrieval fit is the mean over the budgets")
    k: int | None = Field(
        default=None, ge=1, le=10**4,
        description="most chunks read per query (None: as many as fit the budget)")
    long_chunks: Literal["truncate", "pool"] = Field(
        default="truncate",
        description="how the index embeds a chunk longer than the model's input: truncate (the model reads its "
        "first tokens, as most vector stores do) or pool (the mean of pieces that fit, as adachunk's own index)")
    document_share: float = Field(
        default=0.25, gt=0, le=1,
        description="the share of each budget the retrieval fit reads among one document's own chunks: rf ranks a "
        "document's chunks among themselves, while the index ranks them among every other document's, whose chunks "
        "take part of the reader's budget (measured: with 0.25 the default profile's winners retrieve corpus-wide as "
        "well as with 1 on chroma-dev and better on CLAIR, bench/RESULTS.md); 1 reads the whole budget within the "
        "document")
    estimate: Literal["exact", "int8", "bm25"] | EmbedderSpec = Field(
        default="exact",
        description="how the retrieval fit ranks a candidate's chunks for the dense and hybrid readers: exact (with "
        "the embedder, as the index will: about 1.3 model passes over each document while selecting), int8 (the "
        "embedder's own sentence-transformers model quantised to int8 on the CPU: same tokenizer and truncation, "
        "about half the CPU-s; exact on a GPU and for other kinds of embedder), bm25 (BM25's ranking stands in for "
        "them: no model pass) or an embedder spec standing in for the embedder (a static model2vec.v1 model: each "
        "chunk's visible part, truncated where the embedder would truncate it). The sizes and the index always "
        "follow the embedder (bench/RESULTS.md, \"The run at the cost of an index\", \"int8 chooses\")")
    exact_margin: float = Field(
        default=0.0, ge=0, le=1,
        description="with a stand-in estimate (int8, bm25 or an embedder spec): where the retrieval fits of the stand-in's "
        "two best candidates lie within this margin (0.01: one point), the exact estimate scores the candidates again "
        "and decides, so the model runs only on the documents the stand-in cannot tell apart; 0: the stand-in always "
        "decides; ignored with exact (bench/RESULTS.md, \"Exact where the stand-in hesitates\")")
    sample: float = Field(
        default=1.0, gt=0, le=1,
        description="the share of a long document's text the retrieval fit reads: evenly spread slices of about "
        "two pages, the same for every candidate; its questions come from them and only the chunks that meet them "
        "compete, so the model reads about this share of the text while choosing. A document under 60,000 "
        "characters is read whole; 1 reads every document whole (bench/RESULTS.md, \"The fit on a sample\")")
    queries: int = Field(
        default=32, ge=1, le=10**4,
        description="questions the retrieval fit asks per document (fewer when the document has fewer sentences)")
    sizes: int = Field(
        default=3, ge=1, le=12,
        description="how many sizes an 'auto' candidate expands to: a ladder down from the largest size the regime "
        "can read (the embedder's input limit for dense and hybrid, half the smallest budget), in steps of sqrt(2)")

    def fit_embeds(self) -> bool:
        """Whether the retrieval fit runs the embedder (dense or hybrid readers, estimated exactly)."""
        return self.estimate != "bm25" and any(r in ("dense", "hybrid") for r in self.retrievers)

    def fit_uses_bm25(self) -> bool:
        """Whether the retrieval fit ranks by BM25 (a bm25 or hybrid reader, or the bm25 estimate)."""
        return self.estimate == "bm25" or any(r in ("bm25", "hybrid") for r in self.retrievers)

    # one canonical form: the fingerprint must not depend on how the lists were written
    @field_validator("retrievers", mode="after")
    @classmethod
    def _distinct(cls, value: tuple) -> tuple:
        return tuple(dict.fromkeys(value))

    @field_validator("budgets", mode="after")
    @classmethod
    def _sorted(cls, value: tuple) -> tuple:
        return tuple(sorted(set(value)))


#: The ``metrics`` section with every default (shared: sections are frozen).
DEFAULT_METRICS = MetricsSpec()
#: The ``retrieval`` section with every default.
DEFAULT_RETRIEVAL = RetrievalSpec()
#: No hard rules (a profile without a ``hard_rules`` section).
NO_HARD_RULES = HardRulesSpec()


def index_embedder(index: IndexSpec, metrics: MetricsSpec) -> tuple[EmbedderSpec, tuple[str, str]]:
    """The embedder the vector index reads chunks with, and the profile key it comes from: the
    ``index`` section's, else the ``metrics`` embedder. The one statement of this rule (a
    profile and a policy both hold these sections)."""
    if index.embedder is not None:
        return index.embedder, ("index", "embedder")
    return metrics.embedder, ("metrics", "embedder")


def regime_embedder(retrieval: RetrievalSpec, index: IndexSpec, metrics: MetricsSpec) -> tuple[EmbedderSpec, tuple[str, str]]:
    """The embedder the retrieval regime names, and the profile key it comes from: its own spec,
    else (``"index"``) the index's embedder (:func:`index_embedder`)."""
    if retrieval.embedder != "index":
        return retrieval.embedder, ("retrieval", "embedder")
    return index_embedder(index, metrics)
