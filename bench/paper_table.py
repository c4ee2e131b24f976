"""RC, BI and SC on the CLAIR corpus beside the paper's Table 3 (paper-spec §7.4).

Usage::

    python bench/paper_table.py [--profile paper] [--per-document]

Rows:

* ``page_raw``: one chunk per page with exact offsets (always available). SC is shown twice:
  with the 4 empty pages kept as empty chunks, as the paper's raw page chunks are (the
  Table 3 value), and with them merged into a neighbour (what ``page.v1`` does).
* ``our_recurs_1100``, ``our_recurs_600``, ``page``: ``recursive.v1`` 1100/600 and ``page.v1``,
  post-processed, when those splitters (and ``adachunk.split.postprocess``) are installed; otherwise
  the row says what is missing, or is marked ``raw`` when only post-processing is.

RC is the mean over the documents that have pairs (31), BI and SC over all 33, as in the paper.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adachunk.api import load_profile  # noqa: E402
from adachunk.ingest import read_document  # noqa: E402
from adachunk.metrics.suite import context_for, score_chunking  # noqa: E402
from adachunk.split.assemble import build_chunks  # noqa: E402
from adachunk.tokens import get_counter  # noqa: E402

CLAIR = ROOT.parent / "shared" / "corpus" / "clair"
CANDIDATES = (
    ("our_recurs_1100", "recursive.v1", {"chunk_size": 1100}),
    ("our_recurs_600", "recursive.v1", {"chunk_size": 600}),
    ("page", "page.v1", {}),
)


def documents():
    files = sorted(p for p in CLAIR.glob("*.json") if p.name not in ("manifest.json", "paper_reference.json"))
    return [(p.name, read_document(p)) for p in files]


def page_raw_chunks(doc, keep_empty: bool):
    """One chunk per page with exact offsets (empty pages kept as empty chunks, or dropped)."""
    counter = get_counter("o200k_base")
    spans = [(p.start, p.end) for p in doc.pages if keep_empty or p.end > p.start]
    return build_chunks(doc, spans, fingerprint="paper", count_tokens=counter.count, unit_size=lambda s, e: e - s)


def mean(values):
    vals = [v for v in values if v is not None]
    return (100 * sum(vals) / len(vals), len(vals)) if vals else (None, 0)


def candidate_chunks(doc, policy, splitter, params):
    """Post-processed chunks of one candidate and whether post-processing ran."""
    from adachunk.cli.score_cmd import make_chunking

    chunking, done = make_chunking(doc, policy, splitter, params, postprocess=True)
    return chunking.chunks, done


def splitter_params(splitter: str, params: dict) -> dict:
    """The candidate's parameters, with the paper's token-sum merge when the splitter has it."""
    from adachunk.components.registry import splitters

    fields = getattr(splitters.get(splitter), "Params").model_fields
    return {**params, "paper_compat": True} if "paper_compat" in fields else params


def run_row(docs, policy, label, splitter, params, per_doc):
    """Scores of one candidate over the corpus, or the reason it cannot run."""
    from adachunk.components.builtins import ensure_builtins
    from adachunk.components.registry import splitters

    ensure_builtins()
    if splitter not in splitters:
        return None, f"{splitter} not installed"
    params = splitter_params(splitter, params)
    scores, states, n_chunks, t0 = {"rc": [], "bi": [], "sc": []}, set(), 0, time.perf_counter()
    for name, doc in docs:
        chunks, done = candidate_chunks(doc, policy, splitter, params)
        states.add(done)
        n_chunks += len(chunks)
        res = score_chunking(chunks, context_for(doc, policy), ("rc", "bi", "sc"))
        for k in scores:
            scores[k].append(res[k].value)
        per_doc.setdefault(name, {})[label] = {k: res[k].value for k in res}
    note = "post-processed" if states == {True} else "raw: adachunk.split.postprocess not installed"
    return scores, f"{note}, {n_chunks} chunks, {time.perf_counter() - t0:.0f} s"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", default="paper", help="profile for the candidates (falls back to default)")
    ap.add_argument("--per-document", action="store_true", help="print page_raw RC per document vs the paper")
    args = ap.parse_args()
    if not CLAIR.is_dir():
        print(f"CLAIR corpus not found at {CLAIR}")
        return 1
    ref = json.loads((CLAIR / "paper_reference.json").read_text(encoding="utf-8"))
    table3, ref_rc = ref["table3"], ref["page_raw_rc_per_document"]
    try:
        rp = load_profile(args.profile)
    except Exception as exc:  # the paper profile may not exist yet
        print(f"profile {args.profile!r} unavailable ({str(exc).splitlines()[0]}); using 'default'")
        rp = load_profile("default")
    docs = documents()
    rows, per_doc = [], {}

    merged_scores, kept_sc = {"rc": [], "bi": [], "sc": []}, []
    for name, doc in docs:
        ctx = context_for(doc)
        res = score_chunking(page_raw_chunks(doc, keep_empty=False), ctx, ("rc", "bi", "sc"))
        for k in merged_scores:
            merged_scores[k].append(res[k].value)
        kept_sc.append(score_chunking(page_raw_chunks(doc, keep_empty=True), ctx, ("sc",))["sc"].value)
        per_doc.setdefault(name, {})["page_raw"] = {k: res[k].value for k in res}
    rows.append(("page_raw", merged_scores, f"exact offsets; SC with empty pages kept: {mean(kept_sc)[0]:.2f}"))
    for label, splitter, params in CANDIDATES:
        scores, note = run_row(docs, rp.policy, label, splitter, params, per_doc)
        rows.append((label, scores, note))

    print(f"{'method':<16} {'RC ours/paper':>15} {'BI ours/paper':>15} {'SC ours/paper':>15}  note")
    for label, scores, note in rows:
        paper = table3.get(label, {})
        cells = []
        for k in ("rc", "bi", "sc"):
            ours = mean(scores[k])[0] if scores else None
            cells.append(f"{'—' if ours is None else f'{ours:.2f}':>7}/{paper.get(k.upper(), '—'):>6}")
        print(f"{label:<16} {cells[0]:>15} {cells[1]:>15} {cells[2]:>15}  {note}")
    rc_mean, n = mean(merged_scores["rc"])
    print(f"\npage_raw RC over {n} documents with pairs: {rc_mean:.2f} (paper code, text search: 97.06)")
    if args.per_document:
        print(f"\n{'document':<70} {'ours':>7} {'paper':>7} {'diff':>6}")
        for name, _doc in docs:
            ours, paper = per_doc[name]["page_raw"]["rc"], ref_rc.get(name)
            o = None if ours is None else round(100 * ours, 2)
            diff = "" if o is None or paper is None else f"{o - paper:+.2f}"
            print(f"{name[:70]:<70} {str(o):>7} {str(paper):>7} {diff:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
