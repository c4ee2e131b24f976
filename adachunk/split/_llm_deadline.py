"""A wall-clock deadline for one LLM request (the HTTP clients only bound each read).

httpx's ``timeout`` applies to each socket operation: a server that sends one byte every few
seconds never trips it, and one answer can take hours. Two measures bound an attempt:

* :func:`run_with_deadline` runs the request in a daemon thread and stops waiting at the
  deadline, whatever the socket does (headers dripping included);
* :class:`DeadlineTransport` wraps httpx's transport and aborts the response body once the
  deadline has passed, so the abandoned thread also ends at its next received chunk instead of
  reading on.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Callable, TypeVar

import httpx

T = TypeVar("T")


class _DeadlineStream(httpx.SyncByteStream):
    """A response body that raises ``httpx.ReadTimeout`` once the deadline has passed."""

    def __init__(self, inner: httpx.SyncByteStream, deadline: float):
        self._inner = inner
        self._deadline = deadline

    def __iter__(self):
        for chunk in self._inner:
            if time.monotonic() > self._deadline:
                raise httpx.ReadTimeout("the deadline of the LLM call passed while reading the answer")
            yield chunk

    def close(self) -> None:
        self._inner.close()


class DeadlineTransport(httpx.BaseTransport):
    """httpx's default transport, with a deadline on each response body (see :meth:`start`)."""

    def __init__(self) -> None:
        self._inner = httpx.HTTPTransport()
        self._deadline = math.inf

    def start(self, seconds: float) -> None:
        """Begin an attempt: its response must be complete within ``seconds`` from now."""
        self._deadline = time.monotonic() + seconds

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self._inner.handle_request(request)
        return httpx.Response(status_code=response.status_code, headers=response.headers,
                              stream=_DeadlineStream(response.stream, self._deadline),
                              extensions=response.extensions)

    def close(self) -> None:
        self._inner.close()


def run_with_deadline(fn: Callable[[], T], seconds: float) -> T:
    """Return ``fn()``, or raise ``TimeoutError`` when it has not finished within ``seconds``.

    ``fn`` runs in a daemon thread (it cannot be killed; :class:`DeadlineTransport` makes it end
    soon after). Its exception, if any, is raised here.
    """
    box: dict[str, object] = {}
    done = threading.Event()

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=target, name="adachunk-llm-call", daemon=True).start()
    if not done.wait(seconds):
        raise TimeoutError(f"no complete answer within the {seconds:g} s deadline of one attempt")
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]
