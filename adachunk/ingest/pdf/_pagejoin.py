"""A word hyphenated at the end of a page is made whole on that page (issue 48).

Within a paragraph, :func:`adachunk.ingest.pdf._text.join_lines` joins a word broken at a line
end. A word broken at the *page's* end is different: the paragraph's two parts are blocks of two
pages, with the page's footer, its ``<!-- PageBreak -->`` and the next page's header between them,
so the two pieces ("Soekarno-" / "Hatta International Airport") would land in two chunks
whenever a chunk ends at the page break, which is where chunks like to end.

:func:`join_page_breaks` moves the word's rest (the first token of the next page's first block,
its punctuation and reference marks with it) to the end of the page's last text block: the page
break then sits after the whole word. The hyphen is dropped or kept by the same evidence as at a
line end (:func:`adachunk.ingest.pdf._text.keep_hyphen`): "regula-" + "tion" is "regulation",
"Soekarno-" + "Hatta" stays "Soekarno-Hatta", "well-" + "known" stays "well-known". Only a
paragraph or list item ending the page and a paragraph opening the next one (empty pages, such
as a full-page figure, in between) are joined: a heading or a table never continues a word. Two
paragraphs of one page are joined the same way when the rest is in lower case.
"""

from __future__ import annotations

import re
from collections import Counter

from ._model import Block
from ._text import TAIL_FRAGMENT, escape_block_start, keep_hyphen

_TEXT_KINDS = ("paragraph", "list")
_HEAD = re.compile(r"^([^\W\d_]+)(\S*)")  # the word's rest, then what is glued to it (",", "[^3]")


def _last_text(blocks: list[Block]) -> Block | None:
    """The page's last block that is running text: its footnotes come after it, so they are skipped."""
    for block in reversed(blocks):
        if block.kind == "footnote":
            continue
        return block if block.kind in _TEXT_KINDS else None
    return None


def _join(prev: Block, nxt: Block, blocks: list[Block], vocab: Counter[str], lower_only: bool) -> bool:
    """Move the rest of the word ``prev`` ends with from the start of ``nxt`` (one of ``blocks``)."""
    tail = TAIL_FRAGMENT.search(prev.text)
    head = _HEAD.match(nxt.text) if tail is not None and nxt.kind == "paragraph" else None
    if head is None or lower_only and not head.group(1)[0].islower():
        return False
    keep = keep_hyphen(tail.group(1), tail.group(2), head.group(1), vocab)
    prev.text = (prev.text if keep else prev.text[:-1]) + head.group(0)
    rest = nxt.text[head.end():].lstrip()
    if rest:
        nxt.text = escape_block_start(rest)  # now a paragraph start: "1990. A year" stays text
    else:  # the block was only the word's rest
        blocks.remove(nxt)
    return True


def join_page_breaks(pages: list[list[Block]], vocab: Counter[str]) -> int:
    """Join every word hyphenated across a page break or between two paragraphs of a page (in
    place); returns how many were joined.

    Within a page, a paragraph ending in "lending-" followed by one opening "linked notes" is a
    paragraph the layout broke in two: the word's rest moves when it is in lower case (an
    upper-case line after a hyphen there is a table's header or a new block, not the word).

    Args:
        pages: the body blocks of each page, in reading order.
        vocab: the document's words (:func:`adachunk.ingest.pdf._text.vocabulary`).
    """
    joined = 0
    for k, blocks in enumerate(pages):
        for i in range(len(blocks) - 2, -1, -1):
            prev = blocks[i]
            if prev.kind in _TEXT_KINDS and prev.text.endswith("-") and i + 1 < len(blocks):
                joined += _join(prev, blocks[i + 1], blocks, vocab, lower_only=True)
        prev = _last_text(blocks)
        if prev is None or not prev.text.endswith("-"):
            continue
        later = next((p for p in pages[k + 1:] if p), None)  # skips empty pages (a full-page figure)
        if later:
            joined += _join(prev, later[0], later, vocab, lower_only=False)
    return joined
