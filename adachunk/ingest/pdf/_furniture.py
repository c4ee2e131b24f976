"""Running headers, footers and page numbers ("page furniture") found by repetition.

A line in the top (bottom) band of a page is furniture when its normalised text (lower case,
digits replaced by ``#``) occurs in that band on at least ``threshold`` of the pages (and on two
pages at least), or when it is a bare page number ("12", "- 12 -", "Page 3 of 10", "iv").
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
    return " ".join(re.sub(r"\d", "#", text.lower()).split())


def furniture_text(text: str) -> str:
    """How a furniture line reads in the comment (a bare number reads "page N", as in the paper)."""
    text = " ".join(text.split())
    return f"page {text}" if _BARE_NUMBER.match(text) else text


def repeated_keys(per_page: list[set[str]], threshold: float) -> set[str]:
    """Keys present on at least ``threshold`` of the pages (and on two pages at least)."""
    need = max(2, math.ceil(threshold * len(per_page)))
    counts: Counter[str] = Counter()
    for keys in per_page:
        counts.update(keys)
    return {k for k, c in counts.items() if c >= need}


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
    top_keys = repeated_keys([{norm_key(p.lines[i].text) for i in t} for p, (t, _) in zip(pages, bands)], threshold)
    bottom_keys = repeated_keys([{norm_key(p.lines[i].text) for i in b} for p, (_, b) in zip(pages, bands)],
                                threshold)
    out = Furniture()
    for k, (page, (top, bottom)) in enumerate(zip(pages, bands)):
        removed: set[int] = set()
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
