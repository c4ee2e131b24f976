"""Page furniture in a converted document's text: what the readers write, what later stages see.

The PDF and Word readers keep running headers, footers and page numbers as one-line comments
(``<!-- PageHeader: ... -->``, ``<!-- PageFooter: ... -->``) and close every PDF page with
``<!-- PageBreak -->`` (the paper's parsed format). They stay in the text, so that offsets and
pages hold, but they are not content: no chunk may consist of them alone
(:mod:`adachunk.split.furniture`), and a chunk record lists them as ``furniture`` metadata
(:func:`adachunk.sink.records.chunk_record`).
"""

from __future__ import annotations

import re

# one furniture comment: a header, footer or page number (with its text), or a page break
_COMMENT = r"<!--[ \t]*Page(?:Header|Footer|Break|Number)\b[^\n]*?-->"
# a stretch of nothing but white space and furniture comments
_ONLY = re.compile(rf"(?:\s+|{_COMMENT})*\Z")
COMMENT = re.compile(_COMMENT)
PAGE_BREAK = re.compile(r"<!--[ \t]*PageBreak[ \t]*-->")
# a header, footer or page number, its kind (group 1) and text (group 2)
_TEXTS = re.compile(r"<!--[ \t]*Page(Header|Footer|Number)[ \t]*:?[ \t]*([^\n]*?)[ \t]*-->")


def furniture_only(text: str, start: int = 0, end: int | None = None) -> bool:
    """``text[start:end]`` holds nothing but white space and page-furniture comments."""
    return _ONLY.match(text, start, len(text) if end is None else end) is not None


def furniture_of(text: str) -> list[str]:
    """The running headers, footers and page numbers ``text`` holds, each once, in order, with
    their kind (``"header: 47699 Federal Register ..."``, ``"footer: page 12"``)."""
    out: list[str] = []
    for m in _TEXTS.finditer(text):
        item = f"{m.group(1).lower()}: {m.group(2)}"
        if m.group(2) and item not in out:
            out.append(item)
    return out

