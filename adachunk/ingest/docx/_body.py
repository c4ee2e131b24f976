"""The body of a Word document → Markdown :class:`~adachunk.ingest.converted.Block` s.

Walks ``w:body`` in document order: paragraphs become headings, numbered or bulleted items or
plain paragraphs; tables become pipe tables; footnotes, endnotes and kept comments follow the
paragraph (or table) citing them, bound to it. Every ``w:p`` and ``w:tbl`` met is counted, so a
block's origin names the element's position among the body's paragraphs (tables) in document
order, those inside tables and nested tables included, text boxes and drawings excluded.

A *layout table* (a single cell, or cells that each hold a nested table or nothing) is not data:
Word users build forms and page layouts with them (``240-DOP-1013A``: the whole document is a
table of tables). Its cells are unwrapped into blocks in reading order instead of becoming one
pipe table. In a data table, a nested table is flattened to text inside its cell.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._numbering import Label, Numbering
from ._package import Package
from ._styles import Styles
from ._tables import cells_of, rows_of, table_grid
from ._text import InlineReader, NoteRef, note_text, part_text
from ._xml import R_NS, W, val
from ..pdf._tables import markdown_table
from .._table_cells import is_period_phrase, stack_header, tidy_rows
from ..pdf._text import comment_text
from ..converted import Block


@dataclass
class Paragraph:
    """One rendered ``w:p``.

    Attributes:
        index: its position among the body's paragraphs.
        text: the run text.
        label: its list label (None: not numbered).
        style: the style's display name.
        heading: heading level 1-9, 0 for body text.
        notes: notes it cites.
        comments: ids of comments anchored in it.
    """

    index: int
    text: str
    label: Label | None
    style: str | None
    heading: int
    notes: list[NoteRef] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)

    def markdown(self) -> str:
        """The paragraph's Markdown: heading marks, list label and text."""
        label = self.label
        lead = ""
        if label is not None:
            lead = "- " if label.bullet and not self.heading else label.text + label.suffix
        if self.heading:
            return "#" * min(self.heading, 6) + " " + lead + self.text
        text = self.text
        if not lead and (text[:1] in ("#", ">") or text.startswith(("<!--", "<Table>"))):
            text = "\\" + text  # plain text that Markdown would read as a heading, quote or marker
        return lead + text

    def origin(self) -> dict[str, Any]:
        """The source-map entry of the paragraph."""
        out: dict[str, Any] = {"docx_paragraph": self.index}
        if self.label is not None:
            out["numbering"] = self.label.text
        if self.style:
            out["style"] = self.style
        return out


class BodyWalker:
    """Converts a parsed package's body into blocks (one pass; not reusable).

    Args:
        pkg: the package's parts.
        options: a :class:`~adachunk.ingest.docx.DocxOptions`.
    """

    def __init__(self, pkg: Package, options: Any):
        self.pkg, self.opt = pkg, options
        self.styles = Styles(pkg.styles)
        self.numbering = Numbering(pkg.numbering, self.styles, pkg.source)
        self.inline = InlineReader(options.tracked_changes)
        self.blocks: list[Block] = []
        self.lists: list[bool] = []  # per block: a list item (for lead-in binding)
        self.n_par = self.n_tbl = 0
        self.shift = _title_shift(pkg.document.find(W + "body"), self.styles)

    def run(self) -> list[Block]:
        """All blocks: headers, body, footers."""
        body = self.pkg.document.find(W + "body")
        headers, footers = self._furniture()
        for part, text in headers:
            self._add(Block(f"<!-- PageHeader: {comment_text(text)} -->", {"docx_part": part}))
        if body is not None:
            self.container(body)
        for part, text in footers:
            self._add(Block(f"<!-- PageFooter: {comment_text(text)} -->", {"docx_part": part}))
        self._bind_lead_ins()
        return self.blocks

    def _add(self, block: Block, is_list: bool = False) -> None:
        self.blocks.append(block)
        self.lists.append(is_list)

    def container(self, el: Any) -> None:
        """Blocks of a body, a cell of a layout table or a content control, in order."""
        for ch in el:
            if ch.tag == W + "p":
                self.paragraph(ch)
            elif ch.tag == W + "tbl":
                self.table(ch)
            elif ch.tag == W + "sdt":
                inner = ch.find(W + "sdtContent")
                if inner is not None:
                    self.container(inner)
            elif ch.tag == W + "customXml":
                self.container(ch)

    def read_paragraph(self, p: Any) -> Paragraph:
        """Render one ``w:p``, advancing the paragraph count and the list counters."""
        ppr = p.find(W + "pPr")
        sid = val(ppr, "pStyle") or self.styles.default_paragraph
        inline = self.inline.paragraph(p)
        label = None
        if not (not inline.text and self._mark_removed(ppr)):  # a removed paragraph is not counted
            label = self.numbering.paragraph(ppr, sid)
        index, self.n_par = self.n_par, self.n_par + 1
        heading = self.styles.heading_level(sid, ppr)
        if heading and label is None and is_period_phrase(inline.text):
            heading = 0  # "2022", "Year Ended December 31,": a column header, never a section
        elif heading and self.shift and not self.styles.is_title(sid):
            heading += self.shift  # Title is "#", so Heading 1 is "##" (see _title_shift)
        return Paragraph(index, inline.text, label, self.styles.name(sid), heading, inline.notes, inline.comments)

    def _mark_removed(self, ppr: Any) -> bool:
        """The paragraph mark is a tracked deletion (accepting) or insertion (rejecting)."""
        rpr = ppr.find(W + "rPr") if ppr is not None else None
        gone = W + ("del" if self.opt.tracked_changes == "accept" else "ins")
        return rpr is not None and rpr.find(gone) is not None

    def paragraph(self, p: Any) -> None:
        """Emit a paragraph block, then its notes and comments."""
        para = self.read_paragraph(p)
        if not para.text:
            return
        self._add(Block(para.markdown(), para.origin(), heading=min(para.heading, 6),
                        bind_next=bool(para.heading)), is_list=para.label is not None and not para.heading)
        self._attached(para.notes, para.comments)

    def _attached(self, notes: list[NoteRef], comments: list[str]) -> None:
        """Notes and kept comments after the block citing them, each bound to what precedes it."""
        for note in notes:
            root = self.pkg.footnotes if note.kind == "footnote" else self.pkg.endnotes
            text = note_text(root, note.kind, note.id, self.opt.tracked_changes)
            self._bound(Block(f"[^{note.mark}]: {text}".rstrip(), {f"docx_{note.kind}": note.id}))
        if self.opt.comments == "keep" and self.pkg.comments is not None:
            for cid in comments:
                found = next((c for c in self.pkg.comments.iter(W + "comment") if c.get(W + "id") == cid), None)
                text = part_text(found, self.opt.tracked_changes) if found is not None else ""
                if text:
                    self._bound(Block(f"<!-- Comment: {comment_text(text)} -->", {"docx_comment": cid}))

    def _bound(self, block: Block) -> None:
        if self.blocks:
            self.blocks[-1].bind_next = True
        self._add(block)

    def table(self, tbl: Any) -> None:
        """Emit a data table as a pipe table, or unwrap a layout table into its cells' blocks."""
        self.n_tbl += 1
        if _is_layout(tbl, self.opt.tracked_changes):
            for tr in rows_of(tbl, self.opt.tracked_changes):
                for tc in cells_of(tr):
                    self.container(tc)
            return
        index = self.n_tbl - 1
        notes: list[NoteRef] = []
        comments: list[str] = []
        grid = table_grid(tbl, lambda tc: self._cell(tc, notes, comments), self.opt.tracked_changes)
        if not grid or not any(c.strip() for row in grid for c in row):
            return
        rows = [row for row in grid if any(c.strip() for c in row)]  # spacer rows of forms
        rows = stack_header(rows)  # "Year Ended December 31," over "2022": one header row
        rows = tidy_rows(rows)[0]  # "$" | "1,184" is "$ 1,184", and the emptied column goes
        md = markdown_table(rows[0], rows[1:])
        if self.opt.table_wrapper:
            md = f"<Table>\n{md}\n</Table>"
        self._add(Block(md, {"docx_table": index}))
        self._attached(notes, comments)

    def _cell(self, el: Any, notes: list[NoteRef], comments: list[str]) -> str:
        """A cell's paragraphs (nested tables flattened) as one line of text."""
        texts = []
        for ch in el:
            if ch.tag == W + "p":
                para = self.read_paragraph(ch)
                notes.extend(para.notes)
                comments.extend(para.comments)
                if para.text:
                    lead = "" if para.label is None else para.label.text + (para.label.suffix or "")
                    texts.append(lead + para.text)
            elif ch.tag == W + "tbl":
                self.n_tbl += 1
                for tr in rows_of(ch, self.opt.tracked_changes):
                    texts.extend(t for tc in cells_of(tr) if (t := self._cell(tc, notes, comments)))
            elif ch.tag in (W + "sdt", W + "customXml", W + "sdtContent"):
                texts.append(self._cell(ch, notes, comments))
        return " ".join(t for t in texts if t)

    def _furniture(self) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """(part, text) of the distinct headers and footers the sections reference, in order."""
        if self.opt.furniture == "drop":
            return [], []
        out: tuple[list[tuple[str, str]], list[tuple[str, str]]] = ([], [])
        seen: set[tuple[int, str]] = set()
        for sect in self.pkg.document.iter(W + "sectPr"):
            for k, (ref, parts) in enumerate((("headerReference", self.pkg.headers),
                                              ("footerReference", self.pkg.footers))):
                for r in sect.findall(W + ref):
                    found = parts.get(r.get("{" + R_NS + "}id") or "")
                    text = part_text(found[1], self.opt.tracked_changes) if found else ""
                    if text and (k, text) not in seen:
                        seen.add((k, text))
                        out[k].append((found[0], text))
        return out

    def _bind_lead_ins(self) -> None:
        """A paragraph ending with ":" binds to the list item that follows it."""
        for i, block in enumerate(self.blocks[:-1]):
            if (not block.heading and not self.lists[i] and self.lists[i + 1]
                    and block.text.rstrip().endswith(":")):
                block.bind_next = True


def _title_shift(body: Any, styles: Styles) -> int:
    """1 when the document has a ``Title`` paragraph and ``Heading 1`` paragraphs, else 0.

    Word's Title and Heading 1 are both outline level 1, so both would be ``#`` and the title
    would not be above the articles in a chunk's heading path. When both occur, every heading
    but the Title goes one level down (Heading 1 → ``##``, Heading 2 → ``###``; level 6 is the
    floor). A document without a Title, or whose headings start at Heading 2 under its Title,
    keeps its levels as they are.
    """
    if body is None:
        return 0
    title = first = False
    for p in body.iter(W + "p"):
        ppr = p.find(W + "pPr")
        sid = val(ppr, "pStyle") or styles.default_paragraph
        if styles.is_title(sid):
            title = title or any((t.text or "").strip() for t in p.iter(W + "t"))
        elif styles.heading_level(sid, ppr) == 1:
            first = True
        if title and first:
            return 1
    return 0


def _is_layout(tbl: Any, tracked: str) -> bool:
    """A single-cell table, or one whose every cell holds a nested table or nothing."""
    cells = [tc for tr in rows_of(tbl, tracked) for tc in cells_of(tr)]
    if len(cells) == 1:
        return True
    nested = [tc.find(W + "tbl") is not None for tc in cells]
    return any(nested) and all(n or not "".join(t.text or "" for t in tc.iter(W + "t")).strip()
                               for n, tc in zip(nested, cells))


__all__ = ["BodyWalker", "Paragraph"]
