"""Inline content → one line (or a few, at ``<br>``) of Markdown text.

Whitespace is collapsed as a browser collapses it: every run of spaces, tabs and line breaks is
one space, and a line is trimmed at both ends. No-break spaces are collapsed too (a departure
from the browser, on purpose): EUR-Lex writes "1.&nbsp;&nbsp;&nbsp;This Regulation", and the
legal rules read a numbered paragraph as a number followed by ordinary spaces.
"""

from __future__ import annotations

import re
from typing import Iterable

from ._clean import is_dropped
from ._tree import Child, Node

HARD_BREAK = "\x00"  # stands for <br> until whitespace is collapsed, then becomes a line break
_SPACES = re.compile(r"[ \t\n\r\f\u00a0\u200b]+")
_EDGE = " \t\n\r\f\u00a0"
_EMPHASIS = {"b": "**", "strong": "**", "i": "*", "em": "*"}
_CODE = frozenset({"code", "kbd", "samp", "tt"})
# elements that start a new line of text when met inside inline content (a table cell's <p>s)
BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dialog", "dir",
    "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "hgroup", "hr", "html", "legend", "li", "main", "menu", "nav", "ol", "p", "pre", "section",
    "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
})


def inline_text(children: Iterable[Child], links: str = "text", boilerplate: str = "drop",
                plain: bool = False) -> str:
    """The Markdown text of inline content, whitespace collapsed.

    Args:
        children: the nodes and strings to render.
        links: ``"text"`` (a link's text) or ``"markdown"`` (``[text](href)``).
        boilerplate: ``"drop"`` leaves out hidden and chrome elements met inline.
        plain: no emphasis, code or link markup (headings, table headers, terms in bold).
    """
    parts: list[str] = []
    for child in children:
        _render(child, parts, links, boilerplate, plain)
    return collapse("".join(parts))


def collapse(raw: str) -> str:
    """Collapse whitespace as a browser does; each hard break starts a new (trimmed) line."""
    lines = (_SPACES.sub(" ", line).strip(" ") for line in raw.split(HARD_BREAK))
    return "\n".join(line for line in lines if line)


def _render(child: Child, parts: list[str], links: str, boilerplate: str, plain: bool) -> None:
    if isinstance(child, str):
        parts.append(child)
        return
    tag = child.tag
    if is_dropped(child, boilerplate):
        return
    if tag == "br":
        parts.append(HARD_BREAK)
    elif tag == "img":
        alt = child.get("alt").strip()
        if alt:
            parts.append(f" {alt} ")
    elif tag in BLOCK_TAGS:
        # a block inside inline content (a cell's paragraphs, a nested table): keep words apart
        parts.append(" ")
        _children(child, parts, links, boilerplate, plain)
        parts.append(" ")
    elif not plain and tag in _EMPHASIS:
        _wrapped(child, parts, links, boilerplate, _EMPHASIS[tag], _EMPHASIS[tag])
    elif not plain and tag in _CODE:
        _wrapped(child, parts, links, boilerplate, "`", "`")
    elif not plain and tag == "a" and links == "markdown" and _usable_href(child.get("href")):
        _wrapped(child, parts, links, boilerplate, "[", f"]({child.get('href').strip()})")
    else:  # span, sup (a footnote reference stays as its text), a, abbr, ...
        _children(child, parts, links, boilerplate, plain)


def _children(node: Node, parts: list[str], links: str, boilerplate: str, plain: bool) -> None:
    for c in node.children:
        _render(c, parts, links, boilerplate, plain)


def _wrapped(node: Node, parts: list[str], links: str, boilerplate: str, left: str, right: str) -> None:
    """``left`` + content + ``right``, the markers hugging the text (``**bold** word``, never
    ``** bold **``, which Markdown would not read as emphasis); nothing around empty content."""
    inner: list[str] = []
    _children(node, inner, links, boilerplate, False)
    raw = "".join(inner)
    core = raw.strip(_EDGE)
    if not core or HARD_BREAK in core:
        parts.append(raw)
        return
    lead = raw[: len(raw) - len(raw.lstrip(_EDGE))]
    trail = raw[len(raw.rstrip(_EDGE)):]
    parts.append(f"{lead}{left}{core}{right}{trail}")


def _usable_href(href: str) -> bool:
    href = href.strip()
    return bool(href) and not href.lower().startswith(("javascript:", "data:"))
