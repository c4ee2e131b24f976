"""Could the index reuse the selection's vectors? Pooled chunk vectors against embedded ones.

``rf`` (:mod:`adachunk.metrics.retrieval`) embeds each document once, as a grid of sentence and
line pieces, and gives every candidate chunk the token-weighted mean of its pieces' vectors. If
the index stored those means for the winner's chunks, ``adachunk run`` would skip its indexing
pass (issue 47, item 2). This script asks what that costs in retrieval: for the run's chunking
(and peers'), dense retrieval with the chunks embedded afresh (what the index does today, MiniLM
reading a chunk's first 256 word pieces) against the grid means, over the chunk's visible part
(``pooled-truncate``: rf's own estimate) or all of it (``pooled-pool``). BM25 does not change.

    python bench/index_pooled.py --corpus clair --cache DIR [--peers chonkie --sizes 128]

``--cache`` is a ``bench/retrieval_bench.py`` cache folder (its chunkings are reused or made
there). Skips cleanly (exit 0) when ../shared is absent. Results: bench/RESULTS.md, "The index
from the selection's vectors".
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import retrieval_bench as rb  # noqa: E402


class Pooled:
    """A dense retriever over precomputed chunk vectors (looked up by chunk text)."""

    name = "dense"

    def __init__(self, table: dict[str, np.ndarray], embedder):
        self.table, self.embedder = table, embedder

    def rank(self, texts, queries, top=None, **_):
        c = np.stack([self.table[t] for t in texts])
        c /= np.linalg.norm(c, axis=1, keepdims=True) + 1e-12
        q = self.embedder.encode(list(queries))
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        return [np.argsort(-row.astype(np.float64), kind="stable")[:top] for row in q @ c.T]


def pooled_tables(docs, spans_by_doc, embedder) -> dict[str, dict[str, np.ndarray]]:
    """``{mode: {chunk text: grid-mean vector}}`` for ``truncate`` and ``pool`` (one grid per document)."""
    from adachunk.metrics.retrieval import ProbeIndex

    tables: dict[str, dict[str, np.ndarray]] = {"truncate": {}, "pool": {}}
    for d, spans in spans_by_doc.items():
        if not spans:
            continue
        probe = ProbeIndex(docs[d].text, embedder, "truncate")
        for mode, table in tables.items():
            probe.truncate = mode == "truncate"
            for (a, b), v in zip(spans, probe.chunk_vectors(spans)):
                table[docs[d].text[a:b]] = v
    return tables


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--corpus", required=True, choices=rb.CORPORA)
    p.add_argument("--cache", type=Path, required=True)
    p.add_argument("--profile", default="default")
    p.add_argument("--peers", default="")
    p.add_argument("--sizes", default="128")
    a = p.parse_args(argv)
    if not rb.SHARED.is_dir():
        print("../shared is absent: nothing to measure")
        return 0
    from adachunk.datatypes import Chunk
    from adachunk.evaluate import evaluate_chunks
    from adachunk.models.embedders import load_embedder
    from adachunk.retrieval.store import VectorStore

    args = argparse.Namespace(cache=a.cache, per_doc=20, peer_text="plain", peers=a.peers, sizes=a.sizes,
                              profiles=a.profile, prefix_forms="", prefix_retrievers="dense", prefix_free=False)
    corpus = rb.open_corpus(a.corpus, args)
    embedder = load_embedder(None)
    store = VectorStore(a.cache / "vectors")
    for cs in [s for s in rb.chunkings(corpus, args) if s["kind"] in ("run", "peer") and s.get("prefixes") is None]:
        docs, qa = (corpus.docs, corpus.qa) if cs["base"] == "ada" else (corpus.peer_docs, corpus.peer_qa)
        chunks = {d: [Chunk(index=i, start=x, end=y, text=docs[d].text[x:y], size=y - x, tokens=0)
                      for i, (x, y) in enumerate(sp)] for d, sp in cs["spans"].items()}
        t = time.perf_counter()
        tables = pooled_tables(docs, cs["spans"], embedder)
        print(f"{cs['label']}: grid means in {time.perf_counter() - t:.0f} s", file=sys.stderr)
        for name, ret in [("embedded", "dense")] + [(f"pooled-{m}", Pooled(tb, embedder)) for m, tb in tables.items()]:
            res = evaluate_chunks(chunks, qa, ret, ks=(rb.K,), budgets=rb.BUDGETS, tokenizer=rb.TOKENIZER,
                                  long_text="truncate", scope=corpus.scope, read_spans=corpus.paged,
                                  store=store if name == "embedded" else None)
            values = rb.page_values(corpus, cs, docs, res) if corpus.paged else {m: res.values(m) for m in rb.MEASURES}
            shown = {m: round(100 * float(np.mean(v)), 2) for m, v in values.items() if "1000" in m or "2000" in m}
            print(f"| {cs['label']} | {name} | " + " | ".join(f"{m} {v}" for m, v in shown.items()) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
