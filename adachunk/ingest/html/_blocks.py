"""The element tree → Markdown blocks, each with the element it came from.

A container (``body``, ``div``, ``section``, a list item) is read as a browser lays it out: its
block children each make their own blocks, and the inline content between them (text, links,
emphasis) forms anonymous paragraphs whose origin is the container. Lists, definition lists,
code, quotes and tables are one block each (a ``<dl>``: one per term); EUR-Lex titles are
merged into headings (:mod:`._eurlex`).
"""

from __future__ import annotations

import re
from typing import Any

from . import _eurlex as eurlex
from ._clean import is_dropped
from ._inline import BLOCK_TAGS, inline_text
from ._tables import Grid, is_layout, point_rows, table_grid
from ._tree import Child, Node
from ..pdf._tables import markdown_table
from .._table_cells import is_period_phrase, stack_header, tidy_rows
from ..converted import Block

_HEADINGS = {f"h{i}": i for i in range(1, 7)}
_BACKTICKS = re.compile(r"`+")


def origin(node: Node) -> dict[str, Any]:
    """The source-map origin of a block made from ``node``: its path and its citable id."""
    out: dict[str, Any] = {"html_path": node.path}
    if node.cite_id:
        out["id"] = node.cite_id
    return out


class Walker:
    """Collects the blocks of one document (or of one list item, quote or cell).

    Args:
        links: ``"text"`` or ``"markdown"`` (see :class:`~adachunk.ingest.html.HtmlOptions`).
        boilerplate: ``"drop"`` or ``"keep"``.
        table_wrapper: wrap pipe tables in ``<Table>`` ... ``</Table>``.
    """

    def __init__(self, links: str, boilerplate: str, table_wrapper: bool):
        self.links = links
        self.boilerplate = boilerplate
        self.table_wrapper = table_wrapper
        self.blocks: list[Block] = []
        self.kinds: list[str] = []  # what each block is: "p", "list", "point", "heading", a EUR-Lex kind
        self.division = 0  # level of the last EUR-Lex division title (articles go one deeper)

    def sub(self) -> Walker:
        """A walker for nested content (a list item, a quote), with the same options."""
        return Walker(self.links, self.boilerplate, self.table_wrapper)

    def texts(self, node: Node) -> list[str]:
        """The Markdown of ``node``'s content, one string per block."""
        w = self.sub()
        w.container(node)
        return [b.text for b in w.blocks]

    def emit(self, text: str, node: Node, kind: str = "p", heading: int = 0) -> None:
        """Add a block; a lead-in paragraph ending in ':' is bound to the list or point after it."""
        if not text.strip():
            return
        if kind in ("list", "point") and self.kinds and self.kinds[-1] == "p" \
                and self.blocks[-1].text.rstrip().endswith(":"):
            self.blocks[-1].bind_next = True
        self.blocks.append(Block(text, origin(node), heading=heading, bind_next=heading > 0))
        self.kinds.append(kind)

    def inline(self, children: list[Child], plain: bool = False) -> str:
        """Inline Markdown of ``children`` with this walker's options."""
        return inline_text(children, self.links, self.boilerplate, plain)

    # --- containers -------------------------------------------------------------------------

    def container(self, node: Node) -> None:
        """Blocks of the block children, anonymous paragraphs of the inline runs between them."""
        run: list[Child] = []
        for child in node.children:
            if isinstance(child, Node) and child.tag in BLOCK_TAGS:
                self.emit(self.inline(run), node)
                run = []
                self.element(child)
            else:
                run.append(child)
        self.emit(self.inline(run), node)

    def element(self, node: Node) -> None:
        """Dispatch one block-level element."""
        if is_dropped(node, self.boilerplate):
            return
        tag = node.tag
        kind = eurlex.eurlex_kind(node) if tag in ("p", "div") else None
        if kind:
            self.eurlex(node, kind)
        elif tag in _HEADINGS:
            level = _HEADINGS[tag]
            text = self.inline(node.children, plain=True)
            if is_period_phrase(text):  # "2022", "Year Ended December 31,": a column header, no section
                self.emit(self.inline(node.children), node)
            else:
                self.emit("#" * level + " " + text, node, "heading", level)
        elif tag == "p":
            self.emit(self.inline(node.children), node)
        elif tag in ("ul", "ol"):
            self.emit(self.list_text(node), node, "list")
        elif tag == "dl":
            self.definitions(node)
        elif tag == "pre":
            self.emit(_fenced(node), node, "code")
        elif tag == "blockquote":
            self.emit(_quoted(self.texts(node)), node, "quote")
        elif tag == "table":
            self.table(node)
        elif tag != "hr":
            self.container(node)

    # --- EUR-Lex ----------------------------------------------------------------------------

    def eurlex(self, node: Node, kind: str) -> None:
        """A EUR-Lex title: a heading, or joined to the title it continues."""
        text = self.inline(node.children, plain=True)
        if not text:
            return
        last = self.kinds[-1] if self.kinds else None
        if kind in eurlex.SUBTITLE_OF and last == eurlex.SUBTITLE_OF[kind]:
            self._extend_title(eurlex.TITLE_JOIN + text, kind)
        elif kind == eurlex.DOC_TITLE and last in (eurlex.DOC_TITLE, eurlex.DOC_TITLE + "+"):
            self._extend_title(" " + text, kind)  # the title's lines (number, date, subject)
        elif kind == eurlex.DOC_TITLE:
            self.emit("# " + text, node, kind, 1)
        elif kind == eurlex.DIVISION:
            self.division = eurlex.division_level(text)
            self.emit("#" * self.division + " " + text, node, kind, self.division)
        elif kind == eurlex.ARTICLE:
            level = min(6, max(self.division, 1) + 1)
            self.emit("#" * level + " " + text, node, kind, level)
        elif kind in eurlex.SUBTITLE_OF:  # a subtitle with no title before it: a heading of its own
            level = min(6, max(self.division, 1) + 1)
            self.emit("#" * level + " " + text, node, "heading", level)
        else:  # a note, or a bare class: a paragraph of its own
            self.emit(self.inline(node.children), node, kind)

    def _extend_title(self, more: str, kind: str) -> None:
        block = self.blocks[-1]
        title = block.text + more
        self.blocks[-1] = Block(title, block.origin, block.heading, block.bind_next)
        self.kinds[-1] = kind + "+"  # joined once: a second subtitle is a heading of its own

    # --- lists ------------------------------------------------------------------------------

    def list_text(self, node: Node) -> str:
        """A (nested) list as Markdown lines, numbered as a browser numbers it."""
        ordered = node.tag == "ol"
        number = _int(node.get("start"), 1)
        style = node.get("type").strip() or "1"
        lines: list[str] = []
        for item in node.elements():
            if item.tag in ("ul", "ol") and lines:  # a list written straight inside a list
                lines.extend("  " + ln if ln else ln for ln in self.list_text(item).split("\n"))
                continue
            if item.tag != "li" or is_dropped(item, self.boilerplate):
                continue
            if ordered:
                number = _int(item.get("value"), number)
                marker = _label(number, style)
                number += 1
            else:
                marker = "- "
            body = "\n".join(self.texts(item)) or ""
            pad = " " * len(marker)
            item_lines = body.split("\n")
            lines.append((marker + item_lines[0]).rstrip())
            lines.extend(pad + ln if ln.strip() else "" for ln in item_lines[1:])
        return "\n".join(lines)

    def definitions(self, node: Node) -> None:
        """``<dl>``: one block per group of terms, each term in bold, then its definitions."""
        terms: list[str] = []
        defs: list[str] = []
        first: Node | None = None
        for child in _dl_items(node):
            if is_dropped(child, self.boilerplate):
                continue
            if child.tag == "dt":
                if defs:
                    self._definition(terms, defs, first or node)
                    terms, defs, first = [], [], None
                text = self.inline(child.children, plain=True)
                if text:
                    terms.append(f"**{text}**")
                    first = first or child
            elif child.tag == "dd":
                defs.append("\n".join(self.texts(child)))
        self._definition(terms, defs, first or node)

    def _definition(self, terms: list[str], defs: list[str], node: Node) -> None:
        self.emit("\n".join(terms + [d for d in defs if d]), node, "definition")

    # --- tables -----------------------------------------------------------------------------

    def table(self, node: Node) -> None:
        """A pipe table, or EUR-Lex points, or the text of a layout table."""
        grid = table_grid(node)
        if not grid.rows:
            return
        if is_layout(grid):
            for cell in _distinct(grid):
                self.container(cell)
            return
        points = point_rows(grid, lambda cell: self.inline(cell.children, plain=True))
        if points is not None:
            for label, cell in points:
                self.point(label, cell, node)
            return
        caption = next((c for c in node.elements() if c.tag == "caption"), None)
        if caption is not None:
            before = len(self.blocks)
            self.emit(self.inline(caption.children), caption, "caption")
            if len(self.blocks) > before:
                self.blocks[-1].bind_next = True  # a caption belongs with its table
        md = self.pipe_table(grid)
        self.emit(f"<Table>\n{md}\n</Table>" if self.table_wrapper else md, node, "table")

    def pipe_table(self, grid: Grid) -> str:
        """The grid as a pipe table (the PDF converter's format); a spanned cell's text repeated,
        a statement's header rows stacked into one and its signs in their figures' cells."""
        texts: dict[int, str] = {}

        def text(cell: Node | None) -> str:
            if cell is None:
                return ""
            if id(cell) not in texts:
                texts[id(cell)] = self.inline(cell.children, plain=True)
            return texts[id(cell)]

        rows = [[text(c) for c in row] + [""] * (grid.width - len(row)) for row in grid.rows]
        rows = stack_header(rows)  # "Year Ended December 31," over "2022": one header row
        rows = tidy_rows(rows)[0]  # "$" | "1,184" is "$ 1,184", and the emptied column goes
        return markdown_table(rows[0], rows[1:])

    def point(self, label: str, cell: Node | None, table: Node) -> None:
        """A EUR-Lex point ``(a) text``: the label joined to the cell's first block; the cell's
        further blocks (sub-points, following subparagraphs) follow as blocks of their own."""
        if cell is None:
            self.emit(label, table, "point")
            return
        sub = self.sub()
        sub.container(cell)
        if not sub.blocks:
            self.emit(label, table, "point")
            return
        self.emit(f"{label} {sub.blocks[0].text}", table, "point")
        self.blocks.extend(sub.blocks[1:])
        self.kinds.extend(sub.kinds[1:])


def _dl_items(node: Node) -> list[Node]:
    """A ``<dl>``'s terms and definitions, looking through the ``<div>`` wrappers HTML allows."""
    out: list[Node] = []
    for child in node.elements():
        if child.tag == "div":
            out.extend(c for c in child.elements() if c.tag in ("dt", "dd"))
        elif child.tag in ("dt", "dd"):
            out.append(child)
    return out


def _distinct(grid: Grid) -> list[Node]:
    seen: set[int] = set()
    out = []
    for row in grid.rows:
        for cell in row:
            if cell is not None and id(cell) not in seen:
                seen.add(id(cell))
                out.append(cell)
    return out


def _int(value: str, default: int) -> int:
    try:
        return int(value.strip())
    except ValueError:
        return default


def _label(n: int, style: str) -> str:
    """The marker of item ``n`` of an ``<ol type=style>``, with its following space.

    Decimal items stay Markdown's own ordered items ("3. "). Letters and roman numerals are
    written as a legal text writes them, in parentheses ("(a) ", "(iv) ", "(B) "): Markdown has
    no lettered list, and "a." reads as neither a point nor a definition's number to the legal
    rules (``rules/legal.yaml``), while "(a)" is what they find in a contract's Markdown.
    """
    label = _ordinal(n, style)
    return f"({label}) " if style in ("a", "A", "i", "I") and not label.isdigit() else f"{label}. "


def _ordinal(n: int, style: str) -> str:
    """The number a browser shows for ``<ol type=...>``: 1, a, A, i, I."""
    if style in ("a", "A") and n > 0:
        s = ""
        while n > 0:
            n, r = divmod(n - 1, 26)
            s = chr(ord("a") + r) + s
        return s.upper() if style == "A" else s
    if style in ("i", "I") and 0 < n < 4000:
        s = _roman(n)
        return s.upper() if style == "I" else s
    return str(n)


def _roman(n: int) -> str:
    out = ""
    for value, digits in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"),
                          (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        while n >= value:
            out += digits
            n -= value
    return out


def _fenced(node: Node) -> str:
    """``<pre>`` as a fenced code block: its text exactly, a fence longer than any backtick run."""
    code = _pre_text(node).strip("\n")
    if not code.strip():
        return ""
    longest = max((len(run) for run in code.split("\n") for run in _backtick_runs(run)), default=0)
    fence = "`" * max(3, longest + 1)
    lang = next((c.split("-", 1)[1] for n in (node, *node.elements()) for c in n.classes
                 if c.startswith(("language-", "lang-")) and "-" in c), "")
    return f"{fence}{lang}\n{code}\n{fence}"


def _pre_text(node: Node) -> str:
    parts = []
    for c in node.children:
        if isinstance(c, str):
            parts.append(c)
        elif c.tag == "br":
            parts.append("\n")
        elif not is_dropped(c, "keep"):
            parts.append(_pre_text(c))
    return "".join(parts).replace("\r\n", "\n")


def _backtick_runs(line: str) -> list[str]:
    return _BACKTICKS.findall(line)


def _quoted(texts: list[str]) -> str:
    """Blocks as one Markdown quote: every line prefixed with ``> ``."""
    body = "\n\n".join(t for t in texts if t.strip())
    return "\n".join("> " + ln if ln else ">" for ln in body.split("\n")) if body else ""
