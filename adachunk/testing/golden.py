"""Golden snapshots of chunk boundaries: the review artefact of a policy change.

A snapshot holds one line per chunk::

    index start end tokens | first 40 characters … last 20 characters

with line breaks shown as ``⏎`` (and tabs as ``⇥``), so that ``git diff`` of a snapshot file
reads as "which boundaries moved, and what text is now at the edges of the chunks". Snapshots
live at ``tests/golden/<profile>/<document>__<size>.txt``; :func:`check_snapshot` compares a
chunking with its file and, when ``ADACHUNK_UPDATE_GOLDEN=1`` is set, rewrites the file
instead.

Example:
    >>> from adachunk.datatypes import Chunk
    >>> render_snapshot([Chunk(0, 0, 11, "Hello\\nworld", 11, 3)])
    '0 0 11 3 | Hello⏎world\\n'
"""

from __future__ import annotations

import difflib
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ..datatypes import Chunk

UPDATE_ENV = "ADACHUNK_UPDATE_GOLDEN"
HEAD_CHARS = 40
TAIL_CHARS = 20
_ESCAPES = str.maketrans({"\n": "⏎", "\r": "␍", "\t": "⇥"})
_LINE = re.compile(r"^(\d+) (\d+) (\d+) (\d+) \| ")


def escape(text: str) -> str:
    """Show line breaks and tabs as visible symbols so a snapshot line is one line."""
    return text.translate(_ESCAPES)


def snapshot_line(chunk: Chunk) -> str:
    """``index start end tokens | head … tail`` for one chunk (the whole text when short)."""
    text = chunk.text
    if len(text) <= HEAD_CHARS + TAIL_CHARS:
        preview = escape(text)
    else:
        preview = f"{escape(text[:HEAD_CHARS])} … {escape(text[-TAIL_CHARS:])}"
    return f"{chunk.index} {chunk.start} {chunk.end} {chunk.tokens} | {preview}"


def render_snapshot(chunks: Sequence[Chunk]) -> str:
    """The snapshot text of a chunking (one line per chunk, final newline)."""
    return "".join(snapshot_line(c) + "\n" for c in chunks)


def snapshot_path(root: str | Path, profile: str, doc_id: str, size: int) -> Path:
    """``<root>/<profile>/<doc_id>__<size>.txt`` (the document id made an ASCII file name)."""
    ascii_id = unicodedata.normalize("NFKD", doc_id).encode("ascii", "ignore").decode("ascii")
    safe = re.sub(r"_{2,}", "_", re.sub(r"[^A-Za-z0-9.-]+", "_", ascii_id)).strip("_.") or "doc"
    return Path(root) / profile / f"{safe}__{size}.txt"


def boundaries(snapshot: str) -> list[int]:
    """Interior boundaries (chunk starts after the first) read back from a snapshot text."""
    starts = [int(m.group(2)) for m in map(_LINE.match, snapshot.splitlines()) if m]
    return starts[1:]


def diff_snapshots(expected: str, actual: str, name: str = "snapshot") -> list[str]:
    """Unified diff lines (no trailing newlines) from ``expected`` to ``actual``; empty if equal."""
    return [line.rstrip("\n") for line in difflib.unified_diff(
        expected.splitlines(), actual.splitlines(), f"{name} (golden)", f"{name} (now)", lineterm="", n=1)]


def describe_moves(expected: str, actual: str) -> list[str]:
    """Boundaries that disappeared or appeared, in document order, as readable sentences."""
    old, new = set(boundaries(expected)), set(boundaries(actual))
    out = [f"boundary at {p} removed" for p in sorted(old - new)]
    out += [f"boundary at {p} added" for p in sorted(new - old)]
    return sorted(out, key=lambda s: int(s.split()[2]))


@dataclass
class GoldenResult:
    """Outcome of comparing one chunking with its snapshot file.

    Attributes:
        path: the snapshot file.
        status: ``same``, ``different``, ``missing`` or ``written`` (update mode).
        diff: unified diff lines from the golden file to the current chunking.
        moves: :func:`describe_moves` summary of the boundary changes.
    """

    path: Path
    status: str
    diff: list[str] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the check passes: the output matched the golden file or was (re)written."""
        return self.status in ("same", "written")

    def report(self) -> str:
        """A message for a failing test: what moved, then the diff, then how to accept it."""
        if self.status == "missing":
            return f"golden file {self.path} does not exist; run with {UPDATE_ENV}=1 to create it"
        lines = [f"{self.path}: chunk boundaries changed ({len(self.moves)} moved)"]
        lines += [f"  {m}" for m in self.moves[:20]]
        lines += self.diff[:80]
        lines.append(f"accept with: {UPDATE_ENV}=1 pytest tests/test_golden_profiles.py")
        return "\n".join(lines)


def update_requested() -> bool:
    """Whether ``ADACHUNK_UPDATE_GOLDEN`` asks to rewrite snapshots (``1``/``true``/``yes``)."""
    return os.environ.get(UPDATE_ENV, "").strip().lower() in ("1", "true", "yes")


def check_snapshot(path: str | Path, chunks: Sequence[Chunk], update: bool | None = None) -> GoldenResult:
    """Compare ``chunks`` with the snapshot at ``path`` (or rewrite it in update mode).

    Args:
        path: the snapshot file.
        chunks: the current chunking.
        update: rewrite the file instead of comparing (default: :func:`update_requested`).
    """
    path = Path(path)
    actual = render_snapshot(chunks)
    if update if update is not None else update_requested():
        expected = path.read_text(encoding="utf-8") if path.is_file() else ""
        if expected != actual:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(actual, encoding="utf-8", newline="\n")
        return GoldenResult(path, "written", diff_snapshots(expected, actual, path.name),
                            describe_moves(expected, actual))
    if not path.is_file():
        return GoldenResult(path, "missing")
    expected = path.read_text(encoding="utf-8")
    if expected == actual:
        return GoldenResult(path, "same")
    return GoldenResult(path, "different", diff_snapshots(expected, actual, path.name),
                        describe_moves(expected, actual))
