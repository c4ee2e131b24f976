"""Readers that turn input files into :class:`~adachunk.types.Document` objects."""

from .readers import read_document, read_text_bytes, supported_suffixes

__all__ = ["read_document", "read_text_bytes", "supported_suffixes"]
