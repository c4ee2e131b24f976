"""Find profiles and rule packs, follow ``extends:``, merge, and validate against the schema.

Merge rules (documented in docs/profiles.md): mappings merge key by key (the child wins); lists are
replaced, except ``rules.include`` (union, base first) and ``rules.items`` (merged by rule
``name``, default the structure label: a child item with the same name replaces the base item
in place, new items are appended).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..datafiles import data_dir
from ..components import build
from ..errors import Location, ProfileError, did_you_mean
from . import confine
from .confine import search_paths
from .schema import Profile, RulePack
from .yamlmarks import Mark, MarkedDict, MarkedList, load_yaml_file, mark_at


def builtin_names(kind: str = "profiles") -> list[str]:
    """Stems of the shipped YAML files of one kind."""
    return sorted(p.stem for p in data_dir(kind).glob("*.yaml"))


def locate(name_or_path: str | Path, kind: str = "profiles", near: Path | None = None,
           *, trusted: bool = True) -> Path:
    """Resolve a builtin name or a path to an existing file (``ADA209``/``ADA210`` otherwise).

    Args:
        name_or_path: a builtin name, a file stem or a path.
        kind: ``profiles`` or ``rules`` (the shipped folder to look in).
        near: the folder of the profile that names the file, looked in first.
        trusted: the user gave the name (command line, API): any path is fine. Otherwise a
            profile file gave it: it is looked up beside that profile, in the search folders
            and the shipped folder only, and must resolve inside them (``ADA220``).
    """
    text = str(name_or_path)
    candidates = []
    if near is not None:
        candidates += [near / text, near / f"{text}.yaml"]
    if trusted:
        candidates.append(Path(text))
    candidates.append(data_dir(kind) / f"{text}.yaml")
    if not trusted:  # after the shipped names: `include: [legal]` in a shipped profile stays shipped
        candidates += [d / n for d in search_paths() for n in (text, f"{text}.yaml")]
    for cand in candidates:
        try:
            if cand.is_file():
                if not trusted:
                    confine.check(cand, confine.read_roots([near] if near else []), kind.rstrip("s"))
                return cand.resolve()
        except OSError:  # e.g. ENAMETOOLONG: not a usable file name
            continue
    code = "ADA209" if kind == "profiles" else "ADA210"
    what = "profile" if kind == "profiles" else "rule pack"
    raise ProfileError(
        code=code,
        message=f"unknown {what} '{text}' (not a file, not a builtin)",
        allowed=builtin_names(kind),
        hint=did_you_mean(Path(text).stem, builtin_names(kind)),
    )


def _item_key(item: Any) -> Any:
    if isinstance(item, dict):
        key = item.get("name") or item.get("structure")
        try:
            hash(key)
            return key
        except TypeError:  # a list as a name: the schema reports it, merging must not crash
            return repr(key)
    return repr(item)


def deep_merge(base: Any, child: Any, path: tuple = ()) -> Any:
    """Merge ``child`` over ``base`` keeping the marks of whichever side a value comes from.

    Mappings merge key by key, except ``metrics.weights``, which a child replaces whole: weights
    are one distribution, and a base's metric the child does not name must not stay weighed.
    """
    if path == ("metrics", "weights"):
        return child
    if isinstance(base, dict) and isinstance(child, dict):
        out = MarkedDict()
        out.here = getattr(child, "here", getattr(base, "here", ("<input>", 0, 0)))
        for src in (base, child):
            for key, value in src.items():
                if key in out and src is child:
                    out[key] = deep_merge(out[key], value, path + (key,))
                else:
                    out[key] = value
                if key in getattr(src, "marks", {}):
                    out.marks[key] = src.marks[key]
        return out
    if isinstance(base, list) and isinstance(child, list):
        if path == ("rules", "include"):
            return _marked_list(list(base) + [x for x in child if x not in base], child)
        if path == ("rules", "items"):
            merged = list(base)
            index = {_item_key(x): i for i, x in enumerate(merged)}
            for item in child:
                k = _item_key(item)
                if k in index:
                    merged[index[k]] = item
                else:
                    index[k] = len(merged)
                    merged.append(item)
            return _marked_list(merged, child)
    return child


def _marked_list(items: list, like: Any) -> MarkedList:
    out = MarkedList(items)
    out.here = getattr(like, "here", ("<input>", 0, 0))
    return out


def load_raw(name_or_path: str | Path, _stack: tuple[Path, ...] = ()) -> tuple[MarkedDict, list[Path]]:
    """Load a profile and its ``extends`` chain, merged (base first). Returns data and files."""
    near = _stack[-1].parent if _stack else None
    path = locate(name_or_path, "profiles", near, trusted=not _stack)  # extends: comes from a file
    if path in _stack:
        chain = " -> ".join(p.name for p in _stack + (path,))
        raise ProfileError(code="ADA209", message=f"extends cycle: {chain}", location=Location(str(_stack[-1])),
                           key_path="extends", hint="remove one of the extends links")
    data = load_yaml_file(path)
    if not isinstance(data, dict):
        raise ProfileError(code="ADA203", message="a profile must be a YAML mapping", location=Location(str(path), 1, 1))
    files = [path]
    base_name = data.get("extends")
    if base_name:
        if not isinstance(base_name, str):
            raise _at(data, ("extends",), "ADA203", "extends must be a profile name or path")
        try:
            base, base_files = load_raw(base_name, _stack + (path,))
        except ProfileError as exc:
            # not found, outside the allowed folders, too large: point at this extends line
            # (an error from further down the chain already names its own extends line)
            if exc.code in ("ADA209", "ADA220", "ADA221") and not exc.key_path:
                f, line, col = data.marks["extends"]
                exc.location = Location(f, line, col)
                exc.key_path = "extends"
            raise
        merged = deep_merge(base, data)
        files = base_files + files
    else:
        merged = data
    return merged, files


def _at(data: Any, path: tuple, code: str, message: str, **kw: Any) -> ProfileError:
    mark: Mark | None = mark_at(data, path)
    loc = Location(*mark) if mark else Location()
    return ProfileError(code=code, message=message, location=loc, key_path=_dotted(path), **kw)


def _dotted(path: tuple) -> str:
    return ".".join(str(p) for p in path)


def validation_errors(exc: ValidationError, data: Any, model: type, prefix: tuple = ()) -> list[ProfileError]:
    """Turn pydantic errors on the value at ``prefix`` of ``data`` into ``ADA2xx`` errors located
    at their YAML source (the one translator: :func:`adachunk.components.build.validation_errors`)."""
    return build.validation_errors(exc, build.node_at(data, prefix), model, prefix,
                                   locate=lambda path: mark_at(data, path))


def validate_profile(data: MarkedDict) -> Profile:
    """Validate merged profile data against :class:`Profile` (all errors at once)."""
    try:
        return Profile.model_validate(data)
    except ValidationError as exc:
        from ..errors import ProfileErrors

        raise ProfileErrors(validation_errors(exc, data, Profile)) from None


def load_pack(name: str, near: Path | None) -> tuple[RulePack, MarkedDict, Path]:
    """Load and validate a rule pack from ``rules/`` (or a path near the profile)."""
    path = locate(name, "rules", near, trusted=False)  # rules.include comes from a profile file
    data = load_yaml_file(path)
    if not isinstance(data, dict):
        raise ProfileError(code="ADA203", message="a rule pack must be a YAML mapping", location=Location(str(path), 1, 1))
    try:
        return RulePack.model_validate(data), data, path
    except ValidationError as exc:
        from ..errors import ProfileErrors

        raise ProfileErrors(validation_errors(exc, data, RulePack)) from None
