"""Public entry points: :func:`chunk_text`, :func:`chunk_file`, :func:`chunk_document`.

This package is also the one door of the command line into the library: ``adachunk.cli`` imports
only ``adachunk.api``, ``adachunk.errors`` and ``adachunk.datatypes`` (an import-linter contract in
``pyproject.toml``, checked by ``.ci/run``). Beyond chunking, each verb the commands run has its
module here, which imports what that verb uses from the library (statically: import-linter sees
every edge); a command imports its verb's module when it runs, so that ``adachunk chunk`` does not
pay for the modules of ``adachunk tune``:

* :mod:`.chunking`: one file to its records, the warm-up of long inputs (``chunk``);
* :mod:`.splitting`: a named splitter and the post-processing (``chunk --splitter``, ``score``);
* :mod:`.workers`: the bounded worker pool (``chunk -j``, ``convert``; the bounds' flags);
* :mod:`.inputs`: inputs and output lines every command shares;
* :mod:`.corpus`: the corpus run, the index and its search (``run``), the analysis store;
* :mod:`.conversion`: PDF, Word and HTML to Markdown (``convert``);
* :mod:`.scoring`: the metrics of a chunking (``score``);
* :mod:`.views`: the HTML views (``view``, ``detect``);
* :mod:`.comparison`: A/B of two profiles (``ab``);
* :mod:`.evaluation`: retrieval evaluation and QA generation (``eval``);
* :mod:`.tuning`: profile tuning (``tune``);
* :mod:`.profiles`: profile tooling and case files (``profile``, ``test``);
* :mod:`.models`: the embedding models and the start-up cache (``models``, ``cache``).
"""

from __future__ import annotations

import os
from typing import Any

from ..runtime import gcpause as _gcpause
from ..ingest import read_document, supported_suffixes  # noqa: F401 - supported_suffixes: for the CLI
from ..profile.cached import load_profile
from ..profile.resolve import ResolvedProfile, resolve  # noqa: F401 - resolve: for the CLI (adachunk profile)
from ..split.dp import dp_chunk
from ..datatypes import Chunk, Chunking, Document

def chunk_document(doc: Document, profile: str | os.PathLike | ResolvedProfile = "default", *,
                   explain: bool = False, **overrides: Any) -> Chunking:
    """Chunk a :class:`Document` with the optimal DP splitter of ``profile``."""
    rp = load_profile(profile, **overrides)
    return dp_chunk(doc, rp.policy, explain=explain)


def chunk_text(text: str, profile: str | os.PathLike | ResolvedProfile = "default", *,
               doc_id: str = "text", **overrides: Any) -> list[Chunk]:
    """Chunk a string; returns chunks with exact code-point offsets into ``text``.

    Example:
        >>> chunks = chunk_text("# Title\\n\\nSome text.", max_size=200)
        >>> chunks[0].text
        '# Title\\n\\nSome text.'
    """
    # The document is made and dropped inside the collector pause (see adachunk.runtime.gcpause): its
    # analysis goes by reference counting before the collector resumes, which then finds only
    # the chunks to look at instead of every structure of the document.
    with _gcpause.paused():
        return chunk_document(Document(id=doc_id, text=text), profile, **overrides).chunks


def chunk_file(path: str | os.PathLike, profile: str | os.PathLike | ResolvedProfile = "default", *,
               errors: str = "strict", explain: bool = False, **overrides: Any) -> tuple[Document, Chunking]:
    """Read a file (``.md``, ``.txt``, paper ``.json``) and chunk it."""
    doc = read_document(path, errors=errors)
    return doc, chunk_document(doc, profile, explain=explain, **overrides)
