"""Cross-reference resolution on the CLAIR GDPR and AI Act (legal profile), for hand-checking.

    python bench/bench_xrefs.py [--n 25] [--seed 7] [--docs Norma_legal_GDPR Norma_legal_The_AI_Act]

Prints the counts (references, resolved, another act), then a seeded sample of ``--n``
in-document references per document (references naming another act are left out): the
reference in its context, the parsed target, and the text where the resolved target unit
starts, with the index of the chunk holding it. A reader marks each row hit or miss by reading
that text (bench/RESULTS.md, "Chunk metadata").
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import CLAIR  # noqa: E402


def enriched(name: str):
    """(document, enriched records) of one CLAIR document under the legal profile."""
    from adachunk.api import chunk_document, load_profile
    from adachunk.enrich import enrich_records
    from adachunk.ingest import read_document
    from adachunk.sink.records import chunk_record

    rp = load_profile("legal")
    doc = read_document(CLAIR / f"{name}.json")
    chunking = chunk_document(doc, rp)
    recs = [chunk_record(c, doc, rp.name, rp.fingerprint, chunking.splitter) for c in chunking.chunks]
    return doc, enrich_records(recs, doc, rp.policy)


def _flat(s: str, n: int) -> str:
    return " ".join(s.split())[:n]


_HEAD = re.compile(r"(?m)^[#* ]*(?:Article|ARTICLE|ANNEX|Annex) +[\dIVXL]+\w*")


def _heading_before(text: str, pos) -> str:
    """The last article or annex heading line before ``pos`` (read from the text, for the checker)."""
    if pos is None:
        return "-"
    found = None
    for m in _HEAD.finditer(text, max(0, pos - 40000), pos + 30):
        found = m
    return found.group(0).strip("#* ") if found else "?"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=25, help="sampled references per document")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--docs", nargs="+", default=["Norma_legal_GDPR", "Norma_legal_The_AI_Act"])
    args = ap.parse_args(argv)
    if not CLAIR.is_dir():
        print("no CLAIR corpus at", CLAIR)
        return 0
    for name in args.docs:
        doc, recs = enriched(name)
        refs = [x for r in recs for x in r.get("references", [])]
        own = [x for x in refs if not x["other_act"]]
        print(f"## {name}: {len(recs)} chunks, {len(refs)} references, {len(refs) - len(own)} to another act, "
              f"{len(own)} in-document, {sum(x['chunk_index'] is not None for x in own)} resolved")
        for k, x in enumerate(sorted(random.Random(args.seed).sample(own, min(args.n, len(own))),
                                     key=lambda x: x["start"]), 1):
            ctx = _flat(doc.text[max(0, x["start"] - 50):x["end"] + 30], 130)
            at = "-" if x["target_start"] is None else _flat(doc.text[x["target_start"]:x["target_start"] + 90], 90)
            print(f"{k:>2}. @{x['start']} [{_heading_before(doc.text, x['start'])}] «{ctx}»\n"
                  f"    → {x['target']} chunk {x['chunk_index']}: "
                  f"[{_heading_before(doc.text, x['target_start'])}] «{at}»")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
