"""What an output folder holds: document keys, alias removal and the manifest.

An output folder is a small store. Its manifest (``OUT/.adachunk/manifest.json``) lists the
documents whose chunks the folder holds, each with its key, source, content hash and chunk
ids; ``chunks.jsonl``, ``chunks.parquet`` and the vector index are rebuilt to exactly those
chunks on every run, so rows of documents that were removed, edited or chunked under another
profile never linger.

A document's key is its resolved path relative to the *input root* (the deepest folder that
holds every input), never its file stem alone: ``a/contract.md`` and ``b/contract.md`` are two
documents. The chunk ids add the text's hash, so an edited document gets new ids.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..ingest.discover import document_key, input_root
from ..sink.layout import manifest_path

log = logging.getLogger("adachunk.run")

MANIFEST_VERSION = 1


@dataclass(frozen=True)
class Input:
    """One document to process: the path as listed and its key in the output folder."""

    source: str
    key: str


def _identity(path: str) -> tuple[Any, ...]:
    """What makes two listed paths the same file (device and inode, else the resolved path)."""
    try:
        st = os.stat(path)
        return ("inode", st.st_dev, st.st_ino)
    except OSError:
        return ("path", str(Path(path).resolve()))


def plan_inputs(sources: Iterable[str], items: Sequence[str]) -> tuple[list[Input], list[str]]:
    """Keys for the expanded inputs, with aliases of one file (a folder plus a file in it, a
    symlink, ``./x`` and ``x``) kept once, at their first place.

    Returns:
        ``(inputs, warnings)``: one :class:`Input` per distinct file, and one line per alias dropped.
    """
    root = input_root(items)
    seen: dict[tuple[Any, ...], str] = {}
    out, warnings = [], []
    for source in sources:
        ident = _identity(source)
        if ident in seen:
            warnings.append(f"{source}: same file as {seen[ident]}; listed once")
            continue
        seen[ident] = source
        out.append(Input(source, document_key(source, root)))
    for w in warnings:
        log.warning(w)
    return out, warnings


@dataclass
class Manifest:
    """The documents an output folder holds (see the module docstring).

    Attributes:
        path: ``OUT/.adachunk/manifest.json``.
        fingerprint: profile fingerprint of the chunks.
        options: the job options' key.
        documents: ``key`` → entry (``source``, ``file_sha256``, ``ok``, ``analysis_key``, ``chunk_ids``).
    """

    path: Path
    fingerprint: str = ""
    options: str = ""
    documents: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, out: Path) -> "Manifest":
        """The folder's manifest (empty when missing, unreadable or of another version)."""
        path = manifest_path(out)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls(path)
        if not isinstance(data, dict) or data.get("version") != MANIFEST_VERSION:
            return cls(path)
        docs = {d["key"]: d for d in data.get("documents", []) if isinstance(d, dict) and "key" in d}
        return cls(path, data.get("fingerprint", ""), data.get("options", ""), docs)

    def stable_keys(self, inputs: list[Input]) -> list[Input]:
        """``inputs`` with the keys this folder already gave their files (a later run's inputs
        may have another common folder), and a key some other held file has replaced by the
        absolute path: one document, one key, for the folder's whole life."""
        known = {str(Path(d.get("source", "")).resolve()): k for k, d in self.documents.items()}
        out = []
        for i in inputs:
            real = str(Path(i.source).resolve())
            key = known.get(real)
            if key is None:
                held = self.documents.get(i.key)
                key = i.key if held is None else Path(real).as_posix()
            out.append(Input(i.source, key))
        return out

    def save(self) -> None:
        """Write atomically (the last step of a run: the folder now matches it)."""
        from ..sink.files import atomic_write_bytes

        data = {"version": MANIFEST_VERSION, "fingerprint": self.fingerprint, "options": self.options,
                "documents": list(self.documents.values())}
        atomic_write_bytes(self.path, json.dumps(data, ensure_ascii=False, indent=0).encode("utf-8"))


def carried_over(previous: Manifest, current: list[Input], fingerprint: str, options: str, *,
                 prune: bool, file_sha256) -> tuple[list[Input], list[str]]:
    """Documents of the previous manifest that stay although this run does not list them.

    A ``--resume`` run on some inputs keeps the folder's other documents, unless ``prune``; but
    never a document whose file is gone or changed since (its chunks would be stale), nor one
    chunked under another profile, options or adachunk version (the folder holds one policy's
    chunks, made by one version).

    Returns:
        ``(kept, dropped)``: inputs to keep in manifest order, and one reason line per drop.
    """
    listed = {i.key for i in current} | {i.source for i in current}
    kept, dropped = [], []
    for key, entry in previous.documents.items():
        source = entry.get("source", "")
        if key in listed or source in listed:
            continue
        if prune:
            dropped.append(f"{key}: not in the inputs (--prune)")
        elif previous.fingerprint != fingerprint or previous.options != options:
            dropped.append(f"{key}: chunked with another profile, options or adachunk version; not in the inputs")
        elif file_sha256(source) != entry.get("file_sha256"):
            dropped.append(f"{key}: file removed or changed since it was chunked; not in the inputs")
        else:
            kept.append(Input(source, key))
    return kept, dropped
