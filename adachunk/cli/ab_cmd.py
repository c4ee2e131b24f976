"""``adachunk ab``: run two profiles on one corpus and compare them (statistics, plots, HTML, CI gate)."""

from __future__ import annotations

import argparse
import sys

from .common import add_allow_remote_llm_flag, add_analysis_cache_flag, argument_type

GATE_HELP = """\
CI gate: --fail-if "METRIC OP NUMBER" (repeatable). METRIC is sc, bi, rc, icc, dcc, rf, bi_cut, rc_cut or score
(the weighted score); OP is <, <=, > or >=; NUMBER is the mean paired difference B - A in
percentage points (metric fraction x 100). Example: --fail-if "bi < -0.5" --fail-if "score < 0"
fails when B loses more than half a point of block integrity or any weighted score. A condition
on a metric without paired values (e.g. rc when no document has coreference pairs) never holds.

Exit codes: 0 compared and no condition holds; 1 a --fail-if condition holds (each is printed);
2 a document failed in either run (as `adachunk run`), or a usage/profile/input error.

Outputs: OUT/<A>/ and OUT/<B>/ (each a full `adachunk run` folder), OUT/summary.json,
OUT/report.html (self-contained) and OUT/plots/*.png; OUT/.analysis/ keeps the documents'
analyses (tokens, structures) so B reuses what A detected (--analysis-cache DIR: elsewhere).
"""


def _condition_parser():
    from ..api.comparison import ab_condition as parse_condition

    return parse_condition


_condition = argument_type(_condition_parser)


def add_parsers(sub) -> list[str]:
    """Register ``ab``."""
    p = sub.add_parser("ab", help="A/B-compare two profiles on one corpus: paired statistics, plots, HTML, CI gate",
                       description="Run two profiles (A then B) on the same inputs and compare their winners.",
                       epilog=GATE_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="files, folders or globs (.md .txt .json .pdf .docx .html)")
    p.add_argument("--profile", "-p", action="append", required=True, metavar="PROFILE",
                   help="builtin profile name or YAML path; give it twice: first A, then B")
    p.add_argument("--out", "-o", default="ab", help="output folder (default: ab)")
    p.add_argument("--workers", "-j", type=int, help="worker processes per run (default: the machine's cores)")
    p.add_argument("--sink", choices=["none", "lancedb"], default="none",
                   help="vector index of each run (default: none, the comparison does not need it)")
    p.add_argument("--fail-if", action="append", type=_condition, default=[], metavar="EXPR",
                   help='exit 1 when the delta B-A (percentage points) satisfies EXPR, e.g. "bi < -0.5"; repeatable')
    p.add_argument("--errors", choices=["strict", "replace"], default="strict",
                   help="invalid UTF-8: fail with ADA301 (strict) or substitute U+FFFD (replace)")
    add_analysis_cache_flag(p)
    add_allow_remote_llm_flag(p)
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots (report without images)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress line, no printed table")
    p.set_defaults(_ab_parser=p)
    return ["ab"]


def run(args) -> int:
    """Run the A/B comparison; see :data:`GATE_HELP` for the exit codes."""
    if len(args.profile) != 2:
        args._ab_parser.error(f"--profile must be given exactly twice (A then B), got {len(args.profile)}")
    from ..api.comparison import require_report_extra, run_ab

    try:
        require_report_extra(not args.no_plots)
    except ImportError as exc:  # coded like every missing extra (ADA223), before anything runs
        from ..errors import DependencyError

        raise DependencyError(code="ADA223", message=str(exc)) from None
    res = run_ab(args.inputs, args.profile[0], args.profile[1], args.out, workers=args.workers, sink=args.sink,
                 errors=args.errors, conditions=args.fail_if, progress=False if args.quiet else None, plots=not args.no_plots)
    if not args.quiet:
        _print_table(res.summary)
        print(f"→ {res.out}/report.html, {res.out}/summary.json", file=sys.stderr)
    for side in ("a", "b"):
        for f in res.summary["failures"][side][:20]:
            print(f"failed in {side.upper()}: {f['source']}: {f['error']}", file=sys.stderr)
    for g in res.gate:
        if g["holds"]:
            print(f"fail-if: {g['condition']} holds (delta {g['metric']} = {g['delta']:+.2f} pp)", file=sys.stderr)
    if not res.runs_ok:
        return 2
    return 1 if res.gate_failed else 0


MAX_PRINTED = 20  # documents whose moved boundaries are listed on stdout


def _print_table(summary: dict) -> None:
    """The metric deltas as a small text table on stdout, then the rules behind moved cuts."""
    from ..api.comparison import top_rules

    pa, pb = summary["profiles"]["a"]["label"], summary["profiles"]["b"]["label"]
    print(f"A = {pa}, B = {pb}; {summary['documents']['compared']} documents; values in percentage points")
    print(f"{'metric':<7}{'A':>8}{'B':>8}{'B-A':>8}  {'95% CI':<18}{'p':>8}")
    unmeasured = [m for m, s in summary["metrics"].items() if s["mean_a"] is None and s["mean_b"] is None]
    for m, s in summary["metrics"].items():
        if m in unmeasured:
            continue
        fmt = lambda v, sign="": "-" if v is None else f"{v:{sign}.2f}"  # noqa: E731 - local formatting helper
        ci = "-" if s["ci95"] is None else f"[{s['ci95'][0]:+.2f}, {s['ci95'][1]:+.2f}]"
        p = "-" if s["p_value"] is None else f"{s['p_value']:.4f}"
        print(f"{m:<7}{fmt(s['mean_a']):>8}{fmt(s['mean_b']):>8}{fmt(s['delta'], '+'):>8}  {ci:<18}{p:>8}")
    if unmeasured:  # the profiles' metrics.weights name only the others: nothing to compare
        print(f"not measured (neither profile weighs them in metrics.weights): {', '.join(unmeasured)}")
    o = summary["outcomes"]
    print(f"weighted score per document: B better {o['b_better']}, A better {o['a_better']}, tie {o['tie']}; "
          f"boundaries differ in {summary['boundaries']['documents_differing']} documents")
    rules = summary["boundaries"].get("rules")
    if rules is None:
        return
    for d in summary["boundaries"]["documents"][:MAX_PRINTED]:
        moves = d.get("moves") or {}
        why = moves.get("skipped") or top_rules(moves, 4) or "no rule difference (sizes, chunk cost)"
        print(f"  {d['doc_id']}: {d['differing_cuts']} differing cuts; moved by {why}")
    more = len(summary["boundaries"]["documents"]) - MAX_PRINTED
    if more > 0:
        print(f"  ... {more} more documents in summary.json")
    moved = ", ".join(f"{r} ({_n(v['moved_cuts'], 'cut')} in {_n(v['documents'], 'doc')})" for r, v in list(rules.items())[:6])
    print(f"rules behind the moved boundaries: {moved or 'none'}; "
          f"{summary['boundaries'].get('unexplained_cuts', 0)} moved cuts without a rule difference")


def _n(count: int, noun: str) -> str:
    """``"1 cut"``, ``"2 cuts"``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
