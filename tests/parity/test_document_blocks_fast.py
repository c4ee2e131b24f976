"""The block model's fast pass gives the very units of its reference copy (before the speed-up).

``bound_blocks`` tests each block once on the document text between its offsets instead of on
copied bodies; ``tests/parity/block_model_reference.py`` is the earlier code, kept to compare against:
on every CLAIR document (skipped when the shared corpus is absent), on the examples, and on
generated Markdown full of the bindings' triggers and awkward line breaks.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from adachunk.detect._block_model import BlockModel, bound_blocks
from adachunk.detect.markdown import parse_block_rows, parse_blocks

from . import block_model_reference as ref
from .corpus import clair_texts, examples, needs_clair


MODELS = [BlockModel(), BlockModel(footnotes="previous"), BlockModel(footnotes="none"),
          BlockModel(headings=False, lead_in=False), BlockModel(points=False, captions=False),
          BlockModel(reach=200)]


def _check(text: str) -> None:
    blocks = parse_blocks(text)
    rows = parse_block_rows(text)
    for model in MODELS:
        want = ref.bound_blocks(text, blocks, model)
        assert bound_blocks(text, blocks, model) == want, model
        assert bound_blocks(text, rows, model) == want, model  # the detector's input


def test_examples_match_reference():
    paths = examples(".md")
    assert paths
    for p in paths:
        _check(p.read_text(encoding="utf-8"))


@needs_clair
def test_clair_matches_reference():
    for text in clair_texts():
        _check(text)


_PIECES = [
    "# Title", "## Article 1", "Plain paragraph text.", "The provider shall:", "The list:  ",
    "(a) first point", "b) second point", "(iv) roman point", "• bullet point", "– dash point",
    "1. numbered", "(2) numbered", "- item one\n- item two", "[^1]: a note", "[^x]: note\n[^y]: more",
    "¹ superscript note", "(²) paren note", "<sup>3</sup> html note", "* star note", "† dagger note",
    "Cited here[^1] and ¹ and (²) and <sup>3</sup>.", "Table 3 Revenue by segment", "Figure 2: chart",
    "(in EUR million)", "Amounts in thousands of USD", "Source: annual report", "Note: unaudited",
    "| a | b |\n|---|---|\n| 1 | 2 |", "```\ncode block\n```", "<div>html</div>", "---",
    "   \n", " \t", "line\r\nbreak", "line\u2028sep", "\x0cform feed", "para\x85next", "  indented text",
    "\\* escaped star note", "\\- escaped dash", "[link] text", "(x) text", "<b>x</b> text", "[", "(",
    "<", "\\", "(¹)", "<sup>",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from(["\n\n", "\n", "\r\n\r\n", "\n \n", "\n\n\n"])),
                min_size=1, max_size=25))
def test_generated_markdown_matches_reference(parts):
    _check("".join(p + sep for p, sep in parts))


def test_detect_arrays_equal_detect():
    from adachunk.detect.base import DetectContext
    from adachunk.detect.document import DocumentBlockDetector
    from adachunk.datatypes import Document, span_arrays

    text = examples(".md")[0].read_text(encoding="utf-8")
    for source, doc in (("markdown", None), ("ingested", Document(id="d", text=text, split_points=[5, 90, 400]))):
        det = DocumentBlockDetector(DocumentBlockDetector.Params(source=source), name="document_block")
        ctx = DetectContext(text, doc)
        starts, ends = det.detect_arrays(ctx)
        want = span_arrays(det.detect(ctx))
        assert len(starts) > 0 and starts.dtype == want[0].dtype
        assert np.array_equal(starts, want[0]) and np.array_equal(ends, want[1])
    empty = DocumentBlockDetector(DocumentBlockDetector.Params(source="ingested"), name="b")
    starts, ends = empty.detect_arrays(DetectContext(text))
    assert len(starts) == 0 and len(ends) == 0
