"""The HTML boundary visualizer: well-formed, self-contained, escaped, and compact on big input."""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np

from adachunk import chunk_document, load_profile
from adachunk.cli.main import main
from adachunk.report.view import LEVELS, ViewData, build_view, heat_levels, render_view
from adachunk.datatypes import Document

from .conftest import EXAMPLES

VOID = {"meta", "br", "input", "img", "hr", "link"}
EVIL = ("# Title\n\nSome <script>alert('x')</script> & <b>bold</b> text \"quoted\".\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n" + "A sentence that goes on. " * 60 + "\n")


class PageParser(HTMLParser):
    """Checks nesting and collects what the page shows."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.scripts = 0
        self.cuts: list[dict] = []
        self.doc_text: list[str] = []
        self.external: list[str] = []
        self._in_doc = 0
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
            self._in_script = True
            if "src" in a:
                self.external.append(a["src"])
        if tag == "link" or (tag == "img" and "src" in a):
            self.external.append(a.get("href") or a.get("src"))
        if a.get("id") == "doc":
            self._in_doc = len(self.stack) + 1
        if tag == "span" and a.get("class") == "cut":
            self.cuts.append(a)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> with open {self.stack[-3:]}")
            return
        self.stack.pop()
        if self._in_doc and len(self.stack) < self._in_doc:
            self._in_doc = 0

    def handle_data(self, data):
        if self._in_doc and not self._in_script:
            self.doc_text.append(data)


def parse(page: str) -> PageParser:
    p = PageParser()
    p.feed(page)
    p.close()
    assert not p.errors, p.errors[:3]
    assert not p.stack, p.stack
    return p


def test_view_escapes_text_and_marks_every_cut():
    doc = Document(id="evil", text=EVIL)
    rp = load_profile("default", max_size=64, min_size=0)
    data = build_view(doc, rp)
    page = render_view(data)
    p = parse(page)
    assert p.scripts == 1 and not p.external  # only our inline script; no external asset
    assert "<script>alert" not in page and page.count("<script") == 1
    assert "&lt;/script&gt;" in page and "<b>" not in page and "&amp;" in page
    assert "".join(p.doc_text) == EVIL  # the page shows exactly the document text
    chunks = chunk_document(doc, rp).chunks
    assert len(p.cuts) == len(chunks) - 1 >= 2
    assert [int(c["data-i"]) for c in p.cuts] == [c.index for c in chunks[1:]]
    for cut, meta in zip(p.cuts, data.cuts):
        title = cut["title"]
        assert title.startswith("cut ") and f"at {meta['position']}" in title and f"cost {meta['cost']}" in title
        for contrib in meta["contributions"]:
            assert f"{contrib['rule']} ({contrib['label']}) {contrib['side']} {contrib['shape']}: {contrib['value']}" in title


def test_view_toggles_structures_and_heat_levels():
    doc = Document(id="d", text=EVIL)
    data = build_view(doc, load_profile("default", max_size=64, min_size=0), labels=["heading", "table"])
    page = render_view(data, ["heading", "table"])
    assert 'data-label="s0"' in page and 'data-label="s1"' in page and 'data-label="s2"' not in page
    assert "#doc.on-s1 .s1{" in page and "#doc.heat .h10{" in page
    first_runs = page[page.index('<div id="doc"'):].split("</span>")[:3]
    assert all(" s0" in run for run in first_runs if "Title" in run or ">#" in run)
    assert any("Title" in run for run in first_runs)  # the heading runs carry the heading class


def test_heat_levels_are_normalised():
    levels, top = heat_levels(np.array([0, 1, 10, 100, 1000]))
    assert top == 1000 and levels[0] == 0 and levels[-1] == LEVELS
    assert list(levels) == sorted(levels)
    assert heat_levels(np.zeros(3, np.int64))[0].tolist() == [0, 0, 0]


def test_large_document_renders_runs_not_characters():
    """400 KB with a candidate every 4 characters: the page stays a few times the text size."""
    unit = "The provider shall keep records. "
    text = unit * (400_000 // len(unit))
    positions = np.arange(0, len(text) + 1, 4, dtype=np.int64)
    costs = np.where(np.arange(len(positions)) % 250 == 0, 0, 150).astype(np.int64)
    starts = np.arange(0, len(text), len(unit) * 40, dtype=np.int64)
    data = ViewData("big", text, {"paragraph": (starts, np.minimum(starts + len(unit) * 39, len(text)))},
                    positions, costs)
    page = render_view(data)
    assert page.count("<span") < len(text) / 100
    assert len(page.encode("utf-8")) < 3 * len(text)
    assert "".join(parse(page).doc_text) == text


def test_view_command_writes_a_self_contained_page(tmp_path, capsys):
    out = tmp_path / "view.html"
    assert main(["view", str(EXAMPLES / "financial_report_excerpt.md"), "--profile", "finance",
                 "--max-size", "256", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    p = parse(page)
    assert not p.external and p.scripts == 1
    assert len(p.cuts) >= 3 and "table_caption" in page and "captioned_table" in page
    assert "".join(p.doc_text) == (EXAMPLES / "financial_report_excerpt.md").read_text(encoding="utf-8")
    assert "wrote" in capsys.readouterr().err


def test_detect_html_shows_structures_without_cuts(tmp_path):
    out = tmp_path / "d.html"
    assert main(["detect", str(EXAMPLES / "regulation_excerpt.md"), "--profile", "legal", "--format", "html",
                 "-o", str(out)]) == 0
    p = parse(out.read_text(encoding="utf-8"))
    assert not p.cuts and "article_heading" in out.read_text(encoding="utf-8")


def _run_folder(tmp_path, sink="none"):
    """A tiny `adachunk run` output folder: the finance excerpt and a two-page Markdown file."""
    import shutil

    from adachunk.runner import run_corpus

    from .conftest import FAST_PROFILE

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(EXAMPLES / "financial_report_excerpt.md", corpus)
    (corpus / "paged.md").write_text("# Title\n\nPage one about leases.\n\n<!-- PageBreak -->\n\n"
                                     "Page two about the maturity of lease liabilities.\n", encoding="utf-8")
    profile = tmp_path / "fast.yaml"
    profile.write_text(FAST_PROFILE)
    out = tmp_path / "out"
    assert run_corpus([str(corpus)], str(profile), out, workers=1, progress=False, sink=sink).ok
    return corpus, out


def test_view_of_a_run_folder_draws_the_winner(tmp_path, capsys):
    """`view OUT_DIR DOC` draws the chunks `run` chose (chunks.jsonl), not a fresh DP chunking,
    and names the winner of decisions.jsonl; without the source file the text comes from the chunks."""
    import json

    corpus, out = _run_folder(tmp_path)
    doc = "financial_report_excerpt.md"
    mine = [json.loads(x) for x in (out / "chunks.jsonl").read_text(encoding="utf-8").splitlines()]
    mine = [c for c in mine if c["doc_id"] == doc]
    decision = next(json.loads(x) for x in (out / "decisions.jsonl").read_text(encoding="utf-8").splitlines()
                    if json.loads(x)["doc_id"] == doc)
    text = (EXAMPLES / doc).read_text(encoding="utf-8")
    for argv in (["view", str(out), doc], ["view", "--run", str(out), str(corpus / doc)]):
        page_file = tmp_path / "run.html"
        assert main([*argv, "-o", str(page_file)]) == 0
        page = page_file.read_text(encoding="utf-8")
        p = parse(page)
        assert len(p.cuts) == len(mine) - 1
        assert [int(c["title"].split(" at ")[1].split()[0]) for c in p.cuts] == [c["start"] for c in mine[1:]]
        assert f"winner: {decision['winner']}" in page and f"chunks: {len(mine)}" in page
        assert "".join(p.doc_text) == text
    (corpus / doc).unlink()  # the source is gone: the text is put together from the chunks
    assert main(["view", str(out), doc, "-o", str(tmp_path / "gone.html")]) == 0
    p = parse((tmp_path / "gone.html").read_text(encoding="utf-8"))
    assert "".join(p.doc_text) == text and len(p.cuts) == len(mine) - 1
    capsys.readouterr()
    assert main(["view", str(out), "-o", str(tmp_path / "x.html")]) == 2  # two documents: name one
    assert "name one of: financial_report_excerpt.md, paged.md" in capsys.readouterr().err
    assert main(["view", str(out), "nope.md", "-o", str(tmp_path / "x.html")]) == 2
    assert "no document 'nope.md'" in capsys.readouterr().err
