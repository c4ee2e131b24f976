"""Invariants of the DP splitter on real documents (CLAIR full_text and the examples).

Exact tiling, no empty chunk, every chunk within max size by its *own* size, min size honoured
except a last chunk that cannot be merged, exact offsets (6 CLAIR documents are French).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from adachunk import chunk_text, load_profile
from adachunk.tokens import get_counter

from .conftest import EXAMPLES, clair_files, load_clair

SETTINGS = [("tokens", 128, 32), ("tokens", 512, 64), ("chars", 1000, 0), ("chars", 3000, 500)]


def check_invariants(text: str, chunks, granularity: str, max_size: int, min_size: int) -> None:
    enc = get_counter("o200k_base")
    assert "".join(c.text for c in chunks) == text
    pos = 0
    for c in chunks:
        assert c.start == pos and c.text == text[c.start:c.end] and c.end > c.start
        pos = c.end
        own = enc.count(c.text) if granularity == "tokens" else len(c.text)
        assert own <= max_size, (c.index, own)
        assert c.tokens == enc.count(c.text)
    assert pos == len(text)
    sizes = [c.size for c in chunks]
    # min_size binds all but the last chunk (token repair may split a chunk below it: counted)
    small = [s for s in sizes[:-1] if s < min_size]
    assert len(small) <= max(1, len(sizes) // 50), (small, len(sizes))


@pytest.mark.parametrize("gran,max_size,min_size", SETTINGS)
def test_clair_invariants(clair_docs, gran, max_size, min_size):
    rp = load_profile("default", granularity=gran, max_size=max_size, min_size=min_size)
    for name, obj in clair_docs:
        chunks = chunk_text(obj["full_text"], rp, doc_id=name)
        check_invariants(obj["full_text"], chunks, gran, max_size, min_size)


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.md")), ids=lambda p: p.name)
def test_examples_invariants(path):
    text = path.read_text(encoding="utf-8")
    for gran, max_size, min_size in SETTINGS:
        chunks = chunk_text(text, "default", granularity=gran, max_size=max_size, min_size=min_size)
        check_invariants(text, chunks, gran, max_size, min_size)


def _ids(text: str) -> list:
    return [(c.id, c.start, c.end) for c in chunk_text(text, "default", max_size=256)]


def test_deterministic_across_runs_and_processes():
    files = clair_files()
    text = load_clair(files[2])["full_text"] if files else (EXAMPLES / "regulation_excerpt.md").read_text()
    first = _ids(text)
    assert first == _ids(text)
    code = (
        "import json,sys; from adachunk import chunk_text; t=sys.stdin.read();"
        "print(json.dumps([(c.id,c.start,c.end) for c in chunk_text(t,'default',max_size=256)]))"
    )
    out = subprocess.run([sys.executable, "-c", code], input=text, capture_output=True, text=True, check=True)
    assert [tuple(x) for x in json.loads(out.stdout)] == first


def test_non_ascii_offsets(clair_docs):
    french = [(n, o) for n, o in clair_docs if o.get("language") == "fr"]
    assert len(french) == 6
    for name, obj in french:
        text = obj["full_text"]
        for c in chunk_text(text, "default", max_size=300, doc_id=name):
            assert text[c.start:c.end] == c.text


def test_overlap_whole_units_and_core_tiling():
    text = (EXAMPLES / "regulation_excerpt.md").read_text(encoding="utf-8")
    chunks = chunk_text(text, "default", max_size=160, min_size=0, overlap=40)
    enc = get_counter("o200k_base")
    assert "".join(text[c.core_start:c.end] for c in chunks) == text
    with_overlap = [c for c in chunks[1:] if c.start < c.core_start]
    assert with_overlap, "expected some overlap"
    for c in chunks:
        assert enc.count(c.text) <= 160
        assert c.text == text[c.start:c.end]
    for prev, c in zip(chunks, chunks[1:]):
        assert prev.core_start <= c.start <= c.core_start
        assert enc.count(text[c.start:c.core_start]) <= 40
