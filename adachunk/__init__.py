"""adachunk: chunking as a policy — YAML profiles, optimal boundaries, adaptive selection.

Curated public API::

    import adachunk
    chunks = adachunk.chunk_text(text, profile="default", max_size=512)
    profile = adachunk.load_profile("legal")
"""

from .api import chunk_document, chunk_file, chunk_text, load_profile
from .errors import AdachunkError, InputError, ProfileError, ProfileErrors
from .types import Chunk, Chunking, Document, Page, Structure

__version__ = "0.1.0"

__all__ = [
    "chunk_text", "chunk_file", "chunk_document", "load_profile",
    "Chunk", "Chunking", "Document", "Page", "Structure",
    "AdachunkError", "ProfileError", "ProfileErrors", "InputError", "__version__",
]
