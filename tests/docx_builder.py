"""A minimal .docx writer for tests: raw WordprocessingML strings into a valid package."""

from __future__ import annotations

import io
import zipfile

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
NS = f'xmlns:w="{W_NS}" xmlns:r="{R_NS}"'
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
_PARTS = {  # part → (relationship type, content type suffix)
    "styles": ("styles", "styles"),
    "numbering": ("numbering", "numbering"),
    "footnotes": ("footnotes", "footnotes"),
    "endnotes": ("endnotes", "endnotes"),
    "comments": ("comments", "comments"),
    "header1": ("header", "header"),
    "footer1": ("footer", "footer"),
}
_ROOT = {"styles": "styles", "numbering": "numbering", "footnotes": "footnotes", "endnotes": "endnotes",
         "comments": "comments", "header1": "hdr", "footer1": "ftr"}


def p(text: str = "", style: str | None = None, num: tuple[int, int] | None = None, extra: str = "") -> str:
    """A paragraph: optional style id, (numId, ilvl), extra pPr and run XML in ``text`` if it has '<'."""
    ppr = ""
    if style:
        ppr += f'<w:pStyle w:val="{style}"/>'
    if num:
        ppr += f'<w:numPr><w:ilvl w:val="{num[1]}"/><w:numId w:val="{num[0]}"/></w:numPr>'
    ppr += extra
    runs = text if "<" in text else (f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>' if text else "")
    return f"<w:p>{'<w:pPr>' + ppr + '</w:pPr>' if ppr else ''}{runs}</w:p>"


def lvl(ilvl: int, fmt: str, text: str, start: int = 1, extra: str = "") -> str:
    """A numbering level."""
    return (f'<w:lvl w:ilvl="{ilvl}"><w:start w:val="{start}"/><w:numFmt w:val="{fmt}"/>'
            f'<w:lvlText w:val="{text}"/>{extra}</w:lvl>')


def build_docx(body: str, *, sect: str = "", **parts: str) -> bytes:
    """A .docx whose body is ``body``; ``parts`` (styles, numbering, footnotes, endnotes, comments,
    header1, footer1) are the inner XML of those parts' root elements."""
    rels, overrides = [], []
    for i, (name, inner) in enumerate(parts.items(), start=1):
        rel, ctype = _PARTS[name]
        rels.append(f'<Relationship Id="rId{i}" Type="{_REL}{rel}" Target="{name}.xml"/>')
        overrides.append(f'<Override PartName="/word/{name}.xml" ContentType="application/'
                         f'vnd.openxmlformats-officedocument.wordprocessingml.{ctype}+xml"/>')
    files = {
        "[Content_Types].xml": (
            '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
            'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
            'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override '
            'PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.'
            'wordprocessingml.document.main+xml"/>' + "".join(overrides) + "</Types>"),
        "_rels/.rels": (
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/'
            f'package/2006/relationships"><Relationship Id="rId1" Type="{_REL}officeDocument" '
            'Target="word/document.xml"/></Relationships>'),
        "word/_rels/document.xml.rels": (
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/'
            'package/2006/relationships">' + "".join(rels) + "</Relationships>"),
        "word/document.xml": (f'<?xml version="1.0" encoding="UTF-8"?><w:document {NS}><w:body>{body}'
                              f"<w:sectPr>{sect}</w:sectPr></w:body></w:document>"),
    }
    for name, inner in parts.items():
        root = _ROOT[name]
        files[f"word/{name}.xml"] = f'<?xml version="1.0" encoding="UTF-8"?><w:{root} {NS}>{inner}</w:{root}>'
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files.items():
            z.writestr(name, text)
    return buf.getvalue()
