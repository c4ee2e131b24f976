"""The readable text tables of ``adachunk eval`` (stdout): chunkings side by side per retriever."""

from __future__ import annotations

from typing import Any


def _f(v: Any, fmt: str = ".3f") -> str:
    return "-" if v is None else format(v, fmt)


def _ci(ci: Any) -> str:
    return "-" if ci is None else f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"


def format_report(report: dict[str, Any]) -> str:
    """All tables of a report: measures, deltas against the first chunking, selection."""
    s = report["settings"]
    ks = s["ks"]
    qa = report["qa"]
    budgets = [f"coverage@{b}tok" for b in s.get("budgets") or ()]
    lines = [f"{qa['questions']} questions on {qa['documents']} documents ({report['documents']['count']} indexed); "
             f"scope {s['scope']}; budget {s['budget'] or 'none'}; bootstrap {s['bootstrap']} (seed {s['seed']})"
             + (f"; tokens {s['tokenizer']}" if s.get("tokenizer") else "")
             + (f"; long chunks {s['long_text']}" if s.get("long_text") else "")]
    chunk_info = {c["label"]: c for c in report["chunkings"]}
    width = max([9] + [len(lab) for lab in chunk_info])
    for ret, by_label in report["results"].items():
        lines += ["", f"retriever {ret}"]
        cols = ([f"recall@{k}" for k in ks] + ["mrr"] + [f"coverage@{k}" for k in ks]
                + [f"precision@{ks[-1]}", f"iou@{ks[-1]}"] + budgets + [f"tokens@{ks[-1]}"])
        head = f"{'chunking':<{width}} {'chunks':>6} {'tok/ch':>7} " + " ".join(f"{c:>{max(6, len(c))}}" for c in cols)
        lines += [head, "-" * len(head)]
        for label, summ in by_label.items():
            cells = []
            for c in cols:
                fmt = ".0f" if c.startswith("tokens") else ".3f"
                cells.append(f"{_f(summ.get(c), fmt):>{max(6, len(c))}}")
            lines.append(f"{label:<{width}} {summ['chunks']:>6} {_f(summ['chunk_tokens'], '.0f'):>7} " + " ".join(cells))
        lines += _delta_lines(report["comparisons"][ret], ks, width, s.get("bootstrap_unit", "question"), budgets)
        lines += _selection_lines(report["comparisons"][ret].get("selection"), s["primary"], width)
    return "\n".join(lines)


def _delta_lines(comp: dict[str, Any], ks: list[int], width: int, unit: str = "question",
                 budgets: list[str] = ()) -> list[str]:
    """One row per measure, one column per chunking: mean paired delta and its 95% CI."""
    if not comp["deltas"]:
        return []
    shown = [f"recall@{k}" for k in ks] + ["mrr"] + [f"coverage@{k}" for k in ks] + list(budgets)
    labels = list(comp["deltas"])
    col = max([28] + [len(lab) for lab in labels])
    out = [f"paired delta vs {comp['baseline']} (mean over questions, 95% bootstrap CI resampling {unit}s):",
           f"  {'measure':<16}" + "".join(f" {lab:<{col}}" for lab in labels)]
    for m in shown:
        cells = []
        for lab in labels:
            d = comp["deltas"][lab][m]
            cells.append("-" if d["delta"] is None else f"{d['delta']:+.3f} {_ci(d['ci95'])}")
        out.append(f"  {m:<16}" + "".join(f" {c:<{col}}" for c in cells))
    return out


def _selection_lines(sel: dict[str, Any] | None, measure: str, width: int) -> list[str]:
    if not sel:
        return []
    out = [f"selection on {measure} (leader {sel['leader']}, {sel['n']} questions):",
           f"  {'chunking':<{width}} {'mean':>6} {'P(best)':>7} {'delta':>7}  {'95% CI':<18} {'+questions':>10}  verdict"]
    for o in sel["options"]:
        more = "-" if o["more_questions"] is None else str(o["more_questions"])
        verdict = "leader" if o["why"] == "leader" else ("ruled out: " + o["why"] if o["ruled_out"] else "not ruled out")
        out.append(f"  {o['label']:<{width}} {_f(o['mean']):>6} {_f(o['p_best']):>7} {_f(o['delta_vs_leader'], '+.3f'):>7}"
                   f"  {_ci(o['ci95']):<18} {more:>10}  {verdict}")
    return out
