"""Retrieval of adachunk's chunkings and the peers' in one run: Chroma's protocol and recall within
a token budget, dense and BM25, with paired bootstrap CIs against the best peer.

    python bench/retrieval_bench.py [--corpus chroma-dev|clair ...] [--sizes 128,256,512]
        [--profiles default,legal,finance,technical] [--peers chonkie,chonkie_token,langchain,semchunk,semantic]
        [--cache DIR] [--out bench/out/retrieval]

Corpora (from ../shared, skipped with a message when absent):

* ``chroma-dev``: Chroma's general chunking evaluation, development split (3 corpora, 276 questions
  with evidence spans: ``questions.csv`` read as it is by ``adachunk.evaluate.load_qa``).
* ``clair``: the 33 CLAIR documents with ``adachunk eval generate`` questions (20 per document,
  seed 0): a lexical proxy (README "Evaluate retrieval"), not a real QA set.

Every chunking of one corpus goes into one index (retrieval is corpus-wide, as Chroma's); every
chunk is counted in cl100k tokens. Measures per retriever (dense: all-MiniLM-L6-v2 reading each
chunk's first 256 word pieces, as Chroma's evaluation and most vector stores embed; BM25: bm25s
over adachunk's tokenizer): ``coverage@1000tok`` and ``coverage@2000tok`` (the evidence characters
among the chunks read in rank order within the budget, the last one truncated to exact tokens),
and Chroma's ``recall``/``precision``/``iou`` at k = 5 (``coverage@5``, ``precision@5``, ``iou@5``).

Chunkings: the peers at each size (cl100k tokens, no overlap), adachunk's DP alone at each size
(the default profile with cl100k tokens, min size a quarter of the max), and ``adachunk run``'s
winners for each profile (its own pool, selection and tokenizer). Chunkings are cached per corpus
in ``--cache`` (their spans), so a second run only retrieves.

Output: a Markdown table per corpus and retriever on stdout and in ``--out/retrieval.md``, every
number and CI in ``--out/retrieval.json``. The CI of ``A - best peer`` is the paired percentile
bootstrap over questions (2,000 resamples, seed 0) against the peer configuration with the highest
mean on that measure; each DP size is also compared with chonkie's RecursiveChunker at the same
size. The JSON keeps every per-question value, for any other pairing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

SHARED = ROOT.parent / "shared" / "corpus"
BUDGETS = (1000, 2000)
K = 5
MEASURES = [f"coverage@{b}tok" for b in BUDGETS] + [f"coverage@{K}", f"precision@{K}", f"iou@{K}"]
TOKENIZER = "cl100k_base"


# --- corpora ---------------------------------------------------------------------------------------
def load_corpus(name: str, per_doc: int = 20):
    """``(documents by id, QASet)`` of a corpus, or None when ../shared does not have it."""
    from adachunk.evaluate import generate_qa, load_qa, write_qa
    from adachunk.evaluate.report import read_documents

    if name == "chroma-dev":
        folder = SHARED / "chroma-dev"
        if not folder.is_dir():
            return None
        docs, _ = read_documents([str(folder / f"{s}.md") for s in ("chatlogs", "state_of_the_union", "wikitexts")])
        return docs, load_qa(folder / "questions.csv", docs)
    if name == "clair":
        folder = SHARED / "clair"
        if not folder.is_dir():
            return None
        files = [str(p) for p in sorted(folder.glob("*.json")) if p.name not in ("manifest.json", "paper_reference.json")]
        docs, _ = read_documents(files)
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "clair_qa.jsonl"
            write_qa(generate_qa(docs.values(), per_doc, 0), path)
            return docs, load_qa(path, docs)
    raise SystemExit(f"unknown corpus {name!r}: chroma-dev or clair")


# --- chunkings -------------------------------------------------------------------------------------
def locate(text: str, pieces: list[str]) -> list[tuple[int, int]]:
    """Offsets of a peer's chunk strings, searched in order (as Chroma's evaluation does), for
    the peers that give strings only."""
    spans, pos = [], 0
    for piece in pieces:
        i = text.find(piece, pos)
        if i < 0:
            piece = piece.strip()
            i = text.find(piece, pos)
        if i < 0:
            raise ValueError(f"chunk not found in order: {piece[:60]!r}")
        spans.append((i, i + len(piece)))
        pos = i + len(piece)
    return spans


Splitter = Callable[[str], list[tuple[int, int]]]  # text -> chunk spans


def _chonkie_spans(chunker) -> Splitter:
    # chonkie's own offsets: a token window's decoded text can differ from its slice (a multi-byte
    # character split between two windows decodes to U+FFFD), its offsets tile the text
    return lambda text: [(c.start_index, c.end_index) for c in chunker.chunk(text)]


def _located(chunker: Callable[[str], list[str]]) -> Splitter:
    return lambda text: locate(text, chunker(text))


def _chonkie_recursive(size: int) -> Splitter:
    from chonkie import RecursiveChunker
    from peers import _chonkie_tokenizer

    return _chonkie_spans(RecursiveChunker(tokenizer=_chonkie_tokenizer(), chunk_size=size))


def _chonkie_token(size: int) -> Splitter:
    from chonkie import TokenChunker
    from peers import _chonkie_tokenizer

    return _chonkie_spans(TokenChunker(tokenizer=_chonkie_tokenizer(), chunk_size=size, chunk_overlap=0))


def _chonkie_semantic(size: int) -> Splitter:
    from chonkie import SemanticChunker
    from chonkie.embeddings import SentenceTransformerEmbeddings

    from adachunk.models.embedders import load_embedder

    model = load_embedder(None).model  # the bundled MiniLM, loaded offline
    return _chonkie_spans(SemanticChunker(embedding_model=SentenceTransformerEmbeddings(model), chunk_size=size))


def peer_factories() -> dict[str, tuple[str, Callable[[int], Splitter]]]:
    """Peer key → (label, size → splitter)."""
    import peers

    return {
        "chonkie": ("chonkie RecursiveChunker", _chonkie_recursive),
        "chonkie_token": ("chonkie TokenChunker", _chonkie_token),
        "langchain": ("LangChain RecursiveCharacterTextSplitter",
                      lambda n: _located(peers._langchain("RecursiveCharacterTextSplitter")("tokens", n))),
        "semchunk": ("semchunk", lambda n: _located(peers._semchunk("tokens", n))),
        "semantic": ("chonkie SemanticChunker (MiniLM)", _chonkie_semantic),
    }


def dp_spans(docs, size: int) -> dict[str, list[tuple[int, int]]]:
    """adachunk's DP alone, default profile, cl100k tokens, ``size`` max and a quarter min."""
    import adachunk

    rp = adachunk.load_profile("default", tokenizer=TOKENIZER, max_size=size, min_size=max(1, size // 4))
    return {d: [(c.start, c.end) for c in adachunk.chunk_document(doc, rp).chunks] for d, doc in docs.items()}


def run_spans(docs, profile: str) -> tuple[dict[str, list[tuple[int, int]]], dict[str, Any]]:
    """``adachunk run``'s winners (as ``adachunk run`` selects them) and what won how often."""
    import adachunk
    from adachunk.metrics.suite import context_for
    from adachunk.select import select_document

    rp = adachunk.load_profile(profile)
    spans, winners, estimates = {}, {}, []
    for d, doc in docs.items():
        dec = select_document(doc, rp.policy, ctx=context_for(doc, rp.policy))
        best = dec.best
        spans[d] = [(c.start, c.end) for c in best.chunking.chunks]
        winners[best.name] = winners.get(best.name, 0) + 1
        if best.scores.get("rf") is not None:
            estimates.append(best.scores["rf"])
    meta = {"winners": dict(sorted(winners.items())),
            "rf_mean": round(sum(estimates) / len(estimates), 4) if estimates else None}
    return spans, meta


def cached(cache: Path, corpus: str, label: str, make: Callable[[], Any]) -> Any:
    path = cache / corpus / (label.replace("/", "_").replace(" ", "_") + ".json")
    if path.is_file():
        return json.loads(path.read_text())
    value = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))
    return value


def chunkings(corpus: str, docs, args) -> list[dict[str, Any]]:
    """Every chunking of the run: ``{label, kind, size, spans, meta}``."""
    out = []
    factories = peer_factories()
    sizes = [int(s) for s in args.sizes.split(",")]
    for key in [p for p in args.peers.split(",") if p]:
        label, factory = factories[key]
        for size in sizes:
            def make(factory=factory, size=size):
                split = factory(size)
                return {d: split(doc.text) for d, doc in docs.items()}
            t = time.perf_counter()
            spans = cached(args.cache, corpus, f"{key}_{size}", make)
            out.append({"label": f"{label} {size}", "kind": "peer", "size": size, "spans": spans, "meta": {}})
            print(f"  {label} {size}: {time.perf_counter() - t:.1f} s", file=sys.stderr)
    for size in sizes:
        spans = cached(args.cache, corpus, f"adachunk_dp_{size}", lambda size=size: dp_spans(docs, size))
        out.append({"label": f"adachunk DP {size}", "kind": "dp", "size": size, "spans": spans, "meta": {}})
    for profile in [p for p in args.profiles.split(",") if p]:
        t = time.perf_counter()
        got = cached(args.cache, corpus, f"adachunk_run_{profile}", lambda profile=profile: list(run_spans(docs, profile)))
        out.append({"label": f"adachunk run --profile {profile}", "kind": "run", "size": None,
                    "spans": got[0], "meta": got[1]})
        print(f"  run {profile}: {time.perf_counter() - t:.1f} s", file=sys.stderr)
    return out


# --- retrieval -------------------------------------------------------------------------------------
def evaluate(docs, qa, sets: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """retriever → label → {summary, values per measure}."""
    from adachunk.evaluate import evaluate_chunks
    from adachunk.types import Chunk

    out: dict[str, dict[str, dict[str, Any]]] = {}
    for retriever in ("dense", "bm25"):
        out[retriever] = {}
        for cs in sets:
            chunks = {d: [Chunk(index=i, start=a, end=b, text=docs[d].text[a:b], size=b - a, tokens=0)
                          for i, (a, b) in enumerate(spans)] for d, spans in cs["spans"].items()}
            res = evaluate_chunks(chunks, qa, retriever, ks=(K,), budgets=BUDGETS, tokenizer=TOKENIZER,
                                  long_text="truncate")
            out[retriever][cs["label"]] = {"summary": res.summary, "values": {m: res.values(m) for m in MEASURES}}
    return out


def compare(results, sets) -> dict[str, dict[str, dict[str, Any]]]:
    """retriever → label → measure → delta to the best peer on that measure, with its CI."""
    from adachunk.evaluate.stats import paired_delta

    peers = [cs["label"] for cs in sets if cs["kind"] == "peer"]
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for retriever, by_label in results.items():
        out[retriever] = {}
        best = {m: max(peers, key=lambda lab: by_label[lab]["summary"][m]) for m in MEASURES} if peers else {}
        for cs in sets:
            if cs["kind"] == "peer" or not peers:
                continue
            out[retriever][cs["label"]] = {
                m: {**paired_delta(by_label[best[m]]["values"][m], by_label[cs["label"]]["values"][m]),
                    "best_peer": best[m]} for m in MEASURES}
    return out


def same_size(results, sets, peer: str = "chonkie RecursiveChunker") -> dict[str, dict[str, dict[str, Any]]]:
    """retriever → ``adachunk DP N`` → measure → delta to ``peer N`` (the DP alone against the
    recursive splitter at the same maximum size), with its CI."""
    from adachunk.evaluate.stats import paired_delta

    out: dict[str, dict[str, dict[str, Any]]] = {}
    for retriever, by_label in results.items():
        out[retriever] = {}
        for cs in sets:
            other = f"{peer} {cs['size']}"
            if cs["kind"] != "dp" or other not in by_label:
                continue
            out[retriever][cs["label"]] = {
                m: {**paired_delta(by_label[other]["values"][m], by_label[cs["label"]]["values"][m]),
                    "peer": other} for m in MEASURES}
    return out


FOUR = [("dense", 1000), ("dense", 2000), ("bm25", 1000), ("bm25", 2000)]


def bar(values: dict[str, dict[str, dict[str, list[float]]]], chunkings: list[dict[str, Any]],
        margin: float = -0.01) -> dict[str, dict[str, Any]]:
    """The issue's acceptance bar applied to *every* chunking, peers included: on each of the four
    budget measures, the paired delta against the best *other* peer configuration (95% CI), and
    whether its lower bound is above ``margin``; then the same for the mean of the four measures
    per question (one chunking that must serve both retrievers and both budgets).

    Shows whether the bar separates chunkers at all: a peer is held to it against the best of
    the others, chosen per measure after the fact.
    """
    import numpy as np

    from adachunk.evaluate.stats import paired_delta

    peers = [c["label"] for c in chunkings if c["kind"] == "peer"]

    def series(label: str, r: str | None, b: int | None) -> list[float]:
        if r is not None:
            return values[r][label][f"coverage@{b}tok"]
        return np.mean([values[rr][label][f"coverage@{bb}tok"] for rr, bb in FOUR], axis=0).tolist()

    out = {}
    for c in chunkings:
        label, row = c["label"], {}
        others = [p for p in peers if p != label]
        for r, b in FOUR + [(None, None)]:
            best = max(others, key=lambda p: float(np.mean(series(p, r, b))))
            x = paired_delta(series(best, r, b), series(label, r, b))
            row[f"{r}@{b}" if r else "mean4"] = {"delta": x["delta"], "ci95": x["ci95"], "best_other": best,
                                                  "passes": x["ci95"][0] > margin}
        out[label] = row
    return out


def bar_table(rows: dict[str, dict[str, Any]]) -> str:
    """Markdown of :func:`bar`."""
    lines = ["Every chunking against the best *other* peer on each measure (points, 95% CI; ✓ = lower "
             "bound above −1), and on the mean of the four per question:", "",
             "| chunking | dense @1,000 | dense @2,000 | BM25 @1,000 | BM25 @2,000 | passes | mean of four |",
             "|---|---|---|---|---|---:|---|"]
    for label, row in rows.items():
        cells = [f"{100 * x['delta']:+.1f} [{100 * x['ci95'][0]:+.1f}]{' ✓' if x['passes'] else ''}"
                 for k, x in row.items() if k != "mean4"]
        m = row["mean4"]
        lines.append(f"| {label} | " + " | ".join(cells)
                     + f" | {sum(x['passes'] for k, x in row.items() if k != 'mean4')}/4 | "
                     f"{100 * m['delta']:+.2f} [{100 * m['ci95'][0]:+.2f}, {100 * m['ci95'][1]:+.2f}] "
                     f"vs {m['best_other']} |")
    return "\n".join(lines)


def table(corpus: str, qa, sets, results, deltas, same) -> str:
    """The Markdown table of one corpus."""
    lines = [f"### {corpus}: {len(qa.questions)} questions", "",
             "| chunking | chunks | mean tokens | recall@5 | precision@5 | IoU@5 | dense @1,000 | dense @2,000 | "
             "BM25 @1,000 | BM25 @2,000 |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for cs in sets:
        d, b = results["dense"][cs["label"]]["summary"], results["bm25"][cs["label"]]["summary"]
        cells = [f"{100 * d['coverage@5']:.1f}", f"{100 * d['precision@5']:.1f}", f"{100 * d['iou@5']:.1f}",
                 f"{100 * d['coverage@1000tok']:.1f}", f"{100 * d['coverage@2000tok']:.1f}",
                 f"{100 * b['coverage@1000tok']:.1f}", f"{100 * b['coverage@2000tok']:.1f}"]
        name = cs["label"] + (f" ({', '.join(f'{k} {v}' for k, v in cs['meta']['winners'].items())})"
                              if cs["meta"].get("winners") else "")
        lines.append(f"| {name} | {d['chunks']} | {d['chunk_tokens']:.0f} | " + " | ".join(cells) + " |")
    lines += ["", "Paired delta against the best peer on each measure (points, 95% bootstrap CI):", "",
              "| chunking | dense @1,000 | dense @2,000 | BM25 @1,000 | BM25 @2,000 |", "|---|---|---|---|---|"]
    for cs in sets:
        if cs["kind"] == "peer" or cs["label"] not in deltas.get("dense", {}):
            continue
        cells = []
        for retriever in ("dense", "bm25"):
            for b in BUDGETS:
                x = deltas[retriever][cs["label"]][f"coverage@{b}tok"]
                cells.append(f"{100 * x['delta']:+.1f} [{100 * x['ci95'][0]:+.1f}, {100 * x['ci95'][1]:+.1f}] "
                             f"vs {x['best_peer']}")
        lines.append(f"| {cs['label']} | " + " | ".join(cells) + " |")
    if same.get("dense"):
        lines += ["", "The DP alone against chonkie's RecursiveChunker at the same size (points, 95% bootstrap CI):",
                  "", "| chunking | dense @1,000 | dense @2,000 | BM25 @1,000 | BM25 @2,000 |", "|---|---|---|---|---|"]
        for label in same["dense"]:
            cells = [f"{100 * x['delta']:+.1f} [{100 * x['ci95'][0]:+.1f}, {100 * x['ci95'][1]:+.1f}]"
                     for retriever in ("dense", "bm25") for b in BUDGETS
                     for x in [same[retriever][label][f"coverage@{b}tok"]]]
            lines.append(f"| {label} vs {same['dense'][label]['coverage@1000tok']['peer']} | "
                         + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", help="chroma-dev and/or clair (default: both)")
    ap.add_argument("--sizes", default="128,256,512")
    ap.add_argument("--profiles", default="default,legal,finance,technical")
    ap.add_argument("--peers", default="chonkie,chonkie_token,langchain,semchunk,semantic")
    ap.add_argument("--per-doc", type=int, default=20, help="clair: generated questions per document")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "adachunk-bench" / "retrieval")
    ap.add_argument("--fresh", action="store_true", help="rebuild every chunking (ignore the cache)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "retrieval")
    ap.add_argument("--bar-from", type=Path, help="only print the acceptance-bar table of a saved retrieval.json")
    args = ap.parse_args()
    if args.bar_from:
        for corpus, rep in json.loads(args.bar_from.read_text()).items():
            print(f"### {corpus}\n\n" + bar_table(bar(rep["values"], rep["chunkings"])) + "\n")
        return 0
    if args.fresh and args.cache.exists():
        import shutil

        shutil.rmtree(args.cache)
    report, md = {}, []
    for corpus in args.corpus or ["chroma-dev", "clair"]:
        got = load_corpus(corpus, args.per_doc)
        if got is None:
            print(f"{corpus}: not found under {SHARED}; skipped")
            continue
        docs, qa = got
        print(f"{corpus}: {len(docs)} documents, {len(qa.questions)} questions", file=sys.stderr)
        sets = chunkings(corpus, docs, args)
        results = evaluate(docs, qa, sets)
        deltas, same = compare(results, sets), same_size(results, sets)
        values = {r: {lab: x["values"] for lab, x in by.items()} for r, by in results.items()}
        checked = bar(values, sets)
        md.append(table(corpus, qa, sets, results, deltas, same) + "\n\n" + bar_table(checked))
        print(md[-1] + "\n", flush=True)
        report[corpus] = {"questions": len(qa.questions), "chunkings": [{k: v for k, v in cs.items() if k != "spans"}
                                                                       for cs in sets],
                          "summary": {r: {lab: x["summary"] for lab, x in by.items()} for r, by in results.items()},
                          "deltas": deltas, "same_size": same, "bar": checked,
                          # Per-question values, so that any other pair can be compared later.
                          "values": values}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "retrieval.json").write_text(json.dumps(report, indent=1))
    (args.out / "retrieval.md").write_text("\n\n".join(md) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
