"""PDF ingestion: real PDFs built with reportlab (tests/pdf_factory.py) → Markdown Document."""

from __future__ import annotations

import json
import re
import sys
import types

import pytest

pytest.importorskip("pdfplumber")
pytest.importorskip("reportlab")

from adachunk.cli.main import main  # noqa: E402
from adachunk.detect.markdown import parse_blocks  # noqa: E402
from adachunk.errors import InputError  # noqa: E402
from adachunk.ingest.pdf import _text as tx  # noqa: E402
from adachunk.ingest import read_document  # noqa: E402
from adachunk.ingest.pdf._furniture import is_page_number  # noqa: E402
from adachunk.ingest.pdf._lines import reading_order  # noqa: E402
from adachunk.ingest.pdf._model import Line, Word  # noqa: E402
from adachunk.ingest.pdf._tables import markdown_table, split_rows  # noqa: E402
from adachunk.ingest.pdf import PdfOptions, convert_pdf, parsed_json  # noqa: E402

from . import pdf_factory as pf  # noqa: E402

HEADER = ["Code", "Country", "Amount"]
COMMENT = re.compile(r"<!--.*?-->", re.S)


@pytest.fixture(scope="module")
def sample_pdf(tmp_path_factory):
    return pf.build_sample(tmp_path_factory.mktemp("pdf") / "report.pdf")


@pytest.fixture(scope="module")
def doc(sample_pdf):
    return convert_pdf(sample_pdf)


def tables(text: str) -> list[list[list[str]]]:
    """Every <Table> of the text as rows of cells (header first, separator dropped)."""
    out = []
    for body in re.findall(r"<Table>\n(.*?)\n</Table>", text, re.S):
        rows = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in body.splitlines()]
        out.append([rows[0]] + rows[2:])
    return out


def page_of(doc, needle: str) -> int:
    pos = doc.text.index(needle)
    return next(p.number for p in doc.pages if p.start <= pos < p.end)


# ----------------------------------------------------------------------------- structure
def test_headings_at_their_levels(doc):
    assert [(t["title"], t["level"]) for t in doc.titles] == [
        ("# 1 Introduction", 1), ("## 1.1 Scope", 2), ("### Definitions", 3), ("# 2 Data", 1)]
    for t in doc.titles:
        assert doc.text[t["start"]:].startswith(t["title"])
    # end: the next title of the same or a higher level, or the end of the text
    assert doc.titles[0]["end"] == doc.titles[3]["start"] and doc.titles[3]["end"] == len(doc.text)
    heads = [(doc.text[s.start:s.end], s.level) for s in parse_blocks(doc.text) if s.label == "heading"]
    assert heads == [("# 1 Introduction", 1), ("## 1.1 Scope", 2), ("### Definitions", 3), ("# 2 Data", 1)]


def test_paragraphs_reflowed_and_dehyphenated(doc):
    assert "The new regulation applies to every well-known firm in the market. It also covers small firms." in doc.text
    assert "regu-" not in doc.text and "wellknown" not in doc.text
    assert "This section describes the scope of the rules and the firms that must comply with them.\n" in doc.text


def test_bulleted_list_items(doc):
    assert ("- Banks and credit institutions that hold deposits from the public.\n- Insurance companies.\n"
            "- Investment funds.\n") in doc.text
    items = [doc.text[s.start:s.end] for s in parse_blocks(doc.text) if s.label == "list_item"]
    assert len(items) == 5 and items[0].endswith("from the public.") and items[3] == "- (a) Firms must report."


def test_enumerated_list_keeps_its_markers(doc):
    assert "- (a) Firms must report.\n- (b) Funds must publish.\n" in doc.text


def test_platypus_layout(tmp_path):
    d = convert_pdf(pf.build_platypus(tmp_path / "p.pdf"))
    assert [t["title"] for t in d.titles] == ["# Widget Regulation", "## Article 1", "## Article 2"]
    assert "1. numbered point 0\n2. numbered point 1\n3. numbered point 2" in d.text
    assert "- bullet point 0\n- bullet point 1" in d.text
    assert "Every provider of widgets shall comply with the registration requirements, the transparency" in d.text
    long = [t for t in tables(d.text) if t[0] == ["Year", "Revenue", "Cost"]]
    assert len(long) == 2 and [r[0] for t in long for r in t[1:]] == [str(1990 + i) for i in range(45)]
    # the table's continuation is read before the heading printed under it
    assert d.text.index("| 2034 |") < d.text.index("## Article 2")
    assert d.meta["tables"][0]["pages"] == [1, 2]


def test_small_table_cells_in_their_columns(doc):
    first = tables(doc.text)[0]
    assert first == [["Term", "Meaning", "Source"], ["Firm", "A legal person", "Art. 2"],
                     ["Deposit", "Money held for a client", "Art. 3"], ["Fund", "A pooled investment", "Art. 4"]]
    labels = {s.label for s in parse_blocks(doc.text)}
    assert {"table", "table_row", "table_cell"} <= labels


@pytest.mark.parametrize("repeat_in_pdf", [False, True])
def test_long_table_header_repeated_on_continuation(tmp_path, doc, repeat_in_pdf):
    d = convert_pdf(pf.build_sample(tmp_path / "r.pdf", repeat_header=True)) if repeat_in_pdf else doc
    long = [t for t in tables(d.text) if t[0] == HEADER]
    assert len(long) == 2
    body = [r for t in long for r in t[1:]]
    assert HEADER not in body  # the header the PDF repeated is not doubled
    assert [r[0] for r in body] == [f"R{i:03d}" for i in range(1, 60)]
    assert all(len(r) == 3 for r in body) and body[4] == ["R005", "Country 5", "85.50"]
    first_rows = [t[1][0] for t in long]
    assert [page_of(d, f"| {code} |") for code in first_rows] == [2, 3]
    summary = [t for t in d.meta["tables"] if t["header"] == HEADER]
    assert summary == [{"id": 1, "pages": [2, 3], "columns": 3, "rows": 59, "header": HEADER}]


def test_max_table_rows_splits_with_header_and_no_wrapper(sample_pdf):
    d = convert_pdf(sample_pdf, max_table_rows=20, table_wrapper=False)
    assert "<Table>" not in d.text
    parts = [b for b in re.split(r"\n\n", d.text) if b.startswith("| Code |")]
    assert len(parts) == 4  # 38 rows on page 2 → 19 + 19; 21 on page 3 → 11 + 10
    rows = [ln for p in parts for ln in p.splitlines()[2:]]
    assert len(rows) == 59 and all(len(p.splitlines()) - 2 <= 20 for p in parts)


def test_running_header_footer_and_page_numbers_leave_the_body(sample_pdf, doc):
    body = COMMENT.sub("", doc.text)
    assert "ACME" not in body and "Confidential" not in body
    assert not [ln for ln in body.splitlines() if is_page_number(ln)]
    for k in (1, 2, 3):
        page = doc.text[doc.pages[k - 1].start:doc.pages[k - 1].end]
        assert page.startswith("<!-- PageHeader: ACME Annual Report 2024 -->\n\n")
        assert f"<!-- PageFooter: Confidential draft - page {k} of 3 page {k} -->\n<!-- PageBreak -->\n\n" in page
    dropped = convert_pdf(sample_pdf, furniture="drop")
    assert "<!--" not in dropped.text.replace("<!-- PageBreak -->", "") and "ACME" not in dropped.text


def test_page_map(tmp_path, doc):
    assert [p.number for p in doc.pages] == [1, 2, 3]
    assert doc.pages[0].start == 0 and doc.pages[-1].end == len(doc.text)
    assert all(a.end == b.start for a, b in zip(doc.pages, doc.pages[1:]))
    assert page_of(doc, "1 Introduction") == page_of(doc, "Investment funds") == page_of(doc, "Art. 4") == 1
    assert page_of(doc, "# 2 Data") == page_of(doc, "R038") == 2
    assert page_of(doc, "R039") == page_of(doc, "This closes the report.") == 3
    md = tmp_path / "report.md"
    md.write_text(doc.text, encoding="utf-8")
    assert read_document(md).pages == doc.pages  # the markers alone give the same page map


def test_footnote_bound_to_its_paragraph(doc):
    para = doc.text.index("The new regulation")
    note = doc.text.index("[^1]: Small firms are those with fewer than fifty employees.")
    assert doc.text[para:note].endswith("small firms.[^1]\n\n")
    assert not [s for s in doc.split_points if para < s <= note]


def test_gold_blocks(doc):
    sp = doc.split_points
    assert sp == sorted(set(sp)) and 0 < sp[0] and sp[-1] < len(doc.text)
    text = doc.text
    starts = {m.start() for m in re.finditer(r"(?m)^(?:## 1\.1|### Def|<Table>|<!-- Page|- Banks|The table above)",
                                             text)}
    assert starts - {0} <= set(sp)
    # a heading is bound to the block after it: no gold boundary right after a heading
    for t in doc.titles:
        after = t["start"] + len(t["title"]) + 2
        assert after not in sp
    assert text.index("- Insurance") not in sp  # a list is one block


def test_default_profile_never_cuts_inside_a_table_row(doc):
    from adachunk import chunk_document

    chunking = chunk_document(doc, "default", max_size=120, min_size=20)
    assert "".join(c.text for c in chunking.chunks) == doc.text and len(chunking.chunks) > 4
    for cut in chunking.cuts:
        line_start = doc.text.rfind("\n", 0, cut) + 1
        line_end = doc.text.find("\n", cut)
        line = doc.text[line_start:line_end]
        assert not (line.startswith("|") and line_start < cut <= line_end), (cut, line)
    assert chunking.chunks[-1].pages == (3,) and chunking.chunks[0].pages == (1,)


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize("kind, code", [("encrypted", "ADA308"), ("image", "ADA309"), ("truncated", "ADA310"),
                                        ("corrupt", "ADA310")])
def test_unreadable_pdfs_are_coded_errors(tmp_path, sample_pdf, kind, code):
    path = tmp_path / f"{kind}.pdf"
    {"encrypted": lambda: pf.build_encrypted(path), "image": lambda: pf.build_image_only(path),
     "truncated": lambda: pf.build_truncated(path, sample_pdf), "corrupt": lambda: pf.build_corrupt(path)}[kind]()
    with pytest.raises(InputError) as err:
        read_document(path)
    assert err.value.code == code and str(path) in err.value.render()


def test_encrypted_pdf_opens_with_its_password(tmp_path):
    d = convert_pdf(pf.build_encrypted(tmp_path / "e.pdf"), password="secret")
    assert "Secret text." in d.text
    with pytest.raises(InputError, match="password given is wrong"):
        convert_pdf(tmp_path / "e.pdf", password="nope")


# ----------------------------------------------------------------------------- CLI
def test_cli_convert_writes_markdown_and_json(tmp_path, sample_pdf, doc, capsys):
    md, js = tmp_path / "out.md", tmp_path / "out.json"
    assert main(["convert", str(sample_pdf), "-o", str(md), "--json", str(js), "--max-table-rows", "40"]) == 0
    assert md.read_text(encoding="utf-8") == doc.text
    obj = json.loads(js.read_text(encoding="utf-8"))
    assert list(obj) == ["document_name", "pages", "full_text", "split_points", "titles"]
    assert obj == parsed_json(doc) and "".join(obj["pages"].values()) == obj["full_text"]
    back = read_document(js)
    assert (back.text, back.pages, back.split_points) == (doc.text, doc.pages, doc.split_points)


def test_cli_convert_reports_bad_files_and_goes_on(tmp_path, sample_pdf, capsys):
    bad = pf.build_corrupt(tmp_path / "bad.pdf")
    good = tmp_path / "good.pdf"
    good.write_bytes(sample_pdf.read_bytes())
    assert main(["convert", str(bad), str(good), "-o", str(tmp_path / "out"), "--json"]) == 2
    assert "ADA310" in capsys.readouterr().err
    assert (tmp_path / "out" / "good.md").is_file() and (tmp_path / "out" / "good.json").is_file()
    assert not (tmp_path / "out" / "bad.md").exists()


def test_cli_chunk_reads_pdf_directly(sample_pdf, capsys):
    assert main(["chunk", str(sample_pdf), "--max-size", "150"]) == 0
    recs = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert recs and {p for r in recs for p in r["pages"]} == {1, 2, 3}


# ----------------------------------------------------------------------------- rules
@pytest.mark.parametrize("lines, expected", [
    (["The regu-", "lation applies."], "The regulation applies."),
    (["a well-", "known firm"], "a well-known firm"),
    (["state-of-", "the-art tools"], "state-of-the-art tools"),
    (["the Anglo-", "Saxon law"], "the Anglo-Saxon law"),
    (["years 2019-", "2020"], "years 2019-2020"),
    (["soft\u00ad", "ware"], "software"),
    (["a long", "line"], "a long line"),
])
def test_join_lines(lines, expected):
    assert tx.join_lines(lines, tx.vocabulary(["regulation", "firm"])) == expected


def test_fragments_do_not_vouch_for_themselves():
    lines = ["the for-", "mation of the firm", "for the firm"]
    assert tx.join_lines(lines[:2], tx.vocabulary(lines)) == "the formation of the firm"


def test_dehyphenation_follows_the_document_spelling():
    vocab = tx.vocabulary(["the data-base is new", "e-mail"])
    assert tx.join_lines(["the data-", "base"], vocab) == "the data-base"
    assert tx.join_lines(["the data-", "base"], tx.vocabulary(["database"])) == "the database"


def test_list_markers_and_escaping():
    assert tx.list_marker("\u2022 item") == ("\u2022", "item") and tx.list_marker("(a) first") == ("(a)", "first")
    assert tx.list_marker("\u2013 dash item")[0] == "\u2013" and tx.list_marker("12. twelve")[0] == "12."
    assert tx.list_marker("J. Smith said") is None and tx.list_marker("2019 was a year") is None
    assert tx.item_markdown("(a)", "first") == "- (a) first" and tx.item_markdown("3.", "x") == "3. x"
    assert tx.escape_block_start("1990. A year") == "1990\\. A year" and tx.escape_block_start("# x") == "\\# x"
    assert is_page_number("- 12 -") and is_page_number("Page 3 of 10") and not is_page_number("12 firms")


def test_tables_render_and_split():
    assert markdown_table(["a", "b|c"], [["1", "x\ny"]]) == "| a | b\\|c |\n| --- | --- |\n| 1 | x y |"
    assert [len(p) for p in split_rows([["r"]] * 41, 40)] == [21, 20] and len(split_rows([["r"]] * 5, 0)) == 1


def _line(text: str, x0: float, top: float, width: float = 200) -> Line:
    w = Word(text, x0, x0 + width, top, top + 10, 10.0, False)
    return Line([w], x0, x0 + width, top, top + 10, 10.0, False)


def test_two_column_reading_order():
    title = _line("Title across both columns", 72, 60, 460)
    left = [_line(f"left {i}", 72, 100 + 12 * i) for i in range(8)]
    right = [_line(f"right {i}", 320, 100 + 12 * i) for i in range(8)]
    ordered, gutter = reading_order([title] + right + left, 612)
    assert gutter is not None and 272 <= gutter <= 320
    order = [ln.text for ln in ordered]
    assert order == ["Title across both columns"] + [f"left {i}" for i in range(8)] + [f"right {i}" for i in range(8)]


# ----------------------------------------------------------------------------- pymupdf backend
def test_pymupdf_backend_missing_is_a_coded_error(monkeypatch, sample_pdf):
    monkeypatch.setitem(sys.modules, "pymupdf", None)
    with pytest.raises(InputError) as err:
        convert_pdf(sample_pdf, backend="pymupdf")
    assert err.value.code == "ADA314" and "AGPL" in err.value.render()


def test_pymupdf_backend_markdown_to_blocks(monkeypatch, sample_pdf):
    pages_md = [
        "**ACME Report**\n\n# **1. Intro**\n\nSome regu-\nlation text.\n\n"
        "| Code | Name |\n|---|---|\n| A1 | x |\n\n1\n",
        "**ACME Report**\n\n| Code | Name |\n|---|---|\n| A2 | y |\n\n- one\n- two\n\n2\n",
    ]

    class Page:
        def __init__(self, i):
            self.i = i

        def get_text(self, kind):
            return pages_md[self.i]

    class Doc:
        needs_pass, page_count = False, 2

        def __getitem__(self, i):
            return Page(i)

        def close(self):
            pass

    monkeypatch.setitem(sys.modules, "pymupdf", types.SimpleNamespace(open=lambda **kw: Doc()))
    fake = types.SimpleNamespace(to_markdown=lambda doc, pages: pages_md[pages[0]])
    monkeypatch.setitem(sys.modules, "pymupdf4llm", fake)
    d = convert_pdf(sample_pdf, options=PdfOptions(backend="pymupdf"))
    assert d.meta["backend"] == "pymupdf" and [p.number for p in d.pages] == [1, 2]
    assert d.titles[0]["title"] == "# 1. Intro" and "Some regulation text." in d.text
    assert tables(d.text) == [[["Code", "Name"], ["A1", "x"]], [["Code", "Name"], ["A2", "y"]]]
    assert "<!-- PageHeader: ACME Report -->" in d.text and "<!-- PageFooter: page 2 -->" in d.text
    assert "- one\n- two" in d.text and "ACME" not in COMMENT.sub("", d.text)
    assert d.meta["tables"][0]["pages"] == [1, 2] and d.meta["tables"][0]["rows"] == 2  # joined
    Doc.needs_pass = True
    Doc.authenticate = lambda self, password: 0
    with pytest.raises(InputError) as err:
        convert_pdf(sample_pdf, backend="pymupdf")
    assert err.value.code == "ADA308"


def test_light_ruling_table_finder_matches_pdfplumber(sample_pdf, tmp_path):
    """The fast path (TableFinder on our light rulings) finds the cells pdfplumber's own
    find_tables finds, so a pdfplumber upgrade that changes the finder shows up here."""
    import pdfplumber

    from adachunk.ingest.pdf import _extract as ex

    found = 0
    for path in (sample_pdf, pf.build_platypus(tmp_path / "p.pdf")):
        with pdfplumber.open(path) as pdf:
            for page in pdf.pages:
                chars, shapes = [], []
                ex._walk(page.layout, chars, shapes, float(page.height), (0.0, 0.0))
                fast = ex._find_cells(page, shapes)
                assert fast == [[list(r.cells) for r in t.rows] for t in page.find_tables()]
                found += len(fast)
    assert found == 5


def test_extracted_pages_survive_pickling(sample_pdf, doc):
    """Worker processes return pickled pages: table anchors must still be lines of their page."""
    import pickle

    from adachunk.ingest.pdf import _extract as ex
    from adachunk.ingest.pdf._render import render
    from adachunk.ingest.pdf import layout_pages

    raw = pickle.loads(pickle.dumps(ex._extract_range(sample_pdf.read_bytes(), "x", None, 0, 3)))
    assert all(any(t.anchor is ln for ln in p.lines) for p in raw for t in p.tables if t.anchor is not None)
    assert render(layout_pages(raw, PdfOptions())[0]).text == doc.text


@pytest.mark.slow
def test_parallel_extraction_gives_the_same_document(monkeypatch, sample_pdf, doc):
    from adachunk.ingest.pdf import _extract as ex

    monkeypatch.setattr(ex, "MIN_PAGES_PER_WORKER", 1)
    par = convert_pdf(sample_pdf, workers=2)
    assert (par.text, par.pages, par.split_points, par.titles) == (doc.text, doc.pages, doc.split_points, doc.titles)
