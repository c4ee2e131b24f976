"""Content addresses: what a document's analysis and a detector's result are keyed by.

A document's facts depend on its text and on what its reader knew (split points, pages,
titles, precomputed coreference pairs: ``document.block.v1`` and ``coref.pair.v1`` read them),
never on its id or path: two copies of one file share one analysis. A detector's spans depend
on its class, its validated parameters, the files it read (a grammar) and the metric settings
it declares it reads (``reads_metrics``: the coreference backend, the embedder) — never on a
rule, a size, a chunk cost or a weight, so changing those never re-detects.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..datatypes import Document


def _digest(obj: Any) -> str:
    data = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str, ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()


def document_key(doc: Document) -> str:
    """sha256 of the text and of the reader's facts that detectors and metrics may read."""
    h = hashlib.sha256(doc.content_hash.encode())  # the text's own sha256, as runs and ids use it
    facts = {
        "split_points": doc.split_points,
        "pages": [(p.number, p.start, p.end) for p in doc.pages] if doc.pages else None,
        "titles": doc.titles,
        "pairs": doc.entity_pron_pairs,
    }
    h.update(b"\0" + _digest(facts).encode())
    return h.hexdigest()


def _file_digest(path: Path) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "missing"


def _metric_setting(metrics: Any, key: str) -> Any:
    """One key of the ``metrics`` section (a MetricsSpec or a mapping) as plain data."""
    value = metrics.get(key) if isinstance(metrics, dict) else getattr(metrics, key, None)
    return value.model_dump() if hasattr(value, "model_dump") else value


def detector_key(det: Any, metrics: Any = None) -> str:
    """Content address of one detector's output on any document (see module docstring)."""
    cached = det.__dict__.get("_adachunk_key")
    reads = tuple(getattr(det, "reads_metrics", ()))
    if cached is not None and not reads:
        return cached
    files = getattr(det, "source_files", None) or (
        [det.path] if isinstance(getattr(det, "path", None), Path) else [])
    params = det.params.model_dump(mode="json") if hasattr(det.params, "model_dump") else det.params
    spec = {
        "class": f"{type(det).__module__}.{type(det).__qualname__}",
        "params": params,
        "files": [_file_digest(Path(f)) for f in files],
        "metrics": {k: _metric_setting(metrics, k) for k in reads},
    }
    key = _digest(spec)[:32]
    if not reads:
        det.__dict__["_adachunk_key"] = key  # parameters and files are fixed once built
    return key
