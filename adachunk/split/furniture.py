"""No chunk of nothing but page furniture (issue 48).

A converted PDF or Word file carries its running headers, footers and page ends as one-line
comments (``<!-- PageHeader: ... -->``, ``<!-- PageFooter: ... -->``, ``<!-- PageBreak -->``;
:mod:`adachunk.ingest.pdf`). Cuts around a page end are cheap (a page's end is a natural
boundary), so a splitter may leave the stretch between two cuts holding only furniture: an
image-only page, or a footer and the next header. Such a chunk has nothing to retrieve, yet it
would be embedded and returned. Two guards make it impossible:

* The DP (:mod:`adachunk.split.dp`) puts the hard rules' cost (:data:`adachunk.split.bind.HARD`)
  on every cut inside such a stretch but one place (:func:`furniture_costs`): right after its
  last page break, so that a page's footer stays with its page and the next page's header
  opens the next chunk. Two cuts in one stretch are impossible, and the DP's sizes hold.
* Every splitter's spans pass through :func:`absorb_furniture`
  (:func:`adachunk.split.assemble.build_chunks`): a chunk that still holds nothing but
  furniture (a page splitter's image-only page, a fixed-size splitter's piece) is given to its
  neighbour, the previous chunk (the furniture closes that chunk's page) or, at the document's
  start, the next one. The merged chunk may exceed that splitter's size by the furniture's
  size: furniture is not content, and a chunk of it alone is worse.

A page break inside a sentence ("... in many jurisdictions," | footer, break, header |
"compliance with ...") leaves that free place as cheap as a paragraph's end, though the page
only interrupts the sentence: :func:`continued_sentences` charges it what a cut inside the
sentence costs (the rules' cost at the last place before the stretch), so the DP ends a chunk
there only where it would cut the sentence anyway.
"""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from ..ingest.furniture import COMMENT, PAGE_BREAK, furniture_only


def absorb_furniture(text: str, cores: Sequence[int], ends: Sequence[int]) -> list[list[int]] | None:
    """Which chunks to merge so that none holds only furniture.

    Args:
        text: the document text.
        cores: each chunk's core start (the cores tile the text).
        ends: each chunk's end.

    Returns:
        None when no chunk is furniture only (the common case: nothing to do), else groups of
        chunk indices, in order, each group one chunk.
    """
    if "<!--" not in text:  # no furniture comment at all: only a blank chunk could match, and
        return None  # the splitters make none (a tiling of non-empty spans with content)
    # a chunk of blank lines alone is not furniture (a DP with min_size 0 may make one anywhere)
    bare = [furniture_only(text, c, e) and text.find("<!--", c, e) >= 0 for c, e in zip(cores, ends)]
    if not any(bare) or all(bare):
        return None  # a document of nothing but furniture stays as it was cut
    groups: list[list[int]] = []
    pending: list[int] = []  # furniture before the first chunk with content
    for i, only in enumerate(bare):
        if only and groups:
            groups[-1].append(i)
        elif only:
            pending.append(i)
        else:
            groups.append(pending + [i])
            pending = []
    return groups


def furniture_runs(text: str) -> list[tuple[int, int, int, int]]:
    """The stretches of nothing but furniture and white space, with where one cut may fall.

    Returns:
        ``(a, q0, q1, b)`` per maximal stretch ``[a, b)`` holding a furniture comment: ``a``
        right after the last visible character before it, ``b`` the next visible character
        (or the document's ends). A cut in ``[q0, q1]`` leaves no chunk of furniture alone:
        right after the stretch's last ``PageBreak`` (before the next page's header), or, with
        no page break in it, just before ``b``; at the document's start (end) only there.
    """
    runs: list[list[int]] = []
    for m in COMMENT.finditer(text):
        a, b = m.start(), m.end()
        while a > 0 and text[a - 1].isspace():
            a -= 1
        while b < len(text) and text[b].isspace():
            b += 1
        if runs and a <= runs[-1][1]:
            runs[-1][1] = b
        else:
            runs.append([a, b])
    out = []
    for a, b in runs:
        if a == 0:
            q0 = q1 = 0
        elif b == len(text):
            q0 = q1 = b
        else:
            last = None
            for last in PAGE_BREAK.finditer(text, a, b):
                pass
            q0 = last.end() if last else b
            q1 = q0
            while q1 < b and text[q1].isspace():
                q1 += 1
        out.append((a, q0, q1, b))
    return out


def _places(pos: np.ndarray, runs: list[tuple[int, int, int, int]]):
    """Per stretch of ``runs``: the stretch, the indexes of its candidate cuts (``pos[lo:hi]``,
    those in ``[a, b]``) and of its one free place (:func:`furniture_costs`)."""
    for a, q0, q1, b in runs:
        lo, hi = np.searchsorted(pos, a, "left"), np.searchsorted(pos, b, "right")
        first, after = np.searchsorted(pos, q0, "left"), np.searchsorted(pos, q1, "right")
        # one free place only (two would allow a chunk of the blank lines between them): the
        # last candidate in [q0, q1], else the first one after q1 inside the stretch
        yield (a, q0, q1, b), lo, hi, (after - 1 if after > first else after)


def furniture_costs(text: str, positions: np.ndarray, hard: int,
                    runs: list[tuple[int, int, int, int]] | None = None) -> np.ndarray | None:
    """``hard`` at every candidate cut that would leave a chunk of nothing but furniture, for the
    DP (None when the text has no furniture).

    Inside each stretch of :func:`furniture_runs` (``runs``: the text's, when already found) one
    place stays free: the last candidate cut in ``[q0, q1]``, or, when none falls there (a token
    spans it), the first one after ``q1`` inside the stretch. Two cuts in one stretch are then
    impossible, and a chunk between cuts of two stretches holds the text between them.
    """
    if "<!--" not in text:
        return None
    runs = furniture_runs(text) if runs is None else runs
    if not runs:
        return None
    pos = np.asarray(positions)
    mask = np.zeros(len(pos), dtype=bool)
    for _, lo, hi, free in _places(pos, runs):
        if lo >= hi:
            continue
        mask[lo:hi] = True
        if free < hi:
            mask[free] = False
    return mask.astype(np.int64) * hard if mask.any() else None


_RUNS_ON = re.compile(r"[a-z,]$")  # the text before the break stops mid-sentence (";" may end an item)
_GOES_ON = re.compile(r"[a-z][a-z]")  # the text after it goes on in lower case ("g any ...": an item)


def continued_sentences(text: str, positions: np.ndarray, cost: np.ndarray,
                        runs: list[tuple[int, int, int, int]] | None = None) -> np.ndarray | None:
    """What to add to ``cost`` at the free place of each furniture stretch that a sentence runs
    across (the text before it ends in a lower-case letter or a comma, the text after it opens
    with a lower-case word: not a list item's letter, "g any denunciation"): up to the cost at
    the last candidate before the stretch, inside that sentence (module docstring; ``runs``: the
    text's :func:`furniture_runs`, when already found). None when no sentence runs across a
    page."""
    if "<!--" not in text:
        return None
    pos = np.asarray(positions)
    add = np.zeros(len(pos), dtype=np.int64)
    for (a, _, _, b), lo, hi, free in _places(pos, furniture_runs(text) if runs is None else runs):
        if a == 0 or lo == 0 or free >= hi or not _GOES_ON.match(text, b) \
                or not _RUNS_ON.search(text[max(0, a - 1):a]):
            continue
        add[free] = max(0, int(cost[lo - 1]) - int(cost[free]))
    return add if add.any() else None
