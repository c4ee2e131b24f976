"""The parity folder: each test here compares a fast path (compiled or Python) with its reference
twin, and carries the ``parity`` marker by living here (``pytest -m parity`` runs them alone; the
default run keeps them; ``tests/test_parity_marker.py`` checks the rule). The documents compared
are read by ``corpus.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from . import corpus

HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)  # before ``-m`` selects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # A conftest's hook sees every collected item, not only this folder's.
    for item in items:
        if HERE in item.path.resolve().parents:
            item.add_marker(pytest.mark.parity)


@pytest.fixture(scope="session")
def clair_docs() -> list[tuple[str, dict]]:
    """``(file name, document JSON)`` of the CLAIR documents (``corpus.clair_docs``); skips
    when ``../shared/corpus/clair`` is absent."""
    docs = corpus.clair_docs()
    if not docs:
        pytest.skip("../shared/corpus/clair is not available")
    return list(docs)
