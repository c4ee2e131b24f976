"""Golden chunk metadata of the shipped examples (structure paths, defined terms, resolved
cross-references, table context, parents, embedded prefix).

The snapshot names chunks by index, never by id; its diff is the review artefact of a rule or
enrich change. Accept an intended change with::

    ADACHUNK_UPDATE_GOLDEN=1 pytest tests/test_enrich_golden.py
"""

from __future__ import annotations

import pytest

from adachunk import chunk_document, load_profile
from adachunk.enrich import enrich_records
from adachunk.enrich.snapshot import render
from adachunk.testing.golden import diff_snapshots, update_requested
from adachunk.ingest import read_document
from adachunk.sink.records import chunk_record

from .conftest import EXAMPLES, ROOT

GOLDEN = ROOT / "tests" / "golden" / "enrich"
CASES = [("legal", "regulation_excerpt.md", None), ("legal", "regulation_excerpt.md", 256),
         ("finance", "financial_report_excerpt.md", None), ("finance", "financial_report_excerpt.md", 256)]


def enriched(profile: str, name: str, size: int | None):
    """The enriched records of one example under a shipped profile (its own size, or ``size``)."""
    rp = load_profile(profile, max_size=size)
    doc = read_document(EXAMPLES / name)
    chunking = chunk_document(doc, rp)
    records = [chunk_record(c, doc, rp.name, rp.fingerprint, chunking.splitter) for c in chunking.chunks]
    return doc, enrich_records(records, doc, rp.policy)


@pytest.mark.parametrize("profile, name, size", CASES, ids=[f"{p}-{n.split('.')[0]}-{s or 'profile'}" for p, n, s in CASES])
def test_enrich_golden(profile, name, size):
    _doc, records = enriched(profile, name, size)
    path = GOLDEN / f"{name.rsplit('.', 1)[0]}__{profile}__{size or 'profile'}.json"
    actual = render(records)
    if update_requested():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8", newline="\n")
        return
    assert path.is_file(), f"{path} missing; create it with ADACHUNK_UPDATE_GOLDEN=1"
    diff = diff_snapshots(path.read_text(encoding="utf-8"), actual, path.name)
    assert not diff, "\n".join(diff[:120] + ["accept with: ADACHUNK_UPDATE_GOLDEN=1 pytest tests/test_enrich_golden.py"])
