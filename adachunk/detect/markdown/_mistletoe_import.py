"""Import mistletoe without paying for its Unicode punctuation table up front.

``mistletoe.core_tokens`` builds ``punctuation`` at import time by calling
``unicodedata.category`` on every one of the 1,114,112 code points (about 0.3 s, a large part
of a one-page ``adachunk chunk`` run). Only mistletoe's *span* parser (emphasis delimiters)
reads that set; adachunk uses the block parser alone. :func:`import_lazily` therefore loads
``core_tokens`` from its own source with one change: the expression assigned to
``punctuation`` is kept, unevaluated, inside :class:`LazySet`, which evaluates it on first
use. Anything else in the process that parses spans with mistletoe gets exactly the same set,
computed when it first needs it.

The change is made on the syntax tree of the installed file, only when that file has exactly
one top-level ``punctuation = ...`` assignment; otherwise (another mistletoe version, no
source, any error) mistletoe is imported normally, which is slower but the same.
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.machinery
import sys
import threading
import types
from collections.abc import Set
from typing import Any, Callable, Iterator

_TARGET = "mistletoe.core_tokens"
_NAME = "_adachunk_lazy_set"
_lock = threading.Lock()


class LazySet(Set):
    """A read-only set whose members are computed on first use (then kept).

    A ``collections.abc.Set``: membership, iteration, length, comparisons and the set
    operators all work and all see the full set.
    """

    def __init__(self, compute: Callable[[], Any]):
        self._compute = compute
        self._members: frozenset | None = None

    def _get(self) -> frozenset:
        if self._members is None:
            with _lock:
                if self._members is None:
                    self._members = frozenset(self._compute())
        return self._members

    def __contains__(self, item: object) -> bool:
        return item in self._get()

    def __iter__(self) -> Iterator:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())

    def __repr__(self) -> str:
        state = "pending" if self._members is None else f"{len(self._members)} members"
        return f"LazySet({state})"


def _make_lazy(tree: ast.Module) -> bool:
    """Wrap the value of the one top-level ``punctuation = ...`` in ``LazySet(lambda: ...)``."""
    found = [
        node for node in tree.body
        if isinstance(node, ast.Assign) and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "punctuation"
    ]
    if len(found) != 1:
        return False
    node = found[0]
    no_args = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
    lam = ast.Lambda(args=no_args, body=node.value)
    node.value = ast.Call(func=ast.Name(id=_NAME, ctx=ast.Load()), args=[lam], keywords=[])
    ast.fix_missing_locations(tree)
    return True


class _Loader(importlib.abc.Loader):
    """Executes ``core_tokens`` from its transformed source (or unchanged if that fails)."""

    def __init__(self, base: importlib.machinery.SourceFileLoader):
        self.base = base

    def create_module(self, spec):
        return None  # the default module object

    def exec_module(self, module) -> None:
        code = None
        try:
            source = self.base.get_source(module.__name__)
            entry = _entry_name(source, self.base.path)
            code = _cached_code(entry)
            if code is None:
                tree = ast.parse(source, filename=self.base.path)
                if _make_lazy(tree):
                    code = compile(tree, self.base.path, "exec")
                    _store_code(entry, code)
            if code is not None:
                module.__dict__[_NAME] = LazySet
        except (OSError, SyntaxError, ValueError, TypeError, ImportError):
            code = None
        if code is None:
            code = self.base.get_code(module.__name__)
        exec(code, module.__dict__)  # noqa: S102 - mistletoe's own module code


# The transformed module's code object, kept in the startup cache: parsing and compiling the
# syntax tree costs about 25 ms of every new process, loading the marshalled code 0.2 ms.
def _entry_name(source: str, path: str) -> str:
    import hashlib
    import importlib.util

    key = "\0".join((sys.version, importlib.util.MAGIC_NUMBER.hex(), path, source))
    return f"mistletoe-core-tokens-{hashlib.sha256(key.encode('utf-8', 'surrogatepass')).hexdigest()[:32]}"


def _cached_code(entry: str):
    """The cached transformed code stored under ``entry``, or None."""
    from ...runtime import cachedir as _cachedir

    code = _cachedir.read_marshal(entry)
    return code if isinstance(code, types.CodeType) else None


def _store_code(entry: str, code) -> None:
    from ...runtime import cachedir as _cachedir

    _cachedir.write_marshal(entry, code)


class _Finder(importlib.abc.MetaPathFinder):
    """Hands ``mistletoe.core_tokens`` (and nothing else) to :class:`_Loader`."""

    def find_spec(self, fullname, path, target=None):
        if fullname != _TARGET:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return None  # no source to transform: the normal import
        spec.loader = _Loader(spec.loader)
        return spec


def import_lazily() -> None:
    """Import ``mistletoe.block_token`` with a lazily computed punctuation table.

    Does nothing special when ``mistletoe.core_tokens`` is already imported (someone imported
    mistletoe first: it is then the normal module).
    """
    if _TARGET in sys.modules:
        importlib.import_module("mistletoe.block_token")
        return
    finder = _Finder()
    sys.meta_path.insert(0, finder)
    try:
        importlib.import_module("mistletoe.block_token")
    finally:
        sys.meta_path.remove(finder)
