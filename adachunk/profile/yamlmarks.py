"""Safe YAML loading that remembers where every key came from (file, line, column).

PyYAML's YAML 1.1 resolver reads ``on``/``off``/``yes``/``no`` as booleans, which would turn a
rule's ``on:`` key into ``True``; we resolve only ``true``/``false`` as booleans (YAML 1.2).
Duplicate keys are errors instead of silently keeping the last one; YAML merge keys (``<<:``)
work, an explicit key overriding a merged one. Files are capped at :data:`MAX_FILE_BYTES`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from ..errors import Location, ProfileError

Mark = tuple[str, int, int]  # file, 1-based line, 1-based column


class MarkedDict(dict):
    """A dict with ``marks[key]`` (where the key is written) and ``here`` (the mapping itself)."""

    marks: dict[Any, Mark]
    here: Mark

    def __init__(self, *args: Any, **kw: Any):
        super().__init__(*args, **kw)
        self.marks = {}
        self.here = ("<input>", 0, 0)


class MarkedList(list):
    """A list with ``marks[index]`` and ``here``."""

    marks: dict[int, Mark]
    here: Mark

    def __init__(self, *args: Any):
        super().__init__(*args)
        self.marks = {}
        self.here = ("<input>", 0, 0)


class _Loader(yaml.SafeLoader):
    file = "<input>"


_Loader.yaml_implicit_resolvers = {k: list(v) for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
for _first, _resolvers in list(_Loader.yaml_implicit_resolvers.items()):
    _Loader.yaml_implicit_resolvers[_first] = [
        (tag, rx) for tag, rx in _resolvers if tag != "tag:yaml.org,2002:bool"
    ]
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def _mark(loader: _Loader, node: yaml.Node) -> Mark:
    return (loader.file, node.start_mark.line + 1, node.start_mark.column + 1)


def _mapping(loader: _Loader, node: yaml.MappingNode) -> MarkedDict:
    # flatten_mapping puts the pairs of the ``<<:`` merge sources first (of a list of sources,
    # the later ones first); the mapping's own pairs follow. Counting the own pairs beforehand
    # tells them apart: an own key overrides a merged one (YAML 1.1 merge), and among merged
    # pairs the later wins, i.e. the earlier source in the list, as the spec says. Only an own
    # key written twice is a duplicate.
    own = sum(1 for knode, _ in node.value if knode.tag != "tag:yaml.org,2002:merge")
    loader.flatten_mapping(node)
    first_own = len(node.value) - own
    out = MarkedDict()
    out.here = _mark(loader, node)
    seen_own: set = set()
    for i, (knode, vnode) in enumerate(node.value):
        key = loader.construct_object(knode, deep=True)
        try:
            hash(key)
        except TypeError:
            raise _error(loader, knode, "a mapping key must be a plain value") from None
        if i >= first_own:
            if key in seen_own:
                raise _error(loader, knode, f"duplicate key '{key}'", hint="each key may appear once per mapping")
            seen_own.add(key)
        out[key] = loader.construct_object(vnode, deep=True)
        out.marks[key] = _mark(loader, knode)
    return out


def _sequence(loader: _Loader, node: yaml.SequenceNode) -> MarkedList:
    out = MarkedList()
    out.here = _mark(loader, node)
    for i, child in enumerate(node.value):
        out.append(loader.construct_object(child, deep=True))
        out.marks[i] = _mark(loader, child)
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _sequence)


def _fast_loader() -> type | None:
    """The same loader on libyaml's C parser (seven times faster), or None without libyaml.

    Only the scanner and parser are C: resolvers and constructors (our booleans, marks,
    duplicate keys, merges) are the Python ones above, and libyaml reports the same 0-based
    code-point lines and columns. It is used for well-formed input only: any problem is
    reported by a second parse with :class:`_Loader`, so errors read the same either way.
    """
    base = getattr(yaml, "CSafeLoader", None)
    if base is None or not getattr(yaml, "__with_libyaml__", False):
        return None
    fast = type("_FastLoader", (base,), {"file": "<input>"})
    fast.yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers
    fast.yaml_constructors = dict(_Loader.yaml_constructors)
    return fast


_FAST_LOADER = _fast_loader()
# PyYAML's reader refuses these; libyaml's checks are not the same, so such text takes the
# Python path and gets its error
_NON_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE


def _error(loader: _Loader, node: yaml.Node, msg: str, hint: str | None = None) -> ProfileError:
    f, line, col = _mark(loader, node)
    return ProfileError(code="ADA201", message=msg, location=Location(f, line, col), hint=hint)


_MAX_NODES = 200_000  # after alias expansion: a 700-byte "billion laughs" file would be 10^7


def _too_big(data: Any) -> bool:
    """True when walking ``data`` (aliases expanded) exceeds :data:`_MAX_NODES` nodes."""
    seen, stack = 0, [data]
    while stack:
        node = stack.pop()
        seen += 1
        if seen > _MAX_NODES:
            return True
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def load_yaml_text(text: str, file: str = "<input>") -> Any:
    """Parse YAML text safely with marks; any YAML problem becomes ``ADA201`` with its location."""
    if _FAST_LOADER is not None and not _NON_PRINTABLE.search(text):
        try:
            return _load(_FAST_LOADER, text, file)
        except Exception:  # the Python parser below reports it exactly
            pass
    return _load(_Loader, text, file)


def _load(loader_class: type, text: str, file: str) -> Any:
    loader = None
    try:
        loader = loader_class(text)  # the reader rejects NUL and other non-printable characters here
        loader.file = file
        data = loader.get_single_data()
        if _too_big(data):
            raise ProfileError(code="ADA201", message=f"the document expands to more than {_MAX_NODES} nodes",
                               location=Location(file), hint="remove the nested anchors/aliases")
        return data
    except ProfileError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        hint = None
        if "could not determine a constructor" in str(problem):
            problem = f"unsafe or unknown YAML tag: {problem.split('tag')[-1].strip()}"
            hint = "profiles are plain data: remove the '!!' tag"
        loc = Location(file, mark.line + 1, mark.column + 1) if mark else Location(file)
        raise ProfileError(code="ADA201", message=str(problem), location=loc, hint=hint) from None
    except yaml.YAMLError as exc:
        raise ProfileError(code="ADA201", message=str(exc), location=Location(file)) from None
    except RecursionError:
        raise ProfileError(code="ADA201", message="the YAML nesting is too deep", location=Location(file)) from None
    except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as exc:
        # PyYAML's constructors for explicit standard tags (!!int x, !!timestamp nope) raise these
        raise ProfileError(code="ADA201", message=f"invalid value for its YAML tag: {exc}", location=Location(file),
                           hint="remove the '!!' tag or fix the value") from None
    finally:
        if loader is not None:
            loader.dispose()


MAX_FILE_BYTES = 1 << 20  # a profile or rule pack is a few KiB; 1 MiB leaves room, refuses junk


def load_yaml_file(path: Path) -> Any:
    """Read and parse a YAML file.

    Raises:
        ProfileError: ``ADA201`` on bad syntax, ``ADA210`` when unreadable, ``ADA221`` when the
            file holds more than :data:`MAX_FILE_BYTES` (checked while reading, so a huge or
            endless file such as ``/dev/zero`` is never read whole).
    """
    try:
        with open(path, "rb") as fh:
            blob = fh.read(MAX_FILE_BYTES + 1)
        if len(blob) > MAX_FILE_BYTES:
            raise ProfileError(code="ADA221", message=f"{path} is larger than {MAX_FILE_BYTES >> 20} MiB",
                               location=Location(str(path)), hint="a profile or rule pack is plain, small data")
        text = blob.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ProfileError(code="ADA210", message=f"cannot read {path}: {exc}", location=Location(str(path))) from None
    return load_yaml_text(text, str(path))


def mark_at(data: Any, path: tuple) -> Mark | None:
    """Best location for a key path: where the deepest existing key along it is written."""
    best = getattr(data, "here", None)
    node = data
    for key in path:
        marks = getattr(node, "marks", None)
        if marks is not None and key in marks:
            best = marks[key]
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            break
    return best


def plain(data: Any) -> Any:
    """Strip marks: nested plain dicts/lists (for canonical dumps and fingerprints)."""
    if isinstance(data, dict):
        return {k: plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [plain(v) for v in data]
    return data
