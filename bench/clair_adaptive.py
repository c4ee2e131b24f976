"""The adaptive run on CLAIR beside the paper: selection frequencies and the Adaptive row of Table 3.

Reads the output folder of ``adachunk run`` on the 33 CLAIR documents (``decisions.jsonl``) and
prints, in Markdown:

* per candidate of the pool: mean RC/ICC/DCC/BI/SC and the weighted mean, and how often it won;
* the ``adaptive`` row (the winners' scores) next to the paper's (``paper_reference.json``);
* with ``--subset a,b,c``: the adaptive row again, choosing only among those candidates, from the
  same run's scores (how much a candidate such as ``dp`` adds to the paper's pool).

Means follow the paper (§7.4 of paper-spec): over the documents where a metric is not None (RC
is None for documents without coreference pairs). A candidate that fell back (``llm_regex``
without an endpoint) is listed with its status and never wins (``select.exclude_fallbacks``).

Usage::

    adachunk run CLAIR_DIR --profile paper --out OUT     # OUT/decisions.jsonl
    python bench/clair_adaptive.py OUT [--subset our_recurs_1100,our_recurs_600,page] [--dp-check]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adachunk.selection.choose import choose  # noqa: E402

REFERENCE = ROOT.parent / "shared" / "corpus" / "clair" / "paper_reference.json"
KEYS = ("rc", "icc", "dcc", "bi", "sc")
# the paper's candidate names for ours (default.yaml calls them recursive_1100, ...)
PAPER_NAME = {"recursive_1100": "our_recurs_1100", "recursive_600": "our_recurs_600"}


def _mean(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return 100 * statistics.fmean(vals) if vals else None


def _fmt(v: float | None) -> str:
    return "–" if v is None else f"{v:.1f}"


def _row(name: str, rows: list[dict], wins: str, paper: dict | None) -> str:
    means = [_mean([r.get(k) for r in rows]) for k in KEYS]
    known = [m for m in means if m is not None]
    cells = [_fmt(m) for m in means] + [_fmt(statistics.fmean(known) if known else None), wins]
    if paper:
        cells += [" / ".join(_fmt(paper.get(k.upper())) for k in KEYS)]
    else:
        cells += [""]
    return f"| {name} | " + " | ".join(cells) + " |"


def winners(decisions: list[dict], subset: set[str] | None) -> list[dict | None]:
    """Each document's winning candidate record, choosing among ``subset`` (None: as recorded)."""
    out = []
    for d in decisions:
        cands = d["candidates"]
        if subset is None:
            out.append(next((c for c in cands if c["name"] == d["winner"]), None))
            continue
        pool = [c for c in cands if c["name"] in subset]
        i = choose([SimpleNamespace(status=c["status"], score=c["score"]) for c in pool], {})
        out.append(None if i is None else pool[i])
    return out


def table(decisions: list[dict], reference: dict, subset: set[str] | None) -> str:
    """The Markdown table for one run."""
    paper3 = reference.get("table3", {})
    paper_freq = reference.get("selection_frequency", {})
    names = [c["name"] for c in decisions[0]["candidates"]]
    won = Counter(w["name"] for w in winners(decisions, None) if w)
    n = len(decisions)
    lines = ["| candidate | RC | ICC | DCC | BI | SC | mean | won (paper) | paper RC/ICC/DCC/BI/SC |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name in names:
        recs = [c for d in decisions for c in d["candidates"] if c["name"] == name]
        status = Counter(c["status"] for c in recs)
        pname = PAPER_NAME.get(name, name)
        freq = paper_freq.get(pname)
        wins = f"{100 * won[name] / n:.0f}% ({'–' if freq is None else f'{100 * freq:.0f}%'})"
        label = name if status.get("ok", 0) == len(recs) else f"{name} ({dict(status)})"
        lines.append(_row(label, [c["scores"] for c in recs], wins, paper3.get(pname)))
    best = [w for w in winners(decisions, None) if w]
    lines.append(_row("**adaptive**", [w["scores"] for w in best], f"{len(best)}/{n} docs", paper3.get("adaptive")))
    if subset:
        sub = [w for w in winners(decisions, subset) if w]
        label = "adaptive over " + ", ".join(sorted(subset))
        lines.append(_row(label, [w["scores"] for w in sub], f"{len(sub)}/{n} docs", paper3.get("adaptive")))
    return "\n".join(lines)


def _means(decisions: list[dict], name: str) -> dict[str, float | None]:
    """Mean of each metric (points) of one candidate over the documents where it is not None."""
    recs = [c["scores"] for d in decisions for c in d["candidates"] if c["name"] == name]
    return {k: _mean([r.get(k) for r in recs]) for k in KEYS}


def dp_check(decisions: list[dict], subset: set[str] | None) -> list[str]:
    """The DP-led pool's acceptance lines: the best DP candidate against page and the paper's
    recursive 1100 splitter, how often a DP candidate wins, and the adaptive mean against the
    paper pool re-selected from the same run (``subset``)."""
    types = {c["name"]: c["type"] for d in decisions for c in d["candidates"]}
    dps = [n for n, t in types.items() if t == "dp.v1"]
    if not dps:
        return ["no dp.v1 candidate in this run"]
    scored = {n: _means(decisions, n) for n in dps}
    best = max(dps, key=lambda n: statistics.fmean(v for v in scored[n].values() if v is not None))
    dp, out = scored[best], [f"best DP candidate: {best}"]

    def line(ok: bool, text: str) -> None:
        out.append(f"{'PASS' if ok else 'FAIL'}  {text}")

    for base in ("page", "recursive_1100"):
        if base in types:
            b = _means(decisions, base)
            line(dp["bi"] >= b["bi"], f"BI {dp['bi']:.3f} >= {base} {b['bi']:.3f}")
    if "recursive_1100" in types:
        r = _means(decisions, "recursive_1100")
        line(dp["rc"] >= r["rc"], f"RC {dp['rc']:.3f} >= recursive_1100 {r['rc']:.3f}")
        for k in ("icc", "dcc"):
            line(dp[k] >= r[k] - 1.0, f"{k.upper()} {dp[k]:.3f} within 1 point of recursive_1100 {r[k]:.3f}")
    line(dp["sc"] >= 99.9, f"SC {dp['sc']:.3f} >= 99.9")
    won = sum(1 for w in winners(decisions, None) if w and types.get(w["name"]) == "dp.v1")
    line(won >= 0.6 * len(decisions), f"DP candidates win {won}/{len(decisions)} documents (>= 60%)")
    if subset:
        def adaptive_mean(sub):
            rows = [w["scores"] for w in winners(decisions, sub) if w]
            return statistics.fmean(m for m in (_mean([r.get(k) for r in rows]) for k in KEYS) if m is not None)
        a, p = adaptive_mean(None), adaptive_mean(subset)
        line(a > p, f"adaptive mean {a:.3f} > paper pool re-selected {p:.3f}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="the run's output folder")
    ap.add_argument("--subset", default="", help="comma-separated candidate names for a second adaptive row")
    ap.add_argument("--dp-check", action="store_true",
                    help="also print the DP-led pool's acceptance checks (PASS/FAIL lines); exit 1 on a FAIL")
    args = ap.parse_args()
    decisions = [json.loads(line) for line in (args.out / "decisions.jsonl").read_text(encoding="utf-8").splitlines()
                 if line.strip()]
    decisions = [d for d in decisions if d.get("candidates")]
    if not decisions:
        print("no decisions in", args.out)
        return 1
    reference = json.loads(REFERENCE.read_text(encoding="utf-8")) if REFERENCE.is_file() else {}
    subset = {s for s in args.subset.split(",") if s} or None
    print(table(decisions, reference, subset))
    if args.dp_check:
        lines = dp_check(decisions, subset)
        print("\n" + "\n".join(lines))
        return 1 if any(x.startswith("FAIL") for x in lines) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
