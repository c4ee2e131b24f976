"""Executors: serial, a local process pool (default), and Dask for clusters.

All stream results back to one callback in the main process, which is the only writer. The
local pool keeps at most ``2 × workers`` documents in flight, so memory stays bounded however
large the corpus, and holds each document to its bounds (:mod:`adachunk.runner.bounds`); the
serial backend holds them softly; Dask leaves them to the cluster (its own worker memory limits
and restarts).
"""

from __future__ import annotations

import multiprocessing as mp
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Callable, Iterable

from ..errors import AdachunkError
from .bounds import Bounds, soft_bounds
from .job import DocResult, JobOptions, file_sha256, process_input, process_shipped, warm_worker
from .manifest import Input
from .notices import renamed
from .pool import BoundedPool

OnResult = Callable[[DocResult], None]


def run_serial(sources: Iterable[Input], opts: JobOptions, on_result: OnResult, bounds: Bounds | None = None) -> None:
    """One document after the other in this process; ``bounds`` held softly (:func:`soft_bounds`:
    a document stuck inside one long C call finishes that call first)."""
    for source in sources:
        if bounds is None or not bounds.active:
            on_result(process_input(source, opts))
            continue
        res = None
        with soft_bounds(bounds, source.source) as breach:
            res = process_input(source, opts)
        on_result(bound_failure(source, breach[0]) if breach else res)


def run_pool(sources: Iterable[Input], opts: JobOptions, on_result: OnResult, workers: int,
             bounds: Bounds | None = None) -> None:
    """A process pool (spawned workers: safe with torch/numba state) with bounded in-flight work.

    Each worker holds one document at a time (:class:`~adachunk.runner.pool.BoundedPool`): a
    document that runs past ``bounds``, or whose worker dies, fails alone with a coded error
    naming it; its worker is replaced and every other document is processed.
    """
    it = iter(sources)
    warm = partial(warm_worker, opts)
    with BoundedPool(workers, bounds or Bounds(0, 0), mp.get_context("spawn"), warm) as pool:
        while True:
            while pool.pending < 2 * workers:  # at most two documents per worker in the pipes and queue
                source = next(it, None)
                if source is None:
                    break
                pool.submit(source, source.source, process_input, source, opts)
            if not pool.pending:
                return
            source, outcome = pool.next_done()
            if outcome.raised is not None:  # process_input never raises: a bug in the job itself
                raise outcome.raised
            on_result(outcome.value if outcome.error is None else bound_failure(source, outcome.error))


def bound_failure(source: Input, err: AdachunkError) -> DocResult:
    """The result of a document that failed for a bound or a dead worker (``err``, coded)."""
    return DocResult(source.source, file_sha256(source.source), False, source.key, error=err.render(),
                     error_code=err.code)


def run_dask(sources: list[Input], opts: JobOptions, on_result: OnResult, *, scheduler: str | None = None,
             workers: int = 2, npartitions: int | None = None, ship_inputs: bool = False) -> None:
    """The same per-document job on a Dask cluster (``scheduler`` address) or a LocalCluster.

    Inputs travel as a ``dask.bag`` in partitions; each partition's results stream back as it
    completes. Paths leave the client absolute (a worker resolves a relative path in its own
    working folder), so a cluster sharing the client's disk reads them as they are; with
    ``ship_inputs`` each document's bytes travel with its task instead, for workers that do
    not see the client's disk at all. The profile must be a builtin name or a file at the same
    absolute path on the workers, and adachunk installed there.
    """
    import dask.bag as db
    from dask.distributed import Client, LocalCluster, as_completed

    items = [replace(i, source=str(Path(i.source).absolute())) for i in sources]
    if ship_inputs:
        items = [(i, _read_bytes(i.source)) for i in items]
    job = process_shipped if ship_inputs else process_input
    listed = {i.key: i.source for i in sources}
    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        parts = npartitions or max(1, min(len(items), 4 * workers))
        bag = db.from_sequence(items, npartitions=parts).map(job, opts)
        futures = client.compute(bag.to_delayed())
        for fut in as_completed(futures):
            for res in fut.result():
                on_result(_as_listed(res, listed))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _read_bytes(path: str) -> bytes | None:
    """A document's bytes for shipping (None when unreadable: the worker then reports why)."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _as_listed(res: DocResult, listed: dict[str, str]) -> DocResult:
    """A worker's result with the source path as the user listed it (workers saw it absolute)."""
    source = listed.get(res.key, res.source)
    if source != res.source:
        if res.error:
            res.error = res.error.replace(res.source, source)
        res.notices = renamed(res.notices, res.source, source)
        res.source = source
        for rec in res.chunks:
            rec["source"] = source
    return res
