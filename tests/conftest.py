"""Shared fixtures: the CLAIR corpus (skipped when ../shared is absent) and the examples."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import settings as _hypothesis_settings

# The property tests draw their examples from a fixed seed unless asked to explore: a suite run
# (CI, the README's test command) cannot go red by chance on an example no commit changed. Look
# for new counterexamples with HYPOTHESIS_PROFILE=explore (random seeds, as hypothesis's default).
_hypothesis_settings.register_profile("repeatable", derandomize=True)
_hypothesis_settings.register_profile("explore", derandomize=False)
_hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

ROOT = Path(__file__).resolve().parent.parent
CLAIR = Path(os.environ.get("ADACHUNK_CLAIR", ROOT.parent / "shared" / "corpus" / "clair"))
EXAMPLES = ROOT / "examples"

def copy_examples(dest: Path) -> Path:
    """The example documents (SOURCES.md aside) copied into ``dest`` (created), for tests that
    edit, rename or remove them."""
    import shutil

    dest.mkdir(parents=True)
    for p in sorted(EXAMPLES.glob("*.md")):
        if p.name != "SOURCES.md":
            shutil.copy(p, dest / p.name)
    return dest


# The real adaptive pipeline with a model-free embedder and precomputed coreference: fast enough
# for end-to-end tests of `run` and `ab` (name: fast; rename with str.replace).
FAST_PROFILE = """\
name: fast
extends: default
candidates:
  - {type: dp.v1}
  - {type: recursive.v1, chunk_size: 600, name: recursive_600}
  - {type: fixed.v1, name: fixed}
metrics:
  embedder: {type: hash.v1}
  coref: {type: precomputed.v1}
"""


def clair_files() -> list[Path]:
    """The CLAIR document JSONs (empty when the shared corpus is not beside the clone)."""
    if not CLAIR.is_dir():
        return []
    return sorted(p for p in CLAIR.glob("*.json") if p.name not in ("manifest.json", "paper_reference.json"))


def load_clair(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def clair_docs() -> list[tuple[str, dict]]:
    files = clair_files()
    if not files:
        pytest.skip("../shared/corpus/clair is not available")
    return [(p.name, load_clair(p)) for p in files]


@pytest.fixture
def fake():
    """A loopback fake OpenAI-compatible server (``tests/fake_openai.py``), stopped afterwards."""
    from .fake_openai import FakeOpenAI

    with FakeOpenAI() as server:
        yield server

