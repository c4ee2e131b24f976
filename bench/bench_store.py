"""Output folder as a store: index write time for many tiny files, and what a re-run re-embeds.

    python bench/bench_store.py tiny --n 2000
    python bench/bench_store.py reindex [FILES...]    # default: CLAIR, else examples/

``tiny`` chunks N one-paragraph files (hash embedder, serial) and reports the time spent
assembling outputs and writing the LanceDB index, its size and version count. ``reindex`` runs
a profile, then a variant (``--variant YAML``), into the same folder with
``--resume``: it reports the share of winner boundaries that moved, the index rows kept and
added, and the model inputs of the second run against a cold run of the variant.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adachunk.runner import run_corpus  # noqa: E402

BASE = """\
name: bench_store
extends: default
metrics:
  embedder: {type: hash.v1}
  coref: {type: precomputed.v1}
"""
VARIANT = BASE.replace("name: bench_store", "name: bench_store_variant") + "%s\n"
SENTENCE = "rules:\n  items:\n    - {name: sentence, structure: sentence, on: {shape: const, scale: 100}}"


class Counter:
    """Counts the texts given to the embedding model (``encode``) in this process."""

    def __init__(self):
        from adachunk.models.embedders.hashing import HashEmbedder

        self.n = 0
        original = HashEmbedder.encode

        def encode(emb, texts):
            self.n += len(texts)
            return original(emb, texts)

        HashEmbedder.encode = encode


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def tiny(n: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "in").mkdir()
        for i in range(n):
            (tmp / "in" / f"note_{i:05d}.md").write_text(f"# Note {i}\n\nParagraph number {i} of the corpus.\n")
        prof = tmp / "p.yaml"
        prof.write_text(BASE)
        t0 = time.perf_counter()
        res = run_corpus([str(tmp / "in")], str(prof), tmp / "out", backend="serial", progress=False)
        total = time.perf_counter() - t0
        import lancedb

        table = lancedb.connect(str(tmp / "out" / "lancedb")).open_table("chunks")
        return {"files": n, "chunks": res.chunks, "run_s": round(total, 1),
                "assemble_and_index_s": res.summary["timings"]["assemble_s"],
                "index_mb": round(_size(tmp / "out" / "lancedb") / 2**20, 2), "versions": len(table.list_versions())}


def _boundaries(out: Path) -> set[tuple[str, int]]:
    return {(c["doc_id"], c["end"]) for c in map(json.loads, (out / "chunks.jsonl").read_text().splitlines())}


def reindex(files: list[str], variant: str) -> dict:
    counter = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        base, var = tmp / "base.yaml", tmp / "variant.yaml"
        base.write_text(BASE)
        var.write_text(VARIANT % variant)
        first = run_corpus(files, str(base), tmp / "out", backend="serial", progress=False)
        before = _boundaries(tmp / "out")
        counter.n = 0
        second = run_corpus(files, str(var), tmp / "out", backend="serial", progress=False, resume=True)
        reused_inputs = counter.n
        after = _boundaries(tmp / "out")
        counter.n = 0
        run_corpus(files, str(var), tmp / "cold", backend="serial", progress=False)
        cold_inputs = counter.n
    moved = len(after - before) / max(len(after), 1)
    idx = second.summary["index"]
    return {"documents": first.documents, "chunks_before": first.chunks, "chunks_after": second.chunks,
            "boundaries_moved_pct": round(100 * moved, 1), "index_rows_kept": idx["kept"],
            "index_rows_added": idx["added"], "index_rows_deleted": idx["deleted"],
            "model_inputs_rerun": reused_inputs, "model_inputs_cold": cold_inputs,
            "reembedded_pct": round(100 * reused_inputs / max(cold_inputs, 1), 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("tiny")
    t.add_argument("--n", type=int, default=2000)
    r = sub.add_parser("reindex")
    r.add_argument("files", nargs="*")
    r.add_argument("--variant", default=SENTENCE, help="YAML appended to the base profile (default: the "
                   "sentence punishment 150 -> 100)")
    args = ap.parse_args()
    if args.cmd == "tiny":
        print(json.dumps(tiny(args.n), indent=1))
        return
    files = args.files
    if not files:
        clair = ROOT.parent / "shared" / "corpus" / "clair"
        files = sorted(str(p) for p in clair.glob("*_*.json") if p.name != "paper_reference.json")
        files = files or [str(p) for p in (ROOT / "examples").glob("*.md")]
    print(json.dumps({"variant": args.variant, **reindex(files, args.variant)}, indent=1))


if __name__ == "__main__":
    main()
