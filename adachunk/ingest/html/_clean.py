"""Boilerplate: what of a web page is not the document (scripts, navigation, cookie banners).

Regulations and filings come wrapped in a site's chrome: menus, breadcrumbs, cookie consent
dialogs, "skip to content" links and footers repeat on every page and would otherwise be chunked
and embedded as if they were part of the law. With ``boilerplate="drop"`` they are removed and,
when the page marks its content (``<main>``, ``<article>``), only that content is read.
"""

from __future__ import annotations

import re

from ._tree import Node

# never document text, whatever the options: code, styles, the head's metadata
NEVER_CONTENT = frozenset({"script", "style", "noscript", "template", "head", "title", "meta", "link", "base"})
# interactive or embedded parts of a page, not its text
CHROME_TAGS = frozenset({"iframe", "svg", "nav", "aside", "form", "button", "input", "select", "textarea",
                         "dialog", "object", "embed", "canvas", "audio", "video", "map"})
CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "search"})
_CHROME_WORDS = re.compile(r"cookie|consent|banner|breadcrumb|skip-?link|skip-to|menu|sidebar")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden")
# a class such as "has-sidebar" on the page's frame must not drop the whole page
_NEVER_CHROME = frozenset({"html", "body", "main", "article"})


def is_dropped(node: Node, boilerplate: str) -> bool:
    """Whether ``node`` (and everything in it) is left out of the Markdown."""
    if node.tag in NEVER_CONTENT:
        return True
    return boilerplate == "drop" and (is_hidden(node) or is_chrome(node))


def is_hidden(node: Node) -> bool:
    """``hidden``, ``aria-hidden="true"`` or an inline ``display:none`` / ``visibility:hidden``."""
    attrs = node.attrs
    if "hidden" in attrs or attrs.get("aria-hidden", "").strip().lower() == "true":
        return True
    return bool(_HIDDEN_STYLE.search(attrs.get("style", "").lower()))


def is_chrome(node: Node) -> bool:
    """Page chrome: navigation, forms, the page's own header/footer, consent banners, menus."""
    if node.tag in CHROME_TAGS or node.get("role").strip().lower() in CHROME_ROLES:
        return True
    # only the page's header and footer (body > header): an article's header holds its title
    if node.tag in ("header", "footer") and node.path.count("/") == 3 and node.path.startswith("/html/body/"):
        return True
    if node.tag in _NEVER_CHROME:
        return False
    marks = " ".join((node.get("id"), node.get("class"), node.get("aria-label"))).lower()
    return bool(marks.strip()) and bool(_CHROME_WORDS.search(marks))


def flat_skip(boilerplate: str):
    """What a subtree flattened below the tree's depth limit leaves out, as :func:`is_dropped`
    would have: never-content tags always; with ``"drop"`` also chrome tags and hidden elements
    (the class and role marks of chrome are not looked at there: deep machine-made nesting)."""
    def skip(tag: str, attrs: dict[str, str]) -> bool:
        if tag in NEVER_CONTENT:
            return True
        if boilerplate != "drop":
            return False
        if tag in CHROME_TAGS or attrs.get("role", "").strip().lower() in CHROME_ROLES:
            return True
        hidden = "hidden" in attrs or attrs.get("aria-hidden", "").strip().lower() == "true"
        return hidden or bool(_HIDDEN_STYLE.search(attrs.get("style", "").lower()))
    return skip


def content_roots(root: Node, boilerplate: str) -> list[Node]:
    """Where the document's content is: the first ``<main>`` (or ``role="main"``), else every
    outermost ``<article>``, else ``<body>`` (``boilerplate="keep"``: always the whole page)."""
    if boilerplate != "drop":
        return [root]
    mains: list[Node] = []
    articles: list[Node] = []
    _find(root, mains, articles, boilerplate)
    if mains:
        return mains[:1]
    return articles or [root]


def _find(node: Node, mains: list[Node], articles: list[Node], boilerplate: str) -> None:
    """Collect the first main and the outermost articles that are not themselves dropped."""
    for child in node.elements():
        if is_dropped(child, boilerplate):
            continue
        if child.tag == "main" or child.get("role").strip().lower() == "main":
            mains.append(child)
            return
        if child.tag == "article":
            articles.append(child)
            continue  # an article inside an article is part of it
        _find(child, mains, articles, boilerplate)
        if mains:
            return
