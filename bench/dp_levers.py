"""The DP's levers measured on retrieval: which costs make it out-retrieve the plain splitters at
the same maximum size (issue "the policy decides and wins", item 2).

    python bench/dp_levers.py --corpus chroma-dev --corpus clair-small --sizes 128 \
        --variant shipped= --variant 'section60=rules: {items: [{name: section, structure: section, on: {shape: const, scale: 60}}]}' \
        [--peers chonkie,langchain,semchunk] [--out bench/out/dp_levers.json]

Each ``--variant NAME=YAML`` is a profile fragment deep-merged over ``profiles/default.yaml``
(``extends: default``); the DP alone is run at each size with cl100k tokens and a quarter of
the size as its minimum, exactly as ``bench/retrieval_bench.py`` runs "adachunk DP N". Every
chunking of a corpus is evaluated as that benchmark does (one corpus-wide index, MiniLM reading
each chunk's first 256 word pieces, BM25, evidence recall within 1,000 and 2,000 cl100k tokens),
and reported as the mean of the four budget measures per question, with the paired bootstrap CI
against the peer at the same size and against the shipped DP.

``clair-small`` is CLAIR without its three largest documents (2.7 of 5.6 MB: the development
loop's corpus; the final numbers come from ``retrieval_bench.py`` on the whole of CLAIR).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import retrieval_bench as rb  # noqa: E402

LARGEST = 3


def load(corpus: str):
    """``(docs, qa)`` of a corpus name, ``clair-small`` included."""
    if corpus != "clair-small":
        return rb.load_corpus(corpus)
    got = rb.load_corpus("clair")
    if got is None:
        return None
    docs, qa = got
    drop = set(sorted(docs, key=lambda d: len(docs[d].text))[-LARGEST:])
    from adachunk.evaluate.qa import QASet

    kept = {d: doc for d, doc in docs.items() if d not in drop}
    questions = [q for q in qa.questions if q.doc not in drop]
    return kept, QASet(questions, documents=kept)


def variant_profile(name: str, fragment: str, folder: Path) -> str:
    """A profile file extending ``default`` with the fragment; its path."""
    # written as text: a YAML round trip would read the rules' `on:` keys as booleans
    path = folder / f"{name}.yaml"
    path.write_text(f"schema_version: 1\nname: dp-{name}\nextends: default\n{fragment}\n")
    return str(path)


def dp_spans(docs, profile: str, size: int):
    import adachunk

    rp = adachunk.load_profile(profile, tokenizer=rb.TOKENIZER, max_size=size, min_size=max(1, size // 4))
    return {d: [(c.start, c.end) for c in adachunk.chunk_document(doc, rp).chunks] for d, doc in docs.items()}


def mean4(values, label):
    import numpy as np

    return np.mean([values[r][label][f"coverage@{b}tok"] for r, b in rb.FOUR], axis=0).tolist()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", default=None)
    ap.add_argument("--sizes", default="128")
    ap.add_argument("--variant", action="append", default=[], help="NAME=YAML fragment over the default profile")
    ap.add_argument("--peers", default="chonkie")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "dp_levers.json")
    args = ap.parse_args()
    from adachunk.evaluate.stats import paired_delta

    variants = [v.split("=", 1) for v in (args.variant or ["shipped="])]
    sizes = [int(s) for s in args.sizes.split(",")]
    report = {}
    with tempfile.TemporaryDirectory() as tmp:
        profiles = {name: variant_profile(name, frag, Path(tmp)) for name, frag in variants}
        for corpus in args.corpus or ["chroma-dev", "clair-small"]:
            got = load(corpus)
            if got is None:
                print(f"{corpus}: not found; skipped")
                continue
            docs, qa = got
            sets = []
            factories = rb.peer_factories()
            for key in [p for p in args.peers.split(",") if p]:
                label, factory = factories[key]
                for size in sizes:
                    split = factory(size)
                    sets.append({"label": f"{label} {size}", "kind": "peer", "size": size,
                                 "spans": {d: split(doc.text) for d, doc in docs.items()}, "meta": {}})
            for name, path in profiles.items():
                for size in sizes:
                    t = time.perf_counter()
                    spans = dp_spans(docs, path, size)
                    n = sum(len(v) for v in spans.values())
                    sets.append({"label": f"DP {name} {size}", "kind": "dp", "size": size, "spans": spans,
                                 "meta": {"chunks": n, "seconds": round(time.perf_counter() - t, 1)}})
            t = time.perf_counter()
            results = rb.evaluate(docs, qa, sets)
            values = {r: {lab: x["values"] for lab, x in by.items()} for r, by in results.items()}
            print(f"\n### {corpus}: {len(qa.questions)} questions ({time.perf_counter() - t:.0f} s)\n")
            print("| chunking | chunks | mean tokens | dense @1,000 | dense @2,000 | BM25 @1,000 | BM25 @2,000 | mean of four "
                  "| vs peer same size | vs shipped |")
            print("|---|---:|---:|---:|---:|---:|---:|---:|---|---|")
            rows = {}
            for cs in sets:
                lab = cs["label"]
                d, b = results["dense"][lab]["summary"], results["bm25"][lab]["summary"]
                m = mean4(values, lab)
                cells = []
                peer = next((p["label"] for p in sets if p["kind"] == "peer" and p["size"] == cs["size"]), None)
                for other in (peer, f"DP {variants[0][0]} {cs['size']}"):
                    if other and other != lab and cs["kind"] == "dp":
                        x = paired_delta(mean4(values, other), m)
                        cells.append(f"{100 * x['delta']:+.2f} [{100 * x['ci95'][0]:+.2f}, {100 * x['ci95'][1]:+.2f}]")
                    else:
                        cells.append("")
                mm = 100 * sum(m) / len(m)
                rows[lab] = {"chunks": d["chunks"], "mean_tokens": d["chunk_tokens"], "mean4": mm,
                             "dense": [d["coverage@1000tok"], d["coverage@2000tok"]],
                             "bm25": [b["coverage@1000tok"], b["coverage@2000tok"]]}
                print(f"| {lab} | {d['chunks']} | {d['chunk_tokens']:.0f} | {100 * d['coverage@1000tok']:.1f} | "
                      f"{100 * d['coverage@2000tok']:.1f} | {100 * b['coverage@1000tok']:.1f} | "
                      f"{100 * b['coverage@2000tok']:.1f} | {mm:.2f} | " + " | ".join(cells) + " |", flush=True)
            report[corpus] = {"rows": rows, "values": values, "variants": dict(variants)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
