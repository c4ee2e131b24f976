"""EUR-Lex markup read as structure: document title, chapter/section and article titles.

EUR-Lex publishes legislation in two HTML formats: the current one, whose classes start with
``oj-`` (``oj-ti-art``), and the legacy one without the prefix (``ti-art``). Neither uses
``<h1>``-``<h6>``: an article title is ``<p class="oj-ti-art">Article 3</p>`` followed by its
subtitle ``<p class="oj-sti-art">Territorial scope</p>``. The converter makes them one Markdown
heading, ``## Article 3 — Territorial scope``, the layout the ``legal`` profile's article rule
reads (a heading mark, the keyword and number, a dash and the title on the same line).
"""

from __future__ import annotations

import re

from ._tree import Node

DOC_TITLE = "doc-ti"
ARTICLE = "ti-art"
ARTICLE_SUBTITLE = "sti-art"
DIVISION = "ti-section-1"
DIVISION_SUBTITLE = "ti-section-2"
NOTE = "note"
_KINDS = (DOC_TITLE, ARTICLE, ARTICLE_SUBTITLE, DIVISION, DIVISION_SUBTITLE, NOTE)
# a subtitle is joined to the title it follows
SUBTITLE_OF = {ARTICLE_SUBTITLE: ARTICLE, DIVISION_SUBTITLE: DIVISION}
TITLE_JOIN = " — "
# divisions below a chapter get a deeper heading, so that a chapter's span holds its sections
_LOWER_DIVISION = re.compile(r"^\s*(?:section|sub-?section)\b", re.IGNORECASE)


def eurlex_kind(node: Node) -> str | None:
    """The EUR-Lex role of a ``<p>`` (or ``<div>``) from its class, in either format, or None."""
    for cls in node.classes:
        name = cls[3:] if cls.startswith("oj-") else cls
        if name in _KINDS:
            return name
    return None


def division_level(title: str) -> int:
    """Heading level of a division title: 1 for a part, title or chapter, 2 for a section."""
    return 2 if _LOWER_DIVISION.match(title) else 1
