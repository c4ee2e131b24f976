"""The collector pause around chunking: nesting, threads, the caller's own setting, opt-out."""

from __future__ import annotations

import gc
import threading

import pytest

from adachunk.runtime import gcpause as _gcpause
from adachunk.split import dp


@pytest.fixture(autouse=True)
def _collector_enabled():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_pause_nests_and_restores():
    with _gcpause.paused():
        assert not gc.isenabled()
        with _gcpause.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_callers_disabled_collector_stays_disabled():
    gc.disable()
    with _gcpause.paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_pause_is_restored_after_an_error():
    with pytest.raises(RuntimeError):
        with _gcpause.paused():
            raise RuntimeError("boom")
    assert gc.isenabled()


def test_threads_share_one_pause():
    inside, release = threading.Barrier(3), threading.Event()

    def work():
        with _gcpause.paused():
            inside.wait()
            release.wait()

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    inside.wait()
    assert not gc.isenabled()
    release.set()
    for t in threads:
        t.join()
    assert gc.isenabled()


def test_the_pause_ends_with_the_call_that_made_it():
    """Another thread's call still running does not keep the collector off."""
    started, release, done = threading.Event(), threading.Event(), threading.Event()

    def other():
        with _gcpause.paused():
            started.set()
            release.wait()
        done.set()

    with _gcpause.paused():  # this call owns the pause
        t = threading.Thread(target=other)
        t.start()
        started.wait()
        assert not gc.isenabled()
    assert gc.isenabled()  # the owner returned: the other call goes on with the collector
    release.set()
    t.join()
    assert done.is_set() and gc.isenabled()


@pytest.mark.parametrize("value", ["0", "false", "off"])
def test_opt_out(monkeypatch, value):
    monkeypatch.setenv(_gcpause.ENV, value)
    with _gcpause.paused():
        assert gc.isenabled()


def test_dp_chunk_runs_paused(monkeypatch):
    from adachunk.api import load_profile
    from adachunk.datatypes import Document

    seen = []
    real = dp._dp_chunk
    monkeypatch.setattr(dp, "_dp_chunk", lambda *a: seen.append(gc.isenabled()) or real(*a))
    chunking = dp.dp_chunk(Document(id="d", text="# T\n\nSome text. More text.\n"), load_profile("default").policy)
    assert chunking.chunks and seen == [False] and gc.isenabled()
