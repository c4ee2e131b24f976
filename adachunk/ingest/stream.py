"""Read a very large Markdown or text file segment by segment, never holding its whole text.

The large-document mode (:mod:`adachunk.split.segments`) chunks a document in segments; with
the text read whole, the text itself was half of the peak memory (CPython keeps a text with a
few characters above U+00FF at two bytes per code point). Here the file is decoded
incrementally twice: a first pass counts the code points and hashes the text (chunk ids need the
whole text's hash before the first chunk is written), and a second yields the segments, cut
exactly where :func:`segment_bounds` cuts the whole text (the cut rule of the large-document mode,
:mod:`adachunk.split.segments`, kept here so that the reader needs no stage). Decoding
follows :func:`~adachunk.ingest.files.read_text_bytes`: a leading BOM is dropped, known binary
formats are ``ADA305``, invalid UTF-8 is ``ADA301`` with its byte offset.
"""

from __future__ import annotations

import codecs
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ..errors import InputError, Location
from ..datatypes import Page
from .files import check_input_file, refuse_binary
from .readers import _PAGE_BREAK

BLOCK = 1 << 22  # bytes per read
_MARKER = re.compile(r"<!--\s*PageBreak\s*-->")
STREAMED_SUFFIXES = (".md", ".markdown", ".txt")
# what segment_bounds looks for: fence lines, blank lines, a blank line before a heading
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.M)
_BLANK = re.compile(r"\n[ \t]*\r?\n")
_BEFORE_HEADING = re.compile(r"\n[ \t]*\r?\n(?= {0,3}#{1,6}[ \t\r\n])")


@dataclass(frozen=True)
class TextFacts:
    """What the first pass learns: code points, the text's sha256, whether it has page breaks."""

    chars: int
    content_hash: str
    has_pages: bool


def _blocks(path: str | Path, source: str, errors: str) -> Iterator[str]:
    """The file's text, decoded block by block (see the module docstring)."""
    check_input_file(path, source)
    decoder = codecs.getincrementaldecoder("utf-8")("strict" if errors == "strict" else "replace")
    consumed = 0  # bytes given to the decoder, BOM excluded (ADA301 offsets count from there)
    with open(path, "rb") as f:
        data = f.read(BLOCK)
        refuse_binary(data, source)
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        while True:
            final = not data
            pending = len(decoder.getstate()[0])
            try:
                text = decoder.decode(data, final=final)
            except UnicodeDecodeError as exc:
                offset = consumed - pending + exc.start
                raise InputError(
                    code="ADA301", message=f"invalid UTF-8 at byte offset {offset} ({exc.object[exc.start:exc.start + 4]!r})",
                    location=Location(source),
                    hint="re-encode the file as UTF-8, or pass --errors replace to substitute U+FFFD") from None
            consumed += len(data)
            if text:
                yield text
            if final:
                return
            data = f.read(BLOCK)


def text_facts(path: str | Path, source: str, errors: str = "strict") -> TextFacts:
    """First pass: length in code points, sha256 of the UTF-8 text, any ``<!-- PageBreak -->``."""
    h, chars, marker, tail = hashlib.sha256(), 0, False, ""
    for text in _blocks(path, source, errors):
        h.update(text.encode("utf-8", "surrogatepass"))
        chars += len(text)
        if not marker:
            probe = tail + text  # a marker may straddle two blocks
            marker = _MARKER.search(probe) is not None
            tail = probe[-64:]
    return TextFacts(chars, h.hexdigest(), marker)


def segments(path: str | Path, source: str, max_chars: int, errors: str = "strict") -> Iterator[tuple[int, str]]:
    """Second pass: ``(offset, text)`` of each segment, the cuts of ``segment_bounds`` on the whole text.

    A cut needs more than ``max_chars`` code points from the segment's start (the whole-text
    loop's condition, and its look at the character after the window), so the buffer waits
    for them; the window never looks further.
    """
    buf, pos = "", 0
    for text in _blocks(path, source, errors):
        buf += text
        while len(buf) > max_chars:
            cut = segment_bounds(buf, max_chars)[1]
            yield pos, buf[:cut]
            pos, buf = pos + cut, buf[cut:]
    if buf:
        yield pos, buf


class PageCounter:
    """Pages of consecutive segments, numbered as :func:`~adachunk.ingest.readers.markdown_pages`
    numbers the whole text (a marker closes its page together with the line breaks after it)."""

    def __init__(self, has_pages: bool):
        self.has_pages = has_pages
        self.closed = 0  # pages closed by the markers of earlier segments
        self._open_run = False  # the last segment ended on a marker's line breaks

    def pages(self, text: str) -> list[Page] | None:
        """The segment's pages in its own offsets (None when the document has no page breaks)."""
        if not self.has_pages:
            return None
        ends = [m.end() for m in _PAGE_BREAK.finditer(text)]
        lead = 0
        if self._open_run:  # line breaks continuing the previous segment's marker stay on its page
            lead = len(text) - len(text.lstrip("\r\n"))
        bounds = [0] + ([lead] if 0 < lead < len(text) else []) + [e for e in ends if lead < e < len(text)] + [len(text)]
        first = self.closed + (0 if lead else 1)
        out = [Page(first + i, a, b) for i, (a, b) in enumerate(zip(bounds, bounds[1:])) if b > a]
        self.closed += len(ends)
        self._open_run = bool(ends) and ends[-1] == len(text)
        return out


def _fenced(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """Fenced-code regions of ``text[lo:hi]`` (``lo`` is outside any fence); an unclosed fence
    runs to ``hi``."""
    regions, opener, start = [], None, 0
    for m in _FENCE.finditer(text, lo, hi):
        mark = m.group(1)
        if opener is None:
            opener, start = mark, m.start()
        elif mark[0] == opener[0] and len(mark) >= len(opener):
            regions.append((start, m.end()))
            opener = None
    if opener is not None:
        regions.append((start, hi))
    return regions


def _last_outside(pattern: re.Pattern, text: str, lo: int, hi: int, fenced: list[tuple[int, int]]) -> int | None:
    """End of the last match of ``pattern`` in ``text[lo:hi]`` that is not inside a fence."""
    best = None
    for m in pattern.finditer(text, lo, hi):
        if not any(a < m.start() < b for a, b in fenced):
            best = m.end()
    return best


def segment_bounds(text: str, max_chars: int) -> list[int]:
    """Segment boundaries ``[0, ..., len(text)]``, each segment at most ``max_chars`` long.

    A boundary is searched in the second half of each window: the last blank line before a
    heading, else the last blank line, else the last line end (each outside fenced code),
    else the window's end (never between ``\\r`` and ``\\n``).
    """
    n, bounds, pos = len(text), [0], 0
    while n - pos > max_chars:
        hi = pos + max_chars
        lo = pos + max_chars // 2
        fenced = _fenced(text, pos, hi)
        cut = (_last_outside(_BEFORE_HEADING, text, lo, hi, fenced)
               or _last_outside(_BLANK, text, lo, hi, fenced))
        if cut is None:
            nl = text.rfind("\n", lo, hi)
            cut = nl + 1 if nl >= 0 else hi - (text[hi - 1] == "\r" and text[hi] == "\n")
        bounds.append(cut)
        pos = cut
    bounds.append(n)
    return bounds
