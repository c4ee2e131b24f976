"""Reading order by layout (issue 34): XY-cut columns, pages set sideways, margin line numbers,
headings only from what looks like one, the line-order fallback; and the facts of
bench/pdf_real/*.yaml on the real PDFs of ../shared/corpus/pdf-real (skipped when absent)."""

from __future__ import annotations

import importlib.util
import re
import warnings
from pathlib import Path

import pytest

pytest.importorskip("pdfplumber")
pytest.importorskip("reportlab")

from adachunk.errors import CODES, AdachunkWarning  # noqa: E402
from adachunk.ingest.pdf import _extract as ex  # noqa: E402
from adachunk.ingest.pdf import _order as order  # noqa: E402
from adachunk.ingest.pdf._model import RawPage, Word  # noqa: E402
from adachunk.ingest.pdf._rotate import DOWN, UP, UPRIGHT, direction, turn_char  # noqa: E402
from adachunk.ingest.pdf._xycut import LayoutError, xy_cut  # noqa: E402
from adachunk.ingest.pdf import convert_pdf  # noqa: E402

from . import pdf_layout_corpus as lc  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "corpus" / "pdf-real"


def _word(text: str, x0: float, top: float, width: float = 30.0, size: float = 9.0) -> Word:
    return Word(text, x0, x0 + width, top, top + size, size, False)


def _flat(text: str) -> str:
    return " ".join(text.split())


# ---------------------------------------------------------------- XY-cut


def test_xy_cut_reads_columns_on_one_baseline_grid_column_by_column():
    words = [_word("Title of the whole page", 40, 20, width=400, size=16)]
    for col, x in enumerate((40, 210, 380)):  # 8-point gutters, the same baselines everywhere
        for row in range(12):
            words += [_word(f"c{col}r{row}a", x, 60 + 11 * row, 80), _word(f"c{col}r{row}b", x + 82, 60 + 11 * row, 80)]
    leaves, columns = xy_cut(words, 9.0, 612)
    assert columns
    order_ = [w.text for leaf in leaves for w in sorted(leaf, key=lambda w: (w.top, w.x0))]
    assert order_[0] == "Title of the whole page"
    assert order_[1:25:2] == [f"c0r{r}a" for r in range(12)]
    assert order_.index("c1r0a") > order_.index("c0r11b") and order_.index("c2r0a") > order_.index("c1r11b")


def test_xy_cut_leaves_a_label_and_its_value_on_one_row():
    words = []
    for row in range(2):  # "District Representatives:   Board President ..." is no pair of columns
        words += [_word("Label:", 40, 60 + 12 * row, 120), _word("value", 300, 60 + 12 * row, 120)]
    _, columns = xy_cut(words, 9.0, 612)
    assert not columns


def test_three_column_gazette_reads_column_by_column(tmp_path):
    path, paras = lc.build_gazette(tmp_path / "gazette.pdf")
    doc = convert_pdf(path)
    blocks = [_flat(b) for b in doc.text.split("\n\n")]
    at = [blocks.index(p) if p in blocks else -1 for p in paras]
    assert -1 not in at, [p for p, i in zip(paras, at) if i < 0][:2]
    assert at == sorted(at)


def test_no_line_of_the_gazette_mixes_two_columns(tmp_path):
    path, _ = lc.build_gazette(tmp_path / "gazette.pdf")
    pdf = ex.open_pdf(path.read_bytes(), str(path))
    raw = ex.extract_page(pdf.pages[0], 1)
    gutters = (46 + 168 + 4, 46 + 2 * 168 + 8 + 4)
    assert all(not (ln.x0 < g < ln.x1) for ln in raw.lines if ln.size < 12 for g in gutters)


def test_a_page_whose_layout_fails_falls_back_and_is_named(tmp_path, monkeypatch):
    path, paras = lc.build_gazette(tmp_path / "gazette.pdf", pages=2)
    real = order.xy_cut
    calls = {"n": 0}

    def flaky(boxes, size, width):
        calls["n"] += 1
        if calls["n"] == 2:
            raise LayoutError("a test failure on page 2")
        return real(boxes, size, width)

    monkeypatch.setattr(order, "xy_cut", flaky)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        doc = convert_pdf(path)
    notes = [w.message for w in caught if isinstance(w.message, AdachunkWarning)]
    assert [n.code for n in notes] == ["ADA405"]
    assert "page 2" in notes[0].message and "ADA405" in CODES
    assert doc.meta["layout_fallback_pages"] == [2]
    assert paras[0] in [_flat(b) for b in doc.text.split("\n\n")]  # page 1 still read by columns
    assert len(doc.pages) == 2 and doc.text[doc.pages[1].start:doc.pages[1].end].strip()


# ---------------------------------------------------------------- rotated text


def test_directions_from_the_text_matrix():
    assert direction((9, 0, 0, 9, 0, 0)) == UPRIGHT
    assert direction((0, -6, 6, 0, 0, 0)) == DOWN
    assert direction((0, 11, -11, 0, 0, 0)) == UP


def test_a_glyph_running_down_the_page_reads_left_to_right():
    ch = {"x0": 500.0, "x1": 507.0, "top": 40.0, "bottom": 45.0, "size": 5.0, "text": "S"}
    turned = turn_char(ch, DOWN, 612.0, 1008.0)
    assert (turned["x0"], turned["x1"], turned["top"], turned["bottom"]) == (40.0, 45.0, 105.0, 112.0)
    assert turned["size"] == 7.0


@pytest.mark.parametrize("rotate_page", [True, False], ids=["page-rotate", "rotated-text"])
def test_sideways_pages_are_read_in_their_reading_direction(tmp_path, rotate_page):
    path, rows = lc.build_sideways(tmp_path / "side.pdf", rotate_page)
    doc = convert_pdf(path)
    flat = _flat(doc.text)
    at = [flat.find(r) for r in rows]
    assert -1 not in at and at == sorted(at), flat[:300]


# ---------------------------------------------------------------- line numbers, headings


def test_transcript_line_numbers_are_left_out(tmp_path):
    path, paras = lc.build_transcript(tmp_path / "transcript.pdf")
    doc = convert_pdf(path)
    assert paras[0] in [_flat(b) for b in doc.text.split("\n\n")]
    assert not re.search(r"^\d+\.", doc.text, re.M)


def test_agenda_items_are_headings_of_one_level_and_wrapped_lines_are_not(tmp_path):
    path, items, wrapped = lc.build_agenda(tmp_path / "agenda.pdf")
    doc = convert_pdf(path)
    heads = re.findall(r"^(#{1,6}) (.*)$", doc.text, re.M)
    assert [t for _, t in heads] == items
    assert len({h for h, _ in heads}) == 1
    assert not any(t.startswith(w[:20]) for _, t in heads for w in wrapped)


# ---------------------------------------------------------------- the real PDFs


def _bench():
    spec = importlib.util.spec_from_file_location("pdf_real_bench", ROOT / "bench" / "pdf_real_bench.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _real(name: str) -> Path:
    path = REAL / name
    if not path.exists():
        pytest.skip("../shared/corpus/pdf-real is not available")
    return path


@pytest.mark.parametrize("stem", ["federal-register-2020-17221", "cupertino_usd_4-6-16", "scotus-transcript-p1",
                                  "diesel_engines"])
def test_real_pdf_facts_hold(stem):
    bench = _bench()
    import yaml

    spec = yaml.safe_load((ROOT / "bench" / "pdf_real" / f"{stem}.yaml").read_text(encoding="utf-8"))
    path = _real(spec["source"])
    text = convert_pdf(path).text
    facts = bench.check(spec, text)
    for kind in ("paragraphs", "not_headings"):
        wrong = [f for f, ok in zip(spec.get(kind) or [], facts[kind]) if not ok]
        assert not wrong, (kind, wrong[:2])
    # headings: the expected ones are headings, and those the file puts at one level share one
    # (the exact level moves when a table caption above them is or is not read as a heading)
    heads = {t: lv for lv, t in bench.heading_lines(text)}
    for want in spec.get("headings") or []:
        assert bench.norm(want["text"]) in heads, want
    for level in {h["level"] for h in spec.get("headings") or []}:
        same = {heads[bench.norm(h["text"])] for h in spec["headings"] if h["level"] == level}
        assert len(same) == 1, (level, same)


def test_federal_register_lines_stay_in_their_column():
    path = _real("federal-register-2020-17221.pdf")
    pdf = ex.open_pdf(path.read_bytes(), str(path))
    try:
        for i in range(3):
            raw = ex.extract_page(pdf.pages[i], i + 1)
            body = [ln for ln in raw.lines if 55 < ln.top < 750 and ln.size < 12]
            crossing = [ln.text for ln in body if any(ln.x0 < g < ln.x1 for g in (217.0, 394.0))]
            assert not crossing, (i + 1, crossing[:3])
    finally:
        pdf.close()


@pytest.mark.parametrize("name,chars", [("nics-background-checks-2015-11-rotated.pdf", 3000),
                                        ("anticlockwise_table_1.pdf", 700)])
def test_real_rotated_pages_have_their_text(name, chars):
    doc = convert_pdf(_real(name))
    assert len(re.sub(r"[\s|:-]", "", doc.text)) > chars


# ---------------------------------------------------------------- line joins


@pytest.mark.parametrize("lines,joined", [
    (["internet https://", "www.example.gov. You"], "internet https://www.example.gov. You"),
    (["email: 9-FAA-Inquiry@", "faa.gov."], "email: 9-FAA-Inquiry@faa.gov."),
    (["(http://knkt.go.id/knkt/", "ntsc_aviation)"], "(http://knkt.go.id/knkt/ntsc_aviation)"),
    (["visit https://example.gov", "for more"], "visit https://example.gov for more"),
])
def test_web_addresses_broken_at_a_line_end_are_joined(lines, joined):
    from collections import Counter

    from adachunk.ingest.pdf._text import join_lines

    assert join_lines(lines, Counter()) == joined


def test_a_label_split_from_its_colon_by_a_font_change_is_glued():
    from adachunk.ingest.pdf._lines import make_line

    label = Word("AGENCY", 45.0, 75.0, 100.0, 107.4, 7.44, True)
    colon = Word(":", 75.0, 77.5, 100.0, 109.0, 9.0, True)
    rest = Word("Federal", 80.0, 110.0, 100.0, 109.0, 9.0, False)
    assert make_line([label, colon, rest]).text == "AGENCY: Federal"


def test_unmapped_glyphs_are_one_notice_naming_the_file_and_pages():
    from adachunk.ingest.pdf._extract import _report_pages

    pages = [RawPage(n, 100.0, 100.0, [], [], True, unmapped=k) for n, k in ((1, 2), (2, 0), (3, 1), (4, 5), (5, 1))]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _report_pages(pages, "report.pdf") is pages
    (note,) = [w.message for w in caught if isinstance(w.message, AdachunkWarning)]
    assert note.code == "ADA406" and "ADA406" in CODES
    assert note.render().startswith("ADA406 report.pdf: 9 glyphs without a Unicode mapping dropped on pages 1, 3-5")


def test_real_unmapped_bullets_are_reported_once():
    path = _real("diesel_engines.pdf")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        convert_pdf(path)
    codes = [w.message.code for w in caught if isinstance(w.message, AdachunkWarning)]
    assert codes.count("ADA406") == 1
