"""The .docx converter: numbering as Word displays it, structure, source map, limits."""

from __future__ import annotations

import io
import zipfile

import pytest

from adachunk.errors import InputError
from adachunk.ingest.docx._numbering import Numbering, format_number
from adachunk.ingest.docx._styles import Styles
from adachunk.ingest.docx._xml import parse_xml
from adachunk.ingest.docx import DocxOptions, convert_docx, docx_blocks, read_docx

from .conftest import ROOT
from .docx_builder import NS, build_docx, lvl, p


DOCX_REAL = ROOT.parent / "shared" / "corpus" / "docx-real"

# Legal multilevel list: 1. / 1.1 / (a) / (i), abstractNum 1 used by num 1 and restarted by num 2.
LEGAL = (
    '<w:abstractNum w:abstractNumId="1">'
    + lvl(0, "decimal", "%1.") + lvl(1, "decimal", "%1.%2") + lvl(2, "lowerLetter", "(%3)")
    + lvl(3, "lowerRoman", "(%4)") + "</w:abstractNum>"
    '<w:abstractNum w:abstractNumId="2">' + lvl(0, "bullet", "\uf0b7") + "</w:abstractNum>"
    '<w:abstractNum w:abstractNumId="3"><w:styleLink w:val="ArticleList"/>'
    + lvl(0, "decimal", "Article %1", extra='<w:pStyle w:val="Heading1"/>')
    + lvl(1, "decimal", "%1.%2", extra='<w:pStyle w:val="Heading2"/>') + "</w:abstractNum>"
    '<w:num w:numId="1"><w:abstractNumId w:val="1"/></w:num>'
    '<w:num w:numId="2"><w:abstractNumId w:val="1"/>'
    '<w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num>'
    '<w:num w:numId="3"><w:abstractNumId w:val="2"/></w:num>'
    '<w:num w:numId="4"><w:abstractNumId w:val="3"/></w:num>'
    '<w:num w:numId="5"><w:abstractNumId w:val="1"/></w:num>'
)
STYLES = (
    '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>'
    '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/>'
    '<w:pPr><w:numPr><w:numId w:val="4"/></w:numPr><w:outlineLvl w:val="0"/></w:pPr></w:style>'
    '<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Heading1"/>'
    '<w:pPr><w:numPr><w:ilvl w:val="1"/><w:numId w:val="4"/></w:numPr><w:outlineLvl w:val="1"/></w:pPr></w:style>'
    '<w:style w:type="paragraph" w:styleId="Kop3"><w:name w:val="heading 3"/></w:style>'
    '<w:style w:type="paragraph" w:styleId="Clause"><w:name w:val="Clause"/><w:basedOn w:val="Normal"/>'
    '<w:pPr><w:numPr><w:ilvl w:val="2"/><w:numId w:val="1"/></w:numPr></w:pPr></w:style>'
)


def convert(body: str, options: DocxOptions | None = None, **parts: str):
    return convert_docx(build_docx(body, **parts), "t.docx", options)


def labelled(conv) -> list[tuple[str, str]]:
    return [(o["numbering"], conv.text[s:e]) for s, e, o in conv.source_map if "numbering" in o]


def check_invariants(conv, blocks=None) -> None:
    text, prev = conv.text, 0
    for s, e, _ in conv.source_map:
        assert prev <= s < e <= len(text)
        prev = e
    starts = {s for s, _, _ in conv.source_map}
    for sp in conv.split_points:
        assert 0 < sp < len(text)
        assert sp in starts or text[sp:sp + 4] == "<!--"
    if blocks is not None:
        mapped = [b for b in blocks if b.origin is not None and b.text.strip()]
        assert [text[s:e] for s, e, _ in conv.source_map] == [b.text.strip("\n") for b in mapped]


# ---------------------------------------------------------------- numbering renderer (pure)

@pytest.mark.parametrize("n,fmt,out", [
    (1, "decimal", "1"), (4, "lowerRoman", "iv"), (9, "upperRoman", "IX"), (27, "lowerLetter", "aa"),
    (3, "upperLetter", "C"), (5, "decimalZero", "05"), (2, "ordinal", "2nd"), (3, "cardinalText", "Three"),
    (1, "ordinalText", "First"), (6, "chineseCountingThousand", "六"), (11, "chineseCounting", "十一"),
    (7, "none", ""), (7, "somethingNew", "7"),
])
def test_format_number(n, fmt, out):
    assert format_number(n, fmt) == out


def _numbering(numbering: str = LEGAL, styles: str = STYLES) -> Numbering:
    root = parse_xml(f"<w:numbering {NS}>{numbering}</w:numbering>".encode(), "t", "numbering")
    st = parse_xml(f"<w:styles {NS}>{styles}</w:styles>".encode(), "t", "styles")
    return Numbering(root, Styles(st))


def test_multilevel_counters_reset_deeper_levels():
    n = _numbering()
    seq = [(0, "1."), (1, "1.1"), (2, "(a)"), (2, "(b)"), (3, "(i)"), (3, "(ii)"), (2, "(c)"), (3, "(i)"),
           (1, "1.2"), (2, "(a)"), (0, "2."), (1, "2.1")]
    assert [n.label("1", i).text for i, _ in seq] == [want for _, want in seq]


def test_shared_abstract_continues_and_start_override_restarts():
    n = _numbering()
    assert [n.label("1", 0).text for _ in range(2)] == ["1.", "2."]
    assert n.label("5", 0).text == "3."            # num 5 shares abstractNum 1: the list continues
    assert [n.label("2", 0).text for _ in range(2)] == ["1.", "2."]  # num 2 overrides the start


def test_lvl_restart_zero_never_restarts():
    numbering = ('<w:abstractNum w:abstractNumId="1">' + lvl(0, "decimal", "%1.")
                 + lvl(1, "lowerLetter", "(%2)", extra='<w:lvlRestart w:val="0"/>') + "</w:abstractNum>"
                 '<w:num w:numId="1"><w:abstractNumId w:val="1"/></w:num>')
    n = _numbering(numbering, "")
    got = [n.label("1", i).text for i in (0, 1, 1, 0, 1)]
    assert got == ["1.", "(a)", "(b)", "2.", "(c)"]


def test_is_lgl_shows_other_levels_as_decimal():
    numbering = ('<w:abstractNum w:abstractNumId="1">' + lvl(0, "upperRoman", "Article %1")
                 + lvl(1, "decimalZero", "Section %1.%2", extra="<w:isLgl/>") + "</w:abstractNum>"
                 '<w:num w:numId="1"><w:abstractNumId w:val="1"/></w:num>')
    n = _numbering(numbering, "")
    assert [n.label("1", i).text for i in (0, 1, 0, 0, 1)] == [
        "Article I", "Section 1.01", "Article II", "Article III", "Section 3.01"]


def test_style_numbering_num_id_zero_and_bullets():
    n = _numbering()
    ppr = parse_xml(f'<w:pPr {NS}><w:numPr><w:numId w:val="0"/></w:numPr></w:pPr>'.encode(), "t", "x")
    assert n.paragraph(ppr, "Clause") is None        # numId 0 switches the style's list off
    assert n.paragraph(None, "Clause").text == "(a)"  # style Clause: num 1, level 2
    assert n.paragraph(None, "Heading1").text == "Article 1"  # level found by the lvl's pStyle
    b = n.label("3", 0)
    assert b.bullet and b.text == "•"


# ---------------------------------------------------------------- conversion

def test_legal_document_labels_headings_and_restart():
    body = (p("Definitions", "Heading1") + p("Interpretation", "Heading2")
            + p("In this Agreement:", num=(1, 0)) + p("the Customer means the buyer;", num=(1, 1))
            + p("the supplier shall deliver", num=(1, 2)) + p("on time", num=(1, 3))
            + p("in full", num=(1, 3)) + p("the price is fixed", num=(1, 2))
            + p("Scope", "Heading1") + p("First again", num=(2, 0)) + p("Second", num=(2, 0))
            + p("a bullet", num=(3, 0)) + p("Clause style text", "Clause"))
    conv = convert(body, numbering=LEGAL, styles=STYLES)
    text = conv.text
    assert text.startswith("# Article 1 Definitions\n\n## 1.1 Interpretation\n\n")
    assert "\n\n1. In this Agreement:\n\n1.1 the Customer means the buyer;\n\n(a) the supplier" in text
    assert "(i) on time\n\n(ii) in full\n\n(b) the price is fixed" in text
    assert "# Article 2 Scope" in text
    # Clause style = num 1 level 2: num 2 restarted on its own, so num 1's (a), (b) go on to (c)
    assert "1. First again\n\n2. Second\n\n- a bullet\n\n(c) Clause style text" in text
    assert [t["title"] for t in conv.titles] == ["Article 1 Definitions", "1.1 Interpretation", "Article 2 Scope"]
    assert [t["level"] for t in conv.titles] == [1, 2, 1]
    labels = dict(labelled(conv))
    assert labels["(ii)"] == "(ii) in full" and labels["•"] == "- a bullet"
    heading = conv.source_map[0][2]
    assert heading == {"docx_paragraph": 0, "numbering": "Article 1", "style": "heading 1"}
    # a heading binds to the next block: no split point at the block after it
    assert text.index("## 1.1") not in conv.split_points
    check_invariants(conv)


def test_numbered_lead_in_binds_to_its_list():
    conv = convert(p("The Supplier shall:") + p("deliver", num=(1, 2)) + p("invoice", num=(1, 2)),
                   numbering=LEGAL, styles=STYLES)
    assert conv.text.index("(a) deliver") not in conv.split_points
    assert conv.text.index("(b) invoice") in conv.split_points


def test_headings_by_style_name_title_and_outline_level():
    styles = STYLES + '<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>'
    body = (p("Big", "Title") + p("Dutch", "Kop3") + p("Outlined", extra='<w:outlineLvl w:val="3"/>')
            + p("body"))
    conv = convert(body, styles=styles)
    assert conv.text == "# Big\n\n### Dutch\n\n#### Outlined\n\nbody\n"


def test_runs_fields_symbols_and_breaks():
    runs = ('<w:r><w:t>A</w:t></w:r><w:r><w:tab/><w:t>B</w:t><w:br/><w:t>C</w:t></w:r>'
            '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r>'
            '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>7</w:t></w:r>'
            '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
            '<w:fldSimple w:instr="DATE"><w:r><w:t>-today</w:t></w:r></w:fldSimple>'
            '<w:hyperlink r:id="x"><w:r><w:t xml:space="preserve"> link</w:t></w:r></w:hyperlink>'
            '<w:r><w:noBreakHyphen/><w:softHyphen/><w:sym w:font="Symbol" w:char="F061"/></w:r>'
            '<w:r><w:rPr><w:vanish/></w:rPr><w:t>hidden</w:t></w:r>')
    conv = convert(p(runs))
    assert conv.text == "A B\nC7-today link-a\n"


@pytest.mark.parametrize("mode,expected", [("accept", "The new price applies."),
                                           ("reject", "The old price applies.")])
def test_tracked_changes(mode, expected):
    runs = ('<w:r><w:t xml:space="preserve">The </w:t></w:r>'
            '<w:del w:id="1" w:author="x"><w:r><w:delText>old</w:delText></w:r></w:del>'
            '<w:ins w:id="2" w:author="x"><w:r><w:t>new</w:t></w:r></w:ins>'
            '<w:moveFrom w:id="3" w:author="x"><w:r><w:t> gone</w:t></w:r></w:moveFrom>'
            '<w:r><w:t xml:space="preserve"> price applies.</w:t></w:r>')
    conv = convert(p(runs), DocxOptions(tracked_changes=mode))
    assert conv.text.replace(" gone", "") == expected + "\n"
    assert (" gone" in conv.text) == (mode == "reject")


def test_footnotes_endnotes_follow_and_bind_to_their_paragraph():
    notes = ('<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
             '<w:footnote w:id="1"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> See '
             'clause 2.</w:t></w:r></w:p></w:footnote>')
    ends = '<w:endnote w:id="4"><w:p><w:r><w:endnoteRef/><w:t>An endnote.</w:t></w:r></w:p></w:endnote>'
    body = (p('<w:r><w:t>Cited</w:t></w:r><w:r><w:footnoteReference w:id="1"/></w:r>'
              '<w:r><w:t xml:space="preserve"> and</w:t></w:r><w:r><w:endnoteReference w:id="4"/></w:r>')
            + p("Next paragraph."))
    conv = convert(body, footnotes=notes, endnotes=ends)
    assert conv.text == ("Cited[^1] and[^i]\n\n[^1]: See clause 2.\n\n[^i]: An endnote.\n\n"
                         "Next paragraph.\n")
    assert conv.split_points == [conv.text.index("Next")]
    assert [o for _, _, o in conv.source_map][1:3] == [{"docx_footnote": "1"}, {"docx_endnote": "4"}]


def test_tables_merged_cells_header_and_pipes():
    def tc(text, props=""):
        return f"<w:tc><w:tcPr>{props}</w:tcPr>{p(text)}</w:tc>"
    span, restart, cont = '<w:gridSpan w:val="2"/>', '<w:vMerge w:val="restart"/>', "<w:vMerge/>"
    tbl = ("<w:tbl><w:tblGrid/>"
           f"<w:tr>{tc('Term')}{tc('Meaning', span)}</w:tr>"
           f"<w:tr>{tc('A|B', restart)}{tc('x')}{tc('y')}</w:tr>"
           f"<w:tr>{tc('', cont)}{tc('z')}{tc('w')}</w:tr></w:tbl>")
    conv = convert(p("Before") + tbl + p("After"))
    assert conv.text == ("Before\n\n<Table>\n| Term | Meaning | Meaning |\n| --- | --- | --- |\n"
                         "| A\\|B | x | y |\n| A\\|B | z | w |\n</Table>\n\nAfter\n")
    assert conv.source_map[1][2] == {"docx_table": 0}
    # paragraphs inside the table are counted: "After" is the 10th w:p (index 9)
    assert conv.source_map[2][2]["docx_paragraph"] == 9
    plain = convert(tbl, DocxOptions(table_wrapper=False))
    assert plain.text.startswith("| Term |")


def test_layout_table_is_unwrapped_and_nested_table_flattened():
    inner = f"<w:tbl><w:tr><w:tc>{p('n1')}</w:tc><w:tc>{p('n2')}</w:tc></w:tr></w:tbl>"
    layout = f"<w:tbl><w:tr><w:tc>{p('Boxed heading', 'Heading1')}{p('Boxed text')}</w:tc></w:tr></w:tbl>"
    data = (f"<w:tbl><w:tr><w:tc>{p('h1')}</w:tc><w:tc>{p('h2')}</w:tc></w:tr>"
            f"<w:tr><w:tc>{p('a')}{inner}</w:tc><w:tc>{p('b')}</w:tc></w:tr></w:tbl>")
    conv = convert(layout + data, styles=STYLES.replace('<w:numPr><w:numId w:val="4"/></w:numPr>', ""))
    assert conv.text.startswith("# Boxed heading\n\nBoxed text\n\n<Table>\n| h1 | h2 |")
    assert "| a n1 n2 | b |" in conv.text
    assert conv.source_map[2][2] == {"docx_table": 1}


def test_comments_and_furniture():
    comments = '<w:comment w:id="0" w:author="A"><w:p><w:r><w:t>Check --> this</w:t></w:r></w:p></w:comment>'
    body = p('<w:r><w:t>Text</w:t></w:r><w:r><w:commentReference w:id="0"/></w:r>')
    sect = ('<w:headerReference w:type="default" r:id="rId1"/>'
            '<w:footerReference w:type="default" r:id="rId2"/>')
    kw = dict(header1="<w:p><w:r><w:t>ACME Contract</w:t></w:r></w:p>",
              footer1="<w:p><w:r><w:t>Confidential</w:t></w:r></w:p>", comments=comments)
    conv = convert_docx(build_docx(body, sect=sect, **kw), "t.docx", DocxOptions(comments="keep"))
    assert conv.text == ("<!-- PageHeader: ACME Contract -->\n\nText\n\n<!-- Comment: Check - -> this -->\n\n"
                         "<!-- PageFooter: Confidential -->\n")
    assert conv.text.index("<!-- Comment") not in conv.split_points
    bare = convert_docx(build_docx(body, sect=sect, **kw), "t.docx", DocxOptions(furniture="drop"))
    assert bare.text == "Text\n"


def test_markdown_lookalike_text_is_escaped():
    conv = convert(p("# not a heading") + p("<w:r><w:t>&lt;!-- not a comment --&gt;</w:t></w:r>"))
    assert conv.text == "\\# not a heading\n\n\\<!-- not a comment -->\n"


def test_read_docx_document(tmp_path):
    path = tmp_path / "contract.docx"
    path.write_bytes(build_docx(p("Hello", "Heading1") + p("World"), styles=STYLES))
    doc = read_docx(path, "contract.docx")
    assert doc.id == "contract.docx" and doc.text.startswith("# ")
    assert doc.meta["source_map"][1][2]["docx_paragraph"] == 1
    assert doc.titles and doc.titles[0]["level"] == 1


@pytest.mark.parametrize("data,why", [
    (b"not a zip at all", "not a valid zip"),
    (b"", "not a valid zip"),
])
def test_not_a_docx(data, why):
    with pytest.raises(InputError) as exc:
        convert_docx(data, "bad.docx")
    assert exc.value.code == "ADA304" and why in exc.value.message


def test_missing_document_part_and_bad_xml():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("hello.txt", "hi")
    with pytest.raises(InputError, match="no main document part") as exc:
        convert_docx(buf.getvalue(), "x.docx")
    assert exc.value.code == "ADA304"
    data = build_docx(p("x"))
    broken = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(broken, "w") as dst:
        for info in src.infolist():
            raw = src.read(info)
            dst.writestr(info.filename, raw.replace(b"</w:body>", b"") if "document" in info.filename else raw)
    with pytest.raises(InputError, match="not valid XML") as exc:
        convert_docx(broken.getvalue(), "x.docx")
    assert exc.value.code == "ADA304"


def test_entities_are_not_expanded():
    data = build_docx(p("x"))
    evil = io.BytesIO()
    bomb = (b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>')
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(evil, "w") as dst:
        for info in src.infolist():
            raw = src.read(info)
            if info.filename == "word/document.xml":
                raw = bomb + raw.split(b"?>", 1)[1].replace(b">x<", b">&b;<")
            dst.writestr(info.filename, raw)
    conv = convert_docx(evil.getvalue(), "e.docx")
    assert "aaaaaaaaaa" not in conv.text


def test_zip_bomb_refused_before_inflating(monkeypatch):
    monkeypatch.setenv("ADACHUNK_MAX_INPUT_BYTES", "100000")
    big = p("z" * 200_000)  # compresses to almost nothing
    with pytest.raises(InputError) as exc:
        convert_docx(build_docx(big), "bomb.docx")
    assert exc.value.code == "ADA318"


# ---------------------------------------------------------------- real files (../shared)

def _real(name: str) -> bytes:
    if not DOCX_REAL.is_dir():
        pytest.skip("../shared/corpus/docx-real is not available")
    return (DOCX_REAL / name).read_bytes()


# Expected labels, derived by hand from each file's word/document.xml (w:numPr per paragraph) and
# word/numbering.xml (w:num → w:abstractNum, w:start, w:numFmt, w:lvlText).
REAL_LABELS = {
    # Each paragraph's text says what Word shows ("expect II"); numbering.xml: num 9 → abstractNum
    # 9, start 2, upperRoman, "%1."; num 11 → start 3 upperLetter "%1."; num 18 → start 4 decimal
    # "%1."; num 20 → start 5 lowerLetter "%1."; num 21 → start 6 decimal "%1)"; num 24 → start 6
    # lowerLetter "%1)"; num 26 → start 8 lowerRoman "(%1)". Two paragraphs of one num count on.
    "example_numbering.docx": [("II.", "II. expect II"), ("C.", "C. expect C"), ("D.", "D. expect D"),
                               ("4.", "4. expect 4"), ("e.", "e. expect e"), ("f.", "f. expect f"),
                               ("6)", "6) expect 6"), ("f)", "f) expect f"), ("(viii)", "(viii) expect viii"),
                               ("(ix)", "(ix) expect ix")],
    # Only two paragraphs have a non-zero numId (the ~60 "Style26" paragraphs and the heading-style
    # paragraphs set numId 0, switching their style's list off): w:p 77 has num 4 → abstractNum 4,
    # start 6, chineseCountingThousand, "%1、", suff nothing → "六、"; the one at document order 1065
    # (1049 once the 16 text-box paragraphs before it are left out) has num 2 → abstractNum 2,
    # start 3, same format → "三、". Both are the next item after literal "五、" / "二、" text.
    "libreoffice_conversion.docx": [("六、", "六、其他补充事宜"), ("三、", "三、服务期限及地点：")],
    # No paragraph has w:numPr (numbering.xml defines lists nobody uses): no labels.
    "list_index_a.docx": [],
    # No numbering part; the steps "1", "2", ... are literal text in table cells.
    "240-DOP-1013A_Lay_Down_Tubulars.docx": [],
    # No numbering part.
    "merged_cells.docx": [],
    "paragraphs_and_tables.docx": [],
    "comments.docx": [],
}


@pytest.mark.parametrize("name", sorted(REAL_LABELS))
def test_real_files_labels_and_invariants(name):
    data = _real(name)
    blocks = docx_blocks(data, name)
    conv = convert_docx(data, name)
    assert labelled(conv) == REAL_LABELS[name]
    check_invariants(conv, blocks)


def test_real_libreoffice_paragraph_indices():
    conv = convert_docx(_real("libreoffice_conversion.docx"), "lo.docx")
    got = [o["docx_paragraph"] for _, _, o in conv.source_map if "numbering" in o]
    assert got == [77, 1049]


def test_real_merged_cells_repeat():
    # merged_cells.docx: row 0 "0-12" spans 2 columns; "12-0" vMerge restart + continue below;
    # "34-123" gridSpan 3 with vMerge restart, continued in the last row.
    conv = convert_docx(_real("merged_cells.docx"), "m.docx")
    assert conv.text == ("<Table>\n| 0-0 | 0-12 | 0-12 | 0-3 |\n| --- | --- | --- | --- |\n"
                         "| 12-0 | 1-1 | 1-2 | 1-3 |\n| 12-0 | 2-1 | 2-2 | 2-3 |\n"
                         "| 3-0 | 34-123 | 34-123 | 34-123 |\n| 4-0 | 34-123 | 34-123 | 34-123 |\n</Table>\n")


def test_real_paragraphs_and_tables_order():
    conv = convert_docx(_real("paragraphs_and_tables.docx"), "pt.docx")
    kinds = [next(iter(o)) for _, _, o in conv.source_map]
    assert kinds == ["docx_paragraph", "docx_table", "docx_paragraph", "docx_paragraph", "docx_table"]
    assert "| This | Document |" in conv.text and "| One More Table |" in conv.text


def test_real_comments_kept():
    conv = convert_docx(_real("comments.docx"), "c.docx", DocxOptions(comments="keep"))
    assert "<!-- Comment: COMMENT -->" in conv.text and "<!-- Comment: COMMENT on par 5 -->" in conv.text
    assert "Comment" not in convert_docx(_real("comments.docx"), "c.docx").text


def test_real_layout_tables_unwrapped():
    conv = convert_docx(_real("240-DOP-1013A_Lay_Down_Tubulars.docx"), "dop.docx")
    assert "| Step | Work Activity | Known Hazards | Base Line Control |" in conv.text
    assert "| 1 | Check elevator and slip size and condition." in conv.text


# --- statements (issue "A figure never loses its column") ---------------------------------------

def test_statement_table_signs_in_their_cells_and_header_rows_stacked():
    def tc(text="", span=1):
        props = f'<w:tcPr><w:gridSpan w:val="{span}"/></w:tcPr>' if span > 1 else ""
        return f"<w:tc>{props}{p(text)}</w:tc>"

    def tr(*cells):
        return "<w:tr>" + "".join(cells) + "</w:tr>"

    tbl = ("<w:tbl><w:tblGrid/>"
           + tr(tc(), tc("Three Months Ended March 31,", 6))
           + tr(tc("(In millions)"), tc("2023", 3), tc("2022", 3))
           + tr(tc("Revenue"), tc("$"), tc("1,184"), tc(), tc("$"), tc("1,020"), tc())
           + tr(tc("Other expense"), tc(), tc("(12"), tc(")"), tc(), tc("\u2014"), tc())
           + tr(tc("Tax rate"), tc(), tc("21.0"), tc("%"), tc(), tc("(0.4"), tc("%)"))
           + "</w:tbl>")
    conv = convert(p("Fiscal 2023", "Kop3") + p("Results", "Kop3") + tbl, DocxOptions(table_wrapper=False),
                   styles=STYLES)
    assert conv.text == (
        "Fiscal 2023\n\n### Results\n\n"
        "| (In millions) | Three Months Ended March 31, 2023 | Three Months Ended March 31, 2022 |\n"
        "| --- | --- | --- |\n"
        "| Revenue | $ 1,184 | $ 1,020 |\n"
        "| Other expense | (12) | \u2014 |\n"
        "| Tax rate | 21.0% | (0.4%) |\n")
