"""Which line can open which block: the one table the Markdown readers' shortcuts derive from.

mistletoe finds where a block starts by probing every token type's ``start`` on a line (and,
inside a paragraph, ``check_interrupts_paragraph``). The shortcuts of :mod:`._mistletoe` (its
plain-line fast path) and of the Python fast path (:mod:`._fast`, :mod:`._fast_list`) skip those
probes on lines that cannot open the blocks in question; every such pattern is made here from
:data:`OPENERS`, so a block kind taught to the table is taught to every reader at once.
``tests/parity/test_md_block_starts.py`` checks the table against mistletoe's own probes and
against the token types the tokenizer uses; ``docs/markdown-engines.md`` has the checklist for a
new kind.
"""

from __future__ import annotations

import re

# mistletoe's block token types (by class name, as ``_mistletoe.TOKENS`` names them, plus the
# setext underline that ``Paragraph.read`` turns into a heading) -> the characters on which each
# can start or interrupt a paragraph, after at most three spaces. Four spaces or a tab make
# indented code (``BlockCode``): every pattern below takes at most three spaces and then a
# character that is not white space, which leaves it out. A paragraph starts on any other line.
OPENERS: dict[str, str] = {
    "BlockCode": "",  # four spaces or a tab (the shape of the patterns)
    "Heading": "#",
    "Quote": ">",
    "CodeFence": "`~",
    "ThematicBreak": "-_*",
    "List": "-+*0123456789",  # bullets, and the digits of ordered markers (_mistletoe.LIST_RE)
    "Html": "<",  # after at most three white-space characters of any kind (HtmlBlock.start)
    "GfmTable": "|",  # anywhere in the header line: ANYWHERE
    "Paragraph": "",  # any line
    "SetextHeading": "=-",  # the underline that makes the paragraph above it a heading
}
# The kinds whose character opens them wherever it stands in the line, not only first.
ANYWHERE_KINDS = ("GfmTable",)
# Their character: one, so that a membership test (``ANYWHERE not in line``) is the whole check.
ANYWHERE = "".join(OPENERS[k] for k in ANYWHERE_KINDS)


def chars(*kinds: str) -> str:
    """The opening characters of ``kinds`` (all kinds when none is named), sorted, once each."""
    return "".join(sorted(set("".join(OPENERS[k] for k in kinds or OPENERS))))


def opening(*kinds: str, lead: str = " {0,3}") -> re.Pattern:
    """Lines that open, after ``lead``, with a character on which one of ``kinds`` can start."""
    return re.compile(f"{lead}[{re.escape(chars(*kinds))}]")


# A line on which only a paragraph can start or go on, once ANYWHERE is not in it either: at
# most three spaces, then a character that is neither white space nor any kind's opener.
PLAIN_LINE = re.compile(rf" {{0,3}}[^\s{re.escape(chars())}]")
