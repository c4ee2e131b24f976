"""Readers that turn input files into :class:`~adachunk.datatypes.Document` objects."""

from ..components.registry import readers as _readers
from .files import check_input_file, max_input_bytes, read_text_bytes
from .readers import InputWarning, read_document, supported_suffixes

# The .pdf reader's module (its options, backends and layout model) is imported on the first
# PDF: reading Markdown never needs it.
_readers.lazy(".pdf", "adachunk.ingest.pdf")
# Word and HTML likewise: their converters (lxml, selectolax) load on the first such file.
_readers.lazy(".docx", "adachunk.ingest.docx")
_readers.lazy(".html", "adachunk.ingest.html")
_readers.lazy(".htm", "adachunk.ingest.html")

__all__ = ["InputWarning", "check_input_file", "max_input_bytes", "read_document", "read_text_bytes",
           "supported_suffixes"]
