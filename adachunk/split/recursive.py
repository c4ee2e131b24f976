"""Split-then-merge recursive splitter (``recursive.v1``, the Adaptive Chunking paper's §2).

Stage 1 shreds the text with an ordered list of separator regexes (headings 1..6, enumerated
items, bullets, blank lines, newline, sentence punctuation, comma, whitespace, hard split): a
piece that does not fit ``chunk_size`` is cut at every match of the first separator that occurs
in it (a line-start marker opens the next piece, any other separator closes the previous one;
pieces shorter than ``min_piece_chars`` characters join a neighbour), and each part that still
does not fit is cut with the following separators. Stage 2 merges consecutive pieces greedily up
to ``chunk_size``. Overlap, when asked, is made of whole trailing pieces of the previous chunk (a
too-large last piece is shredded further to fill it), recorded as the chunk's overlap start while
the core spans tile the document.

Differences from the paper's code, on purpose:

- Token counts come from one tokenisation of the document (:class:`~.common.DocumentTokens`); a
  piece's own count is computed only when the estimate is near a limit, and every final chunk is
  checked on its own count and repaired (a piece moved to the next chunk, or shredded further).
- No wasted work: the paper re-splits the last piece of every chunk down to characters even
  with overlap 0 and then discards the result.
- The paper attaches every separator to the start of the following piece, so a chunk cut at a
  sentence begins with ". " and one cut at a blank line begins with the blank line. Here only
  line-start markers (headings, list items, bullets: the separators that open with a newline
  look-behind) open a piece; newlines, sentence punctuation, commas and spaces close the piece
  they end.
- Stage 2 compares the merged chunk's own count with ``chunk_size``; the paper adds the pieces'
  separate counts (a chunk's own count is at most that sum, so both respect the limit).
- ``paper_compat: true`` restores both of the paper's rules and reproduces its chunks exactly
  (checked on CLAIR by ``bench/bench_recursive.py``).
- With overlap, a chunk *including* its overlap stays within ``chunk_size`` (cores are merged up
  to ``chunk_size - chunk_overlap``); the paper's default lets it reach size + overlap.
"""

from __future__ import annotations

import bisect
import re
import time
from itertools import accumulate, pairwise
from typing import Literal

from pydantic import Field, field_validator, model_validator

from ..components.params import ComponentParams
from ..policy import Policy
from ..components.registry import splitters
from ..datatypes import Chunking, Document
from .base import Splitter
from .common import MARGIN, DocumentTokens, make_chunking, token_index

#: The paper's separator priority (regexes; "" is the character-level hard split).
PAPER_SEPARATORS: tuple[str, ...] = (
    r"(?<=\n)#{1}\s", r"(?<=\n)#{2}\s", r"(?<=\n)#{3}\s",
    r"(?<=\n)#{4}\s", r"(?<=\n)#{5}\s", r"(?<=\n)#{6}\s",
    r"(?<=\n)\s*\(?[A-Za-z0-9]{1,4}[.)]\s+",     # enumerated items: 1. a) (iv) ...
    r"(?<=\n)\s*[-*·•●▪◦‣▸▹○◯‒–—]\s+",          # bullets
    r"\n{2,}", r"\n", r"[.!?]\s+", r",\s+", r"\s+", r"",
)
_EXACT = 1 << 30  # a margin that makes every size decision use the own count
_AFTER_NEWLINE = "(?<=\\n)"


class Separator:
    """A separator regex that yields the start of every match (``re.finditer`` semantics).

    Python's ``re`` tries a pattern that opens with a look-behind at every position (about
    0.2 s per separator on CLAIR). The paper's ``(?<=\\n)REST`` separators are scanned instead as
    ``\\n(?=(REST))``, which jumps from newline to newline, keeping only matches that start at or
    after the end of the previous one: the same matches (REST never matches empty), an order of
    magnitude faster. ``\\n{2,}`` becomes the equivalent ``\\n\\n+`` for the same reason. Other
    patterns run as given.
    """

    def __init__(self, pattern: str):
        self.pattern = pattern
        self.regex = re.compile(r"\n\n+" if pattern == r"\n{2,}" else pattern)
        self.fast = None
        if pattern in PAPER_SEPARATORS and pattern.startswith(_AFTER_NEWLINE):
            self.fast = re.compile(r"\n(?=(" + pattern[len(_AFTER_NEWLINE):] + "))")

    @property
    def opens(self) -> bool:
        """Whether a match opens the next piece (a line-start marker) rather than closing one."""
        return self.pattern.startswith(_AFTER_NEWLINE)

    def spans(self, text: str):
        """``(start, end)`` of the non-overlapping matches of the pattern in ``text``."""
        if self.fast is None:
            for m in self.regex.finditer(text):
                yield m.span()
            return
        end = 0
        for m in self.fast.finditer(text):
            if m.start(1) >= end:
                end = m.end(1)
                yield m.start(1), end


def compile_separators(separators) -> list[Separator | None]:
    """Compile separator regexes; ``""`` (the hard split) becomes None."""
    return [Separator(s) if s else None for s in separators]


class Shredder:
    """Stage 1: cut a span into pieces that each fit a token limit (exact offsets)."""

    def __init__(self, index: DocumentTokens, patterns: list[Separator | None], min_piece_chars: int = 10,
                 attach_start: bool = False):
        self.index = index
        self.patterns = patterns
        self.min_chars = min_piece_chars
        self.attach_start = attach_start

    def shred(self, a: int, b: int, limit: int, *, exact: bool = False) -> list[tuple[int, int]]:
        """Pieces tiling ``[a, b)``, each within ``limit`` tokens (own counts when ``exact``)."""
        out: list[tuple[int, int]] = []
        self._shred(a, b, limit, 0, _EXACT if exact else MARGIN, out)
        return out

    def _shred(self, a: int, b: int, limit: int, level: int, margin: int, out: list) -> None:
        if a >= b:
            return
        if self.index.fits(a, b, limit, margin):
            out.append((a, b))
            return
        level, cuts = self._first_split(a, b, level)
        if cuts is None:  # hard split: longest prefixes within the limit
            while a < b:
                e = self.index.prefix_within(a, b, limit)
                out.append((a, e))
                a = e
            return
        bounds = [a, *cuts, b]
        for x, y in pairwise(bounds):
            if self.index.fits(x, y, limit, margin):
                out.append((x, y))
            else:
                self._shred(x, y, limit, level + 1, margin, out)

    def _first_split(self, a: int, b: int, level: int) -> tuple[int, list[int] | None]:
        """The first separator level (from ``level``) that cuts ``[a, b)``, and its cuts."""
        while level < len(self.patterns) and self.patterns[level] is not None:
            cuts = self.cuts(a, b, self.patterns[level])
            if cuts:
                return level, cuts
            level += 1
        return level, None

    def cuts(self, a: int, b: int, pattern: Separator) -> list[int]:
        """Absolute cut positions of ``pattern`` in ``[a, b)`` after the short-piece merge.

        A line-start marker (heading, list item, bullet) opens the next piece: the cut is at the
        start of the match. Any other separator (newlines, sentence punctuation, comma, space)
        closes the previous piece: the cut is after it, so "word. " stays with its sentence and a
        chunk starts at the first character of a line. With ``attach_start`` every separator
        opens a piece, as in the paper's configuration (a chunk cut at a sentence then begins
        with ". "). Either way a piece shorter than ``min_piece_chars`` characters grows into the
        next one; a short last piece stays alone when separators open pieces (the paper's rule)
        and joins the previous one when they close them. (The paper's own "end" mode joins every
        short piece to the previous one, so a run of short pieces collapses into one.) The span is
        matched as a string of its own (a look-behind does not see the text before ``a``), as in
        the paper's code.
        """
        text = self.index.text[a:b]
        n = b - a
        if self.attach_start or pattern.opens:
            out, last = [], 0
            for start, _ in pattern.spans(text):
                if 0 < start < n and start - last >= self.min_chars:
                    out.append(a + start)
                    last = start
            return out
        out, last = [], 0
        for _, end in pattern.spans(text):
            if 0 < end < n and end - last >= self.min_chars:
                out.append(end)
                last = end
        if out and n - out[-1] < self.min_chars:
            out.pop()  # a short tail joins the previous piece
        return [a + p for p in out]


class Merger:
    """Stage 2: group consecutive pieces into cores within a token budget."""

    def __init__(self, index: DocumentTokens, shredder: Shredder, stats: dict):
        self.index = index
        self.shredder = shredder
        self.stats = stats

    def greedy(self, pieces: list[tuple[int, int]], budget: int, paper_sum: bool = False) -> list[tuple[int, int]]:
        """Largest prefix of the remaining pieces whose own count fits, repeatedly.

        With ``paper_sum`` the pieces' separate counts are added instead (the paper's rule).
        Every core is verified on its own count; a core over budget gives back its last piece,
        and a single piece over budget (the estimate misled stage 1) is shredded by own counts
        (in place: ``pieces`` then holds the final inventory).
        """
        ends = [b for _, b in pieces]
        cum = list(accumulate((self.index.count(a, b) for a, b in pieces), initial=0)) if paper_sum else None
        out, i = [], 0
        while i < len(pieces):
            a = pieces[i][0]
            if cum is not None:
                j = max(i + 1, bisect.bisect_right(cum, cum[i] + budget) - 1)
            else:
                j = self._last_fitting(a, i, ends, budget)
            while self.index.count(a, ends[j - 1]) > budget and j - 1 > i:
                j -= 1
                self.stats["repaired"] = self.stats.get("repaired", 0) + 1
            if self.index.count(a, ends[j - 1]) > budget:
                sub = self.shredder.shred(a, ends[i], budget, exact=True)
                pieces[i : i + 1] = sub
                ends[i : i + 1] = [e for _, e in sub]
                if cum is not None:
                    cum = list(accumulate((self.index.count(x, y) for x, y in pieces), initial=0))
                self.stats["repaired"] = self.stats.get("repaired", 0) + 1
                continue
            out.append((a, ends[j - 1]))
            i = j
        return out

    def _last_fitting(self, a: int, i: int, ends: list[int], budget: int) -> int:
        """Largest j > i such that pieces i..j-1 fit (binary search; the estimate bounds it)."""
        far = self.index.reach(a, budget + MARGIN)
        lo, hi = i + 1, max(i + 1, bisect.bisect_right(ends, far, lo=i))
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.index.fits(a, ends[mid - 1], budget):
                lo = mid
            else:
                hi = mid - 1
        return lo

    def small_only(self, pieces: list[tuple[int, int]], budget: int, min_size: int,
                   paper_sum: bool = False) -> list[tuple[int, int]]:
        """Keep pieces apart; merge a piece under ``min_size`` into the next, else the previous.

        Repeated until nothing changes, as in the paper's ``small_only`` mode. A merge must fit
        ``budget`` by the merged chunk's own count (with ``paper_sum``: by the two separate counts).
        """
        count = self.index.count

        def joinable(x: tuple[int, int], y: tuple[int, int]) -> bool:
            if paper_sum:
                return count(*x) + count(*y) <= budget
            return self.index.fits(x[0], y[1], budget, _EXACT)

        groups = list(pieces)
        changed = True
        while changed:
            changed, i = False, 0
            while i < len(groups):
                if count(*groups[i]) < min_size:
                    if i + 1 < len(groups) and joinable(groups[i], groups[i + 1]):
                        groups[i : i + 2] = [(groups[i][0], groups[i + 1][1])]
                        changed = True
                        continue
                    if i > 0 and joinable(groups[i - 1], groups[i]):
                        groups[i - 1 : i + 1] = [(groups[i - 1][0], groups[i][1])]
                        changed = True
                        continue
                i += 1
        return groups


def overlap_start(index: DocumentTokens, shredder: Shredder, units: list[tuple[int, int]], core: tuple[int, int],
                  overlap: int, size: int) -> int:
    """Start of a chunk once whole trailing units of the previous core are prepended.

    Walk the previous core's pieces from its end and take them while the overlap stays within
    ``overlap`` tokens; a piece too large for the budget, when it is the last piece or the overlap
    is still under half the budget, is shredded with the separators and its trailing sub-pieces
    are taken while they fit (the paper's backtracking). The chunk, overlap included, must stay
    within ``size`` tokens by its own count: units are given back from the front until it does.
    """
    c, e = core
    starts = [c]  # decreasing: each unit taken moves the start back
    for step, (a, b) in enumerate(reversed(units)):
        big = not index.fits(a, b, overlap)
        if big and (step == 0 or index.count(starts[-1], c) < overlap // 2):
            room = overlap - index.count(starts[-1], c)
            for x, _ in reversed(shredder.shred(a, b, room, exact=True) if room > 0 else []):
                if not index.fits(x, c, overlap):
                    break
                starts.append(x)
            break
        if big or not index.fits(a, c, overlap):
            break
        starts.append(a)
    while len(starts) > 1 and index.count(starts[-1], e) > size:
        starts.pop()
    return starts[-1]


class RecursiveParams(ComponentParams):
    """Parameters of the split-then-merge recursive splitter (sizes in the profile's tokens)."""

    chunk_size: int = Field(
        default=1100, ge=4, description="largest chunk in tokens (own count, overlap included)")
    chunk_overlap: int = Field(
        default=0, ge=0, description="overlap budget in tokens, filled with whole trailing pieces")
    separators: list[str] | None = Field(
        default=None,
        description="separator regexes in priority order ('' = hard split); default: the paper's list")
    min_piece_chars: int = Field(
        default=10, ge=1, description="a stage-1 piece shorter than this many characters joins a neighbour")
    merging: Literal["to_chunk_size", "small_only"] = Field(
        default="to_chunk_size",
        description="to_chunk_size: merge pieces greedily up to chunk_size; "
                    "small_only: keep pieces apart, merge only those under min_chunk_size")
    min_chunk_size: int = Field(
        default=100, ge=0, description="small_only: pieces under this many tokens are merged")
    paper_compat: bool = Field(
        default=False,
        description="reproduce the paper's chunks: every separator opens the next piece and pieces merge by "
                    "the sum of their separate counts")

    @field_validator("separators")
    @classmethod
    def _regexes(cls, value: list[str] | None) -> list[str] | None:
        for pattern in value or []:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from None
        return value

    @model_validator(mode="after")
    def _sizes(self) -> RecursiveParams:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(f"chunk_overlap ({self.chunk_overlap}) cannot be greater than or equal to "
                             f"chunk_size ({self.chunk_size})")
        if self.chunk_size - self.chunk_overlap < 4:
            raise ValueError("chunk_size - chunk_overlap must be at least 4 tokens")
        return self


def recursive_cores(index: DocumentTokens, a: int, b: int, params: RecursiveParams, stats: dict | None = None,
                    patterns: list[Separator | None] | None = None) -> tuple[list[tuple[int, int]], Shredder, list]:
    """Stages 1 and 2 on ``[a, b)`` of ``index.text``: the cores, the shredder and the final pieces."""
    stats = {} if stats is None else stats
    patterns = patterns if patterns is not None else compile_separators(params.separators or PAPER_SEPARATORS)
    shredder = Shredder(index, patterns, params.min_piece_chars, attach_start=params.paper_compat)
    budget = params.chunk_size - params.chunk_overlap
    pieces = shredder.shred(a, b, budget)
    merger = Merger(index, shredder, stats)
    if params.merging == "small_only":
        cores = merger.small_only(pieces, budget, params.min_chunk_size, paper_sum=params.paper_compat)
    else:
        cores = merger.greedy(pieces, budget, paper_sum=params.paper_compat)
    stats["pieces"] = stats.get("pieces", 0) + len(pieces)
    return cores, shredder, pieces


@splitters.register("recursive.v1")
class RecursiveSplitter(Splitter):
    """The paper's split-then-merge recursive splitter with exact offsets."""

    Params = RecursiveParams

    def __init__(self, params: RecursiveParams | None = None):
        super().__init__(params)
        self.patterns = compile_separators(self.params.separators or PAPER_SEPARATORS)

    def split(self, doc: Document, policy: Policy) -> Chunking:
        """Chunk ``doc``: cores tile the text; chunk starts include the overlap, if any."""
        p = self.params
        t0 = time.perf_counter()
        meta: dict = {"chunk_size": p.chunk_size, "chunk_overlap": p.chunk_overlap, "merging": p.merging,
                      "tokenizer": policy.solver.tokenizer, "paper_compat": p.paper_compat}
        if not doc.text:
            return Chunking([], "recursive.v1", meta)
        index = token_index(doc, policy.solver.tokenizer)
        stats: dict = {}
        cores, shredder, pieces = recursive_cores(index, 0, len(doc.text), p, stats, self.patterns)
        starts = [c for c, _ in cores]
        if p.chunk_overlap and len(cores) > 1:
            piece_starts = [x for x, _ in pieces]
            for k in range(1, len(cores)):
                lo = bisect.bisect_left(piece_starts, cores[k - 1][0])
                hi = bisect.bisect_left(piece_starts, cores[k][0])
                starts[k] = overlap_start(index, shredder, pieces[lo:hi], cores[k], p.chunk_overlap, p.chunk_size)
        meta.update(stats, seconds=time.perf_counter() - t0)
        return make_chunking(doc, policy, [(s, e) for s, (_, e) in zip(starts, cores)], "recursive.v1", meta,
                             core_starts=[c for c, _ in cores], index=index)
