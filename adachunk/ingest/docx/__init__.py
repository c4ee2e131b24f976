"""Word ``.docx`` → structure-aware Markdown with a source map, fully offline.

The converter reads the package with :mod:`zipfile` and lxml (no Word, no python-docx) and keeps
what a legal or technical reader needs:

* **List numbers as Word displays them.** Clause numbers ("1.2", "(a)", "Article 3") are
  generated from ``word/numbering.xml`` and are not in the paragraph text; adachunk renders them
  itself (:mod:`adachunk.ingest.docx._numbering`) and writes them before the text ("(a) the
  supplier ..."), bullets as ``- ``. Nested levels are not indented (four spaces would be code in
  Markdown): the label carries the hierarchy. A paragraph ending with ":" binds to the list it
  introduces.
* **Headings** from paragraph styles (``Heading 1``..``9`` and ``Title`` by style id or name, or
  an outline level) as ``#``..``######``, numbered headings with their label ("## 1.2
  Definitions"); a heading binds to the block after it.
* **Tables** as pipe tables (the first row the header, ``|`` escaped) inside ``<Table>``
  wrappers as the PDF converter writes them; merged cells repeat their text in every cell they
  cover; nested tables are flattened into their cell; layout tables (a single cell, or cells of
  nested tables) are unwrapped into ordinary blocks.
* **Footnotes and endnotes**: the reference becomes ``[^1]`` (endnotes ``[^i]``) and the note
  ``[^1]: text`` follows the paragraph citing it, bound to it, as in the PDF converter.
* **Tracked changes** accepted (default) or rejected; **comments** dropped or kept as
  ``<!-- Comment: ... -->`` after their paragraph; **headers and footers** as
  ``<!-- PageHeader: ... -->`` / ``<!-- PageFooter: ... -->`` (each distinct one once: headers
  before the body, footers after it) or dropped; fields show their displayed result.

The source map (``Document.meta["source_map"]``) gives each block's origin:
``{"docx_paragraph": i, "numbering": "1.2", "style": "heading 2"}`` where ``i`` counts the
body's ``w:p`` in document order, paragraphs in tables included (text boxes excluded);
``{"docx_table": j}`` likewise for ``w:tbl`` (nested and layout tables counted);
``{"docx_footnote": id}``, ``{"docx_endnote": id}``, ``{"docx_comment": id}`` by ``w:id``; and
``{"docx_part": "word/header1.xml"}`` for furniture.

Errors: ``ADA304`` for a file that is not a readable Word document (not a zip, no main document
part, malformed XML); ``ADA318`` when the parts inflate past the input size limit (a zip bomb is
refused from the sizes the zip declares, before inflating).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from ...components.params import ComponentParams
from ...components.registry import readers
from ...datatypes import Document
from ._body import BodyWalker
from ._package import open_package
from ..converted import Block, Converted, assemble
from ..files import max_input_bytes, read_input_bytes


class DocxOptions(ComponentParams):
    """How a Word document becomes Markdown."""

    tracked_changes: Literal["accept", "reject"] = Field(
        "accept", description="tracked changes: 'accept' (insertions kept, deletions dropped) or 'reject' "
                              "(deletions kept, insertions dropped)")
    comments: Literal["drop", "keep"] = Field(
        "drop", description="reviewer comments: drop them, or keep each as <!-- Comment: ... --> after the "
                            "paragraph it is anchored in")
    furniture: Literal["comment", "drop"] = Field(
        "comment", description="page headers and footers: keep them as <!-- PageHeader/PageFooter --> "
                               "comments, or drop them")
    table_wrapper: bool = Field(True, description="wrap each table in <Table> ... </Table> as in the paper's "
                                                  "format")


def docx_blocks(data: bytes, source: str, options: DocxOptions | None = None) -> list[Block]:
    """The Markdown blocks of a ``.docx`` file, each with its origin.

    Args:
        data: the file's bytes.
        source: its name in messages.
        options: conversion options (defaults when None).

    Returns:
        The blocks in reading order.

    Raises:
        InputError: ``ADA304`` when the bytes are not a readable Word document, ``ADA318`` when
            its parts inflate past the input size limit.
    """
    options = options or DocxOptions()
    pkg = open_package(data, source, max_input_bytes())
    return BodyWalker(pkg, options).run()


def convert_docx(data: bytes, source: str, options: DocxOptions | None = None) -> Converted:
    """Convert a ``.docx`` file to Markdown with gold blocks, heading spans and a source map.

    Args:
        data: the file's bytes.
        source: its name in messages.
        options: conversion options (defaults when None).

    Returns:
        The :class:`~adachunk.ingest.converted.Converted` document; ``meta["format"]`` is ``"docx"``.
    """
    return assemble(docx_blocks(data, source, options), {"format": "docx"})


@readers.register(".docx")
def read_docx(path: Path, source: str, errors: str = "strict", options: DocxOptions | None = None) -> Document:
    """Read a ``.docx`` file into a Markdown :class:`~adachunk.datatypes.Document`.

    Args:
        path: the file.
        source: its name in messages and records.
        errors: accepted for the reader interface; a Word document has no text encoding to repair.
        options: conversion options (defaults when None, as ``run`` and ``chunk`` read it).
    """
    path = Path(path)
    return convert_docx(read_input_bytes(path, source), source, options).document(doc_id=path.name, source=source)


__all__ = ["DocxOptions", "convert_docx", "docx_blocks", "read_docx"]
