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

PAYLOAD_FIELDS = ("id", "doc_id", "source", "index", "start", "end", "text", "tokens", "heading_path", "pages",
                  "profile", "profile_fingerprint", "splitter", "candidate")


class VectorSink(Protocol):
    """What ``adachunk run`` needs from a vector store."""

    def upsert(self, records: Sequence[dict[str, Any]], vectors: np.ndarray) -> None:
        """Insert or update the chunks (matched by ``id``) with their vectors."""

    def search(self, vector: np.ndarray, k: int) -> list[dict[str, Any]]:
        """The ``k`` nearest chunks: payload dicts with a ``score`` (cosine similarity)."""


def _payload(rec: dict[str, Any], embed_text: str | None = None) -> dict[str, Any]:
    out = {k: rec.get(k) for k in PAYLOAD_FIELDS}
    out["heading_path"] = list(out["heading_path"] or [])
    out["pages"] = [int(p) for p in out["pages"] or []]
    return out


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

    def upsert(self, records: Sequence[dict[str, Any]], vectors: np.ndarray) -> None:
        import pyarrow as pa

        rows = [_payload(r) | {"vector": np.asarray(v, np.float32).tolist()} for r, v in zip(records, vectors)]
        dim = int(vectors.shape[1])
        schema = pa.schema([
            ("id", pa.string()), ("doc_id", pa.string()), ("source", pa.string()), ("index", pa.int64()),
            ("start", pa.int64()), ("end", pa.int64()), ("text", pa.string()), ("tokens", pa.int64()),
            ("heading_path", pa.list_(pa.string())), ("pages", pa.list_(pa.int64())), ("profile", pa.string()),
            ("profile_fingerprint", pa.string()), ("splitter", pa.string()), ("candidate", pa.string()),
            ("vector", pa.list_(pa.float32(), dim)),
        ])
        data = pa.Table.from_pylist(rows, schema=schema)
        table = self._table()
        if table is None:
            self.db.create_table(self.name, data=data)
            return
        table.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(data)

    def search(self, vector: np.ndarray, k: int) -> list[dict[str, Any]]:
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

    def upsert(self, records: Sequence[dict[str, Any]], vectors: np.ndarray) -> None:
        from qdrant_client.models import PointStruct

        self._ensure(int(vectors.shape[1]))
        points = [PointStruct(id=self.point_id(r["id"]), vector=np.asarray(v, np.float32).tolist(), payload=_payload(r))
                  for r, v in zip(records, vectors)]
        self.client.upsert(self.collection, points=points, wait=True)

    def search(self, vector: np.ndarray, k: int) -> list[dict[str, Any]]:
        if not self.client.collection_exists(self.collection):
            return []
        res = self.client.query_points(self.collection, query=np.asarray(vector, np.float32).tolist(), limit=k,
                                       with_payload=True)
        return [dict(p.payload or {}) | {"score": round(float(p.score), 6)} for p in res.points]

    def count(self) -> int:
        if not self.client.collection_exists(self.collection):
            return 0
        return int(self.client.count(self.collection, exact=True).count)

    def close(self) -> None:
        self.client.close()


def open_sink(out: Path, index: dict[str, Any]) -> VectorSink | None:
    """The sink configured by a profile's ``index`` section for the output folder ``out``."""
    kind = index.get("sink", "lancedb")
    if kind == "none":
        return None
    if kind == "qdrant":
        url = index.get("qdrant_url")
        return QdrantSink(url=url, path=None if url else Path(out) / "qdrant", collection=index.get("collection", "chunks"))
    return LanceDBSink(Path(out) / "lancedb", index.get("collection", "chunks"))


def write_index_meta(out: Path, index: dict[str, Any], embedder_identity: dict[str, Any]) -> None:
    """Record how the index was built (``search`` reads it back)."""
    meta = {"sink": index.get("sink", "lancedb"), "collection": index.get("collection", "chunks"),
            "qdrant_url": index.get("qdrant_url"), "embed_text": index.get("embed_text"),
            "embedder": embedder_identity}
    (Path(out) / "index.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")


def read_index_meta(out: Path) -> dict[str, Any]:
    """The ``index.json`` of an output folder (``ADA312`` when there is no index)."""
    from ..errors import InputError, Location

    path = Path(out) / "index.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise InputError(code="ADA312", message=f"{out} has no vector index (index.json missing)",
                         location=Location(str(path)), hint="run `adachunk run ... --out DIR` with an index sink first") from None
