"""Generators of hostile inputs: every case is built in a test's tmp_path, never committed.

Each function returns the bytes of one file (or writes it, for the big ones, so that the test
process never holds them). The cases are issue 50's list: Word numbering, spans, inflation and
malformed parts; HTML nesting, codecs and UTF-16; PDF render size, reference loops and content
bombs; and the ones that already held (XXE, billion laughs, zip-slip, zip bombs, encrypted PDF).
"""

from __future__ import annotations

import codecs
import io
import zipfile
import zlib
from pathlib import Path

from ..docx_builder import NS, build_docx, lvl, p  # noqa: F401 (NS for the tests)

# ---------------------------------------------------------------- Word


def numbered(fmt: str = "lowerRoman", start: int = 10**18, ilvl: str = "0", paras: int = 3) -> bytes:
    """A list whose level counts from ``start`` in ``fmt``; ``ilvl`` is written as given."""
    level = lvl(0, fmt, "%1.", start=start).replace('w:ilvl="0"', f'w:ilvl="{ilvl}"')
    numbering = (f'<w:abstractNum w:abstractNumId="1">{level}</w:abstractNum>'
                 '<w:num w:numId="1"><w:abstractNumId w:val="1"/></w:num>')
    body = "".join(p(f"item {i}", num=(1, 0)) for i in range(paras)) + p("after the list")
    return build_docx(body, numbering=numbering)


def sym(char: str) -> bytes:
    """A paragraph with a ``w:sym`` whose ``w:char`` is ``char``, between two words."""
    return build_docx(p(f'<w:r><w:t>before</w:t><w:sym w:font="Symbol" w:char="{char}"/>'
                        '<w:t>after</w:t></w:r>'))


def spans(grid_span: int = 1, before: int = 0, after: int = 0) -> bytes:
    """A two-row table whose first cell spans ``grid_span`` columns, rows padded by ``before``/``after``."""
    trpr = f'<w:trPr><w:gridBefore w:val="{before}"/><w:gridAfter w:val="{after}"/></w:trPr>'
    cell = '<w:tc><w:tcPr><w:gridSpan w:val="{}"/></w:tcPr>{}</w:tc>'
    rows = "".join(f"<w:tr>{trpr}{cell.format(grid_span, p('head'))}{cell.format(1, p('x'))}</w:tr>"
                   for _ in range(2))
    return build_docx(f"<w:tbl>{rows}</w:tbl>" + p("after the table"))


def tiny_runs(path: Path, inflated_mb: float) -> Path:
    """A .docx whose document.xml inflates to ``inflated_mb`` MB of one-letter runs (compresses ~300:1)."""
    run = b"<w:r><w:t>a</w:t></w:r>"
    head = (f'<?xml version="1.0" encoding="UTF-8"?><w:document {NS}><w:body><w:p>').encode()
    tail = b"</w:p></w:body></w:document>"
    reps = int(inflated_mb * 1e6 / len(run))
    skeleton = zipfile.ZipFile(io.BytesIO(build_docx(p("x"))))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for info in skeleton.infolist():
            if info.filename != "word/document.xml":
                z.writestr(info.filename, skeleton.read(info))
        with z.open("word/document.xml", "w", force_zip64=True) as f:
            f.write(head)
            chunk = run * 10_000
            for _ in range(reps // 10_000):
                f.write(chunk)
            f.write(tail)
    return path


def main_part(root: str = "w:glossaryDocument") -> bytes:
    """A package whose main part's root is ``root`` instead of ``w:document``."""
    data = build_docx(p("text"))
    return _replace(data, "word/document.xml",
                    f'<?xml version="1.0"?><{root} {NS}><w:body>{p("hidden text")}</w:body></{root}>'.encode())


def entity_in_text() -> bytes:
    """A ``w:t`` holding an entity reference between two words; the DTD declares it, and the
    hardened parser leaves it unresolved (a node in the ``w:t``, the text after it its tail)."""
    doc = (f'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY ent "expanded">]><w:document {NS}><w:body><w:p><w:r>'
           '<w:t>before &ent; after</w:t></w:r></w:p></w:body></w:document>')
    return _replace(build_docx(p("x")), "word/document.xml", doc.encode())


def xxe(target: Path) -> bytes:
    """A document.xml declaring an external entity that names ``target`` (a local file)."""
    doc = (f'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file://{target}">]>'
           f'<w:document {NS}><w:body><w:p><w:r><w:t>leak: &x;</w:t></w:r></w:p></w:body></w:document>')
    return _replace(build_docx(p("x")), "word/document.xml", doc.encode())


def billion_laughs() -> bytes:
    """Entities that expand tenfold per level, nine levels deep (a billion "lol")."""
    ents = '<!ENTITY l0 "lol">' + "".join(
        f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10))
    doc = (f'<?xml version="1.0"?><!DOCTYPE d [{ents}]><w:document {NS}><w:body><w:p><w:r>'
           '<w:t>&l9;</w:t></w:r></w:p></w:body></w:document>')
    return _replace(build_docx(p("x")), "word/document.xml", doc.encode())


def zip_slip() -> bytes:
    """A package with members named outside any folder (``../../evil.txt``, an absolute path)."""
    buf = io.BytesIO(build_docx(p("safe text")))
    with zipfile.ZipFile(buf, "a") as z:
        z.writestr("../../evil.txt", "pwned")
        z.writestr("/tmp/evil_abs.txt", "pwned")
    return buf.getvalue()


def zip_bomb(path: Path, inflated_mb: int = 600) -> Path:
    """A .docx whose document.xml inflates to ``inflated_mb`` MB of one byte (over the 512 MB limit)."""
    skeleton = zipfile.ZipFile(io.BytesIO(build_docx(p("x"))))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for info in skeleton.infolist():
            if info.filename != "word/document.xml":
                z.writestr(info.filename, skeleton.read(info))
        with z.open("word/document.xml", "w", force_zip64=True) as f:
            block = b" " * (1 << 20)
            for _ in range(inflated_mb):
                f.write(block)
    return path


def _replace(data: bytes, name: str, content: bytes) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            z.writestr(info.filename, content if info.filename == name else src.read(info))
    return out.getvalue()


# ---------------------------------------------------------------- HTML


def deep_html(depth: int, open_: str = "<div>", close: str = "</div>") -> bytes:
    """Text nested ``depth`` times in ``open_`` ... ``close``."""
    return f"<html><body>{open_ * depth}deep text{close * depth}</body></html>".encode()


def deep_with_chrome(depth: int = 300) -> bytes:
    """Below the tree's depth limit: content, a script, a style, a nav and hidden text."""
    inner = ("<p>visible words</p><script>var secret_script = 1;</script><style>.secret_style{}</style>"
             "<nav>secret_nav</nav><div hidden>secret_hidden</div><span style='display:none'>secret_none</span>")
    return f"<html><body>{'<div>' * depth}{inner}{'</div>' * depth}</body></html>".encode()


def charset(label: str) -> bytes:
    """A page declaring ``<meta charset=label>``."""
    return (f'<html><head><meta charset="{label}"><title>t</title></head>'
            "<body><p>hello plain words</p></body></html>").encode()


def utf16_odd() -> bytes:
    """A UTF-16 page (BOM) with one byte too many at its end."""
    return codecs.BOM_UTF16_LE + "<html><body><p>hello words</p></body></html>".encode("utf-16-le") + b"x"


# ---------------------------------------------------------------- PDF


def pdf(objects: list[bytes]) -> bytes:
    """A PDF of ``objects`` (object 1 is the catalog) with a correct cross-reference table."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _stream(data: bytes, extra: bytes = b"") -> bytes:
    z = zlib.compress(data, 9)
    return b"<< /Length %d /Filter /FlateDecode %s >>\nstream\n" % (len(z), extra) + z + b"\nendstream"


def huge_mediabox(side: float = 14400 * 50) -> bytes:
    """One image-only page (a 1x1 grey image) whose MediaBox is ``side`` points square."""
    img = b"<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray " \
          b"/BitsPerComponent 8 /Length 1 >>\nstream\n\x80\nendstream"
    return pdf([b"<< /Type /Catalog /Pages 2 0 R >>",
                b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /XObject << /Im1 5 0 R >> >> "
                b"/Contents 4 0 R >>" % (side, side),
                _stream(b"q %d 0 0 %d 0 0 cm /Im1 Do Q" % (side, side)),
                img])


def reference_loop() -> bytes:
    """A page whose /Contents is an indirect reference that resolves to itself, through another."""
    return pdf([b"<< /Type /Catalog /Pages 2 0 R >>",
                b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
                b"/Resources << /Font << /F1 6 0 R >> >> >>",
                b"5 0 R",
                b"4 0 R",
                b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"])


def content_bomb(inflated_mb: float = 300) -> bytes:
    """A page whose content stream inflates to ``inflated_mb`` MB of text-drawing operators."""
    op = b"BT /F1 1 Tf 1 0 0 1 10 10 Tm (a) Tj ET\n"
    body = op * int(inflated_mb * 1e6 / len(op))
    return pdf([b"<< /Type /Catalog /Pages 2 0 R >>",
                b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
                b"/Resources << /Font << /F1 5 0 R >> >> >>",
                _stream(body),
                b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"])


def text_pdf(text: str = "Hello plain words on a page.") -> bytes:
    """A one-page PDF with one line of text (a good file beside the bombs)."""
    return pdf([b"<< /Type /Catalog /Pages 2 0 R >>",
                b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
                b"/Resources << /Font << /F1 5 0 R >> >> >>",
                _stream(b"BT /F1 12 Tf 72 700 Td (%s) Tj ET" % text.encode("latin-1")),
                b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"])


def unmapped_glyphs(text: str = "Words that map.", glyphs: int = 3) -> bytes:
    """A one-page PDF with a line of text and a second line of ``glyphs`` glyphs drawn in a
    composite font (Identity-H) without a ToUnicode map: each comes out as "(cid:65)" (ADA406)."""
    content = (b"BT /F1 12 Tf 72 700 Td (%s) Tj ET BT /F2 12 Tf 72 680 Td <%s> Tj ET"
               % (text.encode("latin-1"), b"0041" * glyphs))
    return pdf([b"<< /Type /Catalog /Pages 2 0 R >>",
                b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
                b"/Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>",
                _stream(content),
                b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
                b"<< /Type /Font /Subtype /Type0 /BaseFont /NoMap /Encoding /Identity-H /DescendantFonts [7 0 R] >>",
                b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /NoMap /CIDSystemInfo << /Registry (Adobe) "
                b"/Ordering (Identity) /Supplement 0 >> /DW 500 >>"])
