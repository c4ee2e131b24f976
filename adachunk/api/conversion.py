"""PDF, Word and HTML to structure-aware Markdown (``adachunk convert``)."""

from __future__ import annotations

from ..ingest.docx import DocxOptions, read_docx
from ..ingest.html import HtmlOptions, read_html
from ..ingest.pdf import PdfOptions, convert_pdf, parsed_json

__all__ = ["DocxOptions", "HtmlOptions", "PdfOptions", "convert_pdf", "parsed_json", "read_docx", "read_html"]
