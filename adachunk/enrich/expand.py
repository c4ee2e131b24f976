"""Small-to-big at query time: widen search hits to their parent chunk or their neighbours.

``adachunk search --expand parent|neighbours`` reads the output folder's ``chunks.jsonl`` (the
records carry ``parent_id``, ``prev_id`` and ``next_id``), so no vector store needs to know
about parents.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .parents import parent_records
from .spans import core_start


def expand_hits(hits: list[dict[str, Any]], out: str | Path, mode: str) -> list[dict[str, Any]]:
    """Each hit with ``expanded``: ``{"start", "end", "text", "ids"}`` of its wider context.

    Args:
        hits: search results (with ``id``).
        out: the run's output folder (or its ``chunks.jsonl``).
        mode: ``parent`` (the hit's parent chunk; the hit alone when it has none) or
            ``neighbours`` (previous chunk, hit, next chunk).
    """
    from ..sink.records import read_chunks_jsonl

    wanted = {h.get("id") for h in hits}
    records = list(read_chunks_jsonl(out))
    by_id = {r["id"]: r for r in records}
    parents = {p["id"]: p for p in parent_records([r for r in records if r.get("parent_id")])} if mode == "parent" else {}
    result = []
    for h in hits:
        rec = by_id.get(h.get("id"))
        h = dict(h)
        if rec is not None and h.get("id") in wanted:
            h["expanded"] = _parent(rec, parents) if mode == "parent" else _neighbours(rec, by_id)
        result.append(h)
    return result


def _parent(rec: dict[str, Any], parents: dict[str, dict[str, Any]]) -> dict[str, Any]:
    p = parents.get(rec.get("parent_id"))
    if p is None:
        return {"start": rec["start"], "end": rec["end"], "text": rec["text"], "ids": [rec["id"]]}
    return {"start": p["start"], "end": p["end"], "text": p["text"], "ids": list(p["child_ids"]), "parent_id": p["id"]}


def _neighbours(rec: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> dict[str, Any]:
    if "prev_id" in rec:
        prev, nxt = by_id.get(rec.get("prev_id")), by_id.get(rec.get("next_id"))
    else:  # a profile without chunk metadata: the records of the same document by index
        same = {r["index"]: r for r in by_id.values() if r.get("doc_id") == rec.get("doc_id")}
        prev, nxt = same.get(rec["index"] - 1), same.get(rec["index"] + 1)
    chain = [r for r in (prev, rec, nxt) if r is not None]
    text = chain[0]["text"] + "".join(r["text"][core_start(r) - int(r["start"]):] for r in chain[1:])
    return {"start": chain[0]["start"], "end": chain[-1]["end"], "text": text, "ids": [r["id"] for r in chain]}
