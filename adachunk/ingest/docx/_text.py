"""The text of one Word paragraph: runs, fields, tracked changes, note and comment references.

* ``w:t`` is text; ``w:tab`` a space; ``w:br`` / ``w:cr`` a line break inside the block (a page or
  column break a space); ``w:noBreakHyphen`` "-", ``w:softHyphen`` nothing; ``w:sym`` its
  character (symbol-font code points ``F0xx`` mapped back to ``00xx``).
* Fields show their displayed result: text between ``w:fldChar`` begin and separate (the
  instruction, ``w:instrText``) is dropped, the result kept; ``w:fldSimple`` keeps its runs. The
  field state lives in the reader, because a complex field (a table of contents) spans paragraphs.
* Tracked changes: ``"accept"`` keeps ``w:ins`` / ``w:moveTo`` and drops ``w:del`` /
  ``w:moveFrom``; ``"reject"`` the reverse (``w:delText`` is the deleted text).
* Hidden runs (``w:vanish``) are not shown; drawings, text boxes and embedded objects are skipped.
* ``w:footnoteReference`` / ``w:endnoteReference`` become Markdown footnote markers, ``[^1]`` for
  footnotes (numbered in citation order, as Word does) and ``[^i]`` for endnotes (Word's default
  lower-case Roman numbering keeps the two kinds apart); ``w:commentReference`` is recorded.

Whitespace is normalised per line (runs of spaces and tabs become one space, lines are
stripped), so no line starts with the four spaces that Markdown would read as code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._numbering import roman
from ._xml import W, on

_CONTAINERS = {"r", "hyperlink", "smartTag", "customXml", "sdt", "sdtContent", "fldSimple", "dir", "bdo"}
_INSERTED = {"ins", "moveTo"}
_DELETED = {"del", "moveFrom"}


@dataclass
class NoteRef:
    """A footnote or endnote cited in a paragraph.

    Attributes:
        kind: ``"footnote"`` or ``"endnote"``.
        id: the note's ``w:id``.
        mark: the marker label (``"1"``, ``"ii"``); the text holds ``[^mark]``.
    """

    kind: str
    id: str
    mark: str


@dataclass
class Inline:
    """The text of a paragraph and what it cites.

    Attributes:
        text: the normalised text (lines joined with ``\\n``).
        notes: footnotes and endnotes cited, in order.
        comments: ids of the comments whose reference is in the paragraph, in order.
    """

    text: str
    notes: list[NoteRef] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)


class InlineReader:
    """Reads paragraphs in document order, keeping field and note-number state between them.

    Args:
        tracked: ``"accept"`` or ``"reject"`` tracked changes.
    """

    def __init__(self, tracked: str = "accept"):
        self.tracked = tracked
        self.fields: list[bool] = []  # open complex fields: True while in the instruction part
        self.counts = {"footnote": 0, "endnote": 0}

    def paragraph(self, p: Any) -> Inline:
        """The :class:`Inline` of a ``w:p`` (or any element holding runs)."""
        out: list[str] = []
        inline = Inline("")
        self._walk(p, out, inline, hidden=False)
        inline.text = normalise("".join(out))
        return inline

    def _walk(self, el: Any, out: list[str], inline: Inline, hidden: bool) -> None:
        for ch in el:
            tag = ch.tag
            if not isinstance(tag, str) or not tag.startswith(W):
                continue  # mc:AlternateContent (drawings), foreign markup, comments
            local = tag[len(W):]
            if local in _CONTAINERS:
                vanish = hidden or (local == "r" and on(ch.find(W + "rPr"), "vanish"))
                self._walk(ch, out, inline, vanish)
            elif local in _INSERTED or local in _DELETED:
                if (local in _INSERTED) == (self.tracked == "accept"):
                    self._walk(ch, out, inline, hidden)
            elif local == "fldChar":
                self._field(ch.get(W + "fldCharType"))
            elif local in ("footnoteReference", "endnoteReference"):
                if not self._suppressed(hidden):
                    kind = local[:-len("Reference")]
                    self.counts[kind] += 1
                    n = self.counts[kind]
                    mark = str(n) if kind == "footnote" else roman(n)
                    inline.notes.append(NoteRef(kind, ch.get(W + "id") or "", mark))
                    out.append(f"[^{mark}]")
            elif local == "commentReference":
                inline.comments.append(ch.get(W + "id") or "")
            elif not self._suppressed(hidden):
                out.append(_leaf(local, ch))

    def _field(self, kind: str | None) -> None:
        if kind == "begin":
            self.fields.append(True)
        elif kind == "separate" and self.fields:
            self.fields[-1] = False
        elif kind == "end" and self.fields:
            self.fields.pop()

    def _suppressed(self, hidden: bool) -> bool:
        return hidden or any(self.fields)


def _leaf(local: str, el: Any) -> str:
    """The text of a run's leaf element (empty for properties and marks)."""
    if local in ("t", "delText"):
        # an undeclared entity (the parser resolves none) is a child node: keep the text after it
        return (el.text or "") + "".join(ch.tail or "" for ch in el)
    if local in ("tab", "ptab"):
        return " "
    if local == "br":
        return " " if el.get(W + "type") in ("page", "column") else "\n"
    if local == "cr":
        return "\n"
    if local == "noBreakHyphen":
        return "-"
    if local == "sym":
        return _sym(el.get(W + "char"))
    return ""


def _sym(code: str | None) -> str:
    """The character of a ``w:sym``; nothing for a code that is not a character (out of range,
    a surrogate, a control, a hex string too long to be one)."""
    code = (code or "")[:8]
    try:
        n = int(code, 16)
    except ValueError:
        return ""
    if 0xF000 <= n <= 0xF0FF:  # symbol fonts address their glyphs in the private-use area
        n -= 0xF000
    if n < 0x20 or n > 0x10FFFF or 0xD800 <= n <= 0xDFFF:
        return ""
    return chr(n)


def normalise(text: str) -> str:
    """Collapse whitespace on each line, strip the lines, drop empty ones."""
    lines = (" ".join(line.split()) for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def note_text(root: Any, kind: str, note_id: str, tracked: str) -> str:
    """The text of footnote/endnote ``note_id`` in ``root`` (``w:footnotes``/``w:endnotes``), paragraphs
    joined by spaces; empty when missing."""
    if root is None:
        return ""
    for note in root.iter(W + kind):
        if note.get(W + "id") == note_id:
            return part_text(note, tracked)
    return ""


def part_text(el: Any, tracked: str) -> str:
    """All paragraphs under ``el`` (a note, comment, header or footer) as one line."""
    reader = InlineReader(tracked)
    texts = (reader.paragraph(p).text for p in paragraphs(el))
    return " ".join(" ".join(t.split()) for t in texts if t)


def paragraphs(el: Any) -> Any:
    """The ``w:p`` under ``el`` in document order, not those of text boxes inside a paragraph's
    drawings (a text box is written twice, as DrawingML and as a VML fallback)."""
    for ch in el:
        if ch.tag == W + "p":
            yield ch
        elif isinstance(ch.tag, str):
            yield from paragraphs(ch)


__all__ = ["Inline", "InlineReader", "NoteRef", "normalise", "note_text", "paragraphs", "part_text"]
