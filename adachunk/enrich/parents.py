"""Parent chunks for small-to-big retrieval (the profile's ``parents:`` section).

The parents are a coarser DP chunking of the same document whose cuts are restricted to the
leaf chunks' own boundaries, so every parent is a run of whole, consecutive leaves (a leaf
never straddles two parents). The cut cost at a leaf boundary is the profile's own cost
there (the same rules and structures the leaves were cut with), the size of a parent is the
sum of its leaves' sizes, and ``parents.max_size`` / ``min_size`` / ``chunk_cost`` play the
roles of the solver's. A parent is not stored as a record of its own: its leaves carry
``parent_id`` and its span (``parent_start``, ``parent_end``), and :func:`parent_records` rebuilds
it from them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..datatypes import Document, chunk_id
from .spans import core_start


def parent_groups(records: list[dict[str, Any]], doc: Document, policy: Any, spec: dict[str, Any]) -> list[int]:
    """Leaf positions where each parent starts (first is 0), by a DP over the leaf boundaries."""
    from ..detect.base import DetectContext
    from ..solve.solver import solve
    from ..split.dp import Candidates, detect_all

    if len(records) < 2:
        return [0] if records else []
    lat = Candidates(doc, policy.solver)
    lat.add_costs(policy, detect_all(policy, DetectContext(doc.text, doc, metrics=policy.metrics)))
    bounds = [core_start(r) for r in records] + [int(records[-1]["end"])]
    idx = np.clip(np.searchsorted(lat.P, bounds), 0, len(lat.P) - 1)
    cost = np.where(lat.P[idx] == np.asarray(bounds), lat.cost[idx], 0).astype(np.int64)
    cost[0] = cost[-1] = 0
    sizes = np.concatenate([[0], np.cumsum([int(r.get("size") or 0) for r in records])]).astype(np.int64)
    chunk_cost = spec.get("chunk_cost")
    sol = solve(sizes, cost, chunk_cost=int(policy.solver.chunk_cost if chunk_cost is None else chunk_cost),
                min_size=int(spec.get("min_size") or 0), max_size=int(spec["max_size"]),
                backend=policy.solver.backend)
    return [int(c) for c in sol.cuts[:-1]]


def add_parents(records: list[dict[str, Any]], doc: Document, policy: Any, spec: dict[str, Any]) -> None:
    """Set ``parent_id``, ``parent_start``, ``parent_end`` on every leaf record."""
    starts = parent_groups(records, doc, policy, spec)
    bounds = starts + [len(records)]
    content_hash = doc.content_hash  # a sha256 of the whole text: once, not once per parent
    for lo, hi in zip(bounds, bounds[1:]):
        p_start, p_end = core_start(records[lo]), int(records[hi - 1]["end"])
        pid = chunk_id(doc.id, "parent:" + str(getattr(policy, "fingerprint", "")), p_start, p_end, content_hash)
        for r in records[lo:hi]:
            r["parent_id"], r["parent_start"], r["parent_end"] = pid, p_start, p_end


def parent_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The parent chunks of leaf records (with ``parent_id``), rebuilt from their leaves.

    A parent's text is its leaves' core texts in order (the source slice
    ``text[parent_start:parent_end]``); ``child_ids`` lists its leaves.
    """
    out: dict[str, dict[str, Any]] = {}
    for r in records:
        pid = r.get("parent_id")
        if pid is None:
            continue
        core = r["text"][core_start(r) - int(r["start"]):]
        p = out.get(pid)
        if p is None:
            out[pid] = {"id": pid, "doc_id": r.get("doc_id"), "source": r.get("source"),
                        "start": r["parent_start"], "end": r["parent_end"], "text": core,
                        "heading_path": list(r.get("heading_path") or []),
                        "structure_path": list(r.get("structure_path") or []), "child_ids": [r["id"]],
                        "profile": r.get("profile"), "profile_fingerprint": r.get("profile_fingerprint")}
        else:
            p["text"] += core
            p["child_ids"].append(r["id"])
    return list(out.values())
