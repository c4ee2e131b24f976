"""The shipped legal, finance and technical profiles: they load, chunk every relevant document
with the invariants (tiling, sizes, determinism), and keep their promises on real text."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from adachunk import chunk_document, load_profile
from adachunk.detect.base import DetectContext
from adachunk.ingest import read_document
from adachunk.tokens import get_counter

from .conftest import CLAIR, EXAMPLES, clair_files

DOCS = Path(__file__).parent / "fixtures" / "golden_docs"
DOMAINS = ("legal", "finance", "technical")
EXAMPLE_DOCS = sorted(EXAMPLES.glob("*.md")) + sorted(p for p in DOCS.iterdir() if p.suffix in (".md", ".txt"))
EXAMPLE_DOCS = [p for p in EXAMPLE_DOCS if p.name != "SOURCES.md"]


def _clair(prefix: str) -> list:
    files = [p for p in clair_files() if p.name.startswith(prefix)]
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{CLAIR} is not available"))]
    return [pytest.param(p, id=p.stem[:50]) for p in files]


def check_invariants(doc, chunking, max_size: int, grow: int = 768) -> None:
    """Tiling, exact offsets, own token counts, and every chunk within ``max_size``, except the
    pieces of a table larger than that (the shipped profiles' ``solver.grow``): within ``grow``.
    A grown table's first and last pieces may hold its page's furniture (a statement at the top
    of a page opens with the page header, one at its foot keeps the footer and the break)."""
    from adachunk.detect.tables import titled_tables
    from adachunk.ingest.furniture import furniture_only

    tables = [(s, e) for s, _, e in titled_tables(doc.text)]
    chunks = chunking.chunks
    assert chunks, doc.id
    assert chunks[0].start == 0 and chunks[-1].end == len(doc.text)
    for prev, cur in zip(chunks, chunks[1:]):
        assert prev.end == cur.start, (doc.id, prev.index)  # tiling: no gap, no overlap
    count = get_counter("o200k_base").count
    for c in chunks:
        assert c.text == doc.text[c.start:c.end] and c.end > c.start
        in_table = any((s <= c.start or furniture_only(doc.text, c.start, s))
                       and (c.end <= e or furniture_only(doc.text, e, c.end)) for s, e in tables)
        assert c.tokens == count(c.text) <= (max(grow, max_size) if in_table else max_size), (doc.id, c.index, c.tokens)


@pytest.mark.parametrize("name", DOMAINS)
def test_profile_loads_and_extends_default(name):
    rp = load_profile(name)
    base = load_profile("default")
    assert rp.name == name and len(rp.fingerprint) == 64 and rp.fingerprint != base.fingerprint
    assert set(base.policy.detectors) <= set(rp.policy.detectors)
    assert {r.name for r in base.policy.rules} <= {r.name for r in rp.policy.rules}
    own = {"legal": {"article_heading", "article_paragraph", "point_list", "definition"},
           "finance": {"table_caption", "unit_line", "captioned_table", "figure_line", "note_heading"},
           "technical": {"procedure", "admonition"}}[name]
    assert own <= set(rp.policy.detectors)
    assert any(str(f).endswith(f"{name}.yaml") and "rules" in Path(f).parent.name for f in rp.files)


@pytest.mark.parametrize("name", DOMAINS)
@pytest.mark.parametrize("path", EXAMPLE_DOCS, ids=lambda p: p.stem)
def test_examples_chunk_with_invariants(name, path):
    doc = read_document(path)
    rp = load_profile(name)
    first = chunk_document(doc, rp)
    check_invariants(doc, first, rp.policy.solver.max_size)
    assert [c.id for c in chunk_document(doc, rp).chunks] == [c.id for c in first.chunks]


@pytest.mark.parametrize("path", _clair("Norma_legal_"))
def test_legal_profile_on_every_clair_legal_document(path):
    doc = read_document(path)
    check_invariants(doc, chunk_document(doc, "legal"), 512)


@pytest.mark.parametrize("path", _clair("Ada_technique_"))
def test_technical_profile_on_every_clair_technical_document(path):
    doc = read_document(path)
    check_invariants(doc, chunk_document(doc, "technical"), 512)


# --- promises ----------------------------------------------------------------------------------


def _spans(rp, doc, label):
    starts, ends = rp.policy.detectors[label].detect_arrays(DetectContext(doc.text))
    return list(zip(starts.tolist(), ends.tolist()))


def _cut_inside(cuts, span) -> bool:
    return any(span[0] < c < span[1] for c in cuts)


def _fits(doc, span, size) -> bool:
    return get_counter("o200k_base").count(doc.text[span[0]:span[1]]) <= size


@pytest.mark.parametrize("size", [256, 512])
def test_legal_keeps_paragraphs_points_and_definitions_whole(size):
    doc = read_document(EXAMPLES / "regulation_excerpt.md")
    rp = load_profile("legal", max_size=size)
    cuts = chunk_document(doc, rp).cuts
    for label in ("article_paragraph", "point_list", "definition"):
        spans = _spans(rp, doc, label)
        assert spans, label
        broken = [s for s in spans if _fits(doc, s, size) and _cut_inside(cuts, s)]
        assert not broken, (label, [doc.text[a:b][:60] for a, b in broken])
    # an article heading is never the last thing in a chunk
    for start, end in _spans(rp, doc, "article_heading"):
        assert not any(end <= c <= end + 2 for c in cuts), doc.text[start:end]


def test_legal_cuts_fewer_paragraphs_than_default():
    """On the example and two CLAIR treaties, the legal profile cuts inside far fewer numbered
    paragraphs and point lists than the default profile (same chunk size)."""
    paths = [EXAMPLES / "regulation_excerpt.md"] + [
        p for p in clair_files() if p.stem.endswith(("European_Convention_On_Human_Rights",
                                                      "EDPB_statement_on_data_protection_authorities"))]
    legal, default = load_profile("legal"), load_profile("default", max_size=512)
    inside = {"legal": 0, "default": 0}
    for path in paths:
        doc = read_document(path)
        spans = _spans(legal, doc, "article_paragraph") + _spans(legal, doc, "point_list")
        fitting = [s for s in spans if _fits(doc, s, 512)]
        for name, rp in (("legal", legal), ("default", default)):
            cuts = chunk_document(doc, rp).cuts
            inside[name] += sum(_cut_inside(cuts, s) for s in fitting)
    assert inside["legal"] == 0 and inside["default"] > inside["legal"], inside


@pytest.mark.parametrize("size", [256, 512])
@pytest.mark.parametrize("path", [EXAMPLES / "financial_report_excerpt.md", DOCS / "interim_report_q3.md",
                                  DOCS / "annual_accounts_plain.txt"], ids=lambda p: p.stem)
def test_finance_keeps_captions_rows_and_figures_together(path, size):
    doc = read_document(path)
    rp = load_profile("finance", max_size=size)
    cuts = chunk_document(doc, rp).cuts
    # a caption or unit line is never separated from the first row of its table
    for start, end in _spans(rp, doc, "captioned_table"):
        block = doc.text[start:end]
        rows = [i for i, line in enumerate(block.splitlines(keepends=True)) if line.lstrip().startswith("|")
                or any(ch.isdigit() for ch in line[-12:])]
        first_row = start + sum(len(x) for x in block.splitlines(keepends=True)[:rows[0] + 1]) if rows else end
        assert not _cut_inside(cuts, (start, first_row)), block[:80]
        if _fits(doc, (start, end), size):
            assert not _cut_inside(cuts, (start, end)), block[:80]
    for label in ("table_row", "figure_line", "fiscal_period", "amount"):
        broken = [s for s in _spans(rp, doc, label) if _cut_inside(cuts, s)]
        assert not broken, (label, [doc.text[a:b][:60] for a, b in broken])
    # a note heading is never left at the end of a chunk
    for start, end in _spans(rp, doc, "note_heading"):
        assert not any(end <= c <= end + 2 for c in cuts), doc.text[start:end]


@pytest.mark.parametrize("size", [256, 512])
def test_technical_keeps_code_procedures_and_warnings_whole(size):
    doc = read_document(EXAMPLES / "technical_manual_excerpt.md")
    rp = load_profile("technical", max_size=size)
    cuts = chunk_document(doc, rp).cuts
    for label in ("code", "admonition", "blockquote"):
        spans = _spans(rp, doc, label)
        assert spans, label
        assert not [s for s in spans if _cut_inside(cuts, s)], label
    for span in _spans(rp, doc, "procedure"):
        if _fits(doc, span, size):
            assert not _cut_inside(cuts, span)
        else:  # too long: cut only between steps, never inside a step's command block
            step_starts = [span[0] + i for i, ch in enumerate(doc.text[span[0]:span[1]])
                           if (i == 0 or doc.text[span[0] + i - 1] == "\n") and doc.text[span[0] + i].isdigit()]
            for c in cuts:
                if span[0] < c < span[1]:
                    assert any(abs(c - s) <= 4 for s in step_starts), doc.text[c - 40:c + 40]


def test_grammars_are_shipped_with_the_profiles():
    rp = load_profile("finance")
    names = {Path(f).name for f in rp.files}
    assert {"finance.lark", "common.lark", "finance.yaml", "default.yaml"} <= names
    assert np.all([Path(f).is_file() for f in rp.files])


def _texts(profile: str, label: str, text: str) -> list[str]:
    spans = load_profile(profile).policy.detectors[label].detect(DetectContext(text))
    return [text[s.start:s.end] for s in spans]


def test_legal_article_runs_to_the_next_article_or_division():
    text = ("## Article 1 — Subject matter\n\n1. This Regulation lays down rules.\n\n2. It applies.\n\n"
            "## Article 2\n\nScope.\n\n# CHAPTER II\n\n## Article 3\n\nLast article.\n\nDone at Brussels.\n")
    assert _texts("legal", "article", text) == [
        "## Article 1 — Subject matter\n\n1. This Regulation lays down rules.\n\n2. It applies.",
        "## Article 2\n\nScope.", "## Article 3\n\nLast article."]


def test_legal_point_list_takes_indents_and_their_lead_in():
    text = ("Providers shall:\n\n— keep records;\n\n— report incidents.\n\nNext paragraph.\n\n"
            "Les critères sont :\n· la nouveauté ;\n<!-- PageBreak -->\n· la créativité.\n\nAnd then.\n\n(a) one;\n(b) two.\n")
    assert _texts("legal", "point_list", text) == [
        "Providers shall:\n\n— keep records;\n\n— report incidents.",
        "Les critères sont :\n· la nouveauté ;\n<!-- PageBreak -->\n· la créativité.",
        "(a) one;\n(b) two."]
