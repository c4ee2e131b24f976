"""Executors: serial, a local process pool (default), and Dask for clusters.

All stream results back to one callback in the main process, which is the only writer. The
local pool keeps at most ``2 × workers`` documents in flight, so memory stays bounded however
large the corpus.
"""

from __future__ import annotations

import multiprocessing as mp
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable

from ..errors import InternalError, Location
from .job import DocResult, JobOptions, process_input, process_shipped, worker_init
from .manifest import Input
from .notices import renamed

OnResult = Callable[[DocResult], None]


def run_serial(sources: Iterable[Input], opts: JobOptions, on_result: OnResult) -> None:
    """One document after the other in this process."""
    for source in sources:
        on_result(process_input(source, opts))


def run_pool(sources: Iterable[Input], opts: JobOptions, on_result: OnResult, workers: int) -> None:
    """A process pool (spawned workers: safe with torch/numba state) with bounded in-flight work."""
    it = iter(sources)
    ctx = mp.get_context("spawn")
    in_flight: dict = {}  # future -> input, to name the documents a dead worker was holding
    try:
        with ProcessPoolExecutor(workers, mp_context=ctx, initializer=worker_init) as ex:
            pending = set()

            def fill() -> None:
                while len(pending) < 2 * workers:
                    source = next(it, None)
                    if source is None:
                        return
                    fut = ex.submit(process_input, source, opts)
                    in_flight[fut] = source
                    pending.add(fut)

            fill()
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    on_result(fut.result())
                    in_flight.pop(fut, None)
                fill()
    except BrokenProcessPool:
        held = [i.source for i in in_flight.values()]
        raise InternalError(code="ADA103", message="a worker process died (killed or out of memory) while "
                            f"processing {', '.join(held[:3])}" + (f" and {len(held) - 3} more" if len(held) > 3 else ""),
                            location=Location(held[0] if held else None),
                            hint="finished documents are saved: rerun with --resume") from None


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
