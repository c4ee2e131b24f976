"""The block-start rule has three hand-kept copies; they must agree character for character.

A line on which only a paragraph can start is decided by ``_mistletoe._PLAIN_LINE`` (the
Python fast path), ``_line_table._opens_block`` (the compiled line table) and, for list items,
``_fast_list._MARKER_OPEN``. A block kind taught to one and not the others would silently read
as a paragraph on one path: ``docs/markdown-engines.md`` has the checklist.
"""

from __future__ import annotations

from adachunk.detect.markdown import _fast_list, _line_table
from adachunk.detect.markdown import _mistletoe as mm

import pytest  # noqa: E402

#: The fast path against its reference: `pytest -m parity` runs every such test (also in the default run).
pytestmark = pytest.mark.parity


def _opens_in_fast_path(ch: str) -> bool:
    """Whether a line starting with ``ch`` may open a block other than a paragraph (Python path)."""
    return mm._PLAIN_LINE.match(ch + "x") is None


def test_compiled_line_table_and_fast_path_agree_on_every_ascii_start():
    for code in range(33, 127):  # visible ASCII: the only characters either rule names
        ch = chr(code)
        assert _line_table._opens_block(code) == _opens_in_fast_path(ch), repr(ch)


def test_every_list_marker_start_is_a_block_start():
    for code in range(33, 127):
        ch = chr(code)
        if _fast_list._MARKER_OPEN.match(ch):
            assert _opens_in_fast_path(ch) and _line_table._opens_block(code), repr(ch)


def test_non_ascii_never_opens_a_block():
    for ch in "é字§“—\u00a0":
        if not ch.isspace():
            assert not _line_table._opens_block(ord(ch)) and not _opens_in_fast_path(ch), repr(ch)
