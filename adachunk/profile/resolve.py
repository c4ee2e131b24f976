"""Turn a validated profile into an executable :class:`~adachunk.policy.Policy`.

Checks what the schema alone cannot: component ``type`` names exist in their registries and
their own fields are valid, rules name known structures and shapes, patterns and grammars
compile. All problems are collected and raised together as :class:`ProfileErrors`.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..datafiles import data_dir
from ..components.build import component_params, errors_of, located
from ..components.builtins import ensure_builtins
from ..cost.lattice import CostRule
from ..cost.punishments import make_shape
from ..errors import AdachunkError, ProfileError, ProfileErrors, did_you_mean
from ..policy import Policy
from ..components.registry import detectors, embedders, shapes, splitters, tokenizers
from ..split.ladder import expand, is_auto
from . import confine, overrides as flag_sizes, regime
from .limits import component_limit_errors, remote_llm_warnings
from .loader import deep_merge, load_pack, load_raw, validate_profile
from .schema import Profile
from .yamlmarks import MarkedDict, MarkedList, mark_at, plain


@dataclass
class ResolvedProfile:
    """A loaded profile: the validated model, the executable policy and provenance.

    Attributes:
        profile: the validated profile with rule packs merged in.
        policy: what the engine runs.
        files: every file that shaped it (profile chain, rule packs, grammars).
        data: merged raw data with source marks (for ``profile show --origins``).
        warnings: rendered lines about legal but risky settings (a remote LLM endpoint), shown
            by ``adachunk profile check``.
        flag_notes: what the command-line size flags replaced beyond the solver's own values:
            ``solver`` (a ``min_size`` lowered to fit ``--max-size``) and ``pool`` (the
            candidates' sizes, post-processing); :mod:`adachunk.profile.overrides`.
    """

    profile: Profile
    policy: Policy
    files: list[Path] = field(default_factory=list)
    data: Any = None
    warnings: list[str] = field(default_factory=list)
    flag_notes: dict[str, list[str]] = field(default_factory=dict)

    @property
    def fingerprint(self) -> str:
        """The policy's fingerprint: what cache keys and output records name this profile by."""
        return self.policy.fingerprint

    @property
    def name(self) -> str:
        """The ``name`` the profile declares (what reports and records call it)."""
        return self.profile.name


def _located(err: AdachunkError, data: Any, path: tuple) -> AdachunkError:
    return located(err, path, lambda key: mark_at(data, key))


def _component(registry, spec: dict, data: Any, path: tuple, errors: list, reserved: tuple[str, ...]):
    """Validate one ``{type: ..., **fields}`` spec; return (class, params) or None."""
    try:
        cls, params = component_params(registry, spec, path, reserved=reserved,
                                       locate=lambda key: mark_at(data, key))
    except ProfileError as exc:
        errors.extend(errors_of(exc))
        return None
    if getattr(cls, "Params", None) is None:
        return cls, params
    # hard caps on limits a profile could otherwise lift (a component's own le= may be missing)
    capped = [_located(e, data, path + (key,)) for key, e in component_limit_errors(params)]
    if capped:
        errors.extend(capped)
        return None
    return cls, params


def _apply_overrides(data: MarkedDict, overrides: dict[str, Any]) -> MarkedDict:
    overrides = {k: v for k, v in overrides.items() if v is not None}
    if not overrides:
        return data
    patch = MarkedDict({"solver": MarkedDict(overrides)})
    patch["solver"].here = ("<override>", 0, 0)
    patch["solver"].marks = {k: ("<override>", 0, 0) for k in overrides}
    return deep_merge(data, patch)


def _merge_packs(data: MarkedDict, near: Path, errors: list) -> tuple[MarkedDict, list[Path]]:
    """Fold the included rule packs into ``structures`` and ``rules.items`` (profile wins)."""
    rules = data.get("rules") or {}
    includes = rules.get("include") or [] if isinstance(rules, dict) else []
    if not includes or not isinstance(includes, list):  # a non-list is reported by the schema
        return data, []
    pack_structs, pack_items, files = MarkedDict(), MarkedList(), []
    for i, name in enumerate(includes):
        try:
            _pack, raw, path = load_pack(str(name), near)
        except ProfileError as exc:
            errors.extend(getattr(exc, "errors", [exc]) if isinstance(exc, ProfileErrors) else [_located(exc, data, ("rules", "include", i))])
            continue
        files.append(path)
        pack_structs = deep_merge(pack_structs, raw.get("structures") or MarkedDict())
        pack_items = deep_merge(pack_items, raw.get("rules") or MarkedList(), ("rules", "items"))
    base = MarkedDict({"structures": pack_structs, "rules": MarkedDict({"items": pack_items})})
    return deep_merge(base, data), files


def resolve(name_or_path: str | Path, **overrides: Any) -> ResolvedProfile:
    """Load, merge, validate and build a profile (raises :class:`ProfileErrors` with every error)."""
    ensure_builtins()
    data, files = load_raw(name_or_path)
    flags = {k: v for k, v in overrides.items() if v is not None}  # as given on the command line
    try:
        overrides, solver_notes = flag_sizes.reconcile(data, overrides)  # ADA211 naming the flags
    except ProfileError as exc:
        raise ProfileErrors([exc]) from None
    data = flag_sizes.cap_postprocess(_apply_overrides(data, overrides), flags.get("max_size"))
    data = flag_sizes.cap_grow(data, flags.get("max_size"))
    errors: list[AdachunkError] = []
    # packs are looked up beside the profile first, except for shipped profiles: `include: [legal]`
    # in profiles/legal.yaml must find rules/legal.yaml, not the profile itself
    near = files[-1].parent
    data, pack_files = _merge_packs(data, None if near == data_dir("profiles").resolve() else near, errors)
    profile = None
    try:
        profile = validate_profile(data)
    except ProfileErrors as exc:
        errors.extend(exc.errors)  # keep going: report component problems in the same pass
    profile_dirs = list(dict.fromkeys([files[-1].parent] + [f.parent for f in files]))
    base_dirs = tuple(dict.fromkeys(profile_dirs + confine.search_paths()))
    built, extra_files = _build_detectors(data, base_dirs, errors)
    ladder = regime.check(profile, data, errors)
    ladder, sizes, pool_notes = flag_sizes.pool_sizes(
        data, flags, ladder, profile.retrieval.sizes if profile is not None else 1)
    candidates = _check_candidates(data, errors, files[-1].parent, ladder, sizes)
    model_paths = _check_embedders(data, files[-1].parent, errors)
    coref_paths = _check_coref_paths(data, files[-1].parent, errors)
    rules = _build_rules(profile, data, errors) if profile is not None else []
    if profile is not None:
        _check_hard_rules(profile, data, errors)
    if profile is not None and profile.solver.tokenizer not in tokenizers:
        names = tokenizers.names()
        errors.append(_located(ProfileError(code="ADA205", message=f"unknown tokenizer '{profile.solver.tokenizer}'",
                                            allowed=names, hint=did_you_mean(profile.solver.tokenizer, names)),
                               data, ("solver", "tokenizer")))
    if errors or profile is None:
        raise ProfileErrors(errors)
    fp = fingerprint(profile, pack_files + extra_files, ladder)
    sections = {"metrics": profile.metrics, "index": profile.index, "retrieval": profile.retrieval}
    for (section, key, name), where in model_paths.items():  # model folders, confined and made absolute
        spec = getattr(sections[section], key)
        if spec is not None and not isinstance(spec, str):  # not 'index', 'exact' or 'bm25'
            sections[section] = sections[section].updated(**{key: {**spec.model_dump(), name: str(where)}})
    if coref_paths:
        coref = sections["metrics"].coref
        sections["metrics"] = sections["metrics"].updated(
            coref={**coref.model_dump(), **{k: str(v) for k, v in coref_paths.items()}})
    # the schema's validated sections are the policy's (frozen: no stage can change them)
    policy = Policy(
        name=profile.name, fingerprint=fp, detectors=built, rules=tuple(rules), solver=profile.solver,
        candidates=tuple(candidates), postprocess=profile.postprocess,
        metrics=sections["metrics"], select=profile.select,
        index=sections["index"], retrieval=sections["retrieval"], hard_rules=profile.hard_rules,
        data=canonical(profile),
    )
    return ResolvedProfile(profile=profile, policy=policy, files=files + pack_files + extra_files, data=data,
                           warnings=remote_llm_warnings(data), flag_notes={"solver": solver_notes, "pool": pool_notes})


def _build_detectors(data: Any, base_dirs: tuple, errors: list) -> tuple[dict[str, Any], list[Path]]:
    """Validate and construct every structure's detector (label → instance)."""
    built: dict[str, Any] = {}
    extra: set[Path] = set()
    structures = data.get("structures") if isinstance(data, dict) else None
    for label, spec in (structures or {}).items() if isinstance(structures, dict) else []:
        if not isinstance(spec, dict) or "type" not in spec:
            continue  # the schema pass already reported it
        got = _component(detectors, spec, data, ("structures", label), errors, ("type",))
        if got is None:
            continue
        cls, params = got
        outside = _grammar_outside(params, base_dirs, data, ("structures", label))
        if outside is not None:
            errors.append(outside)
            continue
        try:
            det = cls(params, name=label, base_dirs=base_dirs)
        except ProfileError as exc:
            errors.append(_located(exc, data, ("structures", label)))
            continue
        built[label] = det
        # files a detector reads (a grammar) are part of the fingerprint
        files = getattr(det, "source_files", None) or ([det.path] if isinstance(getattr(det, "path", None), Path) else [])
        extra.update(Path(p) for p in files)
    return built, sorted(extra)


def _grammar_outside(params: Any, base_dirs: tuple, data: Any, path: tuple) -> AdachunkError | None:
    """``ADA220`` when the grammar file a structure names resolves outside the allowed folders.

    The file is found exactly as the detector will find it (so the check sees the same file),
    and checked before the detector opens it: ``grammar: /etc/shadow`` is never read.
    """
    name = getattr(params, "grammar", None)
    if not isinstance(name, str):
        return None
    from ..detect.grammar import resolve_grammar

    try:
        found = resolve_grammar(name, base_dirs)
    except ProfileError:
        return None  # not found at all: the detector reports ADA210 with the files that exist
    if confine.is_inside(found, confine.read_roots(base_dirs)):
        return None
    return _located(confine.outside_error("grammar file", found, confine.read_roots(base_dirs)), data,
                    path + ("grammar",))


def _folder_of(data: Any, path: tuple, default: Path) -> Path:
    """The folder of the profile file that wrote the key at ``path`` (relative paths start there)."""
    mark = mark_at(data, path)
    if mark and mark[0] not in ("<input>", "<override>") and Path(mark[0]).is_file():
        return Path(mark[0]).resolve().parent
    return default


def _confine_cache_dir(params: dict, data: Any, path: tuple, default_dir: Path, errors: list) -> None:
    """Confine a candidate's ``cache_dir`` (a folder written to) and make it absolute, in place."""
    value = params.get("cache_dir")
    if not isinstance(value, str):
        return
    key = path + ("cache_dir",)
    base = _folder_of(data, key, default_dir)
    try:
        params["cache_dir"] = str(confine.place(value, base, confine.write_roots([base]), "cache folder"))
    except ProfileError as exc:
        errors.append(_located(exc, data, key))


def _is_path_like(value: str) -> bool:
    """A model written as a filesystem path (not a registry name such as ``org/model``)."""
    return value.startswith(("/", "~", ".")) or ".." in Path(value).parts


def _check_embedders(data: Any, default_dir: Path, errors: list) -> dict[tuple[str, str, str], Path]:
    """Validate the embedder specs (registered type, its params) without loading any model.

    Returns:
        (section, key, field) → the confined, absolute model folder that a ``path`` (model2vec)
        or a path-like ``model`` (sentence-transformers) names.
    """
    out: dict[tuple[str, str, str], Path] = {}
    for path in (("metrics", "embedder"), ("index", "embedder"), ("retrieval", "embedder"),
                 ("retrieval", "estimate")):
        node = data
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            continue
        _component(embedders, {"type": "sentence_transformers.v1", **node}, data, path, errors, ("type",))
        for name in ("path", "model"):
            value = node.get(name)
            if not isinstance(value, str) or (name == "model" and not _is_path_like(value)):
                continue
            key = path + (name,)
            base = _folder_of(data, key, default_dir)
            if not (base / os.path.expanduser(value)).exists():
                continue  # nothing would be read: the embedder reports ADA213 (model not found)
            # a model folder is read; `adachunk models distill` writes into the user cache
            roots = [*confine.read_roots([base]), confine.user_cache_dir()]
            try:
                out[(*path, name)] = confine.place(value, base, roots, "model folder")
            except ProfileError as exc:
                errors.append(_located(exc, data, key))
    return out


def _check_coref_paths(data: Any, default_dir: Path, errors: list) -> dict[str, Path]:
    """Confine the files a coreference backend reads on the profile's behalf (Maverick's
    ``model_path``, a path-like ``encoder`` or ``spacy_model``), as the embedders' model folders are.

    Returns:
        field → the confined, absolute path (fields naming nothing that exists are left to the
        backend, which reports ``ADA214`` when it is used).
    """
    node = data.get("metrics") if isinstance(data, dict) else None
    node = node.get("coref") if isinstance(node, dict) else None
    out: dict[str, Path] = {}
    if not isinstance(node, dict):
        return out
    for name in ("model_path", "encoder", "spacy_model"):
        value = node.get(name)
        if not isinstance(value, str) or (name != "model_path" and not _is_path_like(value)):
            continue
        key = ("metrics", "coref", name)
        base = _folder_of(data, key, default_dir)
        if not (base / os.path.expanduser(value)).exists():
            continue
        roots = [*confine.read_roots([base]), confine.user_cache_dir()]
        try:
            out[name] = confine.place(value, base, roots, "coreference model")
        except ProfileError as exc:
            errors.append(_located(exc, data, key))
    return out


def _check_candidates(data: Any, errors: list, default_dir: Path,
                      ladder: list[int] | None = None, sizes: dict[str, int] | None = None) -> list[tuple[str, dict, str]]:
    """Validate the candidate pool against the splitter registry and each splitter's Params; an
    ``auto`` candidate becomes one candidate per size of the regime's ``ladder``
    (:mod:`adachunk.split.ladder`; skipped when the regime is invalid: its errors are reported).
    ``sizes``: the command line's size flags every candidate takes (:mod:`.overrides`)."""
    out = []
    cands = data.get("candidates") if isinstance(data, dict) else None
    if cands is None:
        cands = [{"type": "dp.v1"}]
    for i, cand in enumerate(cands if isinstance(cands, list) else []):
        if not isinstance(cand, dict) or "type" not in cand:
            continue
        if is_auto(cand):
            auto = dict(cand, min_size=sizes["min_size"]) if sizes and "min_size" in sizes and \
                cand.get("type") == "dp.v1" else dict(cand)
            concrete = list(expand(auto, ladder)) if ladder else []
        else:
            concrete = [cand]
        concrete = [flag_sizes.sized_candidate(one, sizes or {}) for one in concrete]
        for one in concrete:
            got = _component(splitters, one, data, ("candidates", i), errors, ("type", "name"))
            if got is not None:
                params = got[1].model_dump() if hasattr(got[1], "model_dump") else dict(got[1])
                _confine_cache_dir(params, data, ("candidates", i), default_dir, errors)
                out.append((one["type"], params, one.get("name") or one["type"]))
    return out


def _build_rules(profile: Profile, data: Any, errors: list) -> list[CostRule]:
    out = []
    labels = list(profile.structures)
    for i, rule in enumerate(profile.rules.items):
        path = ("rules", "items", i)
        if rule.structure not in profile.structures:
            errors.append(_located(ProfileError(
                code="ADA206", message=f"rule refers to unknown structure '{rule.structure}'",
                allowed=labels, hint=did_you_mean(rule.structure, labels)), data, path + ("structure",)))
            continue
        sides = {}
        for side in ("on", "off"):
            spec = getattr(rule, side)
            if spec is None:
                sides[side] = None
                continue
            if spec.shape not in shapes:
                errors.append(_located(ProfileError(
                    code="ADA205", message=f"unknown shape '{spec.shape}'", allowed=shapes.names(),
                    hint=did_you_mean(spec.shape, shapes.names())), data, path + (side, "shape")))
                sides[side] = None
                continue
            sides[side] = make_shape(spec.shape, spec.scale, spec.width)
        out.append(CostRule(name=rule.name or rule.structure, label=rule.structure, on=sides["on"], off=sides["off"]))
    return out


def _check_hard_rules(profile: Profile, data: Any, errors: list) -> None:
    """Every label of ``hard_rules`` names one of the profile's structures (``ADA206``)."""
    labels = list(profile.structures)
    for key in ("keep_with_next", "atomic"):
        for i, label in enumerate(getattr(profile.hard_rules, key)):
            if label not in profile.structures:
                errors.append(_located(ProfileError(
                    code="ADA206", message=f"hard rule refers to unknown structure '{label}'",
                    allowed=labels, hint=did_you_mean(label, labels)), data, ("hard_rules", key, i)))


def canonical(profile: Profile) -> dict:
    """The resolved profile as plain JSON-able data (packs merged; ``extends`` dropped; a
    ``hard_rules`` section that declares nothing dropped, so that a profile without one keeps
    the fingerprint, and the chunk ids, it had before the section existed; so is
    ``retrieval.exact_margin`` at its default 0 and ``retrieval.sample`` at its default 1)."""
    d = profile.model_dump(mode="json")
    d.pop("extends", None)
    if not profile.hard_rules.active() and profile.hard_rules.enforce == "repair":
        d.pop("hard_rules", None)
    if not d.get("retrieval", {}).get("exact_margin", 1):
        d["retrieval"].pop("exact_margin")
    if d.get("retrieval", {}).get("sample", 0) == 1:
        d["retrieval"].pop("sample")
    d["rules"] = {"include": [], "items": d["rules"]["items"]}
    return d


def fingerprint(profile: Profile, files: list[Path], ladder: list[int] | None = None) -> str:
    """sha256 over the canonical profile, the sizes its ``auto`` candidates took (they come from
    the embedder's files) and the bytes of every referenced rule/grammar file."""
    h = hashlib.sha256()
    h.update(json.dumps(canonical(profile), sort_keys=True, separators=(",", ":")).encode())
    if ladder:
        h.update(b"\x00auto sizes\x00" + json.dumps(list(ladder)).encode())
    for f in files:
        h.update(b"\x00" + Path(f).name.encode() + b"\x00")
        h.update(hashlib.sha256(Path(f).read_bytes()).digest())
    return h.hexdigest()


def load_profile(name_or_path: str | Path = "default", **overrides: Any) -> ResolvedProfile:
    """Public entry point: a builtin profile name or a YAML path, with solver overrides."""
    return resolve(name_or_path, **overrides)


__all__ = ["ResolvedProfile", "load_profile", "resolve", "fingerprint", "canonical", "plain"]
