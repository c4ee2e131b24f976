"""Lark ``%import`` under the profile's confinement: a grammar cannot read what its profile cannot.

A structure's ``grammar:`` file is confined to the profile's folders (``ADA220``), but Lark reads
the files a grammar imports itself: ``%import .sub.x (A)`` through a folder symlinked elsewhere,
or ``%import .leak.ROOT`` where ``leak.lark`` links to ``/etc/passwd``, would make adachunk open
files outside them. :class:`ConfinedImports` is the only loader Lark gets for files on disk: it
finds the file as Lark would (relative imports beside the importing grammar, library imports in
the search folders), refuses it with ``ADA220`` naming the importing file and line when it
resolves outside the allowed folders (before anything is opened), and reports a missing file as
``ADA210`` itself, so Lark never falls back to opening a path relative to the working folder.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Sequence

from ..datafiles import KINDS, data_dir, is_inside
from ..errors import Location, ProfileError

EXT = ".lark"


class ConfinedImports:
    """A Lark import loader (``import_paths`` entry) confined to ``search`` and the shipped data.

    Attributes:
        search: folders searched for library-style imports (``%import name.X``), in order.
        roots: folders an imported file may resolve into (``search`` and the shipped data).
        sources: file → text of every grammar read so far (the root one included), to find the
            ``%import`` line an error names.
        files: the imported files read, resolved (part of the grammar's identity).
    """

    def __init__(self, root: Path, root_text: str, search: Sequence[Path]):
        self.search = [Path(d) for d in search]
        self.roots = [*self.search, *(data_dir(k) for k in KINDS)]
        self.sources: dict[str, str] = {str(root): root_text}
        self.files: list[Path] = []

    def __call__(self, base_path, grammar_path: str) -> tuple[str, str]:
        """Return ``(path, text)`` of the imported grammar (Lark's loader protocol).

        Raises:
            IOError: for an import from inside a packaged grammar (Lark's own library serves it).
            ProfileError: ``ADA220`` when the file resolves outside the allowed folders,
                ``ADA210`` when it is nowhere.
        """
        if base_path is not None and not isinstance(base_path, str):
            raise IOError(grammar_path)  # a PackageResource: an import inside Lark's library
        relative = base_path is not None
        folders = [Path(base_path)] if relative else self.search
        for folder in folders:
            cand = folder / grammar_path
            if not os.path.lexists(cand):
                continue
            if not is_inside(cand, self.roots):
                raise self._error("ADA220", base_path, grammar_path,
                                  f"of '{cand}', which resolves to '{os.path.realpath(cand)}', outside "
                                  "the folders a profile may use",
                                  hint="Put the imported grammar beside the importing one or in a folder "
                                  "listed in ADACHUNK_PROFILE_PATH")
            real = os.path.realpath(cand)
            if not os.path.isfile(real):
                continue
            with open(real, encoding="utf-8") as f:
                text = f.read()
            self.sources[real] = text
            self.files.append(Path(real))
            return real, text
        raise self._error("ADA210", base_path, grammar_path,
                          f"of '{grammar_path}': found in none of {', '.join(str(f) for f in folders)}",
                          hint="%import common.X is Lark's own library, %import .file.X a file beside the "
                          "grammar, %import adachunk.common.X the shipped rules")

    def _error(self, code: str, base_path: str | None, grammar_path: str, what: str, hint: str) -> ProfileError:
        """``code`` located at the ``%import`` line that asked for ``grammar_path``."""
        file, line = self._importer(base_path, grammar_path)
        return ProfileError(code=code, message=f"%import {what}", location=Location(file, line), hint=hint)

    def _importer(self, base_path: str | None, grammar_path: str) -> tuple[str | None, int | None]:
        """The grammar file and line whose ``%import`` names ``grammar_path`` (first match)."""
        dotted = grammar_path[: -len(EXT)].replace(os.sep, ".") if grammar_path.endswith(EXT) else grammar_path
        pattern = re.compile(r"^[ \t]*%import[ \t]+" + (r"\." if base_path is not None else "")
                             + re.escape(dotted) + r"(?=[ \t]*\(|\.)", re.M)
        for file, text in self.sources.items():
            if base_path is not None and os.path.dirname(file) != base_path:
                continue
            m = pattern.search(text)
            if m:
                return file, text.count("\n", 0, m.start()) + 1
        return None, None
