"""Expand CLI inputs (files, folders, globs) into input paths, in a stable order, and name them.

Two rules every command shares, so that one file is one document whatever command reads it:

* **Which files of a folder are documents**: every file with a supported suffix, except those
  the folder's ``.adachunkignore`` or the command's ``--exclude`` patterns name (see
  :class:`IgnoreRules`). Nothing else is skipped by default but Word's lock files.
* **A document's id** (``doc_id``): its path relative to the *input root*, the deepest folder
  holding every input, suffix included (:func:`document_key`). ``adachunk chunk a.html`` and
  ``adachunk run a.html`` both call it ``a.html``; over a folder ``docs/``, ``docs/x/a.md`` is
  ``x/a.md``, and ``a.md`` and ``a.html`` beside it stay two documents.
"""

from __future__ import annotations

import fnmatch
import glob
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from ..errors import InputError, Location

IGNORE_FILE = ".adachunkignore"


@dataclass
class IgnoreRules:
    """Gitignore-style patterns naming the files of a folder that are not documents.

    One pattern a line; blank lines and ``#`` comments are skipped. A pattern without ``/``
    matches a file's name or any folder's name on its path (``SOURCES.md``, ``*.txt``,
    ``drafts``); one with ``/`` matches the path relative to the folder, or a folder of it
    (``notes/*.md``, ``/README.md``: only the top one). ``!pattern`` takes a file back; the last
    pattern that matches decides. ``*`` crosses ``/`` (Python's :mod:`fnmatch`), unlike git's.

    Attributes:
        patterns: the patterns, in order (the folder's ignore file first, then ``--exclude``).
    """

    patterns: list[str] = field(default_factory=list)

    @classmethod
    def for_folder(cls, folder: str | os.PathLike, exclude: Sequence[str] = ()) -> "IgnoreRules":
        """The folder's ``.adachunkignore`` (when it has one), then ``exclude``."""
        lines: list[str] = []
        try:
            lines = (Path(folder) / IGNORE_FILE).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            pass  # no ignore file (or an unreadable one): every supported file is a document
        return cls([*lines, *exclude])

    def ignores(self, rel: str) -> bool:
        """Whether the file at ``rel`` (POSIX path relative to the folder) is not a document."""
        parts = rel.split("/")
        ignored = False
        for raw in self.patterns:
            pat = raw.strip()
            if not pat or pat.startswith("#"):
                continue
            negate = pat.startswith("!")
            pat = pat[1:] if negate else pat
            if _matches(pat.rstrip("/"), parts):
                ignored = not negate
        return ignored


def _matches(pat: str, parts: list[str]) -> bool:
    """One pattern against a path's parts (see :class:`IgnoreRules`)."""
    if not pat:
        return False
    if "/" not in pat:
        return any(fnmatch.fnmatchcase(part, pat) for part in parts)
    pat = pat.lstrip("/")
    # the file itself or one of its folders ("notes" in "notes/a.md")
    return any(fnmatch.fnmatchcase("/".join(parts[:n]), pat) for n in range(1, len(parts) + 1))


def expand_inputs(inputs: Iterable[str],
                  suffixes: Iterable[str] | Callable[[], Iterable[str]],
                  exclude: Sequence[str] = (), skipped: list[str] | None = None) -> Iterator[str]:
    """Files as given; folders recursively (sorted, supported suffixes only); globs sorted.

    ``suffixes`` may be a function returning them (``supported_suffixes``): it is then called
    only when a folder is expanded, since listing every reader scans the installed packages'
    entry points for plugins, which a command naming its files never needs.

    A folder's files named by its ``.adachunkignore`` or by ``exclude`` are skipped, and so are
    a glob's files named by ``exclude`` (:class:`IgnoreRules`); each skipped path is appended to
    ``skipped`` when given. A file named directly is always taken: naming it asks for it.

    A folder without any supported file, or a glob matching nothing, is an ``ADA302`` error.
    A folder's FIFOs, devices and sockets are skipped (``is_file`` is true only for regular files,
    so a named pipe in a corpus folder never blocks a run); one named directly or matched by a
    glob is yielded, and the reader refuses it with an error naming it.
    """
    wanted: set[str] | None = None
    for item in inputs:
        if os.path.isdir(item):
            if wanted is None:
                wanted = {s.lower() for s in (suffixes() if callable(suffixes) else suffixes)}
            rules = IgnoreRules.for_folder(item, exclude)
            found = sorted(p for p in Path(item).rglob("*")
                           if p.is_file() and p.suffix.lower() in wanted and not _office_lock(p))
            if not found:
                raise InputError(code="ADA302", message=f"folder {item} holds no input file ({', '.join(sorted(wanted))})",
                                 location=Location(item))
            yield from _kept([str(p) for p in found], [p.relative_to(item).as_posix() for p in found], rules, skipped)
        elif any(ch in item for ch in "*?[") and not os.path.exists(item):
            matches = sorted(glob.glob(item, recursive=True))
            if not matches:
                raise InputError(code="ADA302", message=f"no file matches '{item}'", location=Location(item))
            yield from _kept(matches, [Path(m).as_posix() for m in matches], IgnoreRules(list(exclude)), skipped)
        else:
            yield item


def _kept(paths: list[str], rels: list[str], rules: IgnoreRules, skipped: list[str] | None) -> list[str]:
    """``paths`` less those ``rules`` ignore (by their ``rels``), which go to ``skipped``."""
    out = []
    for path, rel in zip(paths, rels):
        if rules.ignores(rel):
            if skipped is not None:
                skipped.append(path)
        else:
            out.append(path)
    return out


def _office_lock(path: Path) -> bool:
    """Word's owner file (``~$ntract.docx``, 162 bytes, written beside a document open in Word):
    a folder of contracts someone is editing holds one per open file, and none is a document."""
    return path.name.startswith("~$")


def _root_of(item: str) -> Path:
    """The folder an input item stands for: itself, a glob's fixed prefix, or a file's parent."""
    if any(ch in item for ch in "*?[") and not os.path.exists(item):
        fixed = []
        for part in Path(item).parts:
            if glob.has_magic(part):
                break
            fixed.append(part)
        return Path(*fixed).resolve() if fixed else Path.cwd().resolve()
    p = Path(item).resolve()
    return p if p.is_dir() else p.parent


def input_root(items: Sequence[str]) -> Path:
    """The deepest folder holding every input item (files, folders, globs as listed)."""
    roots = [str(_root_of(i)) for i in items] or [str(Path.cwd().resolve())]
    return Path(os.path.commonpath(roots))


def document_key(path: str, root: Path) -> str:
    """A document's id: ``path`` resolved, relative to ``root`` in POSIX form, suffix included
    (absolute when outside it)."""
    real = Path(path).resolve()
    try:
        return real.relative_to(root).as_posix()
    except ValueError:
        return real.as_posix()
