"""One file to its chunk records, and the warm-up of long inputs (``adachunk chunk``)."""

from __future__ import annotations

from ..ingest.discover import document_key, input_root
from ..runner.file_records import file_records, file_size, is_text_like
from ..split.segments import segment_chars
from ..runtime.jit import preload as preload_jit
from ..tokens import prepare as prepare_tokenizer

__all__ = ["document_key", "file_records", "file_size", "input_root", "is_text_like", "preload_jit", "prepare_tokenizer", "segment_chars"]
