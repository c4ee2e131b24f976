"""A/B comparison of two profiles on one corpus (``adachunk ab``).

Both profiles run through :func:`~adachunk.runner.run_corpus` into ``OUT/<label_a>`` and
``OUT/<label_b>``; this module then pairs the two runs document by document (by source path)
and writes

* ``OUT/summary.json``: per-metric means of each profile's *winning* chunkings, paired
  differences B − A with a Wilcoxon signed-rank p-value and a bootstrap 95% interval,
  wins/losses/ties on the weighted score, selection frequencies, chunk count and size
  distributions, and the documents whose boundaries differ;
* ``OUT/plots/*.png`` and ``OUT/report.html`` (self-contained, see :mod:`._ab_html`);
* per document and in total, which rules moved which boundaries (:mod:`._ab_moves`), and what
  each profile's hard rules found and repaired in its candidates and winners.

Metric values are reported in percentage points (fractions ×100), like ``adachunk run``.
A CI gate (:mod:`.gate`: :func:`~.gate.parse_metric_condition`, :func:`~.gate.check_metric_gate`)
turns the deltas into an exit code.
"""

from __future__ import annotations

import importlib.util
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ._ab_stats import METRICS, compare_metric, cut_difference, distribution, outcome, to_points
from .gate import MetricCondition, check_metric_gate

_RESERVED = {"plots", "report.html", "summary.json"}


@dataclass
class RunData:
    """What the comparison needs from one ``run_corpus`` output folder.

    Attributes:
        label: short name of the side (its subfolder name).
        profile: the profile as given (name or path).
        out: the run's output folder.
        order: sources in input order.
        decisions: source → decision record (``ok`` false for failed documents).
        chunks: source → ``(core_start, end, tokens)`` of the winner's chunks.
        summary: the run's own ``summary.json``.
    """

    label: str
    profile: str
    out: Path
    order: list[str] = field(default_factory=list)
    decisions: dict[str, dict[str, Any]] = field(default_factory=dict)
    chunks: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)

    def cuts(self, source: str) -> list[int]:
        """Interior cut positions (core starts after the first chunk)."""
        return [c[0] for c in self.chunks.get(source, [])[1:]]

    def winner_values(self, source: str) -> dict[str, float | None]:
        """The winner's metric values and weighted score in percentage points."""
        dec = self.decisions.get(source) or {}
        best = next((c for c in dec.get("candidates", []) if c.get("name") == dec.get("winner")), None)
        if best is None:
            return {k: None for k in METRICS}
        vals = {k: to_points((best.get("scores") or {}).get(k)) for k in METRICS[:-1]}
        vals["score"] = to_points(best.get("score"))
        return vals


def _jsonl(path: Path) -> Iterable[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def load_run(out: str | Path, label: str, profile: str) -> RunData:
    """Read a ``run_corpus`` folder (decisions, winner chunk spans, summary; no chunk texts)."""
    out = Path(out)
    run = RunData(label, profile, out, summary=json.loads((out / "summary.json").read_text(encoding="utf-8")))
    for dec in _jsonl(out / "decisions.jsonl"):
        run.order.append(dec["source"])
        run.decisions[dec["source"]] = dec
    for rec in _jsonl(out / "chunks.jsonl"):
        span = (rec.get("core_start", rec["start"]), rec["end"], rec["tokens"])
        run.chunks.setdefault(rec["source"], []).append(span)
    return run


def document_texts(run: RunData, sources: set[str]) -> dict[str, str]:
    """The text of the given documents, rebuilt from the run's chunks (their core spans tile it)."""
    parts: dict[str, list[str]] = {s: [] for s in sources}
    for rec in _jsonl(run.out / "chunks.jsonl"):
        if rec["source"] in parts:
            parts[rec["source"]].append(rec["text"][rec.get("core_start", rec["start"]) - rec["start"]:])
    return {s: "".join(p) for s, p in parts.items()}


def side_labels(profile_a: str, profile_b: str) -> tuple[str, str]:
    """Folder-safe, distinct labels for the two sides (profile name or file stem)."""
    def clean(p: str) -> str:
        stem = Path(p).stem if p.endswith((".yaml", ".yml")) or "/" in p else p
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("._") or "profile"
        return name + "_" if name in _RESERVED else name

    a, b = clean(profile_a), clean(profile_b)
    if a == b:
        a, b = a + "_A", b + "_B"
    return a, b


def compare(run_a: RunData, run_b: RunData) -> dict[str, Any]:
    """The A/B summary of two runs over the documents both processed successfully."""
    sources = [s for s in run_a.order if _ok(run_a, s) and _ok(run_b, s)]
    per_doc = [_document_row(run_a, run_b, s) for s in sources]
    metrics = {k: compare_metric([r["a"][k] for r in per_doc], [r["b"][k] for r in per_doc]) for k in METRICS}
    outcomes = {k: sum(r["outcome"] == k for r in per_doc) for k in ("b_better", "a_better", "tie", "not_comparable")}
    differing = []
    for r in per_doc:
        if r["differing_cuts"]:
            ca, cb = run_a.cuts(r["source"]), run_b.cuts(r["source"])
            differing.append({"doc_id": r["doc_id"], "source": r["source"], "cuts_a": len(ca), "cuts_b": len(cb),
                              **cut_difference(ca, cb)})
    return {
        "profiles": {side: _side_info(run) for side, run in (("a", run_a), ("b", run_b))},
        "documents": {"total": len(set(run_a.order) | set(run_b.order)), "compared": len(per_doc),
                      "failed_a": sum(not _ok(run_a, s) for s in run_a.order),
                      "failed_b": sum(not _ok(run_b, s) for s in run_b.order)},
        "statistics": {"unit": "percentage points (metric fraction x 100); delta = B - A, paired by document",
                       "test": "two-sided Wilcoxon signed-rank (scipy, zero_method=zsplit, method=auto); "
                               "null below 5 non-zero pairs",
                       "interval": "paired percentile bootstrap of the mean delta, 2000 resamples, fixed seed"},
        "metrics": metrics,
        "outcomes": outcomes,
        "selection_frequency": {side: _selection(run, sources) for side, run in (("a", run_a), ("b", run_b))},
        "chunks": {side: _chunk_stats(run, sources) for side, run in (("a", run_a), ("b", run_b))},
        "hard_rules": {side: hard_rule_stats(run, sources) for side, run in (("a", run_a), ("b", run_b))},
        "boundaries": {"documents_differing": len(differing), "documents": differing},
        "per_document": per_doc,
        "failures": {side: run.summary.get("failures", []) for side, run in (("a", run_a), ("b", run_b))},
    }


def _ok(run: RunData, source: str) -> bool:
    dec = run.decisions.get(source)
    return bool(dec and dec.get("ok") and dec.get("winner"))


def _side_info(run: RunData) -> dict[str, Any]:
    fps = {d.get("profile_fingerprint") for d in run.decisions.values() if d.get("profile_fingerprint")}
    return {"label": run.label, "profile": run.profile, "out": str(run.out),
            "fingerprint": fps.pop() if len(fps) == 1 else sorted(fps)}


def _document_row(run_a: RunData, run_b: RunData, source: str) -> dict[str, Any]:
    va, vb = run_a.winner_values(source), run_b.winner_values(source)
    da, db = run_a.decisions[source], run_b.decisions[source]
    delta = {k: (None if va[k] is None or vb[k] is None else round(vb[k] - va[k], 4)) for k in METRICS}
    diff = cut_difference(run_a.cuts(source), run_b.cuts(source))["differing_cuts"]
    return {"doc_id": da.get("doc_id"), "source": source, "winner_a": da.get("winner"), "winner_b": db.get("winner"),
            "chunks_a": len(run_a.chunks.get(source, [])), "chunks_b": len(run_b.chunks.get(source, [])),
            "same_text": da.get("content_hash") == db.get("content_hash"),
            "a": va, "b": vb, "delta": delta, "outcome": outcome(va["score"], vb["score"]), "differing_cuts": diff}


def _selection(run: RunData, sources: list[str]) -> dict[str, dict[str, float]]:
    """How often each candidate of the profile won, over the compared documents (never-winners at 0)."""
    names: dict[str, int] = {}
    for s in sources:
        for cand in run.decisions[s].get("candidates", []):
            names.setdefault(cand["name"], 0)
    for s in sources:
        winner = run.decisions[s]["winner"]
        names[winner] = names.get(winner, 0) + 1
    n = max(len(sources), 1)
    return {name: {"count": k, "percent": round(100 * k / n, 2)} for name, k in names.items()}


def hard_rule_stats(run: RunData, sources: list[str]) -> dict[str, Any]:
    """What the profile's hard rules did on one side (``adachunk.split.bind``): offending cuts
    found in every candidate, repaired, still there; the same for the winners, by label; and
    the winners that were repaired or still break a rule. Empty counts when the profile declares
    none."""
    cand = {"found": 0, "repaired": 0, "remaining": 0}
    win = {"found": 0, "repaired": 0, "remaining": 0}
    by_label: dict[str, int] = {}
    repaired_winners, breaking_winners = 0, 0
    for s in sources:
        dec = run.decisions[s]
        for c in dec.get("candidates", []):
            rec = c.get("hard_rules") or {}
            for k in cand:
                cand[k] += int(rec.get(k) or 0)
            if c.get("name") == dec.get("winner") and rec:
                for k in win:
                    win[k] += int(rec.get(k) or 0)
                for lab, n in (rec.get("by_label") or {}).items():
                    by_label[lab] = by_label.get(lab, 0) + int(n)
                repaired_winners += bool(rec.get("repaired"))
                breaking_winners += bool(rec.get("remaining"))
    return {"candidates": cand, "winners": win, "winners_by_label": dict(sorted(by_label.items())),
            "winners_repaired": repaired_winners, "winners_breaking": breaking_winners}


def _chunk_stats(run: RunData, sources: list[str]) -> dict[str, Any]:
    tokens = [t for s in sources for (_, _, t) in run.chunks.get(s, [])]
    return {"chunks": len(tokens), "per_document": distribution([len(run.chunks.get(s, [])) for s in sources]),
            "tokens": distribution(tokens)}


# --- the job ---------------------------------------------------------------------------------

@dataclass
class AbResult:
    """What ``run_ab`` did."""

    out: Path
    summary: dict[str, Any]
    runs_ok: bool
    gate: list[dict[str, Any]]

    @property
    def gate_failed(self) -> bool:
        """Whether any ``--fail-if`` condition holds on the A/B summary (non-zero exit)."""
        return any(g["holds"] for g in self.gate)


def run_ab(inputs: Iterable[str], profile_a: str, profile_b: str, out: str | Path, *, workers: int | None = None,
           sink: str = "none", errors: str = "strict", conditions: Iterable[MetricCondition] = (),
           progress: bool | None = None, plots: bool = True) -> AbResult:
    """Run both profiles on the same inputs and write the comparison (see the module docstring).

    Args:
        inputs: files, folders or globs, as for ``run_corpus``.
        profile_a: the baseline profile (builtin name or YAML path).
        profile_b: the candidate profile; deltas are B − A.
        out: output folder; the runs go to ``out/<label>`` (see :func:`side_labels`).
        workers: worker processes of each run.
        sink: vector index of each run (``none`` by default: the comparison does not need it).
        errors: ``strict`` or ``replace`` for invalid UTF-8.
        conditions: ``--fail-if`` conditions evaluated on the deltas.
        progress: force the runs' progress line on/off.
        plots: write and embed the PNG plots.
    """
    from ..analysis.store import default_store
    from ..runner.run import run_corpus

    require_report_extra(plots)  # before the runs: failing after both would waste them
    out = Path(out)
    inputs = list(inputs)
    labels = side_labels(profile_a, profile_b)
    runs, oks = [], []
    # B and the pricing of moved cuts load what A's workers analysed (tokens, shared structures)
    with default_store(out / ".analysis"):
        for label, profile in zip(labels, (profile_a, profile_b)):
            res = run_corpus(inputs, profile, out / label, workers=workers, sink=sink, errors=errors, progress=progress)
            oks.append(res.ok)
            runs.append(load_run(out / label, label, profile))
        summary = write_report(out, runs[0], runs[1], conditions, plots=plots)
    return AbResult(out, summary, all(oks), summary["gate"])


def require_report_extra(plots: bool = True) -> None:
    """Check that scipy (and matplotlib for plots) are importable, without importing them.

    Raises:
        ImportError: naming the missing packages and the ``report`` extra that installs them.
    """
    needed = ["scipy"] + (["matplotlib"] if plots else [])
    missing = [name for name in needed if importlib.util.find_spec(name) is None]
    if missing:
        raise ImportError(f"adachunk ab needs {' and '.join(missing)}: pip install 'adachunk[report]'"
                          + ("" if "scipy" in missing else " (or pass --no-plots)"))


def write_report(out: str | Path, run_a: RunData, run_b: RunData, conditions: Iterable[MetricCondition] = (), *,
                 plots: bool = True, explain: bool = True) -> dict[str, Any]:
    """Compare two loaded runs and write ``summary.json``, the PNG plots and ``report.html`` into ``out``.

    With ``explain``, each document whose boundaries differ is re-read and both profiles'
    rules are priced at the differing cuts, naming the rules that moved them
    (:mod:`._ab_moves`).

    Also usable on its own to re-compare two existing ``adachunk run`` folders
    (``write_report(out, load_run(dir_a, "a", "A"), load_run(dir_b, "b", "B"))``).

    Returns:
        The summary, with the gate results under ``"gate"``.
    """
    from ._ab_html import render_report

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    runs = [run_a, run_b]
    summary = compare(run_a, run_b)
    if explain:
        from ._ab_moves import attribute_moves

        attribute_moves(summary, runs)
    summary["gate"] = check_metric_gate(summary, conditions)
    images: dict[str, Path] = {}
    if plots:
        from ._ab_plots import write_plots

        images = write_plots(out / "plots", summary, runs)
    wanted = {d["source"] for d in summary["boundaries"]["documents"]}
    texts = document_texts(runs[0], wanted) if wanted else {}
    (out / "summary.json").write_text(json.dumps(summary, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    html_text = render_report(summary, runs, texts, images)
    (out / "report.html").write_text(html_text, encoding="utf-8", errors="replace", newline="\n")
    return summary
