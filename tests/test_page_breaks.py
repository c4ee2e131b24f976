"""The page-break marker search (``detect.document._page_breaks``) finds what the regex finds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from adachunk.detect import document

PIECES = ["<!--", "PageBreak", " ", "\t", "-->", "<", "-", "!", "x", "\n", "<!-- PageBreak -->",
          "<!--PageBreak-->", "Page", "Break", "\u00e9"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_marker_search_equals_finditer(pieces):
    text = "".join(pieces)
    want = [(m.start(), m.end()) for m in document._PAGE_BREAK.finditer(text)]
    assert list(document._page_breaks(text)) == want


def test_marker_search_on_a_converted_page():
    text = "Page one.\n<!-- PageFooter=\"1\" -->\n<!--  \tPageBreak -->\n\nPage two <!--PageBreak\t-->"
    want = [(m.start(), m.end()) for m in document._PAGE_BREAK.finditer(text)]
    assert len(want) == 2 and list(document._page_breaks(text)) == want
    assert document.page_ends(text)[0] == (8, want[0][1])
