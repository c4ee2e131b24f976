"""``adachunk eval``: retrieval evaluation of chunkings on a QA set; ``adachunk eval generate``: a proxy QA set."""

from __future__ import annotations

import argparse
import sys

from .common import add_allow_remote_llm_flag, argument_type, budget_arg

EPILOG = """\
Chunkings (--chunking, repeatable; the first is the baseline of the deltas; LABEL=SPEC names one):
  profile:P      the profile's adaptive winner per document (as `adachunk run`)
  dp:P           the profile's DP splitter alone (as `adachunk chunk`)
  fixed:N        fixed N-token windows (fixed.v1), the baseline
  splitter:TYPE[:k=v,...]  one registered splitter, e.g. splitter:recursive.v1:chunk_size=600
  PATH           an `adachunk run --out` folder or a chunks.jsonl (offsets into the INPUT documents)

Measures per k: recall@k (a retrieved chunk overlaps the evidence), span_recall@k, coverage@k
(share of evidence characters retrieved: Chroma's recall), precision@k and iou@k (Chroma's
character precision and IoU), tokens@k, and mrr (cut at the largest k). With --budget (TOKENS,
or TOKENS*k per retrieved chunk) chunks are taken in rank order while they fit and the first
that does not is truncated to the rest. --budgets 1000,2000 adds coverage@1000tok and
coverage@2000tok: the evidence a reader with that many tokens of context gets, chunks taken in
rank order with no cut-off k (--tokenizer counts them exactly). Retrieval is corpus-wide by
default (every input document's chunks; --scope doc: the question's own document only).

QA sets: JSONL (question, doc, evidence spans and/or answer), or Chroma's CSV (question,
references, corpus_id), e.g. the chunking evaluation's questions_df.csv:
  adachunk eval corpora/ --qa questions.csv -c profile:default -c fixed:200 -r dense,bm25 \
      --budgets 1000,2000 --tokenizer cl100k_base --long-chunks truncate

CI gate: --fail-if "[delta] [RETRIEVER/]MEASURE OP NUMBER" (repeatable): without `delta` on the
first chunking's mean (fractions in [0, 1]), with `delta` on each other chunking minus the first;
e.g. --fail-if "recall@5 < 0.8" --fail-if "delta coverage@5 < 0".

Exit codes: 0 evaluated and no condition holds; 1 a --fail-if condition holds; 2 a usage error
or an ADAxxx error (ADA315 QA file, ADA316 chunking).

Proxy QA set: adachunk eval generate DOCS... --out qa.jsonl [--per-doc 10] [--seed 0] writes
keyword questions whose evidence is one sentence each (offline, deterministic). It favours BM25
and sentence-preserving chunkings, and tests no multi-hop question: rank chunkings with it, do
not read its absolute numbers as retrieval quality.
"""


def _condition_parser():
    from ..api.evaluation import eval_condition as parse_condition

    return parse_condition


_condition = argument_type(_condition_parser)


def _positive_ints(flag: str, example: str):
    def parse(text: str) -> list[int]:
        try:
            values = [int(x) for x in text.split(",") if x.strip()]
        except ValueError:
            values = []
        if not values or min(values) < 1:
            raise argparse.ArgumentTypeError(f"bad {flag} {text!r}: expected positive integers, e.g. {example}")
        return values

    return parse


_ks = _positive_ints("--k", "1,3,5,10")
_budgets = _positive_ints("--budgets", "1000,2000")


def add_parsers(sub) -> list[str]:
    """Register ``eval`` (and its ``generate`` mode)."""
    p = sub.add_parser("eval", help="retrieval evaluation of chunkings on a QA set (recall@k, MRR, coverage, bootstrap CIs)",
                       description="Ask the questions of a QA set against each chunking of the INPUT documents "
                                   "(BM25, dense, hybrid) and measure the evidence retrieved. "
                                   "`adachunk eval generate DOCS... --out qa.jsonl` writes a proxy QA set.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="documents: files, folders or globs (.md .txt .json .pdf .docx .html); or `generate DOCS...`")
    p.add_argument("--qa", metavar="QA.jsonl", help="the QA set: JSONL (question, doc, evidence spans and/or answer) "
                   "or Chroma's CSV (question, references, corpus_id)")
    p.add_argument("--chunking", "-c", action="append", default=[], metavar="SPEC",
                   help="a chunking to evaluate (repeatable): profile:P, dp:P, fixed:N, splitter:TYPE, a run folder or chunks.jsonl")
    p.add_argument("--retriever", "-r", action="append", default=[], metavar="NAME",
                   help="bm25 (default), dense, hybrid; repeatable or comma-separated")
    p.add_argument("--k", type=_ks, default=[1, 3, 5, 10], metavar="K,K,...", help="cut-offs (default 1,3,5,10)")
    p.add_argument("--budget", type=budget_arg, metavar="TOKENS", help="token budget of the retrieved context: 2048, or 512*k")
    p.add_argument("--budgets", type=_budgets, default=[], metavar="TOKENS,...",
                   help="add coverage@Btok for each budget: chunks in rank order while they fit B tokens, no cut-off k")
    p.add_argument("--tokenizer", choices=["cl100k_base", "o200k_base"],
                   help="count chunk tokens with this tokenizer (budgets, tokens@k) and truncate exactly "
                        "(default: each chunk's own count, truncated proportionally)")
    p.add_argument("--long-chunks", choices=["truncate", "pool"], dest="long_text",
                   help="dense: embed a chunk longer than the model's input by its first tokens (truncate, as most "
                        "vector stores) or as the mean of pieces (pool, as adachunk's index); default: the "
                        "profile's retrieval.long_chunks")
    p.add_argument("--scope", choices=["corpus", "doc"], default="corpus",
                   help="retrieve over every document's chunks (default) or the question's document only")
    p.add_argument("--rrf-k", type=int, default=60, help="reciprocal rank fusion constant of hybrid (default 60)")
    p.add_argument("--embedder", metavar="TYPE|JSON",
                   help="dense embedder: a registered type (hash.v1, sentence_transformers.v1, model2vec.v1) or a JSON spec; "
                        "default: the profile's index embedder, else its metrics embedder")
    p.add_argument("--profile", "-p", default="default",
                   help="profile for the default embedder and the fixed:/splitter: policy (default: default)")
    p.add_argument("--index-text", choices=["text", "heading_path+text"], default="text",
                   help="what is indexed per chunk (default: its text)")
    p.add_argument("--bootstrap", type=int, default=2000, metavar="N", help="bootstrap resamples (default 2000)")
    p.add_argument("--bootstrap-unit", choices=["question", "document"], default="question",
                   help="resample questions (default) or whole documents with their questions (a cluster "
                   "bootstrap: honest CIs when questions of one document move together; needs several documents)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and of `generate` (default 0)")
    p.add_argument("--primary", metavar="MEASURE", help="measure of the selection statistics (default recall@5)")
    p.add_argument("--fail-if", action="append", type=_condition, default=[], metavar="EXPR",
                   help='exit 1 when EXPR holds, e.g. "recall@5 < 0.8" or "delta coverage@5 < 0"; repeatable')
    p.add_argument("--out", "-o", metavar="DIR", help="write DIR/eval.json (summary + per-question rows); "
                   "for `generate`: the QA file to write")
    p.add_argument("--json", action="store_true", help="print the report as JSON instead of the tables")
    p.add_argument("--per-doc", type=int, default=10, metavar="N", help="`generate`: questions per document (default 10)")
    p.add_argument("--errors", choices=["strict", "replace"], default="strict",
                   help="invalid UTF-8: fail with ADA301 (strict) or substitute U+FFFD (replace)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress lines, no warnings on stderr")
    add_allow_remote_llm_flag(p)
    p.set_defaults(_eval_parser=p)
    return ["eval"]


def run(args) -> int:
    """Evaluate (or generate a QA set); see :data:`EPILOG` for the exit codes."""
    if args.inputs[0] == "generate":
        return _generate(args)
    parser = args._eval_parser
    if not args.qa:
        parser.error("--qa QA.jsonl (or Chroma's questions.csv) is required (or use `adachunk eval generate DOCS... --out qa.jsonl`)")
    if not args.chunking:
        parser.error("give at least one --chunking, e.g. --chunking profile:default --chunking fixed:512")
    retrievers = _retrievers(parser, args.retriever)
    from ..api.evaluation import run_eval, write_report, format_report

    say = None if args.quiet else (lambda line: print(f"eval: {line}", file=sys.stderr))
    try:
        res = run_eval(args.inputs, args.qa, args.chunking, retrievers=retrievers, ks=args.k, budget=args.budget,
                       scope=args.scope, rrf_k=args.rrf_k, embedder=_embedder(parser, args.embedder),
                       profile=args.profile, index_text=args.index_text, n_boot=args.bootstrap, seed=args.seed,
                       bootstrap_unit=args.bootstrap_unit, budgets=args.budgets, tokenizer=args.tokenizer,
                       long_text=args.long_text, primary=args.primary, conditions=args.fail_if, errors=args.errors, progress=say)
    except ValueError as exc:
        parser.error(str(exc))
    report = res.report
    if not args.quiet:
        _warnings(report)
    if args.json:
        import json

        print(json.dumps(report, ensure_ascii=False, indent=1))
    else:
        print(format_report(report))
    if args.out:
        path = write_report(report, args.out)
        if not args.quiet:
            print(f"→ {path}", file=sys.stderr)
    for g in res.gate:
        if g["holds"]:
            print(f"fail-if: {g['condition']} holds ({g['retriever']}, {g['chunking']}: {g['value']:.4f})", file=sys.stderr)
    return 1 if res.gate_failed else 0


def _retrievers(parser, given: list[str]) -> list[str]:
    names = [n.strip() for item in (given or ["bm25"]) for n in item.split(",") if n.strip()]
    bad = [n for n in names if n not in ("bm25", "dense", "hybrid")]
    if bad:
        parser.error(f"unknown retriever {bad[0]!r}; allowed: bm25, dense, hybrid")
    return list(dict.fromkeys(names))


def _embedder(parser, text: str | None):
    if text is None:
        return None
    if text.lstrip().startswith("{"):
        import json

        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            parser.error(f"bad --embedder JSON: {exc.msg}")
    return {"type": text}


MAX_WARNINGS = 20


def _warnings(report: dict) -> None:
    """QA and chunking warnings on stderr (the first few; all of them are in the report)."""
    qa = report["qa"]["warnings"]
    for w in qa[:MAX_WARNINGS]:
        print(f"warning: {w}", file=sys.stderr)
    if len(qa) > MAX_WARNINGS:
        print(f"warning: ... {len(qa) - MAX_WARNINGS} more QA warnings in the report", file=sys.stderr)
    if qa:
        print(f"warning: {len(qa)} QA lines skipped or doubtful; {report['qa']['questions']} questions used",
              file=sys.stderr)
    for note in report["documents"]["notes"]:
        print(f"warning: {note}", file=sys.stderr)
    for c in report["chunkings"]:
        for w in c["warnings"][:MAX_WARNINGS]:
            print(f"warning: {c['label']}: {w}", file=sys.stderr)


def _generate(args) -> int:
    """``adachunk eval generate DOCS... --out qa.jsonl``."""
    parser = args._eval_parser
    if len(args.inputs) < 2 or not args.out:
        parser.error("usage: adachunk eval generate DOCS... --out qa.jsonl [--per-doc N] [--seed S]")
    if args.per_doc < 1:
        parser.error("--per-doc must be at least 1")
    from ..api.evaluation import generate_qa, write_qa, read_documents

    docs, notes = read_documents(args.inputs[1:], args.errors)
    n = write_qa(generate_qa(docs.values(), args.per_doc, args.seed), args.out)
    if not args.quiet:
        for note in notes:
            print(f"warning: {note}", file=sys.stderr)
        print(f"→ {args.out}: {n} generated questions on {len(docs)} documents (seed {args.seed}; a lexical proxy: "
              "it favours BM25 and sentence-preserving chunkings)", file=sys.stderr)
    return 0
