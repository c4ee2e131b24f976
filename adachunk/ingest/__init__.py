"""Readers that turn input files into :class:`~adachunk.types.Document` objects."""

from . import pdf as _pdf  # noqa: F401 - registers the .pdf reader (pdfplumber is imported lazily)
from .readers import (InputWarning, check_input_file, max_input_bytes, read_document, read_text_bytes,
                      supported_suffixes)

__all__ = ["InputWarning", "check_input_file", "max_input_bytes", "read_document", "read_text_bytes",
           "supported_suffixes"]
