"""Retrieval measures per question: recall@k, span recall@k, coverage@k, precision@k, IoU@k,
tokens@k, MRR, and coverage within a token budget.

Definitions (``E`` a question's evidence set: merged character spans in its document; a chunk
*overlaps* ``E`` when it shares at least one character with a span of ``E``):

* ``recall@k``: 1 when one of the first ``k`` retrieved chunks overlaps ``E``, else 0.
* ``span_recall@k``: the share of the spans of ``E`` that some retrieved chunk overlaps.
* ``coverage@k``: the share of the characters of ``E`` inside the union of the retrieved chunks.
* ``precision@k`` and ``iou@k``: Chroma's character measures ("Evaluating Chunking Strategies for
  Retrieval", 2024): the evidence characters retrieved over all characters retrieved (every
  retrieved chunk counts, of any document), and over the retrieved characters plus the evidence
  characters missed. Chroma's "recall" is ``coverage@k``.
* ``tokens@k``: tokens retrieved (what a reader model would have to read).
* ``coverage@Btok`` (with ``budgets``): chunks are taken in rank order, as many as fit ``B``
  tokens, the last one truncated (no cut-off k): the share of evidence characters a reader with
  a ``B``-token context gets. Unlike recall@k it cannot be won by making chunks larger.
* ``mrr``: 1 / rank of the first retrieved chunk overlapping ``E`` among the first ``max(ks)``
  (0 when none): MRR cut at the largest k.

A question whose answer string occurs several times has several alternative evidence sets; each
measure takes its best alternative.

**Token budget.** With a budget of ``B`` tokens (fixed, or ``N*k``: ``N`` tokens per retrieved
chunk), the first ``k`` chunks are taken in rank order while they fit; the first chunk that does
not fit is **truncated** to the remaining tokens, as a context window would cut it, and the
chunks after it are dropped. Truncation keeps the chunk's first ``len × remaining / tokens``
characters (proportional, so the rule needs no tokenizer and works for chunks counted by another
tool). So a giant chunk cannot win by size: it spends the whole budget and is cut. With a
tokenizer (``evaluate_chunks(tokenizer=...)``) the truncated chunk keeps exactly its first
tokens instead.

**Prefixes.** With ``prefix_tokens`` (what each chunk's prefix costs, e.g. the heading path an
index embeds and a reader is given with the chunk), a chunk costs prefix + text tokens and the
prefix is read first: the chunk that does not fit reads its prefix, then as much of its text as
is left; when the prefix alone uses up what is left, it reads no text (no evidence). Coverage is
still measured on the text's span.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

Span = tuple[int, int]
#: ``cut(chunk, tokens)``: the end offset of the chunk's first ``tokens`` tokens (exact truncation).
Cut = Callable[[int, int], int]


@dataclass(frozen=True)
class Budget:
    """A token budget: ``tokens`` in all, or ``tokens`` per retrieved chunk × k (``per_k``)."""

    tokens: int
    per_k: bool = False

    def at(self, k: int) -> int:
        """The budget when ``k`` chunks are retrieved."""
        return self.tokens * k if self.per_k else self.tokens

    def __str__(self) -> str:
        return f"{self.tokens}*k" if self.per_k else str(self.tokens)


_BUDGET = re.compile(r"^\s*(\d+)\s*(?:(\*|x)\s*k|k)?\s*$", re.IGNORECASE)


def parse_budget(value: "Budget | int | str | None") -> Budget | None:
    """``None``, an int (tokens in all) or a string ``"2048"`` / ``"512*k"`` / ``"512k"``.

    Raises:
        ValueError: not one of those shapes, or not positive.
    """
    if value is None or isinstance(value, Budget):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        if value <= 0:
            raise ValueError(f"budget must be positive, got {value}")
        return Budget(value)
    m = _BUDGET.match(str(value))
    if not m or int(m.group(1)) <= 0:
        raise ValueError(f"bad budget {value!r}: expected TOKENS (e.g. 2048) or TOKENS*k (e.g. 512*k)")
    return Budget(int(m.group(1)), per_k=value.strip()[-1:].lower() == "k")


def measure_keys(ks: Sequence[int], budgets: Sequence[int] = ()) -> list[str]:
    """The measure names, in table order."""
    keys = []
    for prefix in ("recall", "span_recall", "coverage", "precision", "iou", "tokens"):
        keys += [f"{prefix}@{k}" for k in ks]
    return keys + [budget_key(b) for b in budgets] + ["mrr"]


def budget_key(tokens: int) -> str:
    """The name of the coverage measure within a budget of ``tokens``: ``coverage@1000tok``."""
    return f"coverage@{int(tokens)}tok"


def take(ranking: Iterable[int], starts: Sequence[int], ends: Sequence[int], tokens: Sequence[int], k: int | None,
         budget: int | None, cut: Cut | None = None,
         prefix_tokens: Sequence[int] | None = None) -> list[tuple[int, int, int, int]]:
    """The first ``k`` chunks of ``ranking`` (None: no limit) under ``budget``:
    ``(chunk, start, end, tokens)`` each (the last one possibly truncated: to its first tokens
    by ``cut`` when given, else proportionally; see the module docstring).

    ``prefix_tokens`` (per chunk number): what a chunk's prefix (e.g. its heading path, as the
    index embeds it) costs when the reader gets it too. A chunk then costs prefix + text tokens,
    the prefix read first: the chunk that does not fit reads its prefix, then the first
    ``left − prefix`` tokens of its text; when the prefix alone uses up what is left, the chunk
    is taken with an empty span (its tokens spent, no text read). ``tokens`` of a taken chunk
    then include its prefix.
    """
    if prefix_tokens is not None:
        return _take_prefixed(ranking, starts, ends, tokens, k, budget, cut, prefix_tokens)
    out: list[tuple[int, int, int, int]] = []
    used = 0
    for i in ranking:
        if k is not None and len(out) >= k:
            break
        s, e, t = int(starts[i]), int(ends[i]), int(tokens[i])
        if budget is None or used + t <= budget:
            out.append((i, s, e, t))
            used += t
            continue
        left = budget - used
        if left > 0 and t > 0:
            end = cut(i, left) if cut is not None else s + (e - s) * left // t
            out.append((i, s, min(max(end, s), e), left))
        break
    return out


def _take_prefixed(ranking: Iterable[int], starts: Sequence[int], ends: Sequence[int], tokens: Sequence[int],
                   k: int | None, budget: int | None, cut: Cut | None,
                   prefix_tokens: Sequence[int]) -> list[tuple[int, int, int, int]]:
    """:func:`take` where each chunk also costs its prefix (read before its text)."""
    out: list[tuple[int, int, int, int]] = []
    used = 0
    for i in ranking:
        if k is not None and len(out) >= k:
            break
        s, e, t, p = int(starts[i]), int(ends[i]), int(tokens[i]), max(0, int(prefix_tokens[i]))
        if budget is None or used + p + t <= budget:
            out.append((i, s, e, p + t))
            used += p + t
            continue
        left = budget - used
        if left > 0:
            text_left = left - p
            if text_left <= 0 or t <= 0:
                end = s  # the prefix takes what is left: no text read
            else:
                end = cut(i, text_left) if cut is not None else s + (e - s) * text_left // t
            out.append((i, s, min(max(end, s), e), left))
        break
    return out


def overlap(a: Span, b: Span) -> int:
    """Characters shared by two half-open spans."""
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))


def covered_chars(evidence: Sequence[Span], spans: Sequence[Span]) -> int:
    """Characters of (merged) ``evidence`` inside the union of ``spans``."""
    total = 0
    merged = _merge(spans)
    for ev in evidence:
        total += sum(overlap(ev, s) for s in merged)
    return total


def _merge(spans: Sequence[Span]) -> list[Span]:
    out: list[list[int]] = []
    for s, e in sorted(spans):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def evidence_scores(evidence: Sequence[Span], spans: Sequence[Span], retrieved_chars: int = 0) -> tuple[float, ...]:
    """``(hit, span recall, coverage, precision, iou)`` of one evidence set given retrieved spans
    of its document and ``retrieved_chars``, the characters of every retrieved chunk (any
    document; Chroma's precision and IoU denominators)."""
    if not evidence:
        return 0, 0.0, 0.0, 0.0, 0.0
    hits = [any(overlap(ev, s) for s in spans) for ev in evidence]
    size = sum(e - s for s, e in evidence)
    got = covered_chars(evidence, spans)
    precision = got / retrieved_chars if retrieved_chars else 0.0
    union = retrieved_chars + size - got
    return (int(any(hits)), sum(hits) / len(evidence), got / size if size else 0.0, precision,
            got / union if union else 0.0)


def first_rank(evidence_sets: Sequence[Sequence[Span]], taken: Sequence[tuple[int, int, int, int]],
               same_doc: Sequence[bool]) -> int | None:
    """1-based rank of the first taken chunk overlapping any evidence set (None: none does)."""
    for r, ((_, s, e, _t), ok) in enumerate(zip(taken, same_doc), 1):
        if ok and any(overlap(ev, (s, e)) for evs in evidence_sets for ev in evs):
            return r
    return None


def question_measures(evidence_sets: Sequence[Sequence[Span]], doc: int, ranking: Sequence[int],
                      chunk_doc: Sequence[int], starts: Sequence[int], ends: Sequence[int],
                      tokens: Sequence[int], ks: Sequence[int], budget: Budget | None,
                      budgets: Sequence[int] = (), cut: Cut | None = None,
                      prefix_tokens: Sequence[int] | None = None, read_spans: bool = False) -> dict[str, Any]:
    """Every measure of one question.

    Args:
        evidence_sets: alternative evidence sets (spans into the question's document).
        doc: the question's document number (as in ``chunk_doc``).
        ranking: chunk numbers in retrieved order (at least ``max(ks)`` when there are that many).
        chunk_doc: per chunk number, the number of the document it belongs to.
        starts: per chunk number, the start offset of its span.
        ends: per chunk number, the end offset of its span.
        tokens: per chunk number, its token count (what the budget spends).
        ks: the cut-offs.
        budget: the token budget of the measures at k, or None.
        budgets: token budgets of the ``coverage@Btok`` measures (the ranking must then be whole).
        cut: exact truncation of the last chunk (see :func:`take`), or None.
        prefix_tokens: per chunk number, the tokens of the prefix read before its text (see
            :func:`take`); None: chunks cost their text only.
        read_spans: also return ``read@Btok`` for each budget: ``(chunk, start, end)`` of each
            chunk taken within the budget, in rank order (``end`` the truncated end; start ==
            end when only its prefix was read).

    Returns:
        ``recall@k``, ``span_recall@k``, ``coverage@k``, ``precision@k``, ``iou@k``, ``tokens@k``
        for each k, ``coverage@Btok`` for each budget, ``mrr`` and ``rank`` (first overlapping
        rank within ``max(ks)``, or None). Each measure takes the best alternative evidence set.
    """
    row: dict[str, Any] = {}
    names = ("recall", "span_recall", "coverage", "precision", "iou")
    for k in ks:
        taken = take(ranking, starts, ends, tokens, k, budget.at(k) if budget else None, cut, prefix_tokens)
        spans = [(s, e) for (i, s, e, _t) in taken if chunk_doc[i] == doc]
        chars = sum(e - s for (_i, s, e, _t) in taken)
        scores = [evidence_scores(evs, spans, chars) for evs in evidence_sets] or [(0, 0.0, 0.0, 0.0, 0.0)]
        for j, name in enumerate(names):
            row[f"{name}@{k}"] = max(sc[j] for sc in scores)
        row[f"tokens@{k}"] = sum(t for *_, t in taken)
    for b in budgets:
        taken = take(ranking, starts, ends, tokens, None, int(b), cut, prefix_tokens)
        spans = [(s, e) for (i, s, e, _t) in taken if chunk_doc[i] == doc]
        row[budget_key(b)] = max((evidence_scores(evs, spans)[2] for evs in evidence_sets), default=0.0)
        if read_spans:
            row[f"read@{int(b)}tok"] = [(i, s, e) for (i, s, e, _t) in taken]
    kmax = max(ks)
    taken = take(ranking, starts, ends, tokens, kmax, budget.at(kmax) if budget else None, cut, prefix_tokens)
    rank = first_rank(evidence_sets, taken, [chunk_doc[i] == doc for (i, *_r) in taken])
    row["mrr"] = 1.0 / rank if rank else 0.0
    row["rank"] = rank
    return row


def summarise(rows: Sequence[dict[str, Any]], keys: Sequence[str]) -> dict[str, float | None]:
    """Mean of each measure over the question rows (None without rows), rounded to 6 digits."""
    if not rows:
        return {k: None for k in keys}
    return {k: round(sum(float(r[k]) for r in rows) / len(rows), 6) for k in keys}
