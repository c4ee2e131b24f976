"""Paragraph styles of a ``.docx`` (``word/styles.xml``): names, inheritance, headings, numbering.

Pure functions over the parsed ``w:styles`` root (no I/O). A style inherits through ``w:basedOn``
(cycles are cut); a heading is recognised by the style's id or name (``Heading 1``..``Heading 9``,
``Title``, localised ids such as ``berschrift1`` are not guessed) or by an outline level
(``w:outlineLvl`` 0-8) on the paragraph or anywhere up its style chain.
"""

from __future__ import annotations

import re
from typing import Any

from ._xml import W, int_val, val

_HEADING = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)
_TITLE = {"title"}


class Styles:
    """Lookup of the styles in ``word/styles.xml``.

    Args:
        root: the parsed ``w:styles`` element, or None when the document has no styles part.
    """

    def __init__(self, root: Any = None):
        self.by_id: dict[str, Any] = {}
        self.default_paragraph: str | None = None
        if root is None:
            return
        for st in root.iter(W + "style"):
            sid = st.get(W + "styleId")
            if sid is None:
                continue
            self.by_id.setdefault(sid, st)
            if st.get(W + "type") == "paragraph" and st.get(W + "default") in ("1", "true", "on"):
                self.default_paragraph = sid

    def chain(self, style_id: str | None) -> list[Any]:
        """The style and those it is based on, nearest first (a cycle ends the chain)."""
        out, seen = [], set()
        while style_id is not None and style_id not in seen and style_id in self.by_id:
            seen.add(style_id)
            st = self.by_id[style_id]
            out.append(st)
            style_id = val(st, "basedOn")
        return out

    def name(self, style_id: str | None) -> str | None:
        """The style's display name (``heading 1``), else its id, else None."""
        st = self.by_id.get(style_id) if style_id else None
        return (val(st, "name") or style_id) if st is not None else style_id

    def heading_level(self, style_id: str | None, ppr: Any = None) -> int:
        """Heading level 1-9 of a paragraph with this style and properties, 0 for body text.

        A direct ``w:outlineLvl`` wins; then the style's id or name (``Heading n`` → n, ``Title``
        → 1); then the first outline level up the style chain (level 9 means body text).
        """
        direct = int_val(ppr, "outlineLvl")
        if direct is not None:
            return direct + 1 if 0 <= direct <= 8 else 0
        for key in (style_id, self.name(style_id)):
            if not key:
                continue
            m = _HEADING.match(key.strip())
            if m:
                return int(m.group(1))
            if key.strip().lower() in _TITLE:
                return 1
        for st in self.chain(style_id):
            lvl = int_val(st.find(W + "pPr"), "outlineLvl")
            if lvl is not None:
                return lvl + 1 if 0 <= lvl <= 8 else 0
        return 0

    def is_title(self, style_id: str | None) -> bool:
        """The paragraph style is Word's ``Title`` (by id or display name)."""
        return any(key and key.strip().lower() in _TITLE for key in (style_id, self.name(style_id)))

    def numpr(self, style_id: str | None) -> tuple[str | None, int | None]:
        """(numId, ilvl) the style or its ancestors give their paragraphs ((None, None): none)."""
        for st in self.chain(style_id):
            np = st.find(W + "pPr/" + W + "numPr")
            if np is not None:
                return val(np, "numId"), int_val(np, "ilvl")
        return None, None


__all__ = ["Styles"]
