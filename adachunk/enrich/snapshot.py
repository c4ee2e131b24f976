"""Readable golden snapshots of chunk metadata (``tests/golden/enrich/*.json``).

Ids change with the document id and the profile fingerprint, so a snapshot names chunks by their
``index`` (``"#4"``) and never holds an id: its diff shows only what a rule change did to the
metadata (a structure path, a resolved reference, a table context).
"""

from __future__ import annotations

import json
from typing import Any

HEAD = 48


def snapshot_of(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One plain dict per chunk: span, head of its text and its metadata, chunks by index."""
    by_id = {r["id"]: r["index"] for r in records}
    parents: dict[str, int] = {}
    out = []
    for r in records:
        item: dict[str, Any] = {"index": r["index"], "span": f"{r['start']}-{r['end']}",
                                "head": " ".join(r["text"][:HEAD].split())}
        for key in ("structure_path", "structure_covers", "defines"):
            if r.get(key):
                item[key] = r[key]
        if r.get("defined_terms"):
            item["defined_terms"] = [f"{d['term']} → #{d['chunk_index']}" for d in r["defined_terms"]]
        if r.get("references"):
            item["references"] = [_ref(x) for x in r["references"]]
        if r.get("table_context"):
            item["table_context"] = r["table_context"].split("\n")
        if r.get("parent_id"):
            item["parent"] = parents.setdefault(r["parent_id"], len(parents))
        if r.get("embed_prefix"):
            item["embed_prefix"] = r["embed_prefix"].rstrip("\n").split("\n")
        links = [by_id.get(r.get("prev_id")), by_id.get(r.get("next_id"))]
        if links != [r["index"] - 1 if r["index"] > 0 else None, r["index"] + 1 if r["index"] + 1 < len(records) else None]:
            item["links"] = links  # only when not the plain sequence
        out.append(item)
    return out


def _ref(x: dict[str, Any]) -> str:
    where = "another act" if x.get("other_act") else ("not in document" if x["chunk_index"] is None
                                                       else f"#{x['chunk_index']}")
    return f"{x['text']} → {x['target'] or '?'} ({where})"


def render(records: list[dict[str, Any]]) -> str:
    """The snapshot text: JSON, one key per line, for a readable ``git diff``."""
    return json.dumps(snapshot_of(records), ensure_ascii=False, indent=1) + "\n"
