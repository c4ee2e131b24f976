"""One paragraph per line (WikiText, plain-text exports): the block model reads such a Markdown
paragraph as its lines; hard-wrapped paragraphs stay whole."""

from __future__ import annotations

import adachunk
from adachunk.detect._block_model import BlockModel, bound_blocks
from adachunk.detect._line_paragraphs import LONG_LINE, split_row
from adachunk.detect.markdown import parse_blocks

SENT = "The committee reviewed the annual figures and approved the budget for the coming year"


def _para(n: int, words: int = 30) -> str:
    return " ".join(f"{SENT.split()[i % 14]}{n}" for i in range(words)) + "."


def test_long_sentence_lines_are_paragraphs():
    lines = [_para(i) for i in range(4)]
    text = " = Report = \n" + "\n".join(lines) + "\n"
    units = bound_blocks(text, parse_blocks(text))
    assert len(units) == 4
    assert text[units[0][0]:units[0][1]].startswith("= Report =")  # the title stays with its paragraph
    assert [text[a:b] for a, b in units[1:]] == lines[1:]


def test_hard_wrapped_text_stays_one_paragraph():
    words = (SENT + ". ") * 6
    wrapped = "\n".join(words[i:i + 72] for i in range(0, len(words), 72))
    assert sum(map(len, wrapped.splitlines())) / len(wrapped.splitlines()) < LONG_LINE
    units = bound_blocks(wrapped, parse_blocks(wrapped))
    assert len(units) == 1


def test_a_long_line_without_a_full_stop_still_ends_its_paragraph():
    text = _para(1)[:-1] + " <unk>\n" + _para(2) + "\n"
    row = (0, len(text) - 1, "paragraph", 0)
    assert len(split_row(text, row)) == 2


def test_the_model_can_be_turned_off():
    text = "\n".join(_para(i) for i in range(3)) + "\n"
    assert len(bound_blocks(text, parse_blocks(text), BlockModel(line_paragraphs=False))) == 1


def test_the_dp_cuts_between_line_paragraphs():
    lines = [_para(i, 40) for i in range(12)]
    text = "\n".join(lines) + "\n"
    chunks = adachunk.chunk_text(text, profile="default", max_size=200, min_size=20)
    starts = {text.index(line) for line in lines}
    assert all(c.start in starts or text[c.start:c.start + 1].isspace() or c.start == 0 for c in chunks)
    cut_at_line_start = sum(1 for c in chunks[1:] if text.find("\n", c.start - 2, c.start + 2) >= 0)
    assert cut_at_line_start == len(chunks) - 1
