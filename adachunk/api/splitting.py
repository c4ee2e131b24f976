"""A registered splitter by name, and the post-processing (``chunk --splitter``, ``score``)."""

from __future__ import annotations

from ..selection.candidates import make_splitter
from ..split.postprocess import postprocess
from ..split.assemble import build_chunks
from ..split._llm_client import ALLOW_REMOTE_ENV

__all__ = ["ALLOW_REMOTE_ENV", "build_chunks", "make_splitter", "postprocess"]
