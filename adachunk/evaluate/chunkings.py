"""The chunkings to evaluate, each from a spec string, as ``{doc id: [Chunk, ...]}``.

Specs (optionally ``LABEL=SPEC`` to name it in the tables):

* ``profile:P``: the profile's adaptive selection, as ``adachunk run`` picks the winner per
  document (every candidate split, post-processed, scored; the best weighted score wins).
* ``dp:P``: the profile's DP splitter alone (as ``adachunk chunk``; no metrics, fast).
* ``fixed:N``: fixed windows of N tokens (``fixed.v1``, no post-processing): the baseline.
* ``splitter:TYPE[:key=value,...]``: one registered splitter with parameters, not post-processed.
* a path: an ``adachunk run`` output folder (its ``chunks.jsonl``) or a chunks JSONL file
  (records with ``doc_id`` or ``source``, ``start``, ``end`` and optionally ``text``, ``tokens``,
  ``heading_path``). Each chunk's text must equal the document slice it names.

Splitters run with the ``--profile`` policy (tokenizer, heading detection), default ``default``.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ..errors import AdachunkError, InputError, Location
from ..datatypes import Chunk, Document
from .qa import doc_lookup

_LABEL = re.compile(r"^([A-Za-z_][\w.+-]*)=(.+)$")


@dataclass
class ChunkingSet:
    """One chunking of the documents.

    Attributes:
        label: the name shown in tables (``LABEL=`` or the spec).
        spec: the spec as given.
        chunks: chunks per document id.
        warnings: documents without chunks, candidates that failed, records skipped.
        meta: what made it (kind, profile, winners per candidate for ``profile:``).
    """

    label: str
    spec: str
    chunks: dict[str, list[Chunk]]
    warnings: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        """JSON summary (no chunk texts)."""
        tokens = [c.tokens for cs in self.chunks.values() for c in cs]
        return {"label": self.label, "spec": self.spec, "documents": len(self.chunks), "chunks": len(tokens),
                "mean_chunk_tokens": round(sum(tokens) / len(tokens), 1) if tokens else None,
                "warnings": self.warnings, **self.meta}


def _error(spec: str, message: str, line: int | None = None, hint: str | None = None) -> InputError:
    return InputError(code="ADA316", message=message, location=Location(spec, line), hint=hint)


def split_label(spec: str) -> tuple[str, str]:
    """``("label", "spec")`` from ``LABEL=SPEC`` (the label defaults to the spec)."""
    m = _LABEL.match(spec)
    if m and not os.path.exists(spec):
        return m.group(1), m.group(2)
    return spec.rstrip("/") or spec, spec


def load_chunking(spec: str, docs: Mapping[str, Document], profile: Any = "default",
                  progress: Callable[[str], None] | None = None) -> ChunkingSet:
    """Build or read the chunking ``spec`` for ``docs`` (see the module docstring).

    Args:
        spec: the spec, optionally ``LABEL=SPEC``.
        docs: the input documents by id.
        profile: the profile whose policy the ``fixed:``/``splitter:`` splitters use.
        progress: called with a short line per document while a chunking is built.

    Raises:
        InputError: ``ADA316`` when the spec cannot be read or names no input document.
        ProfileError: the profile named by ``profile:``/``dp:`` is invalid.
    """
    label, body = split_label(spec)
    kind, _, arg = body.partition(":")
    if kind in ("profile", "dp") and arg:
        out = _from_profile(body, arg, docs, adaptive=kind == "profile", progress=progress)
    elif kind == "fixed" and arg:
        if not arg.isdigit() or int(arg) < 4:
            raise _error(spec, f"bad fixed window size {arg!r}", hint="use fixed:N with N >= 4 tokens, e.g. fixed:512")
        out = _from_splitter(body, "fixed.v1", {"chunk_size": int(arg)}, docs, profile)
    elif kind == "splitter" and arg:
        type_name, _, params = arg.partition(":")
        out = _from_splitter(body, type_name, _params(spec, params), docs, profile)
    elif os.path.exists(body):
        out = _from_file(body, docs)
    else:
        raise _error(spec, "no such chunking: not a file or folder, nor profile:P, dp:P, fixed:N, splitter:TYPE",
                     hint="e.g. --chunking profile:default --chunking fixed:512 --chunking out/")
    out.label, out.spec = label, spec
    return out


def _params(spec: str, text: str) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for item in filter(None, text.split(",")):
        key, eq, value = item.partition("=")
        if not eq:
            raise _error(spec, f"bad splitter parameter {item!r}", hint="use key=value, e.g. splitter:recursive.v1:chunk_size=600")
        try:
            params[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            params[key.strip()] = value
    return params


def _from_profile(spec: str, profile: str, docs: Mapping[str, Document], *, adaptive: bool,
                  progress: Callable[[str], None] | None) -> ChunkingSet:
    from ..profile.cached import load_profile

    rp = load_profile(profile)
    out = ChunkingSet(spec, spec, {}, meta={"kind": "profile" if adaptive else "dp", "profile": rp.name,
                                            "profile_fingerprint": rp.fingerprint})
    winners: dict[str, int] = {}
    for doc_id, doc in docs.items():
        if progress:
            progress(f"{spec}: {doc_id}")
        if not adaptive:
            from ..split.dp import dp_chunk

            out.chunks[doc_id] = list(dp_chunk(doc, rp.policy).chunks)  # what chunk_document(doc, rp) runs
            continue
        best = _winner(doc, rp, out.warnings)
        if best is not None:
            winners[best.name] = winners.get(best.name, 0) + 1
            out.chunks[doc_id] = list(best.chunking.chunks)
    if adaptive:
        out.meta["winners"] = dict(sorted(winners.items()))
    return out


def _winner(doc: Document, rp, warnings: list[str]):
    """The adaptive winner of one document, as ``adachunk run``'s job picks it (None on failure)."""
    from ..metrics.suite import context_for
    from ..selection import select_document

    try:
        decision = select_document(doc, rp.policy, ctx=context_for(doc, rp.policy))
    except AdachunkError as err:
        warnings.append(f"{doc.id}: {err.render()}")
        return None
    if decision.best is None:
        warnings.append(f"{doc.id}: every candidate failed; its questions count as misses")
    return decision.best


def _from_splitter(spec: str, type_name: str, params: dict[str, Any], docs: Mapping[str, Document],
                   profile: Any) -> ChunkingSet:
    from ..profile.cached import load_profile
    from ..selection.candidates import make_splitter

    rp = load_profile(profile)
    splitter = make_splitter(type_name, params)
    out = ChunkingSet(spec, spec, {}, meta={"kind": "splitter", "splitter": type_name, "params": params,
                                            "policy_profile": rp.name})
    for doc_id, doc in docs.items():
        out.chunks[doc_id] = list(splitter.split(doc, rp.policy).chunks)
    return out


def _from_file(path: str, docs: Mapping[str, Document]) -> ChunkingSet:
    """Chunks from a run folder (``chunks.jsonl``) or a chunks JSONL file, checked against ``docs``."""
    p = Path(path)
    if p.is_dir():
        p = p / "chunks.jsonl"
        if not p.is_file():
            raise _error(path, "folder has no chunks.jsonl (is it an `adachunk run --out` folder?)")
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise _error(str(p), f"cannot read chunks: {getattr(exc, 'strerror', None) or exc}") from None
    names = doc_lookup(docs)
    out = ChunkingSet(path, path, {}, meta={"kind": "file", "path": str(p)})
    unknown: dict[str, int] = {}
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        rec = _record(str(p), lineno, line)
        doc_id = _doc_of(rec, names)
        if doc_id is None:
            key = str(rec.get("doc_id") or rec.get("source"))
            unknown[key] = unknown.get(key, 0) + 1
            continue
        out.chunks.setdefault(doc_id, []).append(_chunk(rec, docs[doc_id], str(p), lineno))
    if not out.chunks:
        raise _error(str(p), f"no chunk belongs to an input document ({len(docs)} given)",
                     hint=f"its documents: {', '.join(sorted(unknown)[:5]) or 'none'}; pass the documents the run chunked")
    if unknown:
        out.warnings.append(f"{sum(unknown.values())} chunks of {len(unknown)} documents not among the inputs: skipped")
    for cs in out.chunks.values():
        cs.sort(key=lambda c: (c.start, c.end))
    return out


def _record(file: str, lineno: int, line: str) -> dict[str, Any]:
    try:
        rec = json.loads(line)
    except json.JSONDecodeError as exc:
        raise _error(file, f"not a JSON line ({exc.msg})", lineno) from None
    if not isinstance(rec, dict) or not isinstance(rec.get("start"), int) or not isinstance(rec.get("end"), int):
        raise _error(file, "chunk record without integer start and end", lineno)
    if not (rec.get("doc_id") or rec.get("source")):
        raise _error(file, "chunk record without doc_id or source", lineno)
    return rec


def _doc_of(rec: dict[str, Any], names: dict[str, str]) -> str | None:
    for key in ("doc_id", "source"):
        v = rec.get(key)
        if isinstance(v, str):
            hit = names.get(v) or names.get(os.path.normpath(v)) or names.get(Path(v).name)
            if hit:
                return hit
    return None


def _chunk(rec: dict[str, Any], doc: Document, file: str, lineno: int) -> Chunk:
    s, e = rec["start"], rec["end"]
    if not 0 <= s <= e <= len(doc.text):
        raise _error(file, f"chunk span [{s}, {e}] outside document {doc.id!r} (0..{len(doc.text)})", lineno)
    text = doc.text[s:e]
    if "text" in rec and rec["text"] != text:
        raise _error(file, f"chunk text differs from document {doc.id!r} at [{s}, {e}]", lineno,
                     hint="the document changed since the run, or another document has its name: rerun the chunking")
    tokens = rec.get("tokens")
    if not isinstance(tokens, int):
        from ..tokens import get_counter

        tokens = get_counter("o200k_base").count(text)
    core = rec.get("core_start", s)
    return Chunk(index=int(rec.get("index", 0)), start=s, end=e, text=text, size=int(rec.get("size", tokens)),
                 tokens=tokens, heading_path=tuple(rec.get("heading_path") or ()), id=str(rec.get("id", "")),
                 core_start=core if isinstance(core, int) else s)


def load_chunkings(specs: Sequence[str], docs: Mapping[str, Document], profile: Any = "default",
                   progress: Callable[[str], None] | None = None) -> list[ChunkingSet]:
    """Every chunking of ``specs`` (labels made unique by appending ``#2``, ``#3``...)."""
    out, seen = [], {}
    for spec in specs:
        cs = load_chunking(spec, docs, profile, progress)
        seen[cs.label] = seen.get(cs.label, 0) + 1
        if seen[cs.label] > 1:
            cs.label = f"{cs.label}#{seen[cs.label]}"
        out.append(cs)
    return out
