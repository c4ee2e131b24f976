"""Find profiles and rule packs, follow ``extends:``, merge, and validate against the schema.

Merge rules (documented in the README): mappings merge key by key (the child wins); lists are
replaced, except ``rules.include`` (union, base first) and ``rules.items`` (merged by rule
``name``, default the structure label: a child item with the same name replaces the base item
in place, new items are appended).
"""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..builtin import data_dir
from ..errors import Location, ProfileError, did_you_mean
from . import confine
from .confine import search_paths
from .schema import Profile, RulePack
from .yamlmarks import Mark, MarkedDict, MarkedList, load_yaml_file, mark_at

_CODE_BY_TYPE = {"extra_forbidden": "ADA202", "missing": "ADA204", "api_key_env_not_allowed": "ADA218"}


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
    """Merge ``child`` over ``base`` keeping the marks of whichever side a value comes from."""
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


def _model_at(model: type, path: tuple) -> type | None:
    """The pydantic model class that validates the mapping at ``path`` (for allowed keys)."""
    current: Any = model
    for key in path:
        current = _unwrap(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(key))
            if field is None:
                return None
            current = field.annotation
        elif typing.get_origin(current) in (dict, list):
            args = typing.get_args(current)
            current = args[-1] if args else None
        else:
            return None
    current = _unwrap(current)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _unwrap(tp: Any) -> Any:
    if typing.get_origin(tp) in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        models = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
        return models[0] if models else (args[0] if args else tp)
    return tp


def validation_errors(exc: ValidationError, data: Any, model: type, prefix: tuple = ()) -> list[ProfileError]:
    """Turn pydantic errors into located ``ADA2xx`` errors with allowed values and hints."""
    out = []
    for err in exc.errors():
        loc = _data_loc(data, prefix, err["loc"])
        code = _CODE_BY_TYPE.get(err["type"], "ADA203")
        if err["type"] == "value_error" and loc[-1:] == ("solver",):
            code = "ADA211"  # cross-field solver check (min_size > max_size, overlap >= max_size)
        allowed, hint = None, None
        if err["type"] == "extra_forbidden":
            owner = _model_at(model, loc[:-1])
            if owner is not None:
                allowed = sorted(owner.model_fields)
                hint = did_you_mean(str(loc[-1]), allowed)
            message = f"unknown key '{loc[-1]}'"
        elif err["type"] == "missing":
            message = f"missing required key '{loc[-1]}'"
        else:
            message = err["msg"]
            ctx = err.get("ctx") or {}
            if "expected" in ctx:
                allowed = [s.strip(" '") for s in str(ctx["expected"]).replace(" or ", ",").split(",") if s.strip()]
                hint = did_you_mean(str(err.get("input")), allowed)
        out.append(_at(data, prefix + loc, code, message, allowed=allowed, hint=hint))
    return out


def _data_loc(data: Any, prefix: tuple, loc: tuple) -> tuple:
    """A pydantic error location without its union/validator tags (``function-after[...]``).

    A part is kept when it is a key or index of the data at that point; other parts containing
    ``[`` are pydantic's tags. (Filtering on ``[`` alone would also drop a user's key ``a[b``.)
    """
    node: Any = data
    for key in prefix:
        node = node.get(key) if isinstance(node, dict) else None
    out = []
    for part in loc:
        if isinstance(node, dict) and part in node:
            out.append(part)
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            out.append(part)
            node = node[part]
        elif not (isinstance(part, str) and "[" in part):
            out.append(part)
            node = None
    return tuple(out) or tuple(loc[-1:])


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
