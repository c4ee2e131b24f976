"""The parts of a ``.docx`` package, read from the zip with size limits.

Only the parts the converter uses are inflated (main document, styles, numbering, notes,
comments, headers and footers), each found through the package relationships rather than by a
fixed name (``240-DOP-1013A`` names its header ``word/header.xml``). A zip bomb is refused before
inflating: the declared uncompressed sizes of the parts must fit the input size limit
(:func:`~adachunk.ingest.files.max_input_bytes`), and each part is read with a bound in case the
declared size lies.

The limit counts inflated bytes, but a parsed tree costs far more than its XML: a 400 MB
``document.xml`` of tiny runs (``<w:r><w:t>a</w:t></w:r>``, two elements per 22 bytes) would
need ~30x that as lxml elements. So the parts also share a budget of elements, one per
:data:`BYTES_PER_ELEMENT` bytes of the limit (4.2 million under the default 512 MB, ten times
what a 1,000-page contract holds), counted from the markup's ``<`` as each part inflates, a
megabyte at a time (``ADA318``): a 1 MB file of 400 MB tiny runs is refused in half a second and
75 MB, where it took more than 8 GB.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from dataclasses import dataclass, field
from typing import Any

from ...errors import InputError, Location
from ._xml import R_NS, W, parse_xml

_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
_OFFICE_DOC = "/officeDocument"
# one element of budget per this many bytes of the input size limit; a parsed element costs
# ~100-200 bytes in lxml, so the tree stays within about the limit itself
BYTES_PER_ELEMENT = 128
_CHUNK = 1 << 20  # parts inflate a megabyte at a time, each checked against the budgets


def malformed(source: str, why: str) -> InputError:
    """``ADA304``: the file is not a readable Word document."""
    return InputError(code="ADA304", message=f"malformed Word document: {why}", location=Location(source),
                      hint="open and re-save it in Word or LibreOffice, or convert it to PDF or HTML")


@dataclass
class Package:
    """The parsed parts a conversion needs (None: the document has no such part).

    Attributes:
        document: the ``w:document`` root.
        styles: the ``w:styles`` root.
        numbering: the ``w:numbering`` root.
        footnotes: the ``w:footnotes`` root.
        endnotes: the ``w:endnotes`` root.
        comments: the ``w:comments`` root.
        headers: relationship id → (part name, ``w:hdr`` root).
        footers: relationship id → (part name, ``w:ftr`` root).
        source: the file's name in errors.
    """

    document: Any
    styles: Any = None
    numbering: Any = None
    footnotes: Any = None
    endnotes: Any = None
    comments: Any = None
    headers: dict[str, tuple[str, Any]] = field(default_factory=dict)
    footers: dict[str, tuple[str, Any]] = field(default_factory=dict)
    source: str = "<input>"


class _Zip:
    """A zip whose reads share one budget of uncompressed bytes."""

    def __init__(self, data: bytes, source: str, limit: int):
        self.source, self.budget = source, limit
        self.elements = self.element_limit = max(1, limit // BYTES_PER_ELEMENT)
        try:
            self.zf = zipfile.ZipFile(io.BytesIO(data))
            self.names = {i.filename: i for i in self.zf.infolist()}
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
            raise malformed(source, f"not a valid zip package ({exc})") from None

    def read(self, name: str, xml: bool = False) -> bytes | None:
        """The inflated part (None when absent), within the byte budget and, for an XML part
        (``xml``), the element budget: both are checked as it inflates, chunk by chunk, so a bomb
        stops after the first megabytes past its budget rather than after inflating whole."""
        info = self.names.get(name.lstrip("/"))
        if info is None:
            return None
        if info.file_size > self.budget:
            raise InputError(code="ADA318", message=f"{self.source}: part {name} inflates to {info.file_size} "
                             f"bytes, over the input size limit", location=Location(self.source),
                             hint="raise the limit (--max-input-mb, ADACHUNK_MAX_INPUT_BYTES) if the file is trusted")
        chunks, size = [], 0
        try:
            with self.zf.open(info) as f:
                while chunk := f.read(_CHUNK):  # never trust the declared size: bound the read itself
                    size += len(chunk)
                    if size > self.budget:
                        raise InputError(code="ADA318", message=f"{self.source}: the parts inflate past the input "
                                         "size limit", location=Location(self.source))
                    if xml:
                        self._spend(chunk.count(b"<"), name)
                    chunks.append(chunk)
        except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
            raise malformed(self.source, f"cannot inflate {name} ({exc})") from None
        self.budget -= size
        return b"".join(chunks)

    def _spend(self, elements: int, name: str) -> None:
        # every element starts with "<": a count in C bounds the tree before lxml builds it
        self.elements -= elements
        if self.elements < 0:
            raise InputError(code="ADA318", message=f"the parts hold more than "
                             f"{self.element_limit} XML elements ({name} among them), over what the input size "
                             "limit allows to parse", location=Location(self.source),
                             hint="raise the limit (--max-input-mb, ADACHUNK_MAX_INPUT_BYTES) if the file is trusted")

    def xml(self, name: str) -> Any:
        data = self.read(name, xml=True)
        return None if data is None else parse_xml(data, self.source, name)


def _rels(z: _Zip, part: str) -> list[tuple[str, str, str]]:
    """(id, type, target part name) of ``part``'s relationships (external targets skipped)."""
    folder, base = posixpath.split(part)
    root = z.xml(posixpath.join(folder, "_rels", base + ".rels"))
    if root is None:
        return []
    out = []
    for rel in root.iter(_REL):
        target = rel.get("Target") or ""
        if rel.get("TargetMode") == "External" or not target:
            continue
        name = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        out.append((rel.get("Id") or "", rel.get("Type") or "", name))
    return out


def open_package(data: bytes, source: str, limit: int) -> Package:
    """Read the parts of a ``.docx`` (``ADA304`` when it is not one, ``ADA318`` over ``limit``)."""
    z = _Zip(data, source, limit)
    main = next((t for _, typ, t in _rels(z, "") if typ.endswith(_OFFICE_DOC)), "word/document.xml")
    document = z.xml(main)
    if document is None and main != "word/document.xml":
        main, document = "word/document.xml", z.xml("word/document.xml")
    if document is None:
        raise malformed(source, "no main document part (word/document.xml)")
    if document.tag != W + "document" or document.find(W + "body") is None:
        # another part type as main part (a glossary, a spreadsheet's) would read as an empty document
        raise malformed(source, f"the main part {main} is not a w:document with a w:body "
                                f"(its root is {str(document.tag)[:80]})")
    pkg = Package(document, source=source)
    single = {"styles": "styles", "numbering": "numbering", "footnotes": "footnotes",
              "endnotes": "endnotes", "comments": "comments"}
    for rid, typ, target in _rels(z, main):
        kind = typ.rsplit("/", 1)[-1]
        if kind in single and getattr(pkg, single[kind]) is None:
            setattr(pkg, single[kind], z.xml(target))
        elif kind in ("header", "footer"):
            root = z.xml(target)
            if root is not None:
                (pkg.headers if kind == "header" else pkg.footers)[rid] = (target, root)
    return pkg


__all__ = ["Package", "R_NS", "malformed", "open_package"]
