"""Hard rules bind every candidate (adachunk.split.bind): zones, repair, the DP's forbidden cuts,
the selection, the profile section and the README's main job under every shipped profile."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import adachunk
from adachunk.errors import ProfileErrors
from adachunk.ingest import read_document
from adachunk.split.bind import Zones, _merge, bind, repair_cuts, violations, zones_for
from adachunk.selection.candidates import run_candidate
from adachunk.datatypes import Document

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
HEADING_LINE = re.compile(r"#{1,6}[ \t]")


def _zones(lo, hi) -> Zones:
    lo, hi = _merge(np.asarray(lo, np.int64), np.asarray(hi, np.int64))
    return Zones(lo, hi, {"x": (lo, hi)})


def test_merge_unions_overlapping_and_nested_intervals():
    lo, hi = _merge(np.array([5, 1, 2, 20, 8]), np.array([9, 4, 3, 22, 10]))
    assert lo.tolist() == [1, 5, 20] and hi.tolist() == [4, 10, 22]


def test_keep_with_next_zone_runs_to_the_body_over_blank_lines_and_furniture(tmp_path):
    text = "# Title\n\nIntro.\n\n## Article 1\n\n<!-- PageBreak -->\n\nBody of article one.\n"
    doc = Document(id="d", text=text)
    rp = adachunk.load_profile("default")
    z = zones_for(doc, rp.policy, 512)
    h = text.index("## Article 1")
    body = text.index("Body")
    assert z.zone_at(h) is None  # before the heading: allowed
    for p in (h + 1, text.index("\n", h), text.index("<!--"), body):  # inside, after, furniture, body start
        assert z.zone_at(p) is not None, p
    assert z.zone_at(body + 1) is None or "heading" not in z.labels_at(body + 1)
    assert violations([text.index("<!--")], z) == {"heading": 1}


def test_a_heading_at_the_end_of_the_document_binds_nothing():
    text = "Some text.\n\n## Trailing heading\n\n"
    doc = Document(id="d", text=text)
    z = zones_for(doc, adachunk.load_profile("default").policy, 512)
    assert "heading" not in z.labels_at(len(text) - 1)


def test_an_atomic_structure_larger_than_the_limit_binds_nothing():
    row = "| " + " | ".join(f"cell {i}" for i in range(40)) + " |"
    text = f"| a | b |\n|---|---|\n{row}\n"
    doc = Document(id="d", text=text)
    policy = adachunk.load_profile("default").policy
    inside = text.index("cell 20")
    assert "table_row" in zones_for(doc, policy, 512).labels_at(inside)
    assert "table_row" not in zones_for(doc, policy, 10).labels_at(inside)


def test_repair_moves_a_stranded_heading_to_the_chunk_of_its_body():
    text = "aaaa.\n\n# H\n\nbbbb."
    z = _zones([8], [14])  # forbidden from just after '#' to the body's first character
    cuts, kept = repair_cuts([0, 12, len(text)], z, lambda a, b: True, text)
    assert cuts == [0, 7, len(text)] and kept == 0


def test_repair_moves_right_when_the_next_chunk_would_overflow():
    text = "aaaa. # H bbbb. cccc."
    z = _zones([7], [11])
    fits = lambda a, b: b - a <= (16 if a == 0 else 12)  # noqa: E731 - the first chunk may grow
    cuts, kept = repair_cuts([0, 9, len(text)], z, fits, text)
    assert kept == 0 and cuts == [0, text.index("cccc"), len(text)]


def test_repair_opens_the_next_chunk_with_the_structure_and_cuts_it_once_more():
    text = "aaaa. # H bbbb. cccc."
    z = _zones([7], [11])
    cuts, kept = repair_cuts([0, 9, len(text)], z, lambda a, b: b - a <= 12, text)
    assert kept == 0 and cuts == [0, 6, text.index("cccc"), len(text)]


def test_repair_drops_a_cut_when_the_two_chunks_fit_together():
    text = "# H\n\nbody"
    z = _zones([1], [6])
    cuts, kept = repair_cuts([0, 5, len(text)], z, lambda a, b: True, text)
    assert cuts == [0, len(text)] and kept == 0


def test_repair_keeps_what_it_cannot_fix_and_counts_it():
    text = "x" * 40
    z = _zones([1], [40])
    cuts, kept = repair_cuts([0, 20, 40], z, lambda a, b: b - a <= 20, text)
    assert cuts == [0, 20, 40] and kept == 1


@pytest.mark.parametrize("profile", ["default", "legal", "finance", "technical"])
@pytest.mark.parametrize("name", ["regulation_excerpt.md", "financial_report_excerpt.md",
                                  "technical_manual_excerpt.md", "service_agreement.docx"])
def test_every_candidate_of_the_pool_keeps_the_hard_rules(profile, name):
    rp = adachunk.load_profile(profile)
    doc = read_document(str(EXAMPLES / name))
    for type_name, params, cand in rp.policy.candidates:
        run = run_candidate(doc, rp.policy, type_name, params, cand)
        record = run.chunking.meta["hard_rules"]
        assert record["remaining"] == 0, (cand, record)
        zones = zones_for(doc, rp.policy, None)
        heads = {lab for lab in rp.policy.hard_rules.keep_with_next}
        for c in run.chunking.chunks[:-1]:
            broken = set(zones.labels_at(c.end)) & heads
            assert not broken, (cand, c.text[-60:])


@pytest.mark.parametrize("size", [90, 127, 254])
def test_the_dp_never_makes_a_forbidden_cut_where_its_sizes_allow(size):
    rp = adachunk.load_profile("legal", max_size=size, min_size=size // 4)
    doc = read_document(str(EXAMPLES / "regulation_excerpt.md"))
    chunking = adachunk.chunk_document(doc, rp)
    zones = zones_for(doc, rp.policy, size)
    assert not violations(chunking.cuts, zones)


def test_bind_records_found_and_repaired_on_a_rule_blind_candidate():
    rp = adachunk.load_profile("default")
    doc = read_document(str(EXAMPLES / "regulation_excerpt.md"))
    raw = run_candidate(doc, rp.policy, "recursive.v1", {"chunk_size": 180}, "r", postprocess=True)
    rec = raw.chunking.meta["hard_rules"]
    assert rec["found"] >= 1 and rec["repaired"] == rec["found"] and rec["remaining"] == 0
    assert rec["by_label"]["heading"] >= 1
    # the repaired chunks still tile the document and keep the candidate's size limit
    text, pos = doc.text, 0
    for c in raw.chunking.chunks:
        assert c.core_span[0] == pos and text[c.start:c.end] == c.text
        pos = c.end
    assert pos == len(text)
    assert max(c.tokens for c in raw.chunking.chunks) <= 180


def test_report_only_counts(tmp_path):
    path = tmp_path / "report.yaml"
    path.write_text("schema_version: 1\nname: report\nextends: default\nhard_rules: {enforce: report}\n")
    rp = adachunk.load_profile(str(path))
    doc = read_document(str(EXAMPLES / "regulation_excerpt.md"))
    run = run_candidate(doc, rp.policy, "recursive.v1", {"chunk_size": 180}, "r")
    rec = run.chunking.meta["hard_rules"]
    assert rec["found"] >= 1 and rec["remaining"] == rec["found"] and rec["binding"] is False
    same = bind(run.chunking, doc, rp.policy)
    assert [c.core_span for c in same.chunks] == [c.core_span for c in run.chunking.chunks]


def test_a_candidate_that_still_breaks_a_rule_cannot_win():
    from adachunk.selection.choose import CandidateResult, choose
    from adachunk.policy_types import SelectSpec
    from adachunk.datatypes import Chunking

    def res(name, score, remaining):
        meta = {"hard_rules": {"found": remaining, "repaired": 0, "remaining": remaining, "by_label": {}}}
        return CandidateResult(name=name, type="x", status="ok", chunking=Chunking([], "x", meta), score=score)

    assert choose([res("a", 0.5, 0), res("b", 0.9, 2)], SelectSpec()) == 0
    assert choose([res("a", 0.5, 3), res("b", 0.4, 1), res("c", 0.9, 1)], SelectSpec()) == 2


def test_an_unknown_label_is_a_located_profile_error(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("schema_version: 1\nname: bad\nextends: default\nhard_rules:\n  atomic: [table_rwo]\n")
    with pytest.raises(ProfileErrors) as exc:
        adachunk.load_profile(str(path))
    text = str(exc.value)
    assert "ADA206" in text and "table_rwo" in text and "table_row" in text and "bad.yaml:5" in text


def test_a_profile_without_hard_rules_keeps_its_fingerprint_section_out():
    rp = adachunk.load_profile("paper")
    assert "hard_rules" not in rp.policy.data and not rp.policy.hard_rules.active()
    assert "hard_rules" in adachunk.load_profile("default").policy.data


@pytest.mark.parametrize("profile", ["default", "legal", "finance", "technical"])
def test_run_examples_writes_no_stranded_heading(profile, tmp_path):
    from adachunk.cli.main import main

    out = tmp_path / "out"
    rc = main(["run", str(EXAMPLES), "--out", str(out), "--profile", profile, "--sink", "none", "--quiet"])
    assert rc == 0
    records = [json.loads(line) for line in (out / "chunks.jsonl").read_text().splitlines()]
    by_doc: dict[str, list] = {}
    for r in records:
        by_doc.setdefault(r["doc_id"], []).append(r)
    stranded = [r["text"].rstrip().rsplit("\n", 1)[-1] for rs in by_doc.values() for r in rs[:-1]
                if HEADING_LINE.match(r["text"].rstrip().rsplit("\n", 1)[-1])]
    assert stranded == []
    decisions = [json.loads(line) for line in (out / "decisions.jsonl").read_text().splitlines()]
    for d in decisions:
        winner = next(c for c in d["candidates"] if c["name"] == d["winner"])
        assert winner["hard_rules"]["remaining"] == 0
