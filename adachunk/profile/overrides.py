"""Command-line size flags over a profile (``--max-size``, ``--min-size``, ...; issue 49).

A flag replaces a profile value, everywhere the profile uses it, or is refused: never accepted
and ignored.

* The **solver** (``adachunk chunk``, ``explain``: the DP alone) takes every flag as its own
  value. A ``--max-size`` below the profile's ``min_size`` lowers ``min_size`` to a quarter of
  the size (as the pool's ``auto`` candidates do) and says so; ``--min-size`` larger than
  ``--max-size``, or than the profile's ``max_size``, is ``ADA211`` naming the flags.
* The **pool** (``adachunk run``, ``score``, ``ab``): ``--max-size N`` is the largest candidate.
  A ``max_size: auto`` ladder steps down from N instead of the regime's top (N, N/sqrt(2), ...:
  ``retrieval.sizes`` of them); a candidate with a fixed larger size (``dp.v1`` ``max_size``,
  ``recursive.v1`` ``chunk_size``) is cut to N, and post-processing never re-splits above or
  merges past N. ``--min-size M`` is every DP candidate's ``min_size`` (at most its size);
  ``--target-size T`` every DP candidate's target (at most its size).

:func:`reconcile` checks the solver flags against the profile before validation;
:func:`pool_overrides` says what the pool's expansion takes; :class:`Replaced` lines are what the
CLI prints as one ``ADA407`` notice.
"""

from __future__ import annotations

from typing import Any

from ..errors import Location, ProfileError
from .yamlmarks import mark_at

#: solver key -> the command-line flag that sets it
FLAGS = {"max_size": "--max-size", "min_size": "--min-size", "granularity": "--granularity",
         "tokenizer": "--tokenizer", "overlap": "--overlap", "chunk_cost": "--chunk-cost",
         "target_size": "--target-size"}
#: where an error or notice about the flags points
COMMAND_LINE = "<command line>"
#: the solver schema's defaults (adachunk.policy_types.SolverSpec) for keys a profile omits
_DEFAULTS = {"min_size": 0, "max_size": 512, "overlap": 0, "target_size": None}


def _where(data: Any, key: str) -> str:
    mark = mark_at(data, ("solver", key))
    if not mark or mark[0] == "<override>":
        return "the profile"
    return f"{mark[0]}:{mark[1]}"


def _profile_value(data: Any, key: str) -> Any:
    solver = data.get("solver") if isinstance(data, dict) else None
    if isinstance(solver, dict) and key in solver:
        return solver[key]
    return _DEFAULTS.get(key)


def reconcile(data: Any, overrides: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The solver overrides to apply, and what they changed beyond the flags themselves.

    Args:
        data: the profile's merged raw data (with source marks), before the overrides.
        overrides: solver key -> flag value (None: not given).

    Returns:
        ``(overrides, notes)``: ``min_size`` added where ``--max-size`` alone is below the
        profile's; each note one sentence.

    Raises:
        ProfileError: ``ADA211`` naming the flags (and the profile value, with its file and line)
            when the sizes they leave cannot hold together.
    """
    given = {k: v for k, v in overrides.items() if v is not None}
    if not given.keys() & {"max_size", "min_size", "overlap", "target_size"}:
        return given, []
    value = {k: given.get(k, _profile_value(data, k)) for k in ("max_size", "min_size", "overlap", "target_size")}
    notes = []

    def name(key: str) -> str:
        if key in given:
            return f"{FLAGS[key]} {given[key]}"
        return f"the profile's {key} ({value[key]}, {_where(data, key)})"

    def refuse(message: str, hint: str) -> ProfileError:
        return ProfileError(code="ADA211", message=message, location=Location(COMMAND_LINE), hint=hint)

    lo, hi = value["min_size"], value["max_size"]
    if isinstance(lo, int) and isinstance(hi, int) and lo > hi:
        if "min_size" not in given:
            lowered = max(0, hi // 4)
            notes.append(f"--max-size {hi} is below the profile's min_size ({lo}, {_where(data, 'min_size')}): "
                         f"min_size lowered to {lowered}")
            given["min_size"] = value["min_size"] = lowered
        else:
            raise refuse(f"{name('min_size')} is larger than {name('max_size')}",
                         "Give a smaller --min-size" + ("" if "max_size" in given else " or a --max-size at least as large"))
    lo, t = value["min_size"], value["target_size"]
    if isinstance(t, int) and isinstance(lo, int) and isinstance(hi, int) and not lo <= t <= hi:
        raise refuse(f"{name('target_size')} must lie between min_size ({lo}) and max_size ({hi})",
                     "Give a --target-size between them, or --min-size/--max-size around it")
    ov = value["overlap"]
    if isinstance(ov, int) and isinstance(hi, int) and ov >= hi and given.keys() & {"overlap", "max_size"}:
        raise refuse(f"{name('overlap')} must be smaller than {name('max_size')}", "Give a smaller --overlap")
    return given, notes


def pool_sizes(data: Any, overrides: dict[str, Any], ladder: list[int] | None,
               steps: int) -> tuple[list[int] | None, dict[str, int], list[str]]:
    """What ``--max-size``, ``--min-size`` and ``--target-size`` do to the pool (module docstring).

    Args:
        data: the profile's merged raw data (for where the replaced values are written).
        overrides: the reconciled solver overrides (:func:`reconcile`).
        ladder: the ``auto`` sizes the retrieval regime gives (None: no ``auto`` candidate).
        steps: ``retrieval.sizes``.

    Returns:
        ``(ladder, sizes, notes)``: the ladder to expand ``auto`` candidates with; the sizes every
        candidate takes (``max_size``: a cap, ``min_size``, ``target_size``); one sentence per
        profile value replaced.
    """
    from ..split.ladder import ladder_from

    sizes = {k: overrides[k] for k in ("max_size", "min_size", "target_size") if overrides.get(k) is not None}
    notes = []
    cands = data.get("candidates") if isinstance(data, dict) else None
    where = ""
    if isinstance(cands, list) and cands:
        mark = mark_at(data, ("candidates",))
        where = f" ({mark[0]}:{mark[1]})" if mark and mark[0] != "<override>" else ""
    if "max_size" in sizes:
        n = sizes["max_size"]
        if ladder:
            new = ladder_from(n, steps)
            notes.append(f"--max-size {n} replaced the pool's max_size: auto{where}: sizes "
                         f"{', '.join(map(str, ladder))} -> {', '.join(map(str, new))}")
            ladder = new
        else:
            notes.append(f"--max-size {n} caps every candidate's size{where}")
        notes.append(f"post-processing re-splits and merges within {n} tokens")
    if "min_size" in sizes:
        notes.append(f"--min-size {sizes['min_size']} replaced each DP candidate's min_size (at most its size)")
    if "target_size" in sizes:
        notes.append(f"--target-size {sizes['target_size']} is each DP candidate's target (at most its size)")
    return ladder, sizes, notes


def sized_candidate(cand: dict, sizes: dict[str, int]) -> dict:
    """A concrete candidate spec with the pool's flag sizes applied (:func:`pool_sizes`)."""
    if not sizes:
        return cand
    out = dict(cand)
    cap = sizes.get("max_size")
    if out.get("type") == "recursive.v1" and cap is not None and isinstance(out.get("chunk_size"), int):
        out["chunk_size"] = min(out["chunk_size"], cap)
    if out.get("type") != "dp.v1":
        return out
    top = out.get("max_size")
    if cap is not None:
        top = min(top, cap) if isinstance(top, int) else cap
        out["max_size"] = top
    if "min_size" in sizes:
        out["min_size"] = min(sizes["min_size"], top) if isinstance(top, int) else sizes["min_size"]
    elif isinstance(top, int) and isinstance(out.get("min_size"), int) and out["min_size"] > top:
        out["min_size"] = top // 4
    if "target_size" in sizes:
        t = min(sizes["target_size"], top) if isinstance(top, int) else sizes["target_size"]
        lo = out.get("min_size")
        out["target_size"] = max(t, lo) if isinstance(lo, int) else t
    return out


def cap_postprocess(data: Any, max_size: int | None) -> Any:
    """The profile data with post-processing kept within ``--max-size`` (a re-split above it,
    a merge past it, would undo the flag)."""
    if max_size is None or not isinstance(data, dict):
        return data
    pp = data.get("postprocess") if isinstance(data.get("postprocess"), dict) else {}
    current = {"max_tokens": pp.get("max_tokens", 1100), "merge_max_tokens": pp.get("merge_max_tokens", 1150),
               "min_tokens": pp.get("min_tokens", 100)}
    patch = {k: max_size for k, v in current.items() if isinstance(v, int) and v > max_size}
    return _overridden(data, ("postprocess",), patch) if patch else data


def cap_grow(data: Any, max_size: int | None) -> Any:
    """The profile data with ``solver.grow`` kept within ``--max-size``: a size given on the
    command line (or as an API override) is a promise no chunk breaks, a grown table's included."""
    if max_size is None or not isinstance(data, dict) or not isinstance(data.get("solver"), dict):
        return data
    grow = data["solver"].get("grow")
    if not isinstance(grow, dict) or not any(isinstance(v, int) and v > max_size for v in grow.values()):
        return data
    patch = {k: min(v, max_size) if isinstance(v, int) else v for k, v in grow.items()}
    return _overridden(data, ("solver", "grow"), patch)


def _overridden(data: Any, path: tuple[str, ...], patch: dict[str, Any]) -> Any:
    """``data`` with ``patch`` merged in at ``path``, its values marked as the command line's
    (``<override>``: what ``profile show --origins`` and error locations report)."""
    from .loader import deep_merge
    from .yamlmarks import MarkedDict

    node = MarkedDict(patch)
    node.here = ("<override>", 0, 0)
    node.marks = {k: ("<override>", 0, 0) for k in patch}
    for key in reversed(path[1:]):
        node = MarkedDict({key: node})
    return deep_merge(data, MarkedDict({path[0]: node}))
