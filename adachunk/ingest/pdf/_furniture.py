"""Running headers, footers and page numbers ("page furniture") found by repetition.

A line in the top (bottom) band of a page is furniture when its normalised text (lower case,
digit runs replaced by ``#``) occurs in that band on at least ``threshold`` of the pages (and on two
pages at least) or, for a header that runs over one part of a long file only (a 10-K's "Table of
Contents" link above its 130 pages, not above the 370 pages of exhibits printed after them), on
five pages in a row at least (or on every other page); or when it is a bare page number ("12",
"- 12 -", "Page 3 of 10", "iv").

A page printed from HTML ends where its text ends, so its page number and footer sit right below
the last line, anywhere on the page, outside the bands: a bare number that is a page's last
(first) line is a page number when it follows the page's position in the file (number − page
index the same) on at least three pages, and a page's last (first) line is running furniture when
it repeats as such by the rules above ("2019 FORM 10-K 51" and "52 NIKE, INC." on every other
page). Else it would read as a footnote's label, the paragraph broken by the
page could not be joined, and the number would stand in the text.

Furniture leaves the body and is kept as ``<!-- PageHeader: ... -->`` / ``<!-- PageFooter: ...
-->`` comments (or dropped).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from ._model import RawPage

_PAGE_NUMBER = re.compile(
    r"^(?:(?:page|p\.|pg\.?|seite|p\u00e1gina|pagina)\s*)?[-\u2013\u2014(\[]?\s*(?:\d{1,4}|[ivxlcdm]{1,7})\s*"
    r"[-\u2013\u2014)\]]?(?:\s*(?:/|of|de|sur|von|di|sur)\s*\d{1,4})?$", re.I)
_BARE_NUMBER = re.compile(r"^\d{1,4}$")


def is_page_number(text: str) -> bool:
    """A line that is only a page number, in the usual notations."""
    return bool(_PAGE_NUMBER.match(text.strip()))


def norm_key(text: str) -> str:
    """Comparison key of a furniture candidate: case, digits and spacing do not matter."""
    return " ".join(re.sub(r"\d+", "#", text.lower()).split())  # page 9 and page 10 alike


def furniture_text(text: str) -> str:
    """How a furniture line reads in the comment (a bare number reads "page N", as in the paper)."""
    text = " ".join(text.split())
    return f"page {text}" if _BARE_NUMBER.match(text) else text


_RUN_MIN = 5  # pages of a run that makes a header running (two pages are a coincidence)
_RUN_GAP = 2  # the most pages from one page of a run to the next (every other page)
_SEQUENCE_MIN = 3  # pages whose last line numbers them in order
_EDGE_CHARS = 120  # a longer first or last line is text, even when it repeats


def repeated_keys(per_page: list[set[str]], threshold: float) -> set[str]:
    """Keys present on at least ``threshold`` of the pages (and on two pages at least), or on a
    run of at least five pages, each no more than two pages after the one before (a header
    printed on every page, or on every other: left and right pages)."""
    need = max(2, math.ceil(threshold * len(per_page)))
    counts: Counter[str] = Counter()
    runs: Counter[str] = Counter()  # the longest run so far of each key
    current: dict[str, tuple[int, int]] = {}  # key → (its last page, its current run's length)
    for k, keys in enumerate(per_page):
        counts.update(keys)
        for key in keys:
            last, n = current.get(key, (-_RUN_GAP - 1, 0))
            n = n + 1 if k - last <= _RUN_GAP else 1
            current[key] = (k, n)
            runs[key] = max(runs[key], n)
    return {k for k, c in counts.items() if c >= need or runs[k] >= _RUN_MIN}


def _number(text: str) -> int | None:
    """The value of a line that is only an arabic page number ("12", "- 12 -", "Page 12")."""
    if not is_page_number(text):
        return None
    digits = re.findall(r"\d{1,4}", text)
    return int(digits[0]) if len(digits) == 1 else None


def edges(page: RawPage) -> tuple[int | None, int | None]:
    """Indexes of the page's first and last lines, where nothing is drawn above (below) them:
    no table reaches higher (lower)."""
    if not page.lines:
        return None, None
    order = sorted(range(len(page.lines)), key=lambda i: (page.lines[i].top, page.lines[i].x0))
    first, last = page.lines[order[0]], page.lines[order[-1]]
    above = all(first.bottom <= t.top + 1.0 for t in page.tables)
    below = all(last.top >= t.bottom - 1.0 for t in page.tables)
    return (order[0] if above else None), (order[-1] if below and len(order) > 1 else None)


def sequence_numbers(pages: list[RawPage], ends: list[tuple[int | None, int | None]]) -> dict[int, int]:
    """Page index → index of its line that numbers it in sequence (module docstring): the page's
    last line, else its first, a bare number whose offset to the page index is shared by at least
    three pages."""
    found: dict[int, tuple[int, int]] = {}  # page index → (line index, number - page index)
    for k, (page, (first, last)) in enumerate(zip(pages, ends)):
        for i in (last, first):
            value = None if i is None else _number(page.lines[i].text)
            if value is not None:
                found[k] = (i, value - k)
                break
    offsets = Counter(off for _, off in found.values())
    return {k: i for k, (i, off) in found.items() if offsets[off] >= _SEQUENCE_MIN}


def _edge_keys(pages: list[RawPage], ends: list[tuple[int | None, int | None]], which: int,
               threshold: float) -> set[str]:
    """Keys of the first (``which`` 0) or last (1) lines that repeat as such (a running footer
    printed right below a page's text, wherever that ends)."""
    per_page = []
    for page, pair in zip(pages, ends):
        i = pair[which]
        text = page.lines[i].text if i is not None else ""
        per_page.append({norm_key(text)} if text.strip() and len(text) <= _EDGE_CHARS else set())
    return repeated_keys(per_page, threshold)


@dataclass
class Furniture:
    """Which lines of each page are furniture, and the header/footer texts per page (by index)."""

    removed: dict[int, set[int]] = field(default_factory=dict)
    header: dict[int, list[str]] = field(default_factory=dict)
    footer: dict[int, list[str]] = field(default_factory=dict)


def _bands(page: RawPage, band: float) -> tuple[list[int], list[int]]:
    top = [i for i, ln in enumerate(page.lines) if ln.bottom <= page.height * band]
    bottom = [i for i, ln in enumerate(page.lines) if ln.top >= page.height * (1 - band)]
    return top, bottom


def detect(pages: list[RawPage], band: float = 0.1, threshold: float = 0.5) -> Furniture:
    """Find the furniture lines of every page (see the module docstring).

    Args:
        pages: the extracted pages, lines in reading order.
        band: height fraction of the top and bottom bands where furniture may sit.
        threshold: fraction of pages a text must repeat on to count as running furniture.
    """
    bands = [_bands(p, band) for p in pages]
    ends = [edges(p) for p in pages]
    top_keys = repeated_keys([{norm_key(p.lines[i].text) for i in t} for p, (t, _) in zip(pages, bands)], threshold)
    bottom_keys = repeated_keys([{norm_key(p.lines[i].text) for i in b} for p, (_, b) in zip(pages, bands)],
                                threshold)
    first_keys, last_keys = _edge_keys(pages, ends, 0, threshold), _edge_keys(pages, ends, 1, threshold)
    top_keys |= first_keys
    bottom_keys |= last_keys
    numbered = sequence_numbers(pages, ends)
    out = Furniture()
    for k, (page, (top, bottom)) in enumerate(zip(pages, bands)):
        removed: set[int] = set()
        first, last = ends[k]
        # a page printed from HTML: its number or footer right below its text, anywhere
        if last is not None and last not in bottom and (
                numbered.get(k) == last or norm_key(page.lines[last].text) in last_keys):
            bottom.append(last)
        if first is not None and first not in top and (
                numbered.get(k) == first or norm_key(page.lines[first].text) in first_keys):
            top.append(first)
        for idxs, keys, store in ((top, top_keys, out.header), (bottom, bottom_keys, out.footer)):
            hits = [i for i in idxs if norm_key(page.lines[i].text) in keys or is_page_number(page.lines[i].text)]
            hits = [i for i in hits if i not in removed]
            if hits:
                hits.sort(key=lambda i: (page.lines[i].top, page.lines[i].x0))
                store[k] = [furniture_text(page.lines[i].text) for i in hits]
                removed.update(hits)
        if removed:
            out.removed[k] = removed
    return out
