"""Per-document results on disk: the unit of atomicity and of ``--resume``.

Each finished document is written as ``OUT/.adachunk/results/<key>.json`` (plus ``<key>.npy``
for index vectors) through a temporary file and ``os.replace``, so a killed run loses at most
the documents in flight and never leaves a half-written file. The final outputs are assembled
from these entries in input order, which also makes them identical whatever order the workers
finished in.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Collection

import numpy as np

from ..sink.files import atomic_write_bytes, write_error
from ..sink.layout import results_dir
from .job import DocResult, state_key
from .notices import records


class ResultStore:
    """The ``.adachunk`` folder of an output directory."""

    def __init__(self, out: Path, fingerprint: str, options_key: str):
        self.dir = results_dir(out)
        self.fingerprint = fingerprint
        self.options_key = options_key

    def prepare(self, resume: bool) -> None:
        """Create the folder (checking the output is writable); without resume, start empty."""
        try:
            if not resume and self.dir.exists():
                shutil.rmtree(self.dir)
            self.dir.mkdir(parents=True, exist_ok=True)
            probe = self.dir / ".write-test"
            probe.write_bytes(b"ok")
            probe.unlink()
        except OSError as exc:
            raise write_error(self.dir, exc) from None

    def _paths(self, source: str) -> tuple[Path, Path]:
        key = state_key(source)
        return self.dir / f"{key}.json", self.dir / f"{key}.npy"

    def done(self, source: str, file_sha256: str | None, key: str | None = None,
             failed_for: Collection[str] = ()) -> bool:
        """True when ``source`` was finished with this profile fingerprint, options, content and
        (when given) document key; a failure whose code is in ``failed_for`` counts as finished
        (a document that failed for a bound is not retried by a resume unless asked)."""
        meta = self.meta(source)
        finished = bool(meta) and (meta.get("ok") or meta.get("error_code") in failed_for)
        return finished and file_sha256 is not None and meta.get("file_sha256") == file_sha256 \
            and meta.get("fingerprint") == self.fingerprint and meta.get("options") == self.options_key \
            and (key is None or meta.get("key") == key)

    def manifest_entry(self, source: str, key: str) -> dict[str, Any]:
        """The manifest line of a document (its saved result's hash, status, analysis-store key
        and chunk ids)."""
        meta = self.meta(source) or {}
        return {"key": key, "source": source, "file_sha256": meta.get("file_sha256"), "ok": bool(meta.get("ok")),
                "analysis_key": meta.get("analysis_key"), "chunk_ids": [c["id"] for c in meta.get("chunks", [])]}

    def forget(self, previous, current) -> None:
        """Delete the saved results of documents the previous manifest held and the current does not."""
        gone = {d.get("source") for k, d in previous.documents.items() if k not in current.documents}
        gone -= {d.get("source") for d in current.documents.values()}
        for source in gone:
            for path in self._paths(source):
                path.unlink(missing_ok=True)

    def meta(self, source: str) -> dict[str, Any] | None:
        """The saved JSON record of ``source``'s last result; None when absent or unreadable."""
        path, _ = self._paths(source)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def save(self, res: DocResult) -> None:
        """Persist one document's result atomically (vectors first, then the JSON that marks it done)."""
        path, npy = self._paths(res.source)
        if res.vectors is not None:
            import io

            buf = io.BytesIO()
            np.save(buf, res.vectors, allow_pickle=False)
            atomic_write_bytes(npy, buf.getvalue())
        entry = {"source": res.source, "key": res.key, "analysis_key": res.analysis_key, "file_sha256": res.file_sha256, "fingerprint": self.fingerprint,
                 "options": self.options_key, "ok": res.ok, "error": res.error, "error_code": res.error_code,
                 "seconds": round(res.seconds, 4), "decision": res.decision, "notices": records(res.notices), "chunks": res.chunks,
                 "has_vectors": res.vectors is not None}
        atomic_write_bytes(path, json.dumps(entry, ensure_ascii=False).encode("utf-8"))

    def load(self, source: str) -> tuple[dict[str, Any] | None, np.ndarray | None]:
        """A document's saved entry and vectors (None when absent)."""
        meta = self.meta(source)
        if not meta:
            return None, None
        vectors = None
        if meta.get("has_vectors"):
            _, npy = self._paths(source)
            vectors = np.load(npy, allow_pickle=False)
        return meta, vectors
