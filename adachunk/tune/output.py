"""Write what a tune found: ``tuned.yaml``, the held-out A/B report, the trials and the plot.

* ``tuned.yaml``: a profile that ``extends:`` the base (by name for a builtin profile, by a path
  relative to the output folder otherwise; a comment then says to list the base's folder in
  ``ADACHUNK_PROFILE_PATH``, since a profile may not reach outside its folder) and lists only
  what changed; each change carries a
  comment with its measured effect alone (base + that change, all documents). Rules are
  restated whole under ``rules.items`` (items merge by name, so the tuned rule replaces the
  base's); candidates are restated as a list (lists are replaced whole), the changed one
  marked; weights are written whole (a partial mapping would leave the others at 0).
  Nothing in it depends on time, so the same seed gives the same bytes.
* ``ab.json`` and ``report.md``: per fold, the base and the tuned point on the held-out
  documents (per-document paired deltas), pooled over all folds (each document is held out
  once) with a bootstrap 95% interval, and the verdict.
* ``trials.json`` (every trial of every fold) and ``plots/search.png``.
"""

from __future__ import annotations

import json
import os
import random
import statistics
from pathlib import Path
from typing import Any

from ..datafiles import data_dir
from ..profile.confine import SEARCH_PATH_ENV
from ..profile.tooling import flow
from .objective import scaled, weights_of
from .space import Space, split_key
from .study import TuneResult

PP = 100.0  # scores are fractions; reports speak percentage points


def _pp(delta: float) -> str:
    return f"{delta * PP:+.3f} pp"


def _num(v: float) -> int | float:
    return int(v) if float(v).is_integer() else round(float(v), 6)


def extends_ref(profile_arg: str, rp, out: Path) -> str:
    """How ``tuned.yaml`` names its base: the builtin name, else a path relative to ``out``."""
    builtin = data_dir("profiles").resolve() / f"{profile_arg}.yaml"
    if "/" not in profile_arg and "\\" not in profile_arg and builtin.is_file() and not Path(profile_arg).is_file():
        return profile_arg
    path = Path(profile_arg) if Path(profile_arg).is_file() else Path(profile_arg + ".yaml")
    return Path(os.path.relpath(path.resolve(), out.resolve())).as_posix()


def _effect(res: TuneResult, key: str, objective: str) -> str:
    """``+0.120 pp weighted score`` : what the change adds to the tuned profile on all documents
    (the tuned score minus the score without this one change)."""
    without, tuned = res.effects.get(key), res.final_all
    if without is None or tuned is None:
        return "effect not measured"
    text = f"{_pp(tuned.intrinsic - without.intrinsic)} weighted score"
    if objective != "intrinsic" and tuned.qa is not None and without.qa is not None:
        text += f", {_pp(tuned.qa - without.qa)} QA"
    return text + f" vs without it ({len(tuned.docs)} docs)"


def _plain(value: Any) -> Any:
    """Integral floats as ints, recursively (``width: 300`` rather than ``300.0``)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return _num(value) if isinstance(value, float) else value


def tuned_yaml(res: TuneResult, rp, space: Space, profile_arg: str, *, objective: str, qa_measure: str) -> str:
    """The text of ``tuned.yaml`` (see the module docstring)."""
    lines = _header_lines(res, rp, space, objective, qa_measure)
    ref = extends_ref(profile_arg, rp, res.out)
    if ref != profile_arg or "/" in ref:  # a base file: profiles may not reach outside their folder
        lines.append(f"# The base lies outside this folder: load this profile with {SEARCH_PATH_ENV}="
                     f"{Path(res.out, ref).resolve().parent} set (profiles are confined: docs/profiles.md, \"Security\").")
    lines += ["schema_version: 1", f"name: {rp.name}-tuned", f"extends: {flow(ref)}",
              f"description: {flow(f'{rp.name} tuned by adachunk tune ({objective})')}"]
    for section, section_lines in (("rules", _rule_lines), ("solver", _solver_lines),
                                   ("candidates", _candidate_lines), ("weights", _weight_lines)):
        keys = [k for k in res.final_point if k.startswith(section + ".")]
        if keys:  # a section is written only where the tuned point changes it
            lines += section_lines(res, rp, keys, objective)
    return "\n".join(lines) + "\n"


def _header_lines(res: TuneResult, rp, space: Space, objective: str, qa_measure: str) -> list[str]:
    """The comments that open ``tuned.yaml``: how it was tuned, the held-out result, and what
    the values below are."""
    cv = pooled(res)
    lines = [f"# Tuned by `adachunk tune` from profile {rp.name}: target {space.target}, objective {objective}"
             + (f" ({qa_measure})" if objective != "intrinsic" else "") + f", {len(res.folds)} folds, "
             f"seed {res.signature['seed']}, {sum(f.trials for f in res.folds)} trials.",
             f"# Held-out folds (each document scored by the point tuned without it): base {cv['base']:.5f}, "
             f"tuned {cv['tuned']:.5f} ({_pp(cv['delta'])}; {cv['unit']} better {cv['better']}, worse {cv['worse']}, "
             f"tie {cv['tie']}).",
             ]
    if res.final_all is not None and res.base_all is not None:
        lines.append(f"# These values: the fold winner best on all {len(res.base_all.docs)} documents, less the "
                     f"changes that did not help there: {res.final_all.value:.5f} vs base {res.base_all.value:.5f} "
                     "(in-sample). Each comment: what that change adds to this profile.")
    else:
        lines.append("# Nothing is changed: the held-out folds show no gain over the base profile (or no fold "
                     "winner beats it on all documents).")
    return lines


def _rule_lines(res: TuneResult, rp, rule_keys: list[str], objective: str) -> list[str]:
    """``rules.items``: each tuned rule (``rule_keys``) restated whole with its scales multiplied."""
    final = res.final_point
    lines = ["rules:", "  items:"]
    specs = {r.name or r.structure: r for r in rp.profile.rules.items}
    for key in rule_keys:
        name = key.split(".", 1)[1]
        spec = specs[name].model_dump(exclude_none=True)
        spec["name"] = name
        moved = []
        for side in ("on", "off"):
            if side in spec:
                old = spec[side]["scale"]
                spec[side]["scale"] = _num(scaled(old, final[key]))
                moved.append(f"{side} {_num(old)} -> {spec[side]['scale']}")
        lines.append(f"    # {name}: scales x{final[key]:.3g} ({', '.join(moved)}): {_effect(res, key, objective)}")
        lines.append(f"    - {flow(_plain({'name': spec.pop('name'), **spec}))}")
    return lines


def _solver_lines(res: TuneResult, rp, solver_keys: list[str], objective: str) -> list[str]:
    """The tuned ``solver`` fields (``solver_keys``), each with the base's value."""
    final, base = res.final_point, rp.policy
    lines = ["solver:"]
    for key in solver_keys:
        field = key.split(".", 1)[1]
        lines.append(f"  {field}: {int(final[key])}  # was {getattr(base.solver, field)}: {_effect(res, key, objective)}")
    return lines


def _candidate_lines(res: TuneResult, rp, cand_keys: list[str], objective: str) -> list[str]:
    """``candidates``: the base's list restated whole, the tuned fields (``cand_keys``) changed."""
    final, base = res.final_point, rp.policy
    lines = ["candidates:  # restated whole: a child's list replaces the base's"]
    for spec in rp.profile.candidates:
        d = spec.model_dump(exclude_none=True)
        mine = [k for k in cand_keys if split_key(k)[1] == (spec.name or spec.type)]
        notes = []
        for key in mine:
            field = split_key(key)[2]
            notes.append(f"{field} {d.get(field, getattr(base.solver, field))} -> {int(final[key])} "
                         f"({_effect(res, key, objective)})")
            d[field] = int(final[key])
        ordered = {k: d.pop(k) for k in ("type", "name") if k in d} | d
        lines.append(f"  - {flow(_plain(ordered))}" + (f"  # {'; '.join(notes)}" if notes else ""))
    return lines


def _weight_lines(res: TuneResult, rp, weight_keys: list[str], objective: str) -> list[str]:
    """``metrics.weights`` written whole, with their spread over the fold winners (``weight_keys``:
    the tuned ones, each commented with its effect)."""
    final, base = res.final_point, rp.policy
    w = weights_of(final, base.metrics.weights)
    spread = weight_spread(res, base.metrics.weights)
    return ["metrics:", "  # weights fitted to the QA set, written whole (renormalised to sum 1); spread over "
            "the fold winners: " + ", ".join(f"{k} {s['mean']:.2f}±{s['std']:.2f}" for k, s in spread.items()),
            f"  weights: {flow({k: _num(v) for k, v in w.items()})}",
            "  # " + "; ".join(f"{k.split('.')[1]}: {_effect(res, k, objective)}" for k in weight_keys)]


def weight_spread(res: TuneResult, base_weights: dict[str, float]) -> dict[str, dict[str, float]]:
    """Mean, standard deviation, min and max of each normalised weight over the fold winners
    (the uncertainty of fitted weights)."""
    ws = [weights_of(f.best_point, base_weights) for f in res.folds if f.best_point]
    out = {}
    for k in (ws[0] if ws else {}):
        vals = [w[k] for w in ws]
        out[k] = {"mean": round(statistics.fmean(vals), 4), "std": round(statistics.pstdev(vals), 4),
                  "min": round(min(vals), 4), "max": round(max(vals), 4)}
    return out


def _per_doc(fold) -> list[dict[str, Any]]:
    rows = []
    for d in fold.held_out:
        b, t = fold.base.docs[d].score, fold.tuned.docs[d].score
        rows.append({"doc": d, "base": round(b, 6), "tuned": round(t, 6), "delta": round(t - b, 6),
                     "base_chunks": fold.base.docs[d].chunks, "tuned_chunks": fold.tuned.docs[d].chunks})
    return rows


def _paired(deltas: list[float], seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    boots = sorted(statistics.fmean(rng.choices(deltas, k=len(deltas))) for _ in range(2000))
    return {"better": sum(d > 1e-9 for d in deltas), "worse": sum(d < -1e-9 for d in deltas),
            "tie": sum(abs(d) <= 1e-9 for d in deltas), "ci95": [round(boots[49], 6), round(boots[1949], 6)]}


def pooled(res: TuneResult, seed: int = 0) -> dict[str, Any]:
    """Held-out results pooled over the folds (each document is held out once).

    ``base``/``tuned``/``delta``/``beats_base`` are the objective, the mean of the folds'
    held-out values weighted by their document counts (for the intrinsic objective: the mean over
    documents). The paired counts and the bootstrap 95% CI of the mean delta are per document
    for the intrinsic objective (``unit: documents``); a QA measure is a mean over a fold's
    questions, not a sum over documents, so for ``qa``/``both`` they are per fold
    (``unit: folds``) and the per-document intrinsic comparison is given under ``intrinsic``.
    """
    folds = [f for f in res.folds if f.tuned is not None]
    n = sum(len(f.held_out) for f in folds)
    if not n:
        return {"documents": 0, "base": 0.0, "tuned": 0.0, "delta": 0.0, "better": 0, "worse": 0, "tie": 0,
                "ci95": None, "unit": "documents", "beats_base": False}
    base = sum(f.base.value * len(f.held_out) for f in folds) / n
    tuned = sum(f.tuned.value * len(f.held_out) for f in folds) / n
    rows = [r for f in folds for r in _per_doc(f)]
    per_doc = _paired([r["delta"] for r in rows], seed)
    intrinsic = {"base": round(statistics.fmean(r["base"] for r in rows), 6),
                 "tuned": round(statistics.fmean(r["tuned"] for r in rows), 6), **per_doc}
    qa_objective = any(f.tuned.qa is not None for f in folds) and res.signature.get("objective") != "intrinsic"
    counts = _paired([f.tuned.value - f.base.value for f in folds], seed) if qa_objective else per_doc
    out = {"documents": n, "base": round(base, 6), "tuned": round(tuned, 6), "delta": round(tuned - base, 6),
           **counts, "unit": "folds" if qa_objective else "documents", "beats_base": tuned > base}
    if qa_objective:
        out["intrinsic"] = intrinsic
    return out


def ab_summary(res: TuneResult, space: Space, *, objective: str, base_weights: dict[str, float]) -> dict[str, Any]:
    """The held-out A/B comparison as JSON-able data (``ab.json``)."""
    folds = []
    for f in res.folds:
        row: dict[str, Any] = {"fold": f.index, "held_out": f.held_out, "train_documents": len(f.train),
                               "trials": f.trials, "best_point": f.best_point, "train_best": f.best_value,
                               "train_base": f.base_train, "importances": f.importances}
        if f.tuned is not None:
            row["held_out_base"] = f.base.value
            row["held_out_tuned"] = f.tuned.value
            row["delta"] = round(f.tuned.value - f.base.value, 6)
            row["held_out_intrinsic"] = {"base": f.base.intrinsic, "tuned": f.tuned.intrinsic}
            if f.tuned.qa is not None:
                row["held_out_qa"] = {"base": f.base.qa, "tuned": f.tuned.qa}
            row["documents"] = _per_doc(f)
        folds.append(row)
    out = {"signature": res.signature, "objective": objective, "target": space.target,
           "space": [p.__dict__ for p in space.params], "interrupted": res.interrupted, "folds": folds,
           "held_out": pooled(res), "final": {"point": res.final_point,
                                              "all_documents": res.final_all.value if res.final_all else None,
                                              "base_all_documents": res.base_all.value if res.base_all else None,
                                              "contributions": {k: round(res.final_all.value - v.value, 6)
                                                                for k, v in res.effects.items()}}}
    if space.tunes_weights:
        out["weights_spread"] = weight_spread(res, base_weights)
    return out


def report_md(summary: dict[str, Any], rp_name: str) -> str:
    """A short Markdown A/B report of the held-out folds."""
    h = summary["held_out"]
    verdict = "beats" if h["beats_base"] else "does NOT beat"
    ci = "-" if h["ci95"] is None else f"[{h['ci95'][0] * PP:+.3f}, {h['ci95'][1] * PP:+.3f}] pp"
    lines = [f"# adachunk tune: {rp_name}, held-out A/B", "",
             f"**Tuned {verdict} base on the held-out folds**: objective {summary['objective']} "
             f"{h['tuned']:.5f} vs {h['base']:.5f} ({_pp(h['delta'])}, bootstrap 95% CI over {h['unit']} {ci}) over "
             f"{h['documents']} documents, each scored by the point tuned without it; "
             f"{h['unit']} better {h['better']}, worse {h['worse']}, tie {h['tie']}."
             + (" Interrupted: results from the trials finished so far." if summary["interrupted"] else ""), "",
             "| fold | held-out docs | trials | train base | train best | held-out base | held-out tuned | delta |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for f in summary["folds"]:
        if "held_out_tuned" not in f:
            lines.append(f"| {f['fold']} | {len(f['held_out'])} | {f['trials']} | - | - | - | - | not tuned |")
            continue
        lines.append(f"| {f['fold']} | {len(f['held_out'])} | {f['trials']} | {f['train_base']:.5f} | "
                     f"{f['train_best']:.5f} | {f['held_out_base']:.5f} | {f['held_out_tuned']:.5f} | "
                     f"{_pp(f['delta'])} |")
    fin = summary["final"]
    lines += ["", f"Final values (`tuned.yaml`): {json.dumps(fin['point'], sort_keys=True)}; all documents "
              f"{fin['all_documents'] if fin['all_documents'] is not None else '-'} vs base "
              f"{fin['base_all_documents']} (in-sample).", "",
              "Per-document paired deltas are in `ab.json`; rerun the whole pool on any corpus with "
              "`adachunk ab --profile BASE --profile OUT/tuned.yaml CORPUS...`."]
    return "\n".join(lines) + "\n"


def write_outputs(res: TuneResult, rp, space: Space, profile_arg: str, *, objective: str, qa_measure: str,
                  plots: bool = True) -> dict[str, Path]:
    """Write ``tuned.yaml``, ``ab.json``, ``report.md``, ``trials.json`` and the plot into ``res.out``."""
    out = res.out
    files = {"tuned": out / "tuned.yaml", "ab": out / "ab.json", "report": out / "report.md",
             "trials": out / "trials.json"}
    files["tuned"].write_text(tuned_yaml(res, rp, space, profile_arg, objective=objective, qa_measure=qa_measure),
                              encoding="utf-8", newline="\n")
    summary = ab_summary(res, space, objective=objective, base_weights=rp.policy.metrics.weights)
    files["ab"].write_text(json.dumps(summary, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    files["report"].write_text(report_md(summary, rp.name), encoding="utf-8", newline="\n")
    files["trials"].write_text(json.dumps([{"fold": f.index, "trials": f.history} for f in res.folds], indent=1)
                               + "\n", encoding="utf-8")
    if plots:
        png = plot_search(res, out / "plots" / "search.png")
        if png is not None:
            files["plot"] = png
    return files


def plot_search(res: TuneResult, path: Path) -> Path | None:
    """Objective per trial (each fold, with its running best) and mean parameter importances;
    None when matplotlib is missing (the ``report`` extra)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for f in res.folds:
        xs = [t["number"] for t in f.history]
        ys = [t["value"] for t in f.history]
        if not xs:
            continue
        line = ax1.plot(xs, ys, ".", alpha=0.5, label=f"fold {f.index}")[0]
        best = [max(ys[: i + 1]) for i in range(len(ys))]
        ax1.plot(xs, best, "-", color=line.get_color())
        if f.base_train is not None:
            ax1.axhline(f.base_train, color=line.get_color(), lw=0.6, ls=":")
    ax1.set_xlabel("trial")
    ax1.set_ylabel("objective (training documents)")
    ax1.set_title("objective per trial (line: best so far; dotted: base)")
    ax1.legend(fontsize=7)
    keys = sorted({k for f in res.folds for k in f.importances})
    means = [statistics.fmean(f.importances.get(k, 0.0) for f in res.folds if f.importances) for k in keys] if keys else []
    ax2.barh(keys, means)
    ax2.set_xlabel("importance (PED-ANOVA, mean over folds)")
    ax2.set_title("parameter importances")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
