"""Post-processing QC of candidate chunkings (the Adaptive Chunking paper's §4).

Configured by the profile's ``postprocess`` section (``enabled``, ``max_tokens``, ``min_tokens``,
``merge_max_tokens``), in the paper's fixed order:

1. **Oversize re-split.** A chunk of more than ``max_tokens`` own tokens is cut by the recursive
   splitter (``chunk_size = max_tokens``, the paper's separators) applied to that chunk alone.
   As in the paper this runs only for splitters that do not bound their sizes themselves
   (:data:`RESPLIT_SPLITTERS`: page, sentence, semantic, llm_regex); callers may force it.
2. **Tiny merge.** Passes until nothing changes: a chunk under ``min_tokens`` takes in the next
   chunk if the two chunks' separate counts add up to at most ``merge_max_tokens`` (then it is
   checked again), else joins the previous one under the same bound, else stays. The merged
   chunk's own count must also respect the bound (it practically always does: joining text rarely
   adds tokens). The paper's final "first and last chunk" check is a no-op after these passes.
3. **Gap check.** The core spans must tile the document; anything else is a bug (``ADA101``).

Chunks are rebuilt with :func:`~adachunk.split.assemble.build_chunks` (indices, ids, heading paths
and pages follow the new spans). Statistics before and after go to ``meta["postprocess"]``. An
oversize chunk with overlap is re-split on its core (its sub-chunks carry no overlap); a merged
chunk keeps the overlap of its first member.
"""

from __future__ import annotations

import statistics
from typing import Any

from ..errors import InternalError
from ..policy import Policy
from ..datatypes import Chunking, Document
from .common import DocumentTokens, make_chunking, token_index
from .recursive import PAPER_SEPARATORS, RecursiveParams, compile_separators, recursive_cores

#: Splitters whose chunks get the oversize re-split (paper §0: the others are within size).
RESPLIT_SPLITTERS = frozenset({"page.v1", "sentence.v1", "semantic.v1", "llm_regex.v1"})
_PATTERNS = compile_separators(PAPER_SEPARATORS)

Span = tuple[int, int, int]  # (start incl. overlap, core start, end)


def check_tiling(spans: list[Span], text: str, where: str) -> None:
    """Raise ``ADA101`` unless the core spans tile ``text`` exactly (no gap, no overlap, none empty)."""
    pos = 0
    for k, (start, core, end) in enumerate(spans):
        if core != pos or not start <= core < end:
            raise InternalError(code="ADA101", message=f"{where}: chunk {k} spans [{start}, {core}, {end}) but the "
                                f"previous core ended at {pos}: chunks must tile the document")
        pos = end
    if pos != len(text):
        raise InternalError(code="ADA101", message=f"{where}: chunks end at {pos}, the document at {len(text)}")


def token_stats(counts: list[int]) -> dict[str, Any]:
    """Count, min, max and mean of chunk token counts."""
    if not counts:
        return {"chunks": 0, "min_tokens": None, "max_tokens": None, "mean_tokens": None}
    return {"chunks": len(counts), "min_tokens": min(counts), "max_tokens": max(counts),
            "mean_tokens": round(statistics.fmean(counts), 2)}


def resplit_oversize(index: DocumentTokens, spans: list[Span], max_tokens: int) -> tuple[list[Span], int]:
    """Replace every chunk over ``max_tokens`` by the recursive splitter's chunks of it."""
    # the paper's rule (sum of piece counts) so that post-processed page/llm_regex chunkings match
    # the paper's; both rules keep every chunk within max_tokens
    params = RecursiveParams(chunk_size=max_tokens, paper_compat=True)
    out: list[Span] = []
    resplit = 0
    for start, core, end in spans:
        if index.count(start, end) <= max_tokens:
            out.append((start, core, end))
            continue
        resplit += 1
        cores, _, _ = recursive_cores(index, core, end, params, patterns=_PATTERNS)
        out.extend((a, a, b) for a, b in cores)
    return out, resplit


def merge_tiny(index: DocumentTokens, spans: list[Span], min_tokens: int, max_tokens: int) -> tuple[list[Span], int]:
    """The paper's ``merge_small_chunks_to_neighbours`` with ``merge_to="next"`` on spans."""
    spans = list(spans)

    def size(k: int) -> int:
        return index.count(spans[k][0], spans[k][2])

    def mergeable(k: int) -> bool:  # chunks k and k + 1
        return (size(k) + size(k + 1) <= max_tokens
                and index.count(spans[k][0], spans[k + 1][2]) <= max_tokens)

    merges, changed = 0, True
    while changed:
        changed, i = False, 0
        while i < len(spans):
            if size(i) < min_tokens:
                if i + 1 < len(spans) and mergeable(i):
                    k = i  # take in the next chunk, then look at chunk i again
                elif i > 0 and mergeable(i - 1):
                    k = i - 1  # join the previous chunk; i now points at the following one
                else:
                    i += 1
                    continue
                spans[k : k + 2] = [(spans[k][0], spans[k][1], spans[k + 1][2])]
                merges += 1
                changed = True
                continue
            i += 1
    return spans, merges


def postprocess(chunking: Chunking, doc: Document, policy: Policy, *, resplit: bool | None = None) -> Chunking:
    """Apply the profile's post-processing to one candidate chunking.

    Args:
        chunking: a candidate chunking of ``doc`` (its core spans must tile the text).
        doc: the document.
        policy: supplies ``postprocess`` settings and the tokenizer.
        resplit: force the oversize re-split on or off (None: the paper's rule by splitter name).

    Returns:
        A new :class:`Chunking` (same splitter name) with ``meta["postprocess"]`` statistics; the
        input unchanged when post-processing is disabled.

    Raises:
        InternalError: ``ADA101`` when the chunks do not tile the document, before or after.
    """
    cfg = policy.postprocess  # a PostprocessSpec: its defaults are the schema's
    if not cfg.enabled:
        return chunking
    spans: list[Span] = [(c.start, c.core_span[0], c.end) for c in chunking.chunks]
    check_tiling(spans, doc.text, f"{chunking.splitter} before post-processing")
    if not spans:
        return Chunking([], chunking.splitter, {**chunking.meta, "postprocess": {"enabled": True, "merges": 0}})
    index = token_index(doc, policy.solver.tokenizer)
    before = token_stats([c.tokens for c in chunking.chunks])
    do_resplit = chunking.splitter in RESPLIT_SPLITTERS if resplit is None else resplit
    n_resplit = 0
    if do_resplit:
        spans, n_resplit = resplit_oversize(index, spans, cfg.max_tokens)
    spans, merges = merge_tiny(index, spans, cfg.min_tokens, cfg.merge_max_tokens)
    check_tiling(spans, doc.text, f"{chunking.splitter} after post-processing")
    out = make_chunking(doc, policy, [(s, e) for s, _, e in spans], chunking.splitter, chunking.meta,
                        core_starts=[c for _, c, _ in spans], index=index)
    out.meta["postprocess"] = {
        "enabled": True, "settings": cfg.model_dump(include={"max_tokens", "min_tokens", "merge_max_tokens"}),
        "resplit_pass": do_resplit, "resplit": n_resplit, "merges": merges,
        "before": before, "after": token_stats([c.tokens for c in out.chunks]),
    }
    return out
