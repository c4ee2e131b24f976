"""A persistent vector cache for dense retrieval: :class:`VectorStore`.

:func:`adachunk.retrieval.retrievers.embed_cached` keeps vectors for the life of a process; a
store keeps them on disk, so that evaluating the same chunks again (a benchmark run twice, a
tuning study resumed) embeds nothing. Give one to ``embed_cached(store=...)``,
``make_retriever(store=...)`` or ``evaluate_chunks(store=...)``.

**Keys.** A vector is found by the embedder's fingerprint with the long-text mode
(``embedder.fingerprint``, plus ``|truncate`` for that mode: exactly the in-process cache's key)
and the sha1 of the text's UTF-8 bytes. The fingerprint names the model and its input limit, not
the runtime (torch and ONNX agree to ~2e-7) nor the batch size.

**Layout.** ``DIR/<sha1 of the fingerprint, 16 hex>/`` holds ``fingerprint.txt`` and shards: each
:meth:`VectorStore.put` writes one ``NAME.npy`` (float32, one row per text) and then
``NAME.keys`` (one text sha1 per line, row order). Both are written to a temporary name and
renamed, the keys last, so a shard counts only once complete: an interrupted run loses at most
its last batch, and two processes writing the same folder never clash (shard names are unique).
Nothing is rewritten in place; :meth:`VectorStore.compact` merges the shards of a fingerprint
into one.

A vector comes back bit for bit as it was stored (``.npy`` float32), so a cached run sees
exactly the vectors the run that stored them computed.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from pathlib import Path
from typing import Sequence

import numpy as np


def text_key(text: str) -> str:
    """sha1 (hex) of a text's UTF-8 bytes (lone surrogates kept)."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


class VectorStore:
    """Vectors on disk by (fingerprint, text); see the module docstring.

    Args:
        root: the folder (created on first write).
    """

    def __init__(self, root: str | Path):
        self.root = Path(root)
        # fingerprint -> (text sha1 -> (shard number, row)), shards as memory maps
        self._index: dict[str, dict[str, tuple[int, int]]] = {}
        self._shards: dict[str, list[np.ndarray]] = {}
        self._seen: dict[str, set[str]] = {}
        self.hits = 0
        self.misses = 0

    def folder(self, fingerprint: str) -> Path:
        """Where the vectors of one fingerprint live."""
        return self.root / hashlib.sha1(fingerprint.encode("utf-8")).hexdigest()[:16]

    def _load(self, fingerprint: str) -> dict[str, tuple[int, int]]:
        """The key index of a fingerprint, with shards written since the last look added."""
        index = self._index.setdefault(fingerprint, {})
        shards = self._shards.setdefault(fingerprint, [])
        seen = self._seen.setdefault(fingerprint, set())
        folder = self.folder(fingerprint)
        if not folder.is_dir():
            return index
        for keys_path in sorted(folder.glob("*.keys")):
            name = keys_path.stem
            if name in seen:
                continue
            npy = keys_path.with_suffix(".npy")
            if not npy.is_file():
                continue
            keys = keys_path.read_text(encoding="ascii").split()
            matrix = np.load(npy, mmap_mode="r")
            if matrix.ndim != 2 or matrix.shape[0] != len(keys):
                continue  # not one of ours, or damaged: ignored, never trusted
            seen.add(name)
            shards.append(matrix)
            number = len(shards) - 1
            for row, key in enumerate(keys):
                index.setdefault(key, (number, row))
        return index

    def get(self, fingerprint: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of those ``texts`` that have one (text → float32 vector)."""
        index = self._load(fingerprint)
        shards = self._shards[fingerprint]
        out: dict[str, np.ndarray] = {}
        for text in dict.fromkeys(texts):
            where = index.get(text_key(text))
            if where is None:
                self.misses += 1
                continue
            out[text] = np.array(shards[where[0]][where[1]], dtype=np.float32)
            self.hits += 1
        return out

    def put(self, fingerprint: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Store one vector per text (one new shard; texts already stored are skipped)."""
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(texts):
            raise ValueError(f"{len(texts)} texts but vectors of shape {vectors.shape}")
        index = self._load(fingerprint)
        rows, keys, new = [], [], set()
        for i, text in enumerate(texts):
            key = text_key(text)
            if key in index or key in new:
                continue
            new.add(key)
            rows.append(i)
            keys.append(key)
        if not rows:
            return
        folder = self.folder(fingerprint)
        folder.mkdir(parents=True, exist_ok=True)
        marker = folder / "fingerprint.txt"
        if not marker.is_file():
            _write_atomic(marker, fingerprint.encode("utf-8"))
        name = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        buf = _npy_bytes(np.ascontiguousarray(vectors[rows]))
        _write_atomic(folder / f"{name}.npy", buf)
        _write_atomic(folder / f"{name}.keys", ("\n".join(keys) + "\n").encode("ascii"))
        self._load(fingerprint)

    def fingerprints(self) -> list[str]:
        """The fingerprints with a folder on disk."""
        if not self.root.is_dir():
            return []
        return sorted(m.read_text(encoding="utf-8") for m in self.root.glob("*/fingerprint.txt"))

    def shards(self, fingerprint: str) -> int:
        """How many complete shards hold the vectors of ``fingerprint``."""
        self._load(fingerprint)
        return len(self._shards[fingerprint])

    def __len__(self) -> int:
        """Vectors stored, over every fingerprint found on disk."""
        for fp in self.fingerprints():
            self._load(fp)
        return sum(len(ix) for ix in self._index.values())

    def compact(self, fingerprint: str) -> int:
        """Merge the shards of ``fingerprint`` into one (same vectors); the number of shards
        before. Not safe while another process writes the same folder."""
        index = self._load(fingerprint)
        shards = self._shards[fingerprint]
        if len(shards) <= 1:
            return len(shards)
        folder = self.folder(fingerprint)
        old = sorted(folder.glob("*.keys"))
        keys = list(index)
        matrix = np.stack([shards[s][r] for s, r in (index[k] for k in keys)]).astype(np.float32)
        name = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        _write_atomic(folder / f"{name}.npy", _npy_bytes(matrix))
        _write_atomic(folder / f"{name}.keys", ("\n".join(keys) + "\n").encode("ascii"))
        for keys_path in old:
            keys_path.unlink()
            keys_path.with_suffix(".npy").unlink(missing_ok=True)
        before = len(shards)
        self._index.pop(fingerprint), self._shards.pop(fingerprint), self._seen.pop(fingerprint)
        self._load(fingerprint)
        return before


def _npy_bytes(matrix: np.ndarray) -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, matrix, allow_pickle=False)
    return buf.getvalue()


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
