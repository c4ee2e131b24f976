"""The converter's own small element tree, built from an HTML parser's tree.

The converter walks this tree rather than the parser's: a node knows its XPath-like path
(``/html/body/div[2]/p[3]``) and the id a reader would cite (its own, or its nearest ancestor's),
both computed once while building, and the parser stays a replaceable detail (the benchmark in
``bench/html_readers.py`` builds the same tree from lxml to compare both parsers on equal terms).
The runtime parser is selectolax's Lexbor backend, an HTML5-conformant parser: tag soup is
repaired as a browser repairs it and entities are decoded.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Callable, Iterable, Iterator, Union

# Deeper elements are flattened into text: the converter recurses per level, and no real page
# nests content 200 elements deep (machine-generated nesting would otherwise exhaust the stack).
# The flattening leaves out what ``skip`` says is never text (scripts, styles, navigation, hidden
# elements: see ``_clean.flat_skip``), as the walker would have above that depth.
MAX_DEPTH = 200
# ids an editor's tool generated ("d1e1374-1-1" on EUR-Lex): nobody cites them, so the nearest
# meaningful ancestor id ("art_1", "001.001") is kept instead
_GENERATED_ID = re.compile(r"^d\d+e\d+(?:-\d+)*$")

Child = Union["Node", str]
# (kind, tag, attributes, raw node) for an element, ("text", text, None, None) for text
RawItem = tuple[str, str, Any, Any]
# whether an element (tag, attributes) and all it holds stay out of a flattened deep subtree
Skip = Callable[[str, dict[str, str]], bool]


def _keep_all(tag: str, attrs: dict[str, str]) -> bool:
    return False


class Node:
    """One element: tag, attributes, children (nodes and text strings), path and citable id.

    Attributes:
        tag: the lower-case tag name.
        attrs: the attributes (a boolean attribute has the value ``""``).
        children: child elements and text, in document order.
        path: the XPath-like path; a sibling index only where the parent has several children
            of that tag (as lxml's ``getpath`` writes it).
        cite_id: the element's id, else its nearest ancestor's (generated ids skipped), or None.
    """

    __slots__ = ("tag", "attrs", "children", "path", "cite_id")

    def __init__(self, tag: str, attrs: dict[str, str], path: str, cite_id: str | None):
        self.tag = tag
        self.attrs = attrs
        self.children: list[Child] = []
        self.path = path
        self.cite_id = cite_id

    def get(self, name: str) -> str:
        """The attribute's value, ``""`` when it is absent."""
        return self.attrs.get(name) or ""

    @property
    def classes(self) -> list[str]:
        """The lower-case class names."""
        return self.get("class").lower().split()

    def elements(self) -> Iterator[Node]:
        """The child elements (text skipped)."""
        return (c for c in self.children if isinstance(c, Node))

    def text(self) -> str:
        """All the text below this node, as written (no whitespace processing)."""
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def __repr__(self) -> str:
        return f"Node({self.path})"


def build_tree(root: Any, tag: str, attrs: dict[str, str], children: Callable[[Any], Iterable[RawItem]],
               skip: Skip = _keep_all) -> Node:
    """Build the tree from a parser's root element.

    Args:
        root: the parser's root element (``<html>``).
        tag: its tag.
        attrs: its attributes.
        children: a parser node's children as ``("el", tag, attrs, node)`` / ``("text", text, None, None)``.
        skip: which elements a subtree flattened below :data:`MAX_DEPTH` leaves out.
    """
    node = _node(tag, attrs, "/" + tag, None)
    _fill(node, root, children, skip, 1)
    return node


def flat_text(raw: Any, children: Callable[[Any], Iterable[RawItem]], skip: Skip) -> str:
    """The text below a parser node, in document order, without the elements ``skip`` names.

    Iterative (an explicit stack): the subtree may be thousands of levels deep.
    """
    out: list[str] = []
    stack: list[Iterator[RawItem]] = [iter(children(raw))]
    while stack:
        item = next(stack[-1], None)
        if item is None:
            stack.pop()
            continue
        kind, tag, attrs, sub = item
        if kind == "text":
            out.append(tag)
        elif not skip(tag, attrs):
            stack.append(iter(children(sub)))
    return "".join(out)


def _node(tag: str, attrs: dict[str, str], path: str, parent_id: str | None) -> Node:
    own = attrs.get("id")
    cite = own if own and not _GENERATED_ID.match(own) else parent_id
    return Node(tag, attrs, path, cite)


def _fill(node: Node, raw: Any, children: Callable[[Any], Iterable[RawItem]], skip: Skip, depth: int) -> None:
    items = list(children(raw))
    counts = Counter(item[1] for item in items if item[0] == "el")
    seen: Counter[str] = Counter()
    for kind, tag, attrs, sub in items:
        if kind == "text":
            node.children.append(tag)
            continue
        if depth >= MAX_DEPTH:
            if not skip(tag, attrs):
                node.children.append(" " + flat_text(sub, children, skip) + " ")
            continue
        seen[tag] += 1
        path = f"{node.path}/{tag}" + (f"[{seen[tag]}]" if counts[tag] > 1 else "")
        child = _node(tag, attrs, path, node.cite_id)
        node.children.append(child)
        _fill(child, sub, children, skip, depth + 1)


def _lexbor_children(raw: Any) -> Iterator[RawItem]:
    for c in raw.iter(include_text=True):
        tag = c.tag
        if tag == "-text":
            yield ("text", c.text_content or "", None, None)
        elif tag and tag[0].isalpha():  # comments, doctype and processing instructions are not content
            yield ("el", tag.lower(), {k.lower(): v or "" for k, v in c.attributes.items()}, c)


def parse_html(text: str, skip: Skip = _keep_all) -> Node:
    """Parse ``text`` with selectolax (Lexbor) into a :class:`Node` tree rooted at ``<html>``;
    ``skip`` names the elements a subtree flattened below :data:`MAX_DEPTH` leaves out."""
    from selectolax.lexbor import LexborHTMLParser

    root = LexborHTMLParser(text).root
    if root is None:
        return Node("html", {}, "/html", None)
    attrs = {k.lower(): v or "" for k, v in root.attributes.items()}
    return build_tree(root, "html", attrs, _lexbor_children, skip=skip)
