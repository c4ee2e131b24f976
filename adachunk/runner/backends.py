"""Executors: serial, a local process pool (default), and Dask for clusters.

All stream results back to one callback in the main process, which is the only writer. The
local pool keeps at most ``2 × workers`` documents in flight, so memory stays bounded however
large the corpus.
"""

from __future__ import annotations

import multiprocessing as mp
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Iterable

from ..errors import InternalError
from .job import DocResult, JobOptions, process_path, worker_init

OnResult = Callable[[DocResult], None]


def run_serial(sources: Iterable[str], opts: JobOptions, on_result: OnResult) -> None:
    """One document after the other in this process."""
    for source in sources:
        on_result(process_path(source, opts))


def run_pool(sources: Iterable[str], opts: JobOptions, on_result: OnResult, workers: int) -> None:
    """A process pool (spawned workers: safe with torch/numba state) with bounded in-flight work."""
    it = iter(sources)
    ctx = mp.get_context("spawn")
    try:
        with ProcessPoolExecutor(workers, mp_context=ctx, initializer=worker_init) as ex:
            pending = set()

            def fill() -> None:
                while len(pending) < 2 * workers:
                    source = next(it, None)
                    if source is None:
                        return
                    pending.add(ex.submit(process_path, source, opts))

            fill()
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    on_result(fut.result())
                fill()
    except BrokenProcessPool:
        raise InternalError(code="ADA103", message="a worker process died (killed or out of memory)",
                            hint="finished documents are saved: rerun with --resume") from None


def run_dask(sources: list[str], opts: JobOptions, on_result: OnResult, *, scheduler: str | None = None,
             workers: int = 2, npartitions: int | None = None) -> None:
    """The same per-document job on a Dask cluster (``scheduler`` address) or a LocalCluster.

    Input paths travel as a ``dask.bag`` in partitions; each partition's results stream back
    as it completes. On a real cluster the inputs and the profile must be readable by the
    workers at the same paths (a shared filesystem), and adachunk installed there.
    """
    import dask.bag as db
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        parts = npartitions or max(1, min(len(sources), 4 * workers))
        bag = db.from_sequence(sources, npartitions=parts).map(process_path, opts)
        futures = client.compute(bag.to_delayed())
        for fut in as_completed(futures):
            for res in fut.result():
                on_result(res)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
