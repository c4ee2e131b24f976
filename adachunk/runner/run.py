"""``run_corpus``: the main job — adaptive chunking of a corpus into JSONL/Parquet + a vector index."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..ingest import supported_suffixes
from ..ingest.discover import expand_inputs
from .backends import run_dask, run_pool, run_serial
from .job import DocResult, JobOptions, file_sha256
from .outputs import assemble
from .progress import Progress
from .state import ResultStore

_EMBEDDING_METRICS = ("icc", "dcc")  # the metrics that embed chunks


@dataclass
class RunSummary:
    """What a run did (the full summary is also in ``OUT/summary.json``)."""

    out: Path
    documents: int
    processed: int
    skipped: int
    failed: int
    chunks: int
    seconds: float
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.failed == 0 and not self.summary.get("totals", {}).get("missing")


def run_corpus(inputs: Iterable[str], profile: str = "default", out: str | os.PathLike = "out", *,
               workers: int | None = None, resume: bool = False, backend: str = "local",
               scheduler: str | None = None, overrides: dict[str, Any] | None = None, errors: str = "strict",
               postprocess: bool = True, sink: str | None = None, qdrant_url: str | None = None,
               progress: bool | None = None) -> RunSummary:
    """Adaptive chunking of every input; see the README for the output files.

    Args:
        inputs: files, folders or globs (``.md``, ``.txt``, paper ``.json``, ``.pdf``).
        profile: builtin profile name or YAML path.
        out: output folder (created).
        workers: worker processes (default: the machine's cores, at most one per document).
        resume: skip documents already done with the same profile fingerprint and content.
        backend: ``local`` (process pool), ``serial`` or ``dask``.
        scheduler: Dask scheduler address (``backend="dask"``; None starts a LocalCluster).
        overrides: solver overrides.
        errors: ``strict`` or ``replace`` for invalid UTF-8.
        postprocess: post-process candidates as the profile says.
        sink: override the profile's index sink (``lancedb``, ``qdrant``, ``none``).
        qdrant_url: Qdrant server URL (``sink="qdrant"``; None: local mode under ``out``).
        progress: force the progress line on/off (default: on a TTY).
    """
    from ..api import load_profile

    t0 = time.perf_counter()
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    rp = load_profile(profile, **overrides)
    index = dict(rp.policy.index)
    if sink:
        index["sink"] = sink
    if qdrant_url:
        index["qdrant_url"] = qdrant_url
    opts = JobOptions(profile=str(profile), overrides=tuple(sorted(overrides.items())), errors=errors,
                      postprocess=postprocess, index=index.get("sink") != "none")
    check_embedders(rp, index, opts.index)
    out = Path(out)
    store = ResultStore(out, rp.fingerprint, opts.key())
    store.prepare(resume)
    sources = list(expand_inputs(inputs, supported_suffixes()))
    todo = [s for s in sources if not (resume and store.done(s, file_sha256(s)))]
    bar = Progress(len(todo), enabled=progress)
    failed = 0

    def on_result(res: DocResult) -> None:
        nonlocal failed
        store.save(res)
        failed += int(not res.ok)
        bar.update(len(res.chunks), not res.ok)

    n = workers or os.cpu_count() or 1
    n = max(1, min(n, len(todo) or 1))
    if backend == "dask":
        run_dask(todo, opts, on_result, scheduler=scheduler, workers=n)
    elif backend == "serial" or n == 1:
        run_serial(todo, opts, on_result)
    else:
        run_pool(todo, opts, on_result, n)
    bar.close()
    vec_sink = _sink(out, index, rp) if opts.index else None
    summary = assemble(out, sources, store, index_sink=vec_sink)
    if vec_sink is not None and hasattr(vec_sink, "close"):
        vec_sink.close()
    totals = summary["totals"]
    return RunSummary(out, len(sources), len(todo), len(sources) - len(todo), totals["failed"], totals["chunks"],
                      time.perf_counter() - t0, summary)


def check_embedders(rp, index: dict[str, Any], with_index: bool) -> None:
    """Fail before any document (and any output) when an embedding model the run needs is not
    available: the ICC/DCC embedder when they weigh in the score, the index embedder when there
    is an index. A per-document failure would cost the whole corpus's work and end in the same
    error; building the embedder checks the model offline without loading it.

    Raises:
        ProfileError: ``ADA213`` located at the profile key naming the model.
    """
    from ..errors import Location, ProfileError
    from ..metrics.embedders import load_embedder
    from ..profile.yamlmarks import mark_at

    weights = rp.policy.metrics.get("weights", {})
    needed = []
    if any(weights.get(key) for key in _EMBEDDING_METRICS):
        needed.append(("metrics", "embedder"))
    if with_index:
        needed.append(("index", "embedder") if index.get("embedder") else ("metrics", "embedder"))
    for path in dict.fromkeys(needed):
        spec = index.get("embedder") if path[0] == "index" else rp.policy.metrics.get("embedder")
        try:
            load_embedder(spec)
        except ProfileError as err:
            err.key_path = ".".join(path + ("model",))
            mark = mark_at(rp.data, path + ("model",))
            if mark:
                err.location = Location(*mark)
            err.hint = (err.hint + "; " if err.hint else "") + (
                "to run without embeddings, set metrics.weights icc and dcc to 0 and use --sink none")
            raise


def _sink(out: Path, index: dict[str, Any], rp):
    """Open the vector sink and record the index metadata (embedder identity from the profile)."""
    from ..metrics.embedders import load_embedder
    from ..sink.vectors import open_sink, write_index_meta

    sink = open_sink(out, index)
    if sink is None:
        return None
    spec = index.get("embedder") or rp.policy.metrics.get("embedder")
    emb = load_embedder(spec)
    write_index_meta(out, index, {"spec": spec, **emb.identity()})
    return sink
