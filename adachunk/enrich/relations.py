"""Neighbour links between consecutive chunks of a document (``prev_id`` / ``next_id``)."""

from __future__ import annotations

from typing import Any


def add_neighbours(records: list[dict[str, Any]]) -> None:
    """Link each record to the previous and next record of the same document (None at the ends)."""
    for i, r in enumerate(records):
        prev = records[i - 1] if i > 0 and records[i - 1].get("doc_id") == r.get("doc_id") else None
        nxt = records[i + 1] if i + 1 < len(records) and records[i + 1].get("doc_id") == r.get("doc_id") else None
        r["prev_id"] = prev["id"] if prev is not None else None
        r["next_id"] = nxt["id"] if nxt is not None else None
