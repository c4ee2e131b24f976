"""Structure damage: which Markdown structures a chunking cuts, judged by an independent parser.

adachunk detects structures with mistletoe and its own sentence segmenter; scoring it with the
same code would be circular. Here tables, table rows, list items and code blocks come from
markdown-it-py (``token.map`` gives ``[first, last)`` line ranges) and sentences from pysbd run on
each paragraph markdown-it reports (or, with ``sentences="regex"``, a plain punctuation regex).

A structure ``[s, e)`` (trimmed of surrounding whitespace) is *cut* when a chunk boundary lies
strictly inside it. Chunk boundaries are taken from chunk spans located in the text, so a tool
that trims whitespace between chunks (a gap) cuts a structure when the gap lies inside it.
Structures larger than the chunk limit cannot be kept whole by anyone; :func:`damage` therefore
reports shares over the structures that fit in one chunk (and over all of them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

KINDS = ("table", "table_row", "list_item", "code", "sentence")

# token type of markdown-it → our kind (paragraphs are only used to find sentences)
_TOKEN_KIND = {
    "table_open": "table",
    "tr_open": "table_row",
    "list_item_open": "list_item",
    "fence": "code",
    "code_block": "code",
    "paragraph_open": "paragraph",
}
_REGEX_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9À-Ý])")


@dataclass(frozen=True)
class Structures:
    """Trimmed spans of each kind in one text (sorted by start)."""

    spans: dict[str, list[tuple[int, int]]]


def _line_starts(text: str) -> list[int]:
    starts = [0]
    pos = text.find("\n")
    while pos >= 0:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)
    return starts


def _trim(text: str, s: int, e: int) -> tuple[int, int]:
    """Shrink ``[s, e)`` to its first..last non-whitespace character (empty → ``(s, s)``)."""
    chunk = text[s:e]
    stripped = chunk.lstrip()
    s2 = s + (len(chunk) - len(stripped))
    return s2, s2 + len(stripped.rstrip())


def _markdown_blocks(text: str) -> dict[str, list[tuple[int, int]]]:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    lines = _line_starts(text)
    lines.append(len(text))
    out: dict[str, list[tuple[int, int]]] = {k: [] for k in (*KINDS, "paragraph")}
    for tok in md.parse(text):
        kind = _TOKEN_KIND.get(tok.type)
        if kind is None or not tok.map:
            continue
        a, b = tok.map
        s, e = _trim(text, lines[min(a, len(lines) - 1)], lines[min(b, len(lines) - 1)])
        if e > s:
            out[kind].append((s, e))
    return out


def _pysbd_splitter() -> Callable[[str], list[str]]:
    import pysbd

    seg = pysbd.Segmenter(language="en", clean=False)
    return seg.segment


def _regex_splitter(text: str) -> list[str]:
    out, pos = [], 0
    for m in _REGEX_SENTENCE_END.finditer(text):
        out.append(text[pos : m.end()])
        pos = m.end()
    out.append(text[pos:])
    return out


def _sentences(text: str, paragraphs: Sequence[tuple[int, int]], split) -> list[tuple[int, int]]:
    """Sentence spans inside each paragraph, located in order (segments not found are skipped)."""
    out = []
    for s, e in paragraphs:
        para = text[s:e]
        pos = 0
        for sent in split(para):
            core = sent.strip()
            if not core:
                continue
            i = para.find(core, pos)
            if i < 0:
                continue
            out.append((s + i, s + i + len(core)))
            pos = i + len(core)
    return out


def find_structures(text: str, sentences: str = "pysbd") -> Structures:
    """Detect tables, table rows, list items, code blocks and sentences in ``text``."""
    blocks = _markdown_blocks(text)
    split = _pysbd_splitter() if sentences == "pysbd" else _regex_splitter
    blocks["sentence"] = _sentences(text, blocks.pop("paragraph"), split)
    return Structures({k: sorted(v) for k, v in blocks.items()})


def boundaries(spans: Sequence[tuple[int, int]]) -> np.ndarray:
    """Interior boundary positions of located chunk spans: every start but the first and every
    end but the last (they differ when the tool dropped whitespace between chunks)."""
    pts = set()
    for i, (s, e) in enumerate(spans):
        if i > 0:
            pts.add(s)
        if i < len(spans) - 1:
            pts.add(e)
    return np.array(sorted(pts), dtype=np.int64)


def cut_mask(structs: Sequence[tuple[int, int]], bounds: np.ndarray) -> np.ndarray:
    """For each structure, whether some boundary lies strictly inside it."""
    out = np.zeros(len(structs), dtype=bool)
    if not len(structs) or not len(bounds):
        return out
    arr = np.asarray(structs, dtype=np.int64)
    idx = np.searchsorted(bounds, arr[:, 0], side="right")  # first boundary after the start
    ok = idx < len(bounds)
    out[ok] = bounds[idx[ok]] < arr[ok, 1]
    return out


@dataclass
class Damage:
    """Counts of cut structures per kind, over fitting structures and over all of them."""

    cut_fit: dict[str, int]
    total_fit: dict[str, int]
    cut_all: dict[str, int]
    total_all: dict[str, int]

    def add(self, other: "Damage") -> None:
        for mine, theirs in ((self.cut_fit, other.cut_fit), (self.total_fit, other.total_fit),
                             (self.cut_all, other.cut_all), (self.total_all, other.total_all)):
            for k, v in theirs.items():
                mine[k] = mine.get(k, 0) + v

    def share(self, kind: str, fit: bool = True) -> float:
        cut, tot = (self.cut_fit, self.total_fit) if fit else (self.cut_all, self.total_all)
        return cut.get(kind, 0) / tot[kind] if tot.get(kind) else float("nan")

    def overall(self, fit: bool = True) -> float:
        """Share of all (fitting) non-sentence block structures that are cut."""
        cut, tot = (self.cut_fit, self.total_fit) if fit else (self.cut_all, self.total_all)
        kinds = [k for k in KINDS if k != "sentence"]
        t = sum(tot.get(k, 0) for k in kinds)
        return sum(cut.get(k, 0) for k in kinds) / t if t else float("nan")

    @classmethod
    def empty(cls) -> "Damage":
        return cls({}, {}, {}, {})


def damage(text: str, structs: Structures, spans: Sequence[tuple[int, int]], fits: Callable[[str], bool]) -> Damage:
    """Structure damage of one chunking (chunk spans located in ``text``).

    Args:
        text: the text the tool chunked.
        structs: its structures (:func:`find_structures`).
        spans: located chunk spans, in order.
        fits: whether a structure's text would fit in one chunk (``size <= max``).
    """
    bounds = boundaries(spans)
    out = Damage.empty()
    for kind in KINDS:
        ss = structs.spans.get(kind, [])
        mask = cut_mask(ss, bounds)
        fit = np.array([fits(text[s:e]) for s, e in ss], dtype=bool) if ss else np.zeros(0, bool)
        out.cut_all[kind] = int(mask.sum())
        out.total_all[kind] = len(ss)
        out.cut_fit[kind] = int((mask & fit).sum())
        out.total_fit[kind] = int(fit.sum())
    return out


def locate(text: str, chunks: Sequence[str]) -> tuple[list[tuple[int, int]], str]:
    """Find each chunk in ``text`` in order; returns the spans and a tiling verdict.

    Verdicts: ``exact`` (contiguous, from 0 to the end: the chunks tile the text), ``ws-gaps``
    (in order, only whitespace left out between/around chunks), ``overlap`` (a chunk starts
    before the previous one ends), ``lossy`` (non-whitespace text missing, or a chunk that is
    not a slice of the text).
    """
    spans: list[tuple[int, int]] = []
    pos, verdict = 0, "exact"

    def worse(v: str) -> None:
        nonlocal verdict
        order = ("exact", "ws-gaps", "overlap", "lossy")
        if order.index(v) > order.index(verdict):
            verdict = v

    for c in chunks:
        if not c:
            worse("lossy")
            continue
        i = text.find(c, pos)
        if i < 0 and spans:
            i = text.find(c, spans[-1][0] + 1)  # an overlapping chunk
            if i >= 0:
                worse("overlap")
        if i < 0:
            worse("lossy")
            continue
        if i > pos:
            worse("ws-gaps" if not text[pos:i].strip() else "lossy")
        spans.append((i, i + len(c)))
        pos = max(pos, i + len(c))
    if pos < len(text):
        worse("ws-gaps" if not text[pos:].strip() else "lossy")
    return spans, verdict

