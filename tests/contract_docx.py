"""Write a Markdown contract as a Word file whose clause numbers Word generates.

The legal profile keys on "Article 3", "2." and "(b)"; in a Word contract those labels are not in
the text but in ``word/numbering.xml``. :func:`write_contract_docx` turns the simple Markdown of
``tests/fixtures/docx/service_agreement.md`` (``#`` title, ``## Article N Title`` headings,
``N.`` paragraphs, ``(a)`` points, plain paragraphs) into such a file: the labels are stripped
from the text and produced by one multilevel list (``Article %1`` on the heading style, ``%2.``,
``(%3)``), so reading the file back tests the numbering renderer, not a copy of the labels.

    python tests/contract_docx.py tests/fixtures/docx/service_agreement.md examples/service_agreement.docx
"""

from __future__ import annotations

import re
import sys
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_FIXED_TIME = (2024, 1, 1, 0, 0, 0)  # zip entry times: the same bytes on every run

CONTENT_TYPES = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>
<Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/>
</Types>"""

ROOT_RELS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
</Relationships>"""

DOC_RELS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>
</Relationships>"""

# The article heading style carries level 0 of the list, as legal templates do.
STYLES = f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="{W}">
<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/>
<w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr><w:outlineLvl w:val="1"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:basedOn w:val="Normal"/></w:style>
</w:styles>"""

NUMBERING = f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:numbering xmlns:w="{W}">
<w:abstractNum w:abstractNumId="0"><w:multiLevelType w:val="multilevel"/>
<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:pStyle w:val="Heading2"/><w:suff w:val="space"/><w:lvlText w:val="Article %1"/></w:lvl>
<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%2."/></w:lvl>
<w:lvl w:ilvl="2"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="(%3)"/></w:lvl>
</w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
</w:numbering>"""

_ARTICLE = re.compile(r"^## Article \d+ (.+)$")
_PARAGRAPH = re.compile(r"^\d+\. (.+)$")
_POINT = re.compile(r"^\([a-z]\) (.+)$")


def _p(text: str, style: str | None = None, level: int | None = None) -> str:
    """One ``w:p``: its style, its list level (numId 1) and one run of text."""
    props = f'<w:pStyle w:val="{style}"/>' if style else ""
    if level is not None:
        props += f'<w:numPr><w:ilvl w:val="{level}"/><w:numId w:val="1"/></w:numPr>'
    ppr = f"<w:pPr>{props}</w:pPr>" if props else ""
    return f'<w:p>{ppr}<w:r><w:t xml:space="preserve">{escape(text)}</w:t></w:r></w:p>'


def paragraphs(markdown: str) -> list[str]:
    """The ``w:p`` elements of the contract, labels left to the numbering definitions."""
    out = []
    for block in (b.strip() for b in markdown.split("\n\n")):
        if not block:
            continue
        if block.startswith("# "):
            out.append(_p(block[2:], "Title"))
        elif m := _ARTICLE.match(block):
            out.append(_p(m.group(1), "Heading2"))  # "Article N" comes from the style's list level
        elif m := _PARAGRAPH.match(block):
            out.append(_p(m.group(1), "ListParagraph", 1))
        elif m := _POINT.match(block):
            out.append(_p(m.group(1), "ListParagraph", 2))
        else:
            out.append(_p(block))
    return out


def write_contract_docx(markdown: str, out: Path) -> None:
    """Write ``markdown`` (the contract's Markdown twin) as a .docx at ``out`` (same bytes each run)."""
    body = "".join(paragraphs(markdown))
    document = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="{W}">'
                f"<w:body>{body}<w:sectPr/></w:body></w:document>")
    parts = {"[Content_Types].xml": CONTENT_TYPES, "_rels/.rels": ROOT_RELS, "word/document.xml": document,
             "word/_rels/document.xml.rels": DOC_RELS, "word/styles.xml": STYLES, "word/numbering.xml": NUMBERING}
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in parts.items():
            z.writestr(zipfile.ZipInfo(name, _FIXED_TIME), text.encode("utf-8"), zipfile.ZIP_DEFLATED)


if __name__ == "__main__":
    src, dst = Path(sys.argv[1]), Path(sys.argv[2])
    write_contract_docx(src.read_text(encoding="utf-8"), dst)
    print(f"{src} -> {dst}")
