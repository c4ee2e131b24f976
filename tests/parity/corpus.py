"""The documents the parity tests compare a fast path and its reference on, read in one place.

* **CLAIR**: the 33 documents of ``../shared/corpus/clair`` beside the clone (or the folder
  ``$ADACHUNK_CLAIR`` names; ``tests/conftest.py``), their ``full_text``. A user's clone has no
  ``../shared``: :func:`clair_docs` is then empty, and the ``clair_docs`` fixture
  (``tests/parity/conftest.py``) and :data:`needs_clair` skip. ``ADACHUNK_CLAIR=/nowhere`` shows
  those skips on a machine that has the corpus.
* **examples/**: the shipped example documents, always there.
* **package Markdown**: the ``*.md`` files and Markdown package descriptions of the installed
  packages, gathered as ``bench/bench_peers.py`` gathers them.

The Markdown spec cases (``cases/markdown_blocks.yaml``) are not a corpus: they are read by
``test_md_spec_cases.py`` alone and need nothing outside the clone.
"""

from __future__ import annotations

import email.parser
import sysconfig
from functools import lru_cache
from pathlib import Path

import pytest

from ..conftest import CLAIR, EXAMPLES, ROOT, clair_files, load_clair

__all__ = ["CLAIR", "EXAMPLES", "ROOT", "PEERS_CAP_BYTES", "clair_docs", "clair_texts", "examples",
           "example_text", "needs_clair", "package_markdown"]

PEERS_CAP_BYTES = 1_500_000  # the package Markdown compared (the bench takes more)

#: For a test that reads :func:`clair_texts` itself rather than the ``clair_docs`` fixture.
needs_clair = pytest.mark.skipif(not clair_files(), reason="../shared/corpus/clair is not available")


@lru_cache(maxsize=1)
def clair_docs() -> tuple[tuple[str, dict], ...]:
    """``(file name, document JSON)`` for each CLAIR document, by name; read once per process
    (empty when the shared corpus is not beside the clone)."""
    return tuple((p.name, load_clair(p)) for p in clair_files())


def clair_texts() -> list[str]:
    """The ``full_text`` of each CLAIR document, by file name (empty without the corpus)."""
    return [doc["full_text"] for _, doc in clair_docs()]


def examples(*suffixes: str) -> list[Path]:
    """The files of ``examples/`` with one of ``suffixes`` (``SOURCES.md`` included), by name."""
    return sorted(p for p in EXAMPLES.iterdir() if p.suffix in suffixes)


def example_text(name: str) -> str:
    """The text of ``examples/<name>``."""
    return (EXAMPLES / name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _package_files() -> tuple[tuple[str, str], ...]:
    root = Path(sysconfig.get_paths()["purelib"])
    found = []
    for path in sorted(root.rglob("*.md")):
        if "license" in path.name.lower() or not path.is_file() or path.stat().st_size < 2000:
            continue
        try:
            found.append((str(path.relative_to(root)), path.read_text(encoding="utf-8")))
        except (UnicodeDecodeError, OSError):
            continue
    for meta in sorted(root.glob("*.dist-info/METADATA")):
        msg = email.parser.Parser().parsestr(meta.read_text(encoding="utf-8", errors="replace"))
        body = msg.get_payload()
        if "markdown" in (msg.get("Description-Content-Type") or "") and isinstance(body, str):
            found.append((str(meta.relative_to(root)), body))
    return tuple(sorted(found))


def package_markdown(cap_bytes: int = PEERS_CAP_BYTES) -> list[tuple[str, str]]:
    """Like ``bench/bench_peers.py``: ``*.md`` files and Markdown METADATA in site-packages,
    ``(path, text)`` by path, each while the total stays within ``cap_bytes`` characters."""
    out, total = [], 0
    for name, text in _package_files():
        if total + len(text) <= cap_bytes:
            out.append((name, text))
            total += len(text)
    return out
