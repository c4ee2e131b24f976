"""The search space of ``adachunk tune``: parse it, check every name against the resolved profile.

A space comes from the profile's ``tune.space`` section or from ``--param KEY=LOW:HIGH`` on
the command line (which then replaces the profile's space). Keys:

* ``rules.<rule name>``: a multiplier of that rule's scales (``on`` and ``off`` together),
  searched log-uniformly in ``[low, high]``; the tuned scale is ``round(scale × multiplier)``.
* ``solver.<max_size|min_size|target_size|chunk_cost>``: an integer range for the solver
  section (it reaches the DP candidates that do not set the value themselves).
* ``candidates.<dp candidate>.<same keys>``: an integer range for that candidate's own override.
* ``weights.<sc|bi|rc|icc|dcc>``: a weight range (QA objective only; renormalised to sum 1).

Every problem is an ``ADA215`` :class:`~adachunk.errors.ProfileError` with its key path
(``tune.space.rules.hedding``), the allowed names and a did-you-mean hint.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Iterable

from pydantic import ValidationError

from ..errors import Location, ProfileError, ProfileErrors, did_you_mean
from ..profile.loader import validation_errors
from ..profile.schema import TuneSpaceSpec
from ..profile.yamlmarks import mark_at

CLI = "<command line>"


@dataclass(frozen=True)
class Param:
    """One searched value.

    Attributes:
        key: dotted name, also the Optuna parameter name (``rules.heading``).
        kind: ``rule``, ``solver``, ``candidate`` or ``weight``.
        low: lowest value (included).
        high: highest value (included).
        base: the base profile's value (1.0 for a rule multiplier).
        log: searched log-uniformly.
        integer: an integer parameter.
    """

    key: str
    kind: str
    low: float
    high: float
    base: float | None
    log: bool = False
    integer: bool = False

    @property
    def name(self) -> str:
        """The rule, solver field, candidate or metric named (a candidate name may hold dots)."""
        return split_key(self.key)[1]

    @property
    def field(self) -> str | None:
        """The size field of a ``candidates.`` key (None otherwise)."""
        return split_key(self.key)[2]


def split_key(key: str) -> tuple[str, str, str | None]:
    """``candidates.dp.v1.max_size`` → ``('candidates', 'dp.v1', 'max_size')``;
    ``rules.heading`` → ``('rules', 'heading', None)``."""
    kind, _, rest = key.partition(".")
    if kind == "candidates":
        name, _, field = rest.rpartition(".")
        return kind, name, field
    return kind, rest, None


@dataclass(frozen=True)
class Space:
    """A checked search space and what it tunes.

    Attributes:
        params: the searched values, in a stable order.
        target: ``pool``, ``solver`` or a ``dp.v1`` candidate name: what is chunked and scored.
    """

    params: tuple[Param, ...]
    target: str

    def signature(self) -> str:
        """Hash of the space (for ``ADA317``: a study belongs to one space)."""
        data = {"target": self.target, "params": [p.__dict__ for p in self.params]}
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]

    def base_params(self) -> dict[str, float]:
        """The base profile as a point of the space (clipped into each range), or None values
        where the base has no value (e.g. no target_size)."""
        out = {}
        for p in self.params:
            if p.base is None:
                continue
            v = min(max(p.base, p.low), p.high)
            out[p.key] = int(round(v)) if p.integer else float(v)
        return out

    @property
    def tunes_weights(self) -> bool:
        """Whether the space searches metric weights (the summary then reports their spread)."""
        return any(p.kind == "weight" for p in self.params)


def parse_cli(items: Iterable[str]) -> dict[str, Any]:
    """``KEY=LOW:HIGH`` strings → the nested mapping of ``tune.space`` (checked later).

    Raises:
        ProfileError: ``ADA215`` for an item that is not ``KEY=LOW:HIGH`` with numbers.
    """
    out: dict[str, Any] = {}
    for item in items:
        key, sep, rng = item.partition("=")
        lo, sep2, hi = rng.partition(":")
        kind, name, fld = split_key(key.strip())
        parts = [p for p in (kind, name, fld) if p is not None]
        try:
            values = [_number(lo), _number(hi)]
        except ValueError:
            values = None
        if not sep or not sep2 or values is None or len(parts) < 2 or not all(parts):
            raise ProfileError(code="ADA215", message=f"--param '{item}' is not KEY=LOW:HIGH",
                               location=Location(CLI), key_path="tune.space",
                               hint="e.g. --param rules.heading=0.5:2 --param candidates.dp_1100.max_size=800:1400")
        node = out
        for p in parts[:-1]:
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise ProfileError(code="ADA215", message=f"--param '{item}' conflicts with another --param",
                                   location=Location(CLI), key_path="tune.space." + key)
        node[parts[-1]] = values
    return out


def _number(text: str) -> float | int:
    text = text.strip()
    return int(text) if text.lstrip("-").isdigit() else float(text)


def _err(message: str, path: tuple, data: Any, origin: str, **kw: Any) -> ProfileError:
    """ADA215 located at ``tune.space.<path>`` in the profile (or on the command line)."""
    full = ("tune", "space") + path if path[:1] != ("tune",) else path
    loc = Location(CLI)
    if origin != CLI:
        mark = mark_at(data, full) or mark_at(data, full[:-1]) if data is not None else None
        loc = Location(*mark) if mark else Location(origin)
    return ProfileError(code="ADA215", message=message, location=loc, key_path=".".join(map(str, full)), **kw)


def validate_space(raw: Any, origin: str, data: Any = None) -> TuneSpaceSpec:
    """The raw ``tune.space`` mapping validated by the schema (ADA215 on any problem)."""
    try:
        return TuneSpaceSpec.model_validate(raw or {})
    except ValidationError as exc:
        errs = validation_errors(exc, raw or {}, TuneSpaceSpec)
        out = []
        for e in errs:
            path = tuple(e.key_path.split(".")) if e.key_path else ()
            out.append(_err(e.message, path, data, origin, allowed=e.allowed, hint=e.hint))
        raise ProfileErrors(out) from None


def _dp_candidates(policy) -> dict[str, dict]:
    return {name: params for type_name, params, name in policy.candidates if type_name == "dp.v1"}


def default_target(policy, spec: TuneSpaceSpec) -> str:
    """The first dp.v1 candidate (``solver`` when the pool has none); ``pool`` when weights or
    several candidates are tuned."""
    dps = _dp_candidates(policy)
    if spec.weights or len([c for c, v in spec.candidates.items() if v]) > 1:
        return "pool"
    if len(spec.candidates) == 1:
        return next(iter(spec.candidates))
    return next(iter(dps), "solver")


def build_space(rp, spec: TuneSpaceSpec, *, target: str | None, objective: str, origin: str) -> Space:
    """Check ``spec`` against the resolved profile ``rp`` and list its parameters.

    Args:
        rp: the resolved base profile.
        spec: the validated space.
        target: what is tuned (None: :func:`default_target`).
        objective: ``intrinsic``, ``qa`` or ``both`` (weights need a QA part).
        origin: the profile file, or :data:`CLI` when the space came from ``--param``.

    Raises:
        ProfileErrors: every ``ADA215`` problem found.
    """
    policy, data = rp.policy, (rp.data if origin == CLI else _file_data(origin))
    if spec.is_empty():
        raise ProfileErrors([_err("the tune search space is empty: nothing to search", (), data, origin,
                                  hint="add tune.space to the profile (e.g. rules: {heading: [0.5, 2]}) "
                                  "or pass --param rules.heading=0.5:2")])
    dps = _dp_candidates(policy)
    target = target or default_target(policy, spec)
    found = _Problems(data, origin)
    _check_target(found, target, dps)
    params = [*_rule_params(found, policy, spec), *_solver_params(found, policy, spec, target, dps),
              *_candidate_params(found, policy, spec, target, dps),
              *_weight_params(found, policy, spec, target, objective)]
    if found.errors:
        raise ProfileErrors(found.errors)
    return Space(tuple(params), target)


class _Problems:
    """The ``ADA215`` problems found while checking a space, located in its profile (or on the
    command line): every one is collected, so that one run reports them all."""

    def __init__(self, data: Any, origin: str):
        self.data, self.origin = data, origin
        self.errors: list[ProfileError] = []

    def add(self, message: str, path: tuple, **kw: Any) -> None:
        """Record the problem ``message`` at ``tune.space.<path>`` (``kw``: as :class:`ProfileError`)."""
        self.errors.append(_err(message, path, self.data, self.origin, **kw))


def _check_target(found: _Problems, target: str, dps: dict[str, dict]) -> None:
    """The tuned target must be a dp.v1 candidate, ``solver`` or ``pool``."""
    allowed_targets = ["pool", "solver", *dps]
    if target not in allowed_targets:
        found.add(f"tune target '{target}' is not a dp.v1 candidate, 'solver' or 'pool'", ("tune", "target"),
                  allowed=allowed_targets, hint=did_you_mean(target, allowed_targets))


def _rule_params(found: _Problems, policy, spec: TuneSpaceSpec) -> list[Param]:
    """The rule multipliers: each names a rule of the profile that has a shape to scale."""
    rules = {r.name: r for r in policy.rules}
    params: list[Param] = []
    for name, (lo, hi) in spec.rules.items():
        if name not in rules:
            found.add(f"no rule named '{name}' in profile {policy.name}", ("rules", name),
                      allowed=sorted(rules), hint=did_you_mean(name, rules))
        elif rules[name].on is None and rules[name].off is None:
            found.add(f"rule '{name}' has no shape to scale", ("rules", name))
        else:
            params.append(Param(f"rules.{name}", "rule", float(lo), float(hi), 1.0, log=True))
    return params


def _solver_params(found: _Problems, policy, spec: TuneSpaceSpec, target: str,
                   dps: dict[str, dict]) -> list[Param]:
    """The solver-section ranges: each must reach a tuned candidate that does not set the value
    itself (any value does with target ``solver``)."""
    affected = _solver_reach(policy, target, dps)
    params: list[Param] = []
    for key, (lo, hi) in spec.solver.items():
        reach = [c for c in affected if dps.get(c, {}).get(key) is None]
        if not reach and target != "solver":
            found.add(f"solver.{key} does not reach the tuned candidates ({', '.join(affected) or target}): "
                      "each sets its own value", ("solver", key),
                      hint=f"tune candidates.{affected[0]}.{key} instead" if affected else None)
            continue
        params.append(Param(f"solver.{key}", "solver", lo, hi, _base(getattr(policy.solver, key)), integer=True))
    return params


def _candidate_params(found: _Problems, policy, spec: TuneSpaceSpec, target: str,
                      dps: dict[str, dict]) -> list[Param]:
    """The per-candidate ranges: each names a dp.v1 candidate that is the target (or any, with
    target ``pool``); the base is the candidate's own value, else the solver section's."""
    params: list[Param] = []
    for cand, sizes in spec.candidates.items():
        if cand not in dps:
            found.add(f"no dp.v1 candidate named '{cand}' in profile {policy.name}", ("candidates", cand),
                      allowed=sorted(dps), hint=did_you_mean(cand, dps))
            continue
        if target not in ("pool", cand):
            found.add(f"candidate '{cand}' is not the tuned target '{target}'", ("candidates", cand),
                      hint="set tune.target (or --target) to this candidate or to 'pool'")
            continue
        for key, (lo, hi) in sizes.items():
            base = dps[cand].get(key)
            base = getattr(policy.solver, key) if base is None else base
            params.append(Param(f"candidates.{cand}.{key}", "candidate", lo, hi, _base(base), integer=True))
    return params


def _weight_params(found: _Problems, policy, spec: TuneSpaceSpec, target: str, objective: str) -> list[Param]:
    """The metric weight ranges: only against a QA set, and only with target ``pool``."""
    if not spec.weights:
        return []
    if objective == "intrinsic":
        found.add("metric weights can be tuned only against a QA set (--objective qa or both): the "
                  "intrinsic score would only reward its own weights", ("weights",))
    elif target != "pool":
        found.add(f"metric weights change only which candidate wins: the target must be 'pool', not "
                  f"'{target}'", ("weights",))
    weights = policy.metrics.weights
    return [Param(f"weights.{key}", "weight", float(lo), float(hi), float(weights.get(key, 0.0)))
            for key, (lo, hi) in spec.weights.items()]


def _file_data(origin: str) -> Any:
    """The marked data of the file that holds the space (for error locations)."""
    from ..profile.yamlmarks import load_yaml_file

    try:
        return load_yaml_file(origin)
    except ProfileError:
        return None


def _base(value: Any) -> float | None:
    return None if value is None else value


def _solver_reach(policy, target: str, dps: dict[str, dict]) -> list[str]:
    """Names of the DP candidates a solver-section change can reach under ``target``."""
    if target == "pool":
        return list(dps)
    if target in dps:
        return [target]
    return []


def profile_space(profile: str) -> tuple[Any, str]:
    """The ``tune.space`` of ``profile``: the one of the nearest file of its ``extends`` chain that
    has one. Unlike other sections, a space is not merged with its base's: it names the
    profile's own rules and candidates, which a child may have renamed or replaced."""
    from ..profile.loader import load_raw
    from ..profile.yamlmarks import load_yaml_file

    _, chain = load_raw(profile)
    for path in reversed(chain):
        raw = load_yaml_file(path)
        tune = raw.get("tune") if isinstance(raw, dict) else None
        if isinstance(tune, dict) and tune.get("space") is not None:
            return raw, str(path)
    return None, str(chain[-1])


def space_from(rp, cli_params: list[str] | None, *, target: str | None, objective: str,
               profile: str | None = None) -> Space:
    """The checked space: ``--param`` items when given, else the profile's ``tune.space``
    (see :func:`profile_space`; ``profile`` is the name or path ``rp`` was loaded from)."""
    data = None
    if cli_params:
        raw, origin = parse_cli(cli_params), CLI
    else:
        data, origin = profile_space(profile or rp.name)
        raw = data["tune"]["space"] if data is not None else None
    spec = validate_space(raw, origin, data)
    return build_space(rp, spec, target=target or rp.profile.tune.target, objective=objective, origin=origin)
