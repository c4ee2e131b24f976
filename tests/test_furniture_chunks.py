"""Page furniture never becomes a chunk of its own, and never splits a word (issue 48, item 2).

Generated cases first (the DP, a page splitter, the chunk record, the hyphen at a page's end in
the PDF reader), then the count over the shared PDFs: zero furniture-only chunks and zero words
split across a page break, in the converted text and in the chunks.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from adachunk.api import chunk_document, load_profile
from adachunk.ingest.furniture import furniture_of, furniture_only
from adachunk.ingest.pdf import convert_pdf
from adachunk.sink.records import chunk_record
from adachunk.split.common import make_chunking
from adachunk.split.furniture import absorb_furniture, continued_sentences, furniture_costs, furniture_runs
from adachunk.datatypes import Document

from .pdf_factory import BOTTOM, RIGHT, LEFT, Writer, wrap

FOOTER = "<!-- PageFooter: Printed for the tests page {n} -->\n<!-- PageBreak -->\n\n"
HEADER = "<!-- PageHeader: Journal of Tests / Vol. 1 -->\n\n"
_SENTENCE = "The committee reviewed the market rules that apply to every trader in the union. "


def _paged(pages: list[str]) -> str:
    """A converted document: each page's text between its header and its footer."""
    return "".join(HEADER + body + "\n\n" + FOOTER.format(n=k + 1) for k, body in enumerate(pages))


def _bare(text: str, chunks) -> list[int]:
    return [c.index for c in chunks if furniture_only(text, c.start, c.end) and "<!--" in c.text]


# --- what is furniture ------------------------------------------------------------------------

def test_furniture_only_and_its_texts():
    stretch = FOOTER.format(n=3) + HEADER
    assert furniture_only(stretch) and not furniture_only(stretch + "x")
    assert furniture_of(stretch + stretch) == ["footer: Printed for the tests page 3",
                                               "header: Journal of Tests / Vol. 1"]


def test_runs_leave_one_cut_place_after_the_last_page_break():
    text = "Body one.\n\n" + FOOTER.format(n=1) + HEADER + "Body two.\n\n" + FOOTER.format(n=2)
    (a, q0, q1, b), (a2, q2, _, b2) = furniture_runs(text)
    assert text[a - 1] == "." and text[b] == "B" and text[q1:].startswith("<!-- PageHeader")
    assert text[:q0].endswith("<!-- PageBreak -->") and (q2, b2) == (len(text), len(text))
    costs = furniture_costs(text, list(range(len(text) + 1)), 10**9)
    free = [p for p in range(a, b + 1) if costs[p] == 0]
    assert free == [q1]  # one place per stretch: two cuts in it would leave furniture alone


def test_a_page_break_inside_a_sentence_costs_the_sentence_s_cut():
    text = ("Body one ends here.\n\n" + FOOTER.format(n=1) + HEADER + "The rules apply in many jurisdictions,\n\n"
            + FOOTER.format(n=2) + HEADER + "and to every trader.\n\n")
    positions = np.arange(len(text) + 1)
    rules = np.zeros(len(positions), dtype=np.int64)
    assert continued_sentences(text, positions, rules) is None  # nothing to charge
    end = text.index("jurisdictions,") + len("jurisdictions,")
    rules[end - 1] = 900  # the rules' cost of cutting the sentence at its last place on the page
    rules[len("Body one ends here") - 1] = 900  # and of cutting the first page's sentence
    add = continued_sentences(text, positions, rules)
    (_, _, free1, _), (_, _, free2, _) = furniture_runs(text)[:2]
    assert add[free1] == 0  # "here." | "The rules": the sentence ended with the page
    assert add[free2] == 900 and int(add.sum()) == 900  # "jurisdictions," | "and to every trader"


@pytest.mark.parametrize("max_size", [64, 96])
def test_the_dp_ends_a_chunk_where_the_page_and_the_sentence_end(max_size):
    """Two page breaks the chunk may end at: after a full stop, or inside a sentence that goes
    on in lower case on the next page. The DP takes the first."""
    first = "The committee reviewed the market rules. It also heard the traders."
    run_on = "The rules apply to every trader and to every broker in the union and in"
    text = _paged([first, run_on, "the member states that adopted them. The end came later."])
    rp = load_profile("default", max_size=max_size, min_size=8)
    chunks = chunk_document(Document(id="t", text=text), rp).chunks
    assert "".join(c.text for c in chunks) == text
    inner = text.index("in the union and in") + len("in the union and in")
    assert not [c for c in chunks[1:] if inner < c.start < text.index("the member states")]


# --- chunks -----------------------------------------------------------------------------------

@pytest.mark.parametrize("max_size", [32, 64, 128, 256])
def test_dp_never_cuts_a_chunk_of_furniture_alone(max_size):
    # page 3 is a full-page figure: nothing but its header and footer
    body = (_SENTENCE * 6).strip()
    text = _paged([body, body, "", body, body])
    rp = load_profile("default", max_size=max_size, min_size=8)
    chunks = chunk_document(Document(id="t", text=text), rp).chunks
    assert "".join(c.text for c in chunks) == text
    assert _bare(text, chunks) == []
    stretch = text.index("Printed for the tests page 2") - 20, text.index("<!-- PageHeader", text.index("page 3"))
    if max_size >= 64:  # the DP's sizes hold wherever furniture fits a chunk
        assert max(c.size for c in chunks) <= max_size
    else:  # the empty page's furniture (48 tokens before its last break) is larger than a chunk:
        grown = [c for c in chunks if c.size > max_size]  # the one chunk holding it grows
        assert len(grown) == 1 and grown[0].start <= stretch[0] and grown[0].end >= stretch[1]


def test_a_page_splitter_s_empty_page_joins_its_neighbour():
    text = _paged(["Page one text.", "", "Page three text."])
    ends = [m.end() for m in re.finditer(r"<!-- PageBreak -->\n\n", text)]
    spans = list(zip([0, *ends[:-1]], ends))
    assert _bare(text, [type("C", (), {"index": i, "start": s, "end": e, "text": text[s:e]})
                        for i, (s, e) in enumerate(spans)]) == [1]  # the page as cut
    assert absorb_furniture(text, [s for s, _ in spans], ends) == [[0, 1], [2]]
    chunking = make_chunking(Document(id="t", text=text), load_profile("default").policy, spans, "page.v1")
    assert [(c.start, c.end) for c in chunking.chunks] == [(0, ends[1]), (ends[1], len(text))]
    assert _bare(text, chunking.chunks) == []


def test_furniture_at_the_start_joins_the_next_chunk():
    text = HEADER + "Body text here.\n"
    cut = len(HEADER)
    assert absorb_furniture(text, [0, cut], [cut, len(text)]) == [[0, 1]]


def test_a_blank_chunk_without_furniture_is_left_as_cut():
    text = "<!-- PageBreak -->\n\nBody.\n\n\n\nMore.\n"
    cut1, cut2 = text.index("\n\n\n") + 2, text.index("More")
    assert absorb_furniture(text, [0, cut1, cut2], [cut1, cut2, len(text)]) is None


def test_the_record_carries_the_chunk_s_furniture():
    text = _paged(["First page body.", "Second page body."])
    doc = Document(id="t", text=text)
    chunks = chunk_document(doc, load_profile("default")).chunks
    rec = chunk_record(chunks[0], doc, "default", "f", "dp.v1")
    assert rec["furniture"] == ["header: Journal of Tests / Vol. 1", "footer: Printed for the tests page 1",
                                "footer: Printed for the tests page 2"]
    plain = Document(id="p", text="No furniture here.")
    assert "furniture" not in chunk_record(chunk_document(plain).chunks[0], plain, "default", "f", "dp.v1")


# --- a word hyphenated at a page's end, in a real PDF ------------------------------------------

def _two_page_pdf(path: Path, left: str, right: str) -> Path:
    """A paragraph running over a page break, its page's last line ending in ``left-`` and the
    next page's first line opening with ``right``; running header, footer and page numbers."""
    w = Writer(path, header="Journal of Tests / Vol. 1", footer="Printed for the tests", page_numbers=True)
    lines = wrap(" ".join([_SENTENCE.strip()] * 60), RIGHT - LEFT - 40, 10)
    w.y -= 8
    for k, line in enumerate(lines):
        last_here = w.y - 12 - 12 < BOTTOM + 12  # the line after this one goes to the next page
        if last_here:
            w.lines([line + f" {left}-"], space_before=0)
            w.lines([f"{right} {lines[k + 1]}"] + lines[k + 2:k + 6], space_before=0)
            break
        w.lines([line], space_before=0)
    w.save()
    return path


@pytest.mark.parametrize("left, right, word", [
    ("regula", "tion", "regulation"),  # one word broken: joined without its hyphen
    ("Soekarno", "Hatta", "Soekarno-Hatta"),  # a capital after the hyphen: a compound, kept
    ("well", "known", "well-known"),  # a usual compound head: the hyphen stays
])
def test_word_hyphenated_at_a_page_end_stays_on_its_page(tmp_path, left, right, word):
    doc = convert_pdf(_two_page_pdf(tmp_path / "t.pdf", left, right))
    text = doc.text
    page_break = text.index("<!-- PageBreak -->")
    at = text.index(word)
    assert at < page_break < at + len(word) + 200  # whole, before the page's footer and break
    second = text[page_break:]
    assert not re.match(r"\s*(?:<!--[^\n]*-->\s*)*" + right, second)  # the next page does not open with it
    assert text[:page_break].rstrip().endswith("-->")  # the footer is still there, after the word


def test_paragraphs_of_one_page_broken_inside_a_word_are_joined():
    from collections import Counter

    from adachunk.ingest.pdf._model import Block
    from adachunk.ingest.pdf._pagejoin import join_page_breaks

    page = [Block("paragraph", "loans, as well as associated lending-"),
            Block("paragraph", "linked notes. Refer to Note 11."),
            Block("paragraph", "OTHER LONG-"), Block("paragraph", "AT FAIR VALUE")]
    assert join_page_breaks([page], Counter({"lending": 2, "linked": 1})) == 1
    # "lending-linked": both parts are words of the document, the hyphen stays; an upper-case
    # block is not the word's rest
    assert [b.text for b in page] == ["loans, as well as associated lending-linked", "notes. Refer to Note 11.",
                                      "OTHER LONG-", "AT FAIR VALUE"]
    heading_next = [[Block("paragraph", "the regula-")], [Block("heading", "tion", level=2)]]
    assert join_page_breaks(heading_next, Counter()) == 0


# --- the shared PDFs --------------------------------------------------------------------------

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
# the earnings releases and the one 10-K whose conversion the issue times run by default; the
# long filings (10-Ks of 100 to 500 pages, 15 to 40 CPU-s each) with -m slow
_QUICK = re.compile(r"_EARNINGS\.pdf$|^NETFLIX_2017_10K\.pdf$")


def _shared_pdfs() -> list:
    real = sorted((CORPUS / "pdf-real").glob("*.pdf"))
    fin = sorted((CORPUS / "financebench-dev" / "pdfs").glob("*.pdf"))
    params = [pytest.param(p, id=p.name) for p in real]
    params += [pytest.param(p, id=p.name, marks=() if _QUICK.search(p.name) else pytest.mark.slow) for p in fin]
    return params or [pytest.param(None, id="absent")]


# a word's first piece: letters after a space or an opening mark ("-iii-", a page number, is none)
_WORD_END = re.compile(r"(?:^|[\s(\"'\u201c/])[^\W\d_]+-$")
_WORD_START = re.compile(r"[^\W\d_]")  # across a page break, any letter: "Soekarno-" | "Hatta"
_COMMENTS = re.compile(r"<!--[^\n]*?-->")


def _content(text: str) -> str:
    return _COMMENTS.sub(" ", text).strip()


def split_at_page_breaks(text: str) -> int:
    """Page breaks with a word's hyphenated first piece before them and its rest after them."""
    n = 0
    for m in re.finditer(r"<!-- PageBreak -->", text):
        before, after = _content(text[max(0, m.start() - 2000):m.start()]), _content(text[m.end():m.end() + 2000])
        n += bool(_WORD_END.search(before) and _WORD_START.match(after))
    return n


def split_between_chunks(chunks) -> int:
    """Neighbouring chunks, one ending in a word's hyphenated piece, the next opening with its rest
    in lower case (inside a page, "LONG-" over "AT FAIR VALUE" is a table's header, not a word)."""
    return sum(bool(_WORD_END.search(_content(a.text)) and _content(b.text)[:1].islower())
               for a, b in zip(chunks, chunks[1:]))


@pytest.mark.parametrize("pdf", _shared_pdfs())
def test_shared_pdfs_have_no_furniture_chunk_and_no_split_word(pdf):
    if pdf is None:
        pytest.skip("../shared/corpus is absent")
    doc = convert_pdf(pdf)
    assert split_at_page_breaks(doc.text) == 0
    for max_size in (128, 512):  # 128: where the issue found 13 furniture chunks of 141
        chunks = chunk_document(doc, load_profile("default", max_size=max_size, min_size=min(100, max_size // 4))).chunks
        assert _bare(doc.text, chunks) == [], max_size
        assert split_between_chunks(chunks) == 0, max_size
