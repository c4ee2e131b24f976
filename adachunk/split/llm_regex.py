"""``llm_regex.v1``: a language model picks one delimiter regex for a whole document (paper §3.5).

The first ~8,000 o200k tokens of the document (whole lines) go to an OpenAI-compatible endpoint
with a prompt asking for a single Python ``re`` delimiter inside ``<regex>…</regex>`` (the
prompt: :mod:`._llm_prompt`). Every match of that pattern in the *whole* document starts a new
chunk (the delimiter belongs to the next chunk, as in the paper), pieces under
``min_piece_chars`` characters join the next piece.

Where the paper only *asks* the model to respect tables and figures, this splitter enforces it:
a cut strictly inside a ``<Table>``/``<Figure>`` block, a Markdown table or a fenced code block
is dropped. The pattern runs under a time bound (RE2 or the ``regex`` module's timeout, see
:mod:`._safe_regex`).

The splitter never raises for endpoint or model trouble: an unreachable endpoint, a timeout, an
HTTP error, an answer without a tag, or a pattern that is invalid, too slow or useless all lead to
the ``fallback`` strategy, with ``meta["status"] = "fallback"`` and ``meta["fallback"] =
{"reason": code, "detail": text}``. Chunk sizes are left to the pool's post-processing.
"""

from __future__ import annotations

import bisect
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from ..detect.base import DetectContext
from ..errors import Location, ProfileError
from ..detect.markdown import shared_blocks
from ..components.params import ComponentParams
from ..policy import Policy
from ..components.registry import splitters
from ..tokens import get_counter
from ..datatypes import Chunking, Document, Structure
from . import _llm_client as llm
# the prompt's names stay importable from here, the splitter's module
from ._llm_prompt import CONTEXT_ENCODING, SYSTEM_PROMPT, USER_TEMPLATE  # noqa: F401
from ._llm_prompt import build_messages, head_context
from ._safe_regex import UnsafePattern, compile_safe, extract_tag, repair_escapes, unwrap
from .assemble import HeadingIndex, build_chunks
from .base import Splitter

log = logging.getLogger("adachunk.split")

NAME = "llm_regex.v1"
_WRAPPER_TAG = re.compile(r"<(/?)(table|figure)\b[^>]*>", re.IGNORECASE)
_PROTECTED_BLOCKS = ("table", "code", "front_matter")
# Environment variables a profile may name as the API key: a shared profile must not be able to
# pick any secret of the user's environment and have it sent as a Bearer token.
_KEY_ENV = re.compile(r"[A-Z][A-Z0-9_]*_API_KEY|OPENAI_[A-Z0-9_]+")
# Failures where the pattern as written might work once its escaping is repaired.
_REPAIRABLE = ("invalid_regex", "no_match", "no_split")


class LLMRegexParams(ComponentParams):
    """Profile fields of ``llm_regex.v1`` (API keys are read from the environment, never here)."""

    model: str = Field(default="gpt-4o", min_length=1,
                       description="chat model name sent to the endpoint")
    base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1; null reads "
        "ADACHUNK_LLM_BASE_URL, then OPENAI_BASE_URL, then uses OpenAI's")
    api_key_env: str = Field(
        default="OPENAI_API_KEY",
        description="name of the environment variable holding the API key (not required for a "
        "localhost endpoint); only names like *_API_KEY or OPENAI_* are accepted, so a shared "
        "profile cannot send another secret (AWS_SECRET_ACCESS_KEY, ...) as the key")
    timeout_s: float = Field(default=120.0, gt=0, le=600,
                             description="wall-clock deadline of one attempt, seconds: connecting, "
                             "sending and reading the whole answer (not per read)")
    max_retries: int = Field(
        default=2, ge=0, le=8,
        description="extra attempts after a connection error, timeout, HTTP 429 or 5xx")
    backoff_s: float = Field(
        default=1.0, ge=0, le=60,
        description="first retry delay in seconds; doubles per retry, with a jitter seeded by "
        "the request")
    prompt_tokens: int = Field(
        default=8000, ge=50, le=1_000_000,
        description="o200k tokens of the document's beginning (whole lines) shown to the model")
    max_tokens: int = Field(default=300, ge=16, le=8192,
                            description="most tokens the model may answer")
    temperature: float = Field(default=0.0, ge=0, le=2, description="sampling temperature")
    regex_timeout_s: float = Field(
        default=5.0, gt=0, le=600,
        description="time bound for running the model's pattern on the whole document (CPU "
        "seconds with the regex module, wall seconds with RE2)")
    min_piece_chars: int = Field(
        default=10, ge=0, le=10**9,
        description="pieces shorter than this many characters join the next piece (paper: 10)")
    cache: bool = Field(default=True,
                        description="cache answers on disk (re-runs are free and deterministic)")
    cache_dir: str | None = Field(
        default=None,
        description="cache directory; null uses $ADACHUNK_CACHE_DIR/llm or ~/.cache/adachunk/llm")
    fallback: Literal["headings", "single"] = Field(
        default="headings",
        description="what to do without a usable pattern: 'headings' cuts before Markdown "
        "headings up to fallback_heading_level; 'single' keeps one chunk (the paper)")
    fallback_heading_level: int = Field(
        default=3, ge=1, le=6,
        description="deepest heading level the 'headings' fallback cuts before")

    @field_validator("api_key_env")
    @classmethod
    def _key_name(cls, v: str) -> str:
        if not _KEY_ENV.fullmatch(v):
            # a custom type: the profile loader reports it as ADA218, naming the variable
            raise PydanticCustomError(
                "api_key_env_not_allowed",
                "api_key_env '{name}' is not an API key variable; allowed: names ending in _API_KEY "
                "or starting with OPENAI_ (upper case)", {"name": v})
        return v

    @field_validator("base_url")
    @classmethod
    def _url(cls, v: str | None) -> str | None:
        if v is not None and not re.match(r"^https?://[^\s/]+", v):
            raise ValueError("base_url must start with http:// or https:// and name a host")
        return v


def wrapper_spans(text: str) -> list[tuple[int, int]]:
    """``<Table>…</Table>`` and ``<Figure>…</Figure>`` spans, tags included, found in one pass.

    Tags pair like brackets (per name, so nesting works); an opening tag never closed protects
    nothing, since its extent is unknown.
    """
    open_at: dict[str, list[int]] = {"table": [], "figure": []}
    spans = []
    for m in _WRAPPER_TAG.finditer(text):
        stack = open_at[m.group(2).lower()]
        if not m.group(1):
            stack.append(m.start())
        elif stack:
            spans.append((stack.pop(), m.end()))
    return spans


def protected_spans(text: str, blocks: list[Structure]) -> list[tuple[int, int]]:
    """Merged spans no cut may fall strictly inside: tag-wrapped tables/figures, tables, code."""
    spans = wrapper_spans(text)
    spans += [(b.start, b.end) for b in blocks if b.label in _PROTECTED_BLOCKS]
    spans += [(b.start, b.end) for b in blocks if b.label == "html_block"
              and re.match(r"<(table|figure)\b", text[b.start : b.start + 8], re.IGNORECASE)]
    merged: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if merged and s < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged


def usable_cuts(points: list[int], n: int, protected: list[tuple[int, int]],
                min_piece: int) -> tuple[list[int], int]:
    """Interior cuts kept from raw match starts, and how many fell inside protected spans.

    A point strictly inside a protected span is dropped; a piece shorter than ``min_piece``
    characters joins the next one (its end cut is dropped), the paper's ``min_len`` rule.
    """
    starts = [s for s, _ in protected]
    cuts, dropped, last = [], 0, 0
    for p in sorted(set(points)):
        if p <= 0 or p >= n:
            continue
        i = bisect.bisect_right(starts, p) - 1
        if i >= 0 and protected[i][0] < p < protected[i][1]:
            dropped += 1
            continue
        if p - last >= min_piece:
            cuts.append(p)
            last = p
    return cuts, dropped


@dataclass
class _Job:
    """One document being split: its Markdown blocks, protected spans and the growing metadata."""

    doc: Document
    policy: Policy
    blocks: list[Structure]
    protected: list[tuple[int, int]]
    meta: dict[str, Any]


@splitters.register(NAME)
class LLMRegexSplitter(Splitter):
    """Candidate splitter: one model-chosen delimiter regex, safely applied, with a fallback."""

    Params = LLMRegexParams

    def split(self, doc: Document, policy: Policy) -> Chunking:
        """Chunk ``doc``; see the module docstring for the outcomes recorded in ``meta``."""
        if not doc.text:
            return Chunking([], NAME, {"model": self.params.model, "status": "empty"})
        ctx = DetectContext(doc.text, doc)
        blocks = shared_blocks(ctx)
        job = _Job(doc, policy, blocks, protected_spans(doc.text, blocks),
                   {"model": self.params.model})
        try:
            cuts = self._model_cuts(job)
        except (llm.LLMFailure, UnsafePattern) as why:
            return self._fallback(job, why.reason, why.detail)
        except ProfileError as err:  # ADA219, a remote endpoint not allowed: name the document
            if err.location.file is None:
                err.location = Location(str(doc.source or doc.id))
            raise
        job.meta["status"] = "ok"
        return self._chunking(job, cuts)

    def _model_cuts(self, job: _Job) -> list[int]:
        """Ask the model (or the cache) for a pattern and turn it into cuts; raise when unusable."""
        p, meta = self.params, job.meta
        context, meta["context"] = head_context(job.doc.text, p.prompt_tokens)
        request = llm.Request(model=p.model, base_url=llm.resolve_base_url(p.base_url),
                              messages=build_messages(context), temperature=p.temperature,
                              max_tokens=p.max_tokens)
        meta["base_url"], meta["cached"] = llm.redact_url(request.base_url), False
        try:
            reply = llm.complete(request, api_key_env=p.api_key_env, timeout_s=p.timeout_s,
                                 max_retries=p.max_retries, backoff_s=p.backoff_s,
                                 cache=self._cache())
        except llm.LLMFailure as failure:
            meta["llm"] = {"model": p.model, "attempts": failure.attempts}
            raise
        meta["cached"] = reply.cached
        meta["llm"] = {"model": reply.model, "prompt_tokens": reply.prompt_tokens,
                       "completion_tokens": reply.completion_tokens, "latency_s": reply.latency_s,
                       "attempts": reply.attempts, "finish_reason": reply.finish_reason}
        raw = extract_tag(reply.content)
        if raw is None:
            meta["answer"] = reply.content[:500]
            raise UnsafePattern("no_regex_tag", "the answer has no <regex>...</regex> tag")
        return self._apply(raw, job)

    def _cache(self) -> llm.ResponseCache | None:
        if not self.params.cache:
            return None
        where = self.params.cache_dir
        return llm.ResponseCache(Path(where).expanduser() if where else llm.default_cache_dir())

    def _apply(self, raw: str, job: _Job) -> list[int]:
        """Cuts from the model's pattern, after one escaping repair if it fails as written."""
        meta = job.meta
        pattern, repairs = unwrap(raw)
        meta["regex"], meta["regex_repairs"] = pattern, repairs
        try:
            return self._cuts(pattern, job)
        except UnsafePattern as first:
            fixed, more = repair_escapes(pattern)
            if first.reason not in _REPAIRABLE or fixed == pattern:
                raise
            try:
                cuts = self._cuts(fixed, job)
            except UnsafePattern as second:
                raise UnsafePattern(first.reason, f"{first.detail}; after repairing "
                                    f"{'+'.join(more)}: {second.reason}") from None
            meta["regex"], meta["regex_repairs"] = fixed, repairs + more
            return cuts

    def _cuts(self, pattern: str, job: _Job) -> list[int]:
        p, text, meta = self.params, job.doc.text, job.meta
        safe = compile_safe(pattern, text, p.regex_timeout_s)
        meta["regex_engine"] = safe.engine
        points = safe.match_starts(text, p.regex_timeout_s, max_points=len(text) // 8 + 16)
        if not points:
            raise UnsafePattern("no_match", f"{pattern[:200]!r} matches nothing in the document")
        cuts, dropped = usable_cuts(points, len(text), job.protected, p.min_piece_chars)
        meta["matches"], meta["dropped_protected"] = len(points), dropped
        if not cuts:
            raise UnsafePattern("no_split", f"{len(points)} match(es), none usable as a cut "
                                f"({dropped} inside tables/figures/code, the rest at the start "
                                "or making tiny pieces)")
        return cuts

    def _fallback(self, job: _Job, reason: str, detail: str) -> Chunking:
        """Chunks from the fallback strategy, with the reason recorded."""
        log.info("llm_regex.v1 falls back (%s) on %s: %s", reason, job.doc.id, detail)
        job.meta["status"] = "fallback"
        job.meta["fallback"] = {"reason": reason, "detail": detail,
                                "strategy": self.params.fallback}
        cuts: list[int] = []
        if self.params.fallback == "headings":
            text, level = job.doc.text, self.params.fallback_heading_level
            # Cut at the heading's line start, so a quoted or indented heading keeps its prefix.
            starts = [text.rfind("\n", 0, b.start) + 1 for b in job.blocks
                      if b.label == "heading" and 1 <= (b.level or 1) <= level]
            cuts, _ = usable_cuts(starts, len(text), job.protected, self.params.min_piece_chars)
        return self._chunking(job, cuts)

    @staticmethod
    def _chunking(job: _Job, cuts: list[int]) -> Chunking:
        doc, settings = job.doc, job.policy.solver
        counter = get_counter(settings.tokenizer)
        if settings.granularity == "chars":
            size_of = lambda s, e: e - s  # noqa: E731
        else:
            size_of = lambda s, e: counter.count(doc.text[s:e])  # noqa: E731
        bounds = [0, *cuts, len(doc.text)]
        headings = HeadingIndex(doc.text, [b for b in job.blocks if b.label == "heading"])
        chunks = build_chunks(doc, list(zip(bounds, bounds[1:])),
                              fingerprint=job.policy.fingerprint, count_tokens=counter.count,
                              unit_size=size_of, headings=headings)
        return Chunking(chunks, NAME, job.meta)
