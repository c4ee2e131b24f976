"""HTML → Markdown (adachunk.ingest.html): constructs, boilerplate, source map, charset, and the
EUR-Lex acceptance (the legal profile finds the same structures as in the Markdown twin)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from adachunk.errors import InputError
from adachunk.ingest.html import HtmlOptions, convert_html, decode_html, html_blocks, read_html

from .conftest import CLAIR

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "html"
EURLEX = FIXTURES / "eurlex_gdpr_excerpt.html"
TWIN = FIXTURES / "eurlex_gdpr_excerpt.md"


def md(body: str, **options) -> str:
    """The Markdown of a page whose <body> is ``body``."""
    return convert_html(f"<!DOCTYPE html><html><body>{body}</body></html>", "t.html", HtmlOptions(**options)).text


# --- constructs ---------------------------------------------------------------------------------

def test_headings_bind_to_the_next_block():
    blocks = html_blocks("<h1>Title</h1><p>Intro</p><h3>Sub <em>part</em></h3><p>Body</p>", "t")
    assert [b.text for b in blocks] == ["# Title", "Intro", "### Sub part", "Body"]
    assert [b.heading for b in blocks] == [1, 0, 3, 0]
    assert [b.bind_next for b in blocks] == [True, False, True, False]
    conv = convert_html("<h1>Title</h1><p>Intro</p><h2>Sub</h2><p>Body</p>", "t")
    assert conv.split_points == [conv.text.index("## Sub")]
    assert [t["title"] for t in conv.titles] == ["Title", "Sub"]
    assert conv.titles[0]["end"] == len(conv.text)


def test_paragraphs_inline_markup_links_images_and_breaks():
    body = ("<p>Some  <b>bold</b>,<i> italic </i>and <code>x=1</code>.<br>Next\n line "
            "<a href='https://e.eu/a'>a link</a> <img src=x.png alt='a chart'><img src=y.png></p>")
    assert md(body) == "Some **bold**, *italic* and `x=1`.\nNext line a link a chart\n"
    assert "[a link](https://e.eu/a)" in md(body, links="markdown")
    assert md("<p><a href='javascript:void(0)'>go</a></p>", links="markdown") == "go\n"


def test_whitespace_collapsed_and_entities_decoded():
    assert md("<p>\n   a \t&amp;&nbsp;&nbsp;b&lt;c&gt; &eacute;&#233;&#x2014; </p>") == "a & b<c> éé—\n"
    assert md("<div>  loose <span>text</span>\n<p>para</p> tail </div>") == "loose text\n\npara\n\ntail\n"


def test_sup_footnote_reference_kept_as_text():
    assert md("<p>opinion of the Committee (<a href='#n1'><span class='oj-super'>1</span></a>),"
              "<sup>2</sup></p>") == "opinion of the Committee (1),2\n"


def test_nested_lists_with_start_type_and_value():
    body = ("<ul><li>one<ul><li>nested <b>b</b></li></ul></li><li><p>two</p><p>more</p></li></ul>"
            "<ol start='3'><li>c</li><li value='7'>g</li><li>h</li></ol>"
            "<ol type='a' start='2'><li>b</li><li>c</li></ol><ol type='I' start='4'><li>iv</li></ol>"
            "<ol type='i'><li>x</li><li>y<ol type='A'><li>z</li></ol></li></ol>")
    assert md(body) == ("- one\n  - nested **b**\n- two\n  more\n\n3. c\n7. g\n8. h\n\n(b) b\n(c) c\n\n(IV) iv\n\n"
                        "(i) x\n(ii) y\n     (A) z\n")


def test_lead_in_line_binds_to_its_list():
    conv = convert_html("<p>The parties:</p><ul><li>a</li><li>b</li></ul><p>After.</p>", "t")
    assert conv.text == "The parties:\n\n- a\n- b\n\nAfter.\n"
    assert conv.split_points == [conv.text.index("After.")]


def test_table_rowspan_colspan_header_and_pipes():
    body = ("<table><thead><tr><th>Group</th><th>Item</th><th>Note</th></tr></thead><tbody>"
            "<tr><td rowspan='2'>G1</td><td>a|b</td><td>x</td></tr><tr><td colspan='2'>wide</td></tr>"
            "<tr><td>G2</td><td>c</td></tr></tbody></table>")
    assert md(body) == ("<Table>\n| Group | Item | Note |\n| --- | --- | --- |\n| G1 | a\\|b | x |\n"
                        "| G1 | wide | wide |\n| G2 | c |  |\n</Table>\n")
    assert md(body, table_wrapper=False).startswith("| Group | Item | Note |\n| --- |")


def test_table_first_row_is_header_and_nested_table_flattened():
    body = ("<table><caption>Fees</caption><tr><td>Kind</td><td>Amount</td></tr><tr><td>Filing</td><td>"
            "<table><tr><td>10</td><td>EUR</td></tr></table></td></tr></table>")
    conv = convert_html(f"<body>{body}</body>", "t")
    assert conv.text == "Fees\n\n<Table>\n| Kind | Amount |\n| --- | --- |\n| Filing | 10 EUR |\n</Table>\n"
    assert conv.split_points == []  # the caption is bound to its table


def test_one_column_layout_table_is_read_as_text():
    assert md("<table><tr><td><h2>Title</h2><p>Text</p></td></tr></table>") == "## Title\n\nText\n"


def test_definition_list_one_block_per_term():
    blocks = html_blocks("<dl><dt>Controller</dt><dd>the body that decides</dd><div><dt>Processor</dt>"
                         "<dt>Sub-processor</dt><dd>acts for it</dd><dd>see Article 28</dd></div></dl>", "t")
    assert [b.text for b in blocks] == ["**Controller**\nthe body that decides",
                                        "**Processor**\n**Sub-processor**\nacts for it\nsee Article 28"]
    assert blocks[0].origin["html_path"] == "/html/body/dl/dt"


def test_pre_code_fenced_verbatim():
    body = "<pre><code class='language-python'>def f():\n    return  '&lt;x&gt;'\n\n# ```\n</code></pre>"
    assert md(body) == "````python\ndef f():\n    return  '<x>'\n\n# ```\n````\n"


def test_blockquote_prefixed():
    assert md("<blockquote><p>First</p><p>Second<br>line</p></blockquote>") == "> First\n>\n> Second\n> line\n"


# --- boilerplate --------------------------------------------------------------------------------

PAGE = """<html><head><title>Page</title><style>p{}</style><script>var x = "<p>no</p>";</script></head><body>
<div id="cookie-banner"><p>We use cookies.</p><button>Accept</button></div>
<a class="skip-link" href="#c">Skip to content</a>
<header><p>Site name</p></header><nav><ul><li>Home</li></ul></nav>
<div class="breadcrumbs">Home &gt; Law</div>
<div class="content"><p>Body text.</p><p hidden>secret</p><p style="display: none">gone</p>
<p aria-hidden="true">icon</p><aside>related</aside><form><input value="q"><label>Search</label></form>
<noscript>enable JS</noscript><iframe src="x"></iframe><svg><text>svg</text></svg>
<div role="navigation">pages</div><div class="main-menu">menu</div><div id="sidebar">side</div>
<div aria-label="Cookie consent">consent</div></div>
<footer><p>Copyright</p></footer></body></html>"""


def test_boilerplate_dropped():
    conv = convert_html(PAGE, "t")
    assert conv.text == "Body text.\n"
    assert conv.meta == {"format": "html", "title": "Page"}


def test_boilerplate_kept_on_request_but_never_scripts():
    text = convert_html(PAGE, "t", HtmlOptions(boilerplate="keep")).text
    for kept in ("We use cookies.", "Site name", "Home > Law", "secret", "related", "Copyright", "menu"):
        assert kept in text
    assert "var x" not in text and "p{}" not in text and "enable JS" not in text


def test_main_or_article_preferred():
    page = ("<body><div class='intro'>Intro</div><main><article><header><h1>T</h1></header><p>A</p>"
            "</article></main><div>Outside</div></body>")
    assert md(page) == "# T\n\nA\n"
    assert md("<div>Chrome</div><article><p>One</p></article><div>x</div><article><p>Two</p></article>") \
        == "One\n\nTwo\n"
    assert md("<div role='main'><p>Only</p></div><p>not</p>") == "Only\n"
    assert md("<main><p>M</p></main><p>x</p>", boilerplate="keep") == "M\n\nx\n"


def test_class_names_on_the_page_frame_do_not_drop_it():
    assert convert_html("<body class='has-sidebar'><p>Text</p></body>", "t").text == "Text\n"


# --- source map ---------------------------------------------------------------------------------

def test_source_map_paths_ids_and_spans():
    page = ("<html><body><div>x</div><div id='art_1'><p>one</p><p>two</p><div><p id='d1e5-1-1'>three</p>"
            "</div></div><ul><li>item</li></ul></body></html>")
    conv = convert_html(page, "t")
    assert conv.text == "x\n\none\n\ntwo\n\nthree\n\n- item\n"
    assert [o for _, _, o in conv.source_map] == [
        {"html_path": "/html/body/div[1]"},
        {"html_path": "/html/body/div[2]/p[1]", "id": "art_1"},
        {"html_path": "/html/body/div[2]/p[2]", "id": "art_1"},
        {"html_path": "/html/body/div[2]/div/p", "id": "art_1"},  # a generated id is not cited
        {"html_path": "/html/body/ul"},
    ]
    doc = convert_html(page, "t").document("d", "t.html")
    assert doc.meta["source_map"][1] == [3, 6, {"html_path": "/html/body/div[2]/p[1]", "id": "art_1"}]


def test_source_map_spans_cover_each_block_in_order():
    blocks = html_blocks(EURLEX.read_text(encoding="utf-8"), "eurlex")
    conv = convert_html(EURLEX.read_text(encoding="utf-8"), "eurlex")
    assert len(conv.source_map) == len(blocks)
    previous_end = 0
    for (s, e, origin), block in zip(conv.source_map, blocks):
        assert previous_end <= s < e <= len(conv.text)
        assert conv.text[s:e] == block.text
        assert origin["html_path"].startswith("/html/body/")
        previous_end = e

    def first(prefix: str) -> dict:
        return next(o for s, e, o in conv.source_map if conv.text[s:e].startswith(prefix))

    assert first("## Article 1 —") == {"html_path": "/html/body/div[2]/div/div/div[2]/div[2]/p", "id": "art_1"}
    assert first("1. This Regulation lays down")["id"] == "001.001"
    assert first("(a) in the course")["id"] == "002.002"
    assert first("(1) The protection")["id"] == "rct_1"


# --- reading files: charset, errors ------------------------------------------------------------

def test_read_html_utf8_and_declared_charset(tmp_path):
    p = tmp_path / "page.html"
    p.write_bytes("<html><head><meta charset='utf-8'></head><body><p>Zürich — 5 €</p></body></html>".encode())
    doc = read_html(p, str(p))
    assert (doc.id, doc.text, doc.source) == ("page.html", "Zürich — 5 €\n", str(p))
    assert doc.meta["format"] == "html" and doc.meta["source_map"]
    latin = tmp_path / "latin.html"
    latin.write_bytes(b'<html><head><meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">'
                      b'</head><body><p>Z\xfcrich \x80</p></body></html>')
    assert read_html(latin, "latin.html").text == "Zürich €\n"
    bom16 = tmp_path / "u16.html"
    bom16.write_bytes("<p>ü</p>".encode("utf-16"))
    assert read_html(bom16, "u16.html").text == "ü\n"


def test_invalid_utf8_is_an_error_unless_replaced(tmp_path):
    p = tmp_path / "bad.html"
    p.write_bytes(b"<p>caf\xe9</p>")
    with pytest.raises(InputError) as info:
        read_html(p, "bad.html")
    assert info.value.code == "ADA301"
    assert read_html(p, "bad.html", errors="replace").text == "caf\ufffd\n"
    assert decode_html(b"\xef\xbb\xbf<p>x</p>", "t") == "<p>x</p>"


def test_binary_refused(tmp_path):
    p = tmp_path / "x.html"
    p.write_bytes(b"%PDF-1.7\n...")
    with pytest.raises(InputError) as info:
        read_html(p, "x.html")
    assert info.value.code == "ADA305"


def test_deep_nesting_does_not_crash():
    text = md("<div>" * 3000 + "deep" + "</div>" * 3000)
    assert text == "deep\n"


# --- EUR-Lex ------------------------------------------------------------------------------------

def test_eurlex_legacy_classes():
    body = ("<p class='doc-ti'>REGULATION X</p><p class='ti-section-1'>CHAPTER II</p>"
            "<p class='ti-section-2'>Principles</p><p class='ti-art'>Article 5</p><p class='sti-art'>Scope</p>"
            "<p class='normal'>1.&nbsp;&nbsp;Text:</p><table><tr><td><p>—</p></td><td><p>indent</p></td></tr>"
            "</table><table><tr><td>(a)</td><td><p>point:</p><table><tr><td>(i)</td><td>sub</td></tr></table>"
            "</td></tr></table><p class='note'>(1) OJ L 1.</p><p class='ti-section-1'>Section 1</p>"
            "<p class='ti-art'>Article 6</p>")
    assert md(body) == ("# REGULATION X\n\n# CHAPTER II — Principles\n\n## Article 5 — Scope\n\n1. Text:\n\n"
                        "— indent\n\n(a) point:\n\n(i) sub\n\n(1) OJ L 1.\n\n## Section 1\n\n### Article 6\n")


def test_eurlex_excerpt_converts_to_its_markdown_twin():
    doc = read_html(EURLEX, "eurlex_gdpr_excerpt.html")
    assert doc.text == TWIN.read_text(encoding="utf-8")
    assert "cookies" not in doc.text and "Skip to" not in doc.text and "Legal notice" not in doc.text
    assert [t["title"] for t in doc.titles if t["title"].startswith(("CHAPTER", "Article"))] == [
        "CHAPTER I — General provisions", "Article 1 — Subject-matter and objectives",
        "Article 2 — Material scope", "Article 3 — Territorial scope", "Article 4 — Definitions"]


def _structures(doc, labels):
    from adachunk import load_profile
    from adachunk.detect.base import DetectContext

    detectors = load_profile("legal").policy.detectors
    ctx = DetectContext(doc.text, doc)
    return {label: [doc.text[s.start:s.end].strip() for s in detectors[label].detect(ctx)] for label in labels}


def test_legal_profile_finds_the_same_structures_as_in_the_twin():
    from adachunk.ingest.readers import read_document

    labels = ["article", "article_heading", "article_paragraph", "point_list", "definition", "division_heading"]
    html_found = _structures(read_html(EURLEX, "eurlex_gdpr_excerpt.html"), labels)
    twin_found = _structures(read_document(TWIN), labels)
    assert html_found == twin_found
    assert [len(html_found[k]) for k in ("article", "article_paragraph", "point_list", "definition")] == [4, 18, 2, 6]
    assert [p.split("\n")[0] for p in html_found["point_list"]] == [
        "2. This Regulation does not apply to the processing of personal data:",
        "2. This Regulation applies to the processing of personal data of data subjects who are in the Union by "
        "a controller or processor not established in the Union, where the processing activities are related to:"]
    assert html_found["article"][0].startswith("## Article 1 — Subject-matter and objectives\n\n1. This Regulation")


@pytest.mark.skipif(not (CLAIR / "Norma_legal_GDPR.json").is_file(), reason="the CLAIR corpus is absent")
def test_eurlex_fixture_text_is_copied_from_the_regulation():
    full = json.loads((CLAIR / "Norma_legal_GDPR.json").read_text(encoding="utf-8"))["full_text"]
    flat = re.sub(r"\s+", " ", full)
    for line in TWIN.read_text(encoding="utf-8").split("\n"):
        text = re.sub(r"^#+ ", "", line).strip()
        for part in text.split(" — "):  # a heading joins the title and the subtitle
            assert part in flat, part[:80]


# --- statements (issue "A figure never loses its column") ---------------------------------------

EDGAR_TABLE = (
    "<table>"
    "<tr><td></td><td></td><td></td><td></td><td></td><td></td><td></td></tr>"  # column widths only
    "<tr><td></td><td colspan='6'><b>Year Ended December 31,</b></td></tr>"
    "<tr><td>(In millions)</td><td colspan='3'><b>2022</b></td><td colspan='3'><b>2021</b></td></tr>"
    "<tr><td>Net sales</td><td>$</td><td>1,184</td><td></td><td>$</td><td>1,020</td><td></td></tr>"
    "<tr><td>Interest (income) expense, net</td><td></td><td>(4,378</td><td>)</td><td></td><td>467</td><td></td></tr>"
    "<tr><td>Gross margin</td><td></td><td>37.6</td><td>%</td><td></td><td>(0.1</td><td>%)</td></tr>"
    "<tr><td>Other</td><td></td><td>\u2014</td><td></td><td>$</td><td>\u2014</td><td></td></tr>"
    "</table>"
)


def test_statement_table_cells_as_printed_under_one_header_row():
    assert md("<h2>Results</h2><h3>Year Ended December 31,</h3>" + EDGAR_TABLE, table_wrapper=False) == (
        "## Results\n\nYear Ended December 31,\n\n"
        "| (In millions) | Year Ended December 31, 2022 | Year Ended December 31, 2021 |\n"
        "| --- | --- | --- |\n"
        "| Net sales | $ 1,184 | $ 1,020 |\n"
        "| Interest (income) expense, net | (4,378) | 467 |\n"
        "| Gross margin | 37.6% | (0.1%) |\n"
        "| Other | \u2014 | $ \u2014 |\n")


def test_year_and_period_headings_are_paragraphs():
    conv = convert_html("<h1>Annual Report</h1><h2>2022</h2><p>a</p><h3>Fiscal 2023</h3><p>b</p>"
                        "<h3>(In millions, except per share data)</h3><p>c</p><h2>2022 Results</h2><p>d</p>", "t")
    assert [t["title"] for t in conv.titles] == ["Annual Report", "2022 Results"]
    assert "\n\n2022\n\na\n\nFiscal 2023\n\nb\n\n(In millions, except per share data)\n\nc\n\n" in conv.text
