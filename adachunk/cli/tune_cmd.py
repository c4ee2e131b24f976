"""``adachunk tune``: cross-validated search of a profile's rules, sizes and weights → tuned.yaml."""

from __future__ import annotations

import argparse
import sys

from .common import add_allow_remote_llm_flag, budget_arg

TUNE_HELP = """\
What is tuned: by default the profile's first dp.v1 candidate (its own size overrides, else the
solver section): every document is chunked with the variant, post-processed as the pool does,
and scored with the intrinsic metrics weighted by the BASE profile's weights; --target pool
runs the whole pool and scores each document's winner (needed to tune metric weights).

Search space: the profile's `tune.space` section, or --param KEY=LOW:HIGH (repeatable; replaces
the profile's space). Keys: rules.NAME (multiplier of that rule's scales, log-uniform),
solver.max_size|min_size|target_size|chunk_cost, candidates.NAME.max_size|... (integers),
weights.sc|bi|rc|icc|dcc (QA objective only).

Cross-validation: documents are split into --folds folds (seeded); each fold's study tunes on
the other folds and its best point is scored on the held-out fold next to the base profile.

Outputs in --out: tuned.yaml (extends the base; only the changes, each with its measured
effect), ab.json + report.md (held-out A/B, per-document deltas), trials.json,
plots/search.png, study.db (Optuna, SQLite: a rerun resumes; --trials is the total per fold),
analysis/ (the documents' analyses, reused by a resumed run).

Exit codes: 0 done; 130 interrupted (Ctrl-C: the outputs hold the best so far);
2 a profile/input error (ADA215 bad search space, ADA317 --out holds another study).
"""


def add_parsers(sub) -> list[str]:
    """Register ``tune``."""
    p = sub.add_parser("tune", help="tune a profile's rules, sizes and weights on a corpus (cross-validated, Optuna)",
                       description="Search a profile's rule scales, sizes and metric weights; write tuned.yaml.",
                       epilog=TUNE_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="CORPUS", help="files, folders or globs (.md .txt .json .pdf .docx .html)")
    p.add_argument("--profile", "-p", default="default", help="builtin profile name or YAML path (default: default)")
    p.add_argument("--objective", choices=["intrinsic", "qa", "both"],
                   help="intrinsic weighted score, a QA measure, or their mean (default: the profile's, intrinsic)")
    p.add_argument("--qa", metavar="FILE", action="append",
                   help="QA file (JSONL or Chroma's CSV) for --objective qa/both; repeatable (questions together)")
    p.add_argument("--qa-measure", help="QA measure to maximise, e.g. coverage@5 (default), recall@5, mrr, or "
                   "regime: the evidence the profile's retrieval regime reads (its retrievers and token budgets)")
    p.add_argument("--retriever", choices=["bm25", "dense", "hybrid"], default="bm25",
                   help="retriever of the QA objective (default: bm25)")
    p.add_argument("--qa-budget", type=budget_arg, metavar="TOKENS",
                   help="token budget of the QA objective, e.g. 2048 or '512*k' (as `adachunk eval --budget`): "
                   "without one, larger chunks retrieve more text and win by size")
    p.add_argument("--trials", "-n", type=int, help="trials per fold, in total (default: the profile's, 30)")
    p.add_argument("--folds", "-k", type=int, help="cross-validation folds over documents (default: 5)")
    p.add_argument("--seed", type=int, help="seed of the fold split and the sampler (default: the profile's, 0)")
    p.add_argument("--target", help="dp.v1 candidate name, 'solver' or 'pool' (default: the first dp.v1 candidate)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=LOW:HIGH",
                   help="a search-space item, e.g. rules.heading=0.5:2; repeatable; replaces the profile's tune.space")
    p.add_argument("--out", "-o", default="tune", help="output folder (default: tune)")
    p.add_argument("--errors", choices=["strict", "replace"], default="strict",
                   help="invalid UTF-8: fail with ADA301 (strict) or substitute U+FFFD (replace)")
    p.add_argument("--analysis-cache", metavar="DIR",
                   help="keep document analyses in DIR (default: OUT/analysis), so a resumed tune re-detects nothing")
    p.add_argument("--no-plots", action="store_true", help="skip plots/search.png")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress line, no summary")
    add_allow_remote_llm_flag(p)
    p.set_defaults(_tune_parser=p)
    return ["tune"]


def run(args) -> int:
    """Run the tune; 130 after writing the best-so-far outputs when interrupted."""
    parser = args._tune_parser
    for name in ("trials", "folds"):
        value = getattr(args, name)
        if value is not None and value < (2 if name == "folds" else 1):
            parser.error(f"--{name} must be at least {2 if name == 'folds' else 1}")
    if args.objective in ("qa", "both") and not args.qa:
        parser.error(f"--objective {args.objective} needs --qa FILE")
    from ..api.tuning import tune

    if not args.analysis_cache:  # main() sets an explicit one up before run()
        from pathlib import Path

        from ..api.corpus import use_store

        use_store(Path(args.out) / "analysis")
    try:
        res, files = tune(args.profile, args.inputs, args.out, objective=args.objective, qa=args.qa,
                          qa_measure=args.qa_measure, trials=args.trials, folds=args.folds, seed=args.seed,
                          target=args.target, params=args.param, errors=args.errors,
                          progress=False if args.quiet else None, plots=not args.no_plots,
                          qa_options={"retriever": args.retriever,
                                      **({"budget": args.qa_budget} if args.qa_budget is not None else {})})
    except ValueError as exc:  # too few documents for the folds, an unknown QA measure
        parser.error(str(exc))
    if not args.quiet:
        _print_summary(res, files)
    return 130 if res.interrupted else 0


def _print_summary(res, files) -> None:
    from ..api.tuning import pooled

    print("fold  trials  held-out base  held-out tuned  delta (pp)")
    for f in res.folds:
        if f.tuned is None:
            print(f"{f.index:>4}  {f.trials:>6}  {'-':>13}  {'-':>14}  not tuned")
            continue
        print(f"{f.index:>4}  {f.trials:>6}  {f.base.value:>13.5f}  {f.tuned.value:>14.5f}  "
              f"{(f.tuned.value - f.base.value) * 100:+10.3f}")
    h = pooled(res)
    verdict = "beats" if h["beats_base"] else "does not beat"
    print(f"held-out, all folds: tuned {verdict} base: {h['tuned']:.5f} vs {h['base']:.5f} "
          f"({(h['delta']) * 100:+.3f} pp; {h['unit']} better {h['better']}, worse {h['worse']}, tie {h['tie']})")
    print(f"changes in tuned.yaml: {', '.join(f'{k}={v:.4g}' for k, v in res.final_point.items()) or 'none'}")
    extra = " (interrupted: best so far)" if res.interrupted else ""
    print(f"→ {files['tuned']}, {files['report']}, {files['ab']}{extra}; {res.seconds:.1f} s", file=sys.stderr)
