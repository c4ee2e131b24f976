"""Vector stores behind one small protocol: LanceDB (embedded default) and Qdrant (server/cluster).

Both upsert by chunk id, so re-running a corpus updates chunks in place. The same Qdrant code
runs in local mode (``path=``, used in tests) and against a server or cluster (``url=``).
The output folder's ``index.json`` records which store, collection and embedder were used, so
``adachunk search`` embeds queries with the same model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol, Sequence

import numpy as np

from ..errors import InputError, Location
from .records import arrow_schema

PAYLOAD_FIELDS = ("id", "doc_id", "source", "index", "start", "end", "text", "tokens", "heading_path", "pages",
                  "profile", "profile_fingerprint", "splitter", "candidate",
                  # chunk metadata (adachunk.enrich): neighbours and parent for small-to-big retrieval
                  "prev_id", "next_id", "parent_id", "structure_path", "embed_prefix")


class VectorSink(Protocol):
    """What ``adachunk run`` needs from a vector store."""

    def upsert(self, records: Sequence[dict[str, Any]], vectors: np.ndarray, *, new: bool = False) -> None:
        """Insert or update the chunks (matched by ``id``) with their vectors."""

    def ids(self) -> set[str]:
        """Every chunk id in the store."""

    def delete(self, ids: Sequence[str]) -> None:
        """Remove chunks by id."""

    def drop(self) -> None:
        """Remove every chunk."""

    def compact(self) -> None:
        """Reclaim the space of earlier versions."""

    def search(self, vector: np.ndarray, k: int) -> list[dict[str, Any]]:
        """The ``k`` nearest chunks: payload dicts with a ``score`` (cosine similarity)."""


def _payload(rec: dict[str, Any], embed_text: str | None = None) -> dict[str, Any]:
    out = {k: rec.get(k) for k in PAYLOAD_FIELDS}
    out["heading_path"] = list(out["heading_path"] or [])
    out["pages"] = [int(p) for p in out["pages"] or []]
    return out


_DELETE_BATCH = 1000  # ids per delete predicate


class LanceDBSink:
    """Embedded LanceDB table under the output folder (no server)."""

    def __init__(self, uri: str | Path, table: str = "chunks"):
        import lancedb

        self.db = lancedb.connect(str(uri))
        self.name = table

    def _table(self):
        try:
            return self.db.open_table(self.name)
        except (FileNotFoundError, ValueError):
            return None

    def upsert(self, records: Sequence[dict[str, Any]], vectors: np.ndarray, *, new: bool = False) -> None:
        """Insert or update by id; ``new=True`` appends rows known to be absent (one cheap commit)."""
        import pyarrow as pa

        rows = [_payload(r) | {"vector": np.asarray(v, np.float32).tolist()} for r, v in zip(records, vectors)]
        dim = int(vectors.shape[1])
        record = arrow_schema()
        schema = pa.schema([record.field(name) for name in PAYLOAD_FIELDS] + [("vector", pa.list_(pa.float32(), dim))])
        data = pa.Table.from_pylist(rows, schema=schema)
        table = self._table()
        if table is None:
            self.db.create_table(self.name, data=data)
        elif new:
            table.add(data)
        else:
            table.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(data)

    def ids(self) -> set[str]:
        """The chunk ids the table holds (read without the vectors)."""
        table = self._table()
        if table is None:
            return set()
        return set(table.search().select(["id"]).limit(None).to_arrow()["id"].to_pylist())

    def delete(self, ids: Sequence[str]) -> None:
        """Remove rows by chunk id."""
        table = self._table()
        ids = list(ids)
        for i in range(0, len(ids) if table is not None else 0, _DELETE_BATCH):
            quoted = ",".join("'" + x.replace("'", "''") + "'" for x in ids[i:i + _DELETE_BATCH])
            table.delete(f"id IN ({quoted})")

    def drop(self) -> None:
        """Remove the whole table (the index is rebuilt, e.g. for another embedder)."""
        if self._table() is not None:
            self.db.drop_table(self.name)

    def compact(self) -> None:
        """Merge the small files of many commits and drop old versions (the run holds the
        folder's lock, so no writer uses them; a reader mid-query may have to retry)."""
        import warnings
        from datetime import timedelta

        table = self._table()
        if table is None:
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)

    def search(self, vector: np.ndarray, k: int) -> list[dict[str, Any]]:
        """The ``k`` stored chunks nearest to ``vector`` by cosine: payload and ``score``."""
        table = self._table()
        if table is None:
            return []
        hits = table.search(np.asarray(vector, np.float32).tolist()).metric("cosine").limit(k).to_list()
        out = []
        for h in hits:
            h = dict(h)
            h.pop("vector", None)
            h["score"] = round(1.0 - float(h.pop("_distance", 1.0)), 6)
            out.append(h)
        return out

    def count(self) -> int:
        """Rows stored in the table (0 before the first write)."""
        table = self._table()
        return 0 if table is None else int(table.count_rows())


class QdrantSink:
    """Qdrant collection: local mode (``path``) for tests, a server or cluster (``url``) in production."""

    def __init__(self, *, path: str | Path | None = None, url: str | None = None, collection: str = "chunks",
                 api_key: str | None = None):
        from qdrant_client import QdrantClient

        self.client = QdrantClient(url=url, api_key=api_key) if url else QdrantClient(path=str(path))
        self.collection = collection

    @staticmethod
    def point_id(chunk_id: str) -> int:
        """Qdrant ids are integers or UUIDs: the chunk id's 64 bits as an unsigned integer."""
        return int(chunk_id[:16], 16)

    def _ensure(self, dim: int) -> None:
        from qdrant_client.models import Distance, VectorParams

        if not self.client.collection_exists(self.collection):
            self.client.create_collection(self.collection, vectors_config=VectorParams(size=dim, distance=Distance.COSINE))

    def upsert(self, records: Sequence[dict[str, Any]], vectors: np.ndarray, *, new: bool = False) -> None:
        """Insert or update by id (Qdrant upserts either way; ``new`` is accepted for the protocol)."""
        from qdrant_client.models import PointStruct

        self._ensure(int(vectors.shape[1]))
        points = [PointStruct(id=self.point_id(r["id"]), vector=np.asarray(v, np.float32).tolist(), payload=_payload(r))
                  for r, v in zip(records, vectors)]
        self.client.upsert(self.collection, points=points, wait=True)

    def ids(self) -> set[str]:
        """The chunk ids the collection holds (scrolled without vectors)."""
        if not self.client.collection_exists(self.collection):
            return set()
        out: set[str] = set()
        offset = None
        while True:
            points, offset = self.client.scroll(self.collection, limit=1000, offset=offset, with_payload=["id"],
                                                with_vectors=False)
            out.update(str((p.payload or {}).get("id")) for p in points)
            if offset is None:
                return out

    def delete(self, ids: Sequence[str]) -> None:
        """Remove points by chunk id."""
        from qdrant_client.models import PointIdsList

        ids = list(ids)
        if ids and self.client.collection_exists(self.collection):
            for i in range(0, len(ids), _DELETE_BATCH):
                self.client.delete(self.collection, points_selector=PointIdsList(
                    points=[self.point_id(x) for x in ids[i:i + _DELETE_BATCH]]), wait=True)

    def drop(self) -> None:
        """Remove the whole collection."""
        if self.client.collection_exists(self.collection):
            self.client.delete_collection(self.collection)

    def compact(self) -> None:
        """Nothing to do: Qdrant optimises its segments itself."""

    def search(self, vector: np.ndarray, k: int) -> list[dict[str, Any]]:
        """The ``k`` stored points nearest to ``vector``: payload and ``score``."""
        if not self.client.collection_exists(self.collection):
            return []
        res = self.client.query_points(self.collection, query=np.asarray(vector, np.float32).tolist(), limit=k,
                                       with_payload=True)
        return [dict(p.payload or {}) | {"score": round(float(p.score), 6)} for p in res.points]

    def count(self) -> int:
        """Points stored in the collection (exact count; 0 before the first write)."""
        if not self.client.collection_exists(self.collection):
            return 0
        return int(self.client.count(self.collection, exact=True).count)

    def close(self) -> None:
        """Release the client (and, in local mode, the lock on the storage folder)."""
        self.client.close()


def open_sink(out: Path, kind: str, collection: str, qdrant_url: str | None = None) -> VectorSink | None:
    """The vector store ``kind`` (``lancedb``, ``qdrant`` or ``none``) for the output folder ``out``.

    Args:
        out: the run's output folder (local stores live under it).
        kind: the ``index.sink`` setting, or what ``index.json`` recorded.
        collection: table / collection name.
        qdrant_url: a Qdrant server; None keeps Qdrant in local mode under ``out``.

    Returns:
        The open sink, or None for ``none``.
    """
    if kind == "none":
        return None
    with index_errors(Path(out)):  # e.g. a local Qdrant folder another process has open
        if kind == "qdrant":
            return QdrantSink(url=qdrant_url, path=None if qdrant_url else Path(out) / "qdrant",
                              collection=collection)
        return LanceDBSink(Path(out) / "lancedb", collection)


def index_meta(index: Any, embedder_identity: dict[str, Any]) -> dict[str, Any]:
    """How an index is built: its store, collection, embedded text and embedder.

    Args:
        index: the profile's ``index`` section (:class:`~adachunk.policy_types.IndexSpec`).
        embedder_identity: the index embedder's spec and identity.
    """
    return {"sink": index.sink, "collection": index.collection, "qdrant_url": index.qdrant_url,
            "embed_text": index.model_dump(include={"embed_text"})["embed_text"], "table_rows": index.table_rows,
            "embedder": embedder_identity, "payload": list(PAYLOAD_FIELDS)}


def write_index_meta(out: Path, meta: dict[str, Any]) -> None:
    """Record how the index was built (``search`` reads it back); written atomically, and only
    once the index is complete."""
    from .files import atomic_write_bytes

    atomic_write_bytes(Path(out) / "index.json", (json.dumps(meta, indent=1) + "\n").encode("utf-8"))


def read_index_meta(out: Path) -> dict[str, Any]:
    """The ``index.json`` of an output folder (``ADA312`` when there is no index)."""

    path = Path(out) / "index.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise InputError(code="ADA312", message=f"{out} has no vector index (index.json missing)",
                         location=Location(str(path)), hint="run `adachunk run ... --out DIR` with an index sink first") from None


class index_errors:
    """Context manager: a failing vector store becomes ``ADA320`` (never a raw traceback)."""

    def __init__(self, out: Path):
        self.out = out

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, exc, tb) -> bool:
        if exc is None or isinstance(exc, InputError) or not isinstance(exc, Exception):
            return False
        text = str(exc) or type(exc).__name__
        disk = "No space left" in text or getattr(exc, "errno", None) == 28
        raise InputError(
            code="ADA320", message=f"the vector index under {self.out} cannot be written: {text[:300]}",
            location=Location(str(self.out)),
            hint=("free some disk space, then " if disk else "") + "rerun with --resume: the chunk files and "
                 "per-document results are saved, and the index is rebuilt to match them") from None
