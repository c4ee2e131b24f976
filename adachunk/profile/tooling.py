"""Profile tooling: where each value comes from, semantic diff, JSON Schema export.

* :func:`annotated_yaml` prints the effective profile with ``# file:line`` after every value
  (``# default`` for values that no file sets: the schema's defaults).
* :func:`diff_profiles` compares two resolved profiles key by key: rules are matched by name,
  structures by label, candidates by display name, so a reordering is not a change.
* :func:`json_schema` exports the profile (or rule pack) model as JSON Schema for editor
  completion, with each registered component's ``Params`` as a ``oneOf`` branch keyed by
  ``type``.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from ..datafiles import KINDS, data_dir

# --- rendering helpers ----------------------------------------------------------------------

_PLAIN = re.compile(r"[A-Za-z_][\w.\-/+]*(?: [\w.\-/+]+)*")
_RESERVED = {"null", "true", "false", "yes", "no", "on", "off", "y", "n", "~"}


def scalar(value: Any) -> str:
    """A YAML scalar: plain when unambiguous, otherwise JSON-quoted (valid YAML too)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in _RESERVED:
        return text
    return json.dumps(text, ensure_ascii=False)


def key(name: Any) -> str:
    """A mapping key: like :func:`scalar`, but ``on``/``off`` stay plain as in profile files
    (adachunk reads YAML 1.2 booleans, so they are not ``true``/``false`` there)."""
    text = str(name)
    if isinstance(name, str) and _PLAIN.fullmatch(text) and text.lower() not in ("null", "true", "false", "~"):
        return text
    return scalar(name)


def flow(value: Any) -> str:
    """Compact one-line YAML (flow style) for any JSON-like value."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key(k)}: {flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    return scalar(value)


def display_file(file: str) -> str:
    """A short name for a source file: ``profiles/default.yaml`` for shipped files, a path
    relative to the working directory when below it, else the path as is."""
    if file.startswith("<"):
        return file.strip("<>")
    path = Path(file)
    for kind in KINDS:
        try:
            return f"{kind}/{path.resolve().relative_to(data_dir(kind).resolve())}"
        except ValueError:
            continue
    try:
        rel = os.path.relpath(path)
        return path.as_posix() if rel.startswith("..") else Path(rel).as_posix()
    except ValueError:  # another drive on Windows
        return str(path)


# --- origins ----------------------------------------------------------------------------------


def _is_leaf(value: Any) -> bool:
    if isinstance(value, dict):
        return not value
    if isinstance(value, list):
        return not value or not any(isinstance(v, (dict, list)) for v in value)
    return True


def iter_leaves(data: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """``(key path, value)`` of every leaf (scalars, scalar lists, empty containers)."""
    if path and _is_leaf(data):
        yield path, data
        return
    items = data.items() if isinstance(data, dict) else enumerate(data)
    for name, value in items:
        yield from iter_leaves(value, path + (name,))


def origin(raw: Any, path: tuple) -> str:
    """Where the value at ``path`` was written (``file:line``), or ``default``.

    ``raw`` is the merged profile data with marks (:attr:`ResolvedProfile.data`); a key path
    that no file spells out comes from the schema's defaults.
    """
    node = raw
    for i, name in enumerate(path):
        marks = getattr(node, "marks", None)
        try:
            child = node[name]
        except (KeyError, IndexError, TypeError):
            return "default"
        if i == len(path) - 1:
            if marks is not None and name in marks:
                f, line, _col = marks[name]
                return display_file(f) if not line else f"{display_file(f)}:{line}"
            return "default"
        node = child
    return "default"


def origins(rp) -> dict[tuple, str]:
    """Origin of every leaf of the effective profile of a :class:`ResolvedProfile`."""
    return {path: origin(rp.data, path) for path, _ in iter_leaves(rp.policy.data)}


def annotated_yaml(data: dict, where: dict[tuple, str] | None = None) -> str:
    """Block-style YAML of ``data``; with ``where``, a ``# origin`` comment after each value."""
    lines: list[str] = []
    _emit_mapping(data, (), 0, lines, where or {}, first_prefix=None)
    return "\n".join(lines) + "\n"


def _comment(where: dict, path: tuple) -> str:
    return f"  # {where[path]}" if path in where else ""


def _emit_mapping(data: dict, path: tuple, indent: int, out: list[str], where: dict,
                  first_prefix: str | None) -> None:
    for n, (name, value) in enumerate(data.items()):
        pad = " " * indent
        if n == 0 and first_prefix is not None:
            pad = first_prefix
        here = path + (name,)
        if _is_leaf(value):
            out.append(f"{pad}{key(name)}: {flow(value)}{_comment(where, here)}")
        elif isinstance(value, dict):
            out.append(f"{pad}{key(name)}:")
            _emit_mapping(value, here, indent + 2, out, where, None)
        else:
            out.append(f"{pad}{key(name)}:")
            _emit_sequence(value, here, indent + 2, out, where)


def _emit_sequence(items: list, path: tuple, indent: int, out: list[str], where: dict) -> None:
    for i, item in enumerate(items):
        here = path + (i,)
        if isinstance(item, dict) and item:
            _emit_mapping(item, here, indent + 2, out, where, first_prefix=" " * indent + "- ")
        else:
            out.append(f"{' ' * indent}- {flow(item)}{_comment(where, here)}")


# --- semantic diff ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """One difference between two profiles.

    Attributes:
        kind: ``added``, ``removed`` or ``changed``.
        path: readable key path, e.g. ``solver.max_size`` or ``rules[word].on.scale``.
        old: value in the first profile (None when added).
        new: value in the second profile (None when removed).
    """

    kind: str
    path: str
    old: Any = None
    new: Any = None

    def render(self) -> str:
        """``~ path: old → new``, ``+ path: new`` or ``- path: old``."""
        if self.kind == "added":
            return f"+ {self.path}: {flow(self.new)}"
        if self.kind == "removed":
            return f"- {self.path}: {flow(self.old)}"
        return f"~ {self.path}: {flow(self.old)} → {flow(self.new)}"


def _keyed(items: list, key_of) -> dict[str, Any]:
    """List → ordered dict by a display key; repeated keys get ``#2``, ``#3``..."""
    out: dict[str, Any] = {}
    for item in items:
        base = str(key_of(item))
        k, n = base, 1
        while k in out:
            n += 1
            k = f"{base}#{n}"
        out[k] = item
    return out


def _rule_key(rule: Any) -> str:
    return (rule.get("name") or rule.get("structure")) if isinstance(rule, dict) else repr(rule)


def _candidate_key(cand: Any) -> str:
    return (cand.get("name") or cand.get("type")) if isinstance(cand, dict) else repr(cand)


def _join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


def _diff(a: Any, b: Any, path: str, out: list[Change]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for name in list(a) + [k for k in b if k not in a]:
            sub = _join(path, name)
            if name not in b:
                out.append(Change("removed", sub, old=a[name]))
            elif name not in a:
                out.append(Change("added", sub, new=b[name]))
            else:
                _diff(a[name], b[name], sub, out)
    elif isinstance(a, list) and isinstance(b, list) and path in ("rules.items", "candidates"):
        key_of = _rule_key if path == "rules.items" else _candidate_key
        name = "rules" if path == "rules.items" else "candidates"
        ka, kb = _keyed(a, key_of), _keyed(b, key_of)
        for k in list(ka) + [k for k in kb if k not in ka]:
            sub = f"{name}[{k}]"
            if k not in kb:
                out.append(Change("removed", sub, old=ka[k]))
            elif k not in ka:
                out.append(Change("added", sub, new=kb[k]))
            else:
                _diff(ka[k], kb[k], sub, out)
        if [k for k in ka if k in kb] != [k for k in kb if k in ka]:
            out.append(Change("changed", f"{name} (order)", [k for k in ka if k in kb], [k for k in kb if k in ka]))
    elif a != b:
        out.append(Change("changed", path, old=a, new=b))


def diff_data(a: dict, b: dict) -> list[Change]:
    """Differences between two canonical profiles (:attr:`Policy.data` dicts)."""
    out: list[Change] = []
    _diff(a, b, "", out)
    return out


def diff_profiles(a, b) -> list[Change]:
    """Differences between two :class:`ResolvedProfile` objects (their effective profiles)."""
    return diff_data(a.policy.data, b.policy.data)


# --- JSON Schema ----------------------------------------------------------------------------------

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _branch(name: str, params, defs: dict, extra: dict | None = None) -> dict:
    """One ``oneOf`` branch: ``type: const name`` plus the component's Params fields."""
    prefix = re.sub(r"\W", "_", name) + "__"
    sub = params.model_json_schema(ref_template="#/$defs/" + prefix + "{model}")
    for key, value in sub.pop("$defs", {}).items():
        defs[prefix + key] = value
    props = {"type": {"const": name, "description": "registered component name"}}
    props.update(extra or {})
    props.update(sub.get("properties", {}))
    branch = {"type": "object", "title": name, "properties": props,
              "required": ["type", *sub.get("required", [])], "additionalProperties": False}
    if sub.get("description"):
        branch["description"] = " ".join(sub["description"].split())
    return branch


def _one_of(registry, defs: dict, base: dict, extra: dict | None = None, also: list | None = None) -> dict:
    """Replace a ``{type: ...}`` component spec by a oneOf over the registered components."""
    branches = []
    for name in registry.names():
        params = getattr(registry.get(name), "Params", None)
        if params is not None and hasattr(params, "model_json_schema"):
            branches.append(_branch(name, params, defs, extra))
    branches += also or []
    return {"description": base.get("description", ""), "oneOf": branches} if branches else base


def _allow_auto_sizes(spec: dict) -> None:
    """The size an ``auto`` candidate takes from the retrieval regime also accepts ``"auto"``."""
    from ..split.ladder import AUTO, AUTO_KEYS

    for branch in spec.get("oneOf", []):
        key = AUTO_KEYS.get(branch.get("title"))
        if key and key in branch["properties"]:
            branch["properties"][key] = {"anyOf": [branch["properties"][key], {
                "const": AUTO, "description": "one candidate per size the retrieval regime implies"}]}


def json_schema(kind: str = "profile") -> dict:
    """JSON Schema (draft 2020-12) of a profile file (``kind="profile"``) or a rule pack
    (``kind="pack"``), with registered detectors, splitters, embedders, coreference backends
    and shapes spelled out so an editor can complete and check every field."""
    from ..components.builtins import ensure_builtins
    from ..components.registry import coref, detectors, embedders, shapes, splitters
    from .schema import Profile, RulePack

    ensure_builtins()
    model = Profile if kind == "profile" else RulePack
    schema = model.model_json_schema()
    defs = schema.setdefault("$defs", {})
    defs["StructureSpec"] = _one_of(detectors, defs, defs["StructureSpec"])
    if "CandidateSpec" in defs:
        name_field = {"name": {"anyOf": [{"type": "string"}, {"type": "null"}],
                               "description": "label of this candidate in reports"}}
        defs["CandidateSpec"] = _one_of(splitters, defs, defs["CandidateSpec"], extra=name_field)
        _allow_auto_sizes(defs["CandidateSpec"])
    if "EmbedderSpec" in defs:
        defs["EmbedderSpec"] = _one_of(embedders, defs, defs["EmbedderSpec"])
    if "CorefSpec" in defs:
        auto = {"type": "object", "title": "auto", "properties": {"type": {"const": "auto"}},
                "required": ["type"], "additionalProperties": False,
                "description": "pick the best available backend"}
        defs["CorefSpec"] = _one_of(coref, defs, defs["CorefSpec"], also=[auto])
    if "ShapeSpec" in defs:
        defs["ShapeSpec"]["properties"]["shape"]["enum"] = shapes.names()
    title = "adachunk profile" if kind == "profile" else "adachunk rule pack"
    return {"$schema": SCHEMA_DIALECT, "title": title, **{k: v for k, v in schema.items() if k != "title"}}
