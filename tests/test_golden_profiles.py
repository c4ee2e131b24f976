"""Golden snapshots of the shipped domain profiles on real documents.

Each snapshot (tests/golden/<profile>/<document>__<max_size>.txt) holds one line per chunk;
its diff is the review artefact of a policy change. After an intended change, accept the new
boundaries with::

    ADACHUNK_UPDATE_GOLDEN=1 pytest tests/test_golden_profiles.py

CLAIR documents are read from ../shared/corpus/clair and skipped cleanly when it is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adachunk import chunk_document, load_profile
from adachunk.testing.golden import (
    boundaries,
    check_snapshot,
    describe_moves,
    diff_snapshots,
    render_snapshot,
    snapshot_path,
)
from adachunk.ingest import read_document

from .conftest import CLAIR, EXAMPLES, ROOT

GOLDEN = ROOT / "tests" / "golden"
DOCS = ROOT / "tests" / "fixtures" / "golden_docs"

# profile → documents (CLAIR file names are looked up in the shared corpus)
CASES = {
    "legal": [EXAMPLES / "regulation_excerpt.md",
              CLAIR / "Norma_legal_European_Convention_On_Human_Rights.json",
              CLAIR / ("Norma_legal_Council_of_Europe_Framework_Convention_on_Artificial_Intelligence_"
                       "and_Human_Rights_Democracy_and_the_Rule_of_Law.json"),
              CLAIR / "Norma_legal_EDPB_statement_on_data_protection_authorities.json"],
    "technical": [EXAMPLES / "technical_manual_excerpt.md",
                  CLAIR / "Ada_technique_Standards_Explicability.json",
                  CLAIR / "Ada_technique_Standards_Robustness.json",
                  CLAIR / "Ada_technique_Discussion_Paper_Hamburg_DPA_KI_Models.json"],
    "finance": [EXAMPLES / "financial_report_excerpt.md",
                DOCS / "interim_report_q3.md",
                DOCS / "annual_accounts_plain.txt"],
}
SIZES = (256, 512)


def _params():
    out = []
    for profile, docs in CASES.items():
        for path in docs:
            for size in SIZES:
                marks = [] if path.is_file() else [pytest.mark.skip(reason=f"{path} is not available")]
                out.append(pytest.param(profile, path, size, id=f"{profile}-{path.stem[:40]}-{size}", marks=marks))
    return out


def chunks_of(profile, path: Path, size: int):
    doc = read_document(path)
    return doc, chunk_document(doc, load_profile(profile, max_size=size)).chunks


@pytest.mark.parametrize("profile, path, size", _params())
def test_golden_snapshot(profile, path, size):
    doc, chunks = chunks_of(profile, path, size)
    result = check_snapshot(snapshot_path(GOLDEN, profile, doc.id.removesuffix(path.suffix), size), chunks)  # as before ids had suffixes
    assert result.ok, result.report()


def test_snapshot_lines_are_readable():
    _doc, chunks = chunks_of("legal", EXAMPLES / "regulation_excerpt.md", 256)
    lines = render_snapshot(chunks).splitlines()
    assert len(lines) == len(chunks)
    first = lines[0]
    assert first.startswith(f"0 0 {chunks[0].end} {chunks[0].tokens} | # MODEL REGULATION 2024/17")
    assert "⏎" in first and " … " in first and "\n" not in first
    assert boundaries(render_snapshot(chunks)) == [c.start for c in chunks[1:]]


def test_rule_weight_change_shows_moved_boundaries(tmp_path):
    """Weakening one rule moves boundaries, and the snapshot diff says which ones."""
    path = EXAMPLES / "regulation_excerpt.md"
    _doc, before = chunks_of("legal", path, 256)
    child = tmp_path / "legal_weak.yaml"
    child.write_text(
        "name: legal_weak\nextends: legal\nrules:\n  items:\n"
        "    - {name: article_paragraph, structure: article_paragraph, on: {shape: const, scale: 0}}\n"
        "    - {name: point_list, structure: point_list, on: {shape: const, scale: 0}}\n"
        "    - {name: article, structure: article, on: {shape: const, scale: 0}}\n"
        "    - {name: document_block, structure: document_block, on: {shape: const, scale: 0}}\n",
        encoding="utf-8")
    _doc, after = chunks_of(child, path, 256)
    old, new = render_snapshot(before), render_snapshot(after)
    diff = diff_snapshots(old, new, "regulation_excerpt__256.txt")
    assert diff, "weakening the paragraph and block rules should move at least one boundary"
    removed = [line for line in diff if line.startswith("-") and not line.startswith("---")]
    added = [line for line in diff if line.startswith("+") and not line.startswith("+++")]
    assert removed and added
    # every changed line names a chunk by its index and offsets, and shows its text edges
    for line in removed + added:
        _index, start, end, tokens = line[1:].split(" | ")[0].split()
        assert int(start) < int(end) and int(tokens) > 0 and " | " in line
    moves = describe_moves(old, new)
    moved = {int(m.split()[2]) for m in moves}
    assert moved == set(boundaries(old)) ^ set(boundaries(new))
    assert any(m.endswith("added") for m in moves) or any(m.endswith("removed") for m in moves)


def test_check_snapshot_modes(tmp_path):
    _doc, chunks = chunks_of("finance", DOCS / "interim_report_q3.md", 256)
    target = tmp_path / "finance" / "doc__256.txt"
    assert check_snapshot(target, chunks, update=False).status == "missing"
    assert check_snapshot(target, chunks, update=True).status == "written"
    assert check_snapshot(target, chunks, update=False).status == "same"
    target.write_text(target.read_text(encoding="utf-8").replace(" 0 ", " 1 ", 1), encoding="utf-8")
    res = check_snapshot(target, chunks, update=False)
    assert res.status == "different" and not res.ok
    assert "ADACHUNK_UPDATE_GOLDEN=1" in res.report() and res.diff
