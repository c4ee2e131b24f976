"""Tables as statements set them (issue 34): year headers over an empty stub, leaders, wrapped
cells, a long table over pages without its header; ruled tables whose rulings do not separate
every row; and the real tables of ../shared/corpus/pdf-real (skipped when it is absent)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pdfplumber")
pytest.importorskip("reportlab")

from adachunk.ingest.pdf import _extract as ex  # noqa: E402
from adachunk.ingest.pdf._model import RawTable, Word  # noqa: E402
from adachunk.ingest.pdf._ruled import drop_frames, ruled_rows  # noqa: E402
from adachunk.ingest.pdf._table_rows import row_groups, strip_leader  # noqa: E402
from adachunk.ingest.pdf import convert_pdf  # noqa: E402

from . import pdf_tables_corpus as tc  # noqa: E402

REAL = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "pdf-real"


def md_rows(text: str) -> list[list[str]]:
    """Every Markdown table row (separator rows left out), cells stripped."""
    out = []
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("| ---"):
            out.append([c.strip() for c in line.strip()[2:-2].split(" | ")])
    return out


@pytest.mark.parametrize("name", sorted(tc.BUILDERS))
def test_every_row_comes_out_whole(tmp_path, name):
    path, [table] = tc.BUILDERS[name](tmp_path / f"{name}.pdf")
    doc = convert_pdf(path)
    got = md_rows(doc.text)
    for row in table:
        assert row in got, (row, got[:8])
    assert len(doc.meta["tables"]) == 1  # one table, whatever the pages


def test_year_headers_sit_over_their_figures(tmp_path):
    path, [table] = tc.build_year_headers(tmp_path / "y.pdf")
    assert convert_pdf(path).meta["tables"][0]["header"] == ["", "2024 EUR k", "2023 EUR k"]


def test_table_over_pages_without_its_header_is_one_table_with_its_header_on_every_part(tmp_path):
    path, [table] = tc.build_multipage_no_repeat(tmp_path / "m.pdf")
    doc = convert_pdf(path, max_table_rows=0)
    [summary] = doc.meta["tables"]
    assert summary["pages"] == [1, 2, 3] and summary["rows"] == len(table) - 1
    parts = [p for p in doc.text.split("<Table>\n")[1:]]
    assert len(parts) == 3 and all(p.startswith("| Account | Budget | Actual |") for p in parts)


def test_leaders_are_stripped():
    assert strip_leader("Total . . . . . . .") == "Total"
    assert strip_leader("Total......") == "Total"
    assert strip_leader("Inc.") == "Inc."


def test_wrapped_rows_by_rhythm_and_label_column():
    # top-aligned: figures on the first line, the label's second line set tight under it
    cells = [["Fees And", "Audit", "25,000"], ["Advisory Services", "", ""], ["Travel", "Flights", "6,420"],
             ["", "and hotels", ""], ["Insurance", "D&O", "4,800"]]
    tops = [0, 12, 33, 45, 66]
    assert row_groups(cells, tops, [t + 10 for t in tops]) == [[0, 1], [2, 3], [4]]
    # evenly set: a section label stays a row of its own, a lower-case line joins
    cells = [["Cash", "1", "2"], ["Current assets", "", ""], ["Trade", "3", "4"], ["receivables", "", ""]]
    tops = [0, 12, 24, 36]
    assert row_groups(cells, tops, [t + 10 for t in tops]) == [[0], [1], [2, 3]]


def test_group_label_given_once_does_not_join_the_rows_of_its_group():
    cells = [["Anaesthetics", "Lignocaine", "Injection"], ["", "Bupivacaine", "Injection"], ["", "Propofol", "Vial"]]
    tops = [0, 12, 24]
    assert row_groups(cells, tops, [t + 10 for t in tops]) == [[0], [1], [2]]


def test_running_header_above_a_table_stays_out_of_it():
    from adachunk.ingest.pdf._borderless import find_tables

    def line(cells: list[tuple[float, str]], top: float) -> list[Word]:
        out = []
        for x, text in cells:
            for word in text.split():
                out.append(Word(word, x, x + 5.0 * len(word), top, top + 8, 8.0, False))
                x += 5.0 * len(word) + 2.2
        return out
    words = line([(45, "Federal Register / Vol. 85, No. 152 / Thursday, August 6, 2020 / Proposed Rules"),
                  (540, "47703")], 34)
    words += line([(230, "ESTIMATED COSTS")], 52)
    words += line([(45, "Action"), (200, "Labor"), (330, "Parts"), (430, "Cost")], 68)
    for i, (a, b, c, d) in enumerate([("Wiring", "79 hours", "3,790", "10,505"), ("Sensor test", "40 hours", "0", "3,400"),
                                      ("Flight", "2 hours", "0", "170")]):
        words += line([(45, a), (200, b), (330, c), (430, d)], 82 + 12 * i)
    [t] = find_tables(words)
    assert t.rows[0] == ["Action", "Labor", "Parts", "Cost"] and t.top == 68


def _w(text: str, x: float, top: float) -> Word:
    return Word(text, x, x + 6 * len(text), top, top + 8, 8.0, False)


def test_ruled_header_over_an_open_body_is_split_into_rows():
    # header cells on three columns, the body one box spanning them all
    grid = [[(0, 0, 100, 20), (100, 0, 200, 20), (200, 0, 300, 20)], [(0, 20, 300, 80), None, None]]
    words = [_w("Doc", 5, 5), _w("Payee", 105, 5), _w("Amount", 205, 5)]
    for i, (doc, payee, amount) in enumerate([("D1", "ACME", "10.00"), ("D2", "Bolt", "20.00")]):
        top = 25 + 20 * i
        words += [_w(doc, 5, top), _w(payee, 105, top), _w(amount, 255, top), _w("note", 105, top + 9)]
    rows = ruled_rows(grid, words, lambda box, ws: " ".join(w.text for w in ws if box and box[0] <= w.x0 < box[2]
                                                                 and box[1] <= w.top < box[3]))
    assert rows == [["Doc", "Payee", "Amount"], ["D1", "ACME note", "10.00"], ["D2", "Bolt note", "20.00"]]


def test_two_level_ruled_header_is_one_header_row_over_the_right_columns():
    # "Dates" spans the "Start" and "End" columns; "Doc" reaches down both header rows
    grid = [[(0, 0, 100, 40), (100, 0, 300, 20), None], [None, (100, 20, 200, 40), (200, 20, 300, 40)],
            [(0, 40, 100, 60), (100, 40, 200, 60), (200, 40, 300, 60)], [(0, 60, 100, 80), (100, 60, 200, 80),
                                                                          (200, 60, 300, 80)]]
    words = [_w("Doc", 5, 5), _w("Dates", 150, 5), _w("Start", 105, 25), _w("End", 205, 25),
             _w("D1", 5, 45), _w("1/1", 105, 45), _w("2/1", 205, 45), _w("D2", 5, 65), _w("3/1", 105, 65),
             _w("4/1", 205, 65)]

    def text(box, ws):
        return " ".join(w.text for w in ws if box and box[0] <= w.x0 < box[2] and box[1] <= w.top < box[3])
    assert ruled_rows(grid, words, text) == [["Doc", "Dates Start", "Dates End"], ["D1", "1/1", "2/1"],
                                             ["D2", "3/1", "4/1"]]


def test_a_frame_round_a_table_is_not_a_table():
    inner = RawTable(100, 500, 50, 550, [["a", "b"], ["1", "2"]], [50, 300, 550])
    frame = RawTable(20, 800, 10, 590, [["everything", ""], ["", "15"]], [10, 300, 590])
    assert drop_frames([frame, inner]) == [inner]


def _real(stem: str) -> Path:
    path = REAL / f"{stem}.pdf"
    if not path.exists():
        pytest.skip("../shared/corpus/pdf-real is not available")
    return path


def _ruled_rows_of(path: Path) -> list[list[str]]:
    """Rows of the page's ruled tables as :func:`ruled_rows` reads them (page 1)."""
    pdf = ex.open_pdf(path.read_bytes(), str(path))
    page = pdf.pages[0]
    chars: list[dict] = []
    shapes: list[dict] = []
    ex._walk(page.layout, chars, shapes, float(page.height), (0.0, 0.0))
    words, _ = ex._words(chars)
    out = []
    for grid in ex._find_cells(page, shapes, tuple(page.bbox)):
        out += ruled_rows(grid, words, ex._cell_text)
    pdf.close()
    return out


def test_senate_expenditures_rows():
    rows = _ruled_rows_of(_real("senate-expenditures"))
    assert ["", "", "BAIN, J MATTHEW", "", "", "DISTRICT DIRECTOR", "37,499.96"] in rows
    assert ["DHAW20190004", "04/03/2019", "CITIBANK - TRAVEL CBA CARD", "03/21/2019", "03/24/2019",
            "STAFF TRANSPORTATION AIRFARE FOR K FORD 3/21 WASHINGTON DC TO SAINT LOUIS, KANSAS CITY; 3/24 SAINT "
            "LOUIS TO WASHINGTON DC", "903.90"] in rows
    assert sum(r[0].startswith("DHAW") for r in rows) == 22


def test_ruled_medicine_rows_stay_as_they_were():
    rows = _ruled_rows_of(_real("medicine"))
    assert ["", "3", "Lignocaine Hydrochloride IP with dextrose hyperbaric (heavy) Inj.", "Anaesthetics",
            "Inj. Xylocaine OR Lignocaine OR Lidocaine 5% Heavy Dextrose 75mg/mL, Lignocaine HCI 53.3mg/mL", "2 ml",
            "", "Y", "Y", "Y"] in rows
    assert sum(1 for r in rows if r[1].isdigit()) == 26


FACTS = Path(__file__).resolve().parents[1] / "bench" / "pdf_real"


def _norm(cell: str) -> str:
    """As bench/pdf_real_bench.py compares cells: whitespace collapsed, none after a dash."""
    return re.sub(r"([\u2010-\u2015-])\s+", r"\1", " ".join(cell.split()))


@pytest.mark.parametrize("stem", ["anticlockwise_table_1", "assam", "medicine", "senate-expenditures",
                                  "nics-background-checks-2015-11-rotated"])
def test_real_table_rows_hold(stem):
    import yaml

    spec = yaml.safe_load((FACTS / f"{stem}.yaml").read_text(encoding="utf-8"))
    got = [[_norm(c.replace("\\|", "|")) for c in r] for r in md_rows(convert_pdf(_real(stem)).text)]
    want = [[_norm(c) for c in r] for r in spec["rows"]]
    held = sum(r in got for r in want)
    assert held >= 0.95 * len(want), [r for r in want if r not in got][:3]
