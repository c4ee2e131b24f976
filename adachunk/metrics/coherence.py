"""``dcc.v1``: Document Contextual Coherence (paper §1.6), exact or fast.

**Windows.** For each start chunk ``i`` (step ``window_step``, paper 1) a window collects chunks
``i, i+1, ...``: each contributes its *tail*, the part of its span beyond what the window
already covers, with the tail's own token count (o200k via ``ctx.counter``); the first chunk is
always taken, and a later one only while the running total stays within ``window_tokens``
(``metrics.dcc_window_tokens``, paper 3,000). The budget is the sum of tail counts, as in the
paper. Every tail is counted once per document (cached by span, so candidates that share chunks
share counts) instead of re-tokenising each window.

**Kept windows.** A window is kept when it has at least 2 members and its last member differs
from the last member of the previously kept window (sub-windows are dropped). A chunk too large
to share a window with a neighbour is therefore excluded.

**Score.** The mean cosine over every (kept window, member chunk) pair between the window's
embedding and the chunk's embedding, clipped to [0, 1]. None with fewer than 2 chunks or when no
window holds 2 chunks.

**Modes.**

* ``exact``: the window's embedding is that of its own text (the concatenated tails; for chunks
  that cover the document, the span from chunk ``i``'s start to the last member's end). With a
  short-context model such as MiniLM the window is pooled over the document's pooling grid, so
  its pieces are the blocks the chunks already embedded: only windows of a few hundred tokens
  cost a model call.
* ``fast``: no window is embedded; its vector is the mean of its members' chunk embeddings
  weighted by their tail token counts, renormalised. With a long-context model (the paper's
  jina-v3), where exact DCC embeds about ``window_tokens / mean chunk size`` times the
  document, this removes the dominant cost. ``bench/icc_dcc_fast_vs_exact.py`` measures the gap.

Select the mode with ``mode`` here, or ``metrics.dcc_mode`` in the profile when the metric is
built without parameters (the pipeline builds it so: a profile picks a mode, never a metric name).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal, Sequence

import numpy as np
from pydantic import Field

from ..components.params import ComponentParams
from ..components.registry import metrics
from ..datatypes import Chunk
from .base import Metric, MetricContext, MetricResult
from ..models.embedders.base import normalise
from ..models.embedders.spans import span_embeddings

Span = tuple[int, int]


@dataclass(frozen=True)
class Window:
    """One DCC window.

    Attributes:
        members: positions (in the chunk list) of the member chunks, in order.
        segments: the non-empty tails, in order (their concatenation is the window text).
        tails: token count of each member's tail (0 for a fully overlapped member).
    """

    members: tuple[int, ...]
    segments: tuple[Span, ...]
    tails: tuple[int, ...]

    @property
    def tokens(self) -> int:
        """Tokens the window holds: the sum of its members' tail counts (what the budget caps)."""
        return sum(self.tails)

    def span(self) -> Span | None:
        """The window as one span when its tails are contiguous, else None."""
        segs = self.segments
        if segs and all(a == pb for (a, _), (_, pb) in zip(segs[1:], segs)):
            return segs[0][0], segs[-1][1]
        return None


def build_windows(spans: Sequence[Span], count: Callable[[int, int], int], budget: int,
                  step: int = 1) -> list[Window]:
    """Every window (before the keep rule), one per start chunk ``0, step, 2*step, ...``."""
    out = []
    for i in range(0, len(spans), step):
        frontier = spans[i][0]
        members: list[int] = []
        segs: list[Span] = []
        tails: list[int] = []
        total = 0
        for j in range(i, len(spans)):
            a, b = spans[j]
            lo = max(a, frontier)
            t = count(lo, b) if b > lo else 0
            if members and total + t > budget:
                break
            members.append(j)
            tails.append(t)
            total += t
            if b > lo:
                segs.append((lo, b))
                frontier = b
        out.append(Window(tuple(members), tuple(segs), tuple(tails)))
    return out


def kept_windows(windows: Sequence[Window]) -> list[Window]:
    """Windows with ≥ 2 members whose last member differs from the previous kept window's."""
    kept: list[Window] = []
    for w in windows:
        if len(w.members) >= 2 and (not kept or w.members[-1] != kept[-1].members[-1]):
            kept.append(w)
    return kept


def span_counter(ctx: MetricContext) -> Callable[[int, int], int]:
    """Token count of ``ctx.doc.text[a:b]`` with ``ctx.counter``, cached per span and document."""
    cache: dict[Span, int] = ctx.memo(("token_counts", getattr(ctx.counter, "name", "")), dict)
    text, counter = ctx.doc.text, ctx.counter

    def count(a: int, b: int) -> int:
        n = cache.get((a, b))
        if n is None:
            n = cache[(a, b)] = counter.count(text[a:b])
        return n

    return count


class DCCParams(ComponentParams):
    """Document Contextual Coherence options."""

    mode: Literal["exact", "fast"] | None = Field(
        default=None, description="exact: embed each window; fast: weighted mean of chunk embeddings "
        "(None: metrics.dcc_mode, else exact)")
    window_tokens: int | None = Field(
        default=None, ge=1, description="window budget in tokens (None: metrics.dcc_window_tokens, else 3000)")
    window_step: int = Field(default=1, ge=1, description="start a window every this many chunks (paper: 1)")


@metrics.register("dcc.v1")
class ContextualCoherence(Metric):
    """Mean cosine between sliding multi-chunk windows and their member chunks."""

    key = "dcc"
    embeds = True
    Params = DCCParams

    def __init__(self, params: DCCParams | None = None):
        self.params = params or self.Params()

    def settings(self, ctx: MetricContext) -> tuple[str, int]:
        """The effective mode and window budget."""
        mode = self.params.mode or ctx.settings.dcc_mode
        budget = self.params.window_tokens or ctx.settings.dcc_window_tokens
        return mode, budget

    def score(self, chunks: list[Chunk], ctx: MetricContext) -> MetricResult:
        """Score one chunking; detail holds each kept window's members, tokens and coherence."""
        if len(chunks) < 2:
            return MetricResult(None, "fewer than 2 chunks")
        mode, budget = self.settings(ctx)
        spans = [(c.start, c.end) for c in chunks]
        windows = kept_windows(build_windows(spans, span_counter(ctx), budget, self.params.window_step))
        if not windows:
            return MetricResult(None, f"no window holds 2 chunks within {budget} tokens")
        emb = span_embeddings(ctx)
        used = sorted({m for w in windows for m in w.members})
        if mode == "fast":
            chunk_vecs = dict(zip(used, emb.get([spans[m] for m in used])))
            win_vecs = [_weighted_mean([chunk_vecs[m] for m in w.members], w.tails) for w in windows]
        else:
            chunk_vecs, win_vecs = _exact_vectors(emb, windows, spans, used)
        values, detail = [], []
        for w, wv in zip(windows, win_vecs):
            sims = [float(chunk_vecs[m] @ wv) for m in w.members]
            values.extend(sims)
            detail.append({"first": chunks[w.members[0]].index, "last": chunks[w.members[-1]].index,
                           "tokens": w.tokens, "coherence": float(np.mean(sims))})
        excluded = len(chunks) - len(used)
        note = f"{mode}; {excluded} chunk(s) in no window (too large to share one) excluded" if excluded else mode
        return MetricResult(float(np.clip(np.mean(values), 0.0, 1.0)), note, detail)


def _weighted_mean(vectors: list[np.ndarray], weights: Sequence[int]) -> np.ndarray:
    w = np.asarray(weights, dtype=np.float32)
    if w.sum() <= 0:
        w = np.ones_like(w)
    return normalise(w @ np.stack(vectors))[0]


def _exact_vectors(emb, windows: list[Window], spans: list[Span], used: list[int]):
    """Chunk and window embeddings in one batched request (gapped windows embedded as text)."""
    win_spans = [w.span() for w in windows]
    contiguous = [s for s in win_spans if s is not None]
    vecs = emb.get([spans[m] for m in used] + contiguous)
    chunk_vecs = dict(zip(used, vecs[: len(used)]))
    by_span = dict(zip(contiguous, vecs[len(used):]))
    gapped = [w for w, s in zip(windows, win_spans) if s is None]
    text = emb.text
    gap_vecs = iter(emb.get_texts(["".join(text[a:b] for a, b in w.segments) for w in gapped]))
    win_vecs = [by_span[s] if s is not None else next(gap_vecs) for s in win_spans]
    return chunk_vecs, win_vecs

