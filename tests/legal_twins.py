"""One small contract as Markdown, HTML and Word, and the legal metadata a chunking gives it.

The HTML states its points as ``<ol type="a">`` and the Word file as a ``lowerLetter`` list under
``Heading 1`` articles and a ``Title``; converted, both must give the legal profile what the
Markdown twin's "(a)" points and heading levels give it (issue 48).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .docx_builder import build_docx, lvl, p

from adachunk.api import chunk_document, load_profile
from adachunk.enrich import enrich_records
from adachunk.ingest import read_document
from adachunk.sink.records import chunk_record

MARKDOWN = """# Distribution Agreement

## Article 1 Definitions

In this Agreement:

(a) “Products” means the goods listed in Schedule 1;
(b) “Territory” means the Member States of the European Union;
(c) “Term” means the period set out in Article 2.

## Article 2 Term

The Supplier shall deliver the Products in the Territory during the Term.
"""

_DEFS = ("“Products” means the goods listed in Schedule 1;",
         "“Territory” means the Member States of the European Union;",
         "“Term” means the period set out in Article 2.")
_CLOSE = "The Supplier shall deliver the Products in the Territory during the Term."

HTML = ("<html><body><h1>Distribution Agreement</h1><h2>Article 1 Definitions</h2><p>In this Agreement:</p>"
        '<ol type="a">' + "".join(f"<li>{d}</li>" for d in _DEFS) + "</ol>"
        f"<h2>Article 2 Term</h2><p>{_CLOSE}</p></body></html>")

STYLES = ('<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>'
          '<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>'
          '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>'
          '<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style>')
_NUMBERING = ('<w:abstractNum w:abstractNumId="0">' + lvl(0, "lowerLetter", "(%1)", extra='<w:suff w:val="space"/>')
              + '</w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>')


def docx_bytes(title: str | None = "Title", article: str = "Heading1") -> bytes:
    """The contract as a .docx: its title in style ``title`` (None: no title paragraph), the
    articles in style ``article``, the points a generated ``(%1)`` list."""
    body = (p("Distribution Agreement", title) if title else "") + p("Article 1 Definitions", article)
    body += p("In this Agreement:") + "".join(p(d, num=(1, 0)) for d in _DEFS)
    body += p("Article 2 Term", article) + p(_CLOSE)
    return build_docx(body, styles=STYLES, numbering=_NUMBERING)


def write_twins(folder: Path) -> dict[str, Path]:
    """The three files in ``folder``: ``md``, ``html``, ``docx`` → path."""
    out = {"md": folder / "contract.md", "html": folder / "contract.html", "docx": folder / "contract.docx"}
    out["md"].write_text(MARKDOWN, encoding="utf-8")
    out["html"].write_text(HTML, encoding="utf-8")
    out["docx"].write_bytes(docx_bytes())
    return out


def legal_metadata(path: Path) -> list[dict[str, Any]]:
    """Per chunk of ``--profile legal`` (sizes small enough to cut the contract in three): its
    heading path, structure path and the terms it defines."""
    rp = load_profile("legal", max_size=40, min_size=5)
    doc = read_document(path)
    records = [chunk_record(c, doc, "legal", rp.fingerprint, "dp.v1") for c in chunk_document(doc, rp).chunks]
    enrich_records(records, doc, rp)
    return [{k: r.get(k) for k in ("heading_path", "structure_path", "defines")} for r in records]
