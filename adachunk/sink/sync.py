"""Bring a vector index to exactly the chunks of an output folder's manifest.

Chunk ids cover the document key, its text hash, the profile fingerprint and the span, so a row
whose id is still wanted is still right: it is kept as is (no re-embedding, no rewrite). New
chunks are appended in large batches (one commit per batch, where a per-document upsert made
one version per document) and every other row is deleted. ``index.json`` is removed before the
first change and written back by the caller after the last, so a killed run never leaves an
index that ``search`` would trust while it holds part of the rows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .vectors import index_errors as _index_errors

BATCH = 5000  # rows per commit


class IndexSync:
    """Streaming sync: :meth:`add` every wanted chunk (with its vector), then :meth:`finish`.

    Args:
        sink: an open vector sink (:mod:`adachunk.sink.vectors`).
        out: the output folder (for ``index.json`` and error messages).
        identity: how the rows are made (sink, collection, embedder, embedded text, payload
            fields); when the folder's ``index.json`` names another, the index is rebuilt.
    """

    def __init__(self, sink, out: Path, identity: dict[str, Any]):
        self.sink, self.out = sink, Path(out)
        self.stats = {"kept": 0, "added": 0, "deleted": 0, "rebuilt": False}
        self._wanted: set[str] = set()
        self._records: list[dict[str, Any]] = []
        self._vectors: list[np.ndarray] = []
        with _index_errors(self.out):
            previous = _read_meta(self.out)
            (self.out / "index.json").unlink(missing_ok=True)
            # no index.json (a killed run, a first run) or another recipe: rows cannot be trusted
            self._existing = self.sink.ids()
            if previous is None or _comparable(previous) != _comparable(identity):
                self.stats["rebuilt"] = bool(self._existing)
                self.sink.drop()
                self._existing = set()

    def add(self, records: Sequence[dict[str, Any]], vectors: np.ndarray) -> None:
        """Want these chunks; the ones the index lacks are queued for the next batch."""
        for rec, vec in zip(records, vectors):
            cid = rec["id"]
            if cid in self._wanted:
                continue
            self._wanted.add(cid)
            if cid in self._existing:
                self.stats["kept"] += 1
            else:
                self._records.append(rec)
                self._vectors.append(np.asarray(vec, np.float32))
        if len(self._records) >= BATCH:
            self._flush()

    def finish(self) -> dict[str, Any]:
        """Write the last batch, delete unwanted rows, compact; returns the counts."""
        self._flush()
        stale = sorted(self._existing - self._wanted)
        with _index_errors(self.out):
            if stale:
                self.sink.delete(stale)
            self.sink.compact()
        self.stats["deleted"] = len(stale)
        self.stats["rows"] = len(self._wanted)
        return dict(self.stats)

    def _flush(self) -> None:
        if not self._records:
            return
        with _index_errors(self.out):
            self.sink.upsert(self._records, np.stack(self._vectors), new=True)
        self.stats["added"] += len(self._records)
        self._existing.update(r["id"] for r in self._records)
        self._records, self._vectors = [], []


def _read_meta(out: Path) -> dict[str, Any] | None:
    try:
        return json.loads((out / "index.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _comparable(meta: dict[str, Any]) -> str:
    """What must match for old rows to be reused: the store, the vectors' model and input."""
    emb = dict(meta.get("embedder") or {})
    keep = {k: meta.get(k) for k in ("sink", "collection", "qdrant_url", "embed_text", "payload")}
    if meta.get("table_rows", "markdown") != "markdown":  # an index of older versions has no key: markdown
        keep["table_rows"] = meta["table_rows"]
    keep["embedder"] = {k: emb.get(k) for k in sorted(emb) if k != "spec"} or emb.get("spec")
    return json.dumps(keep, sort_keys=True, default=str)
