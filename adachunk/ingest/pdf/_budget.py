"""A time budget for the steps of reading a PDF, so that a hostile file cannot hang a conversion.

pdfminer (under pdfplumber) is pure Python and has no budget of its own: an indirect reference
that resolves to itself through another object (``4 0 obj 5 0 R``, ``5 0 obj 4 0 R``, 884 bytes)
loops forever inside ``resolve1``, and a content stream that inflates to 300 MB of operators
takes minutes on one page. Each step (opening the file, which parses its page tree, and
extracting each page) therefore runs under a wall-clock budget (``PdfOptions.time_budget_s``);
past it the step is interrupted and the document fails with ``ADA322``.

The budget is a ``SIGALRM`` timer, which interrupts pure-Python loops between bytecodes. It only
works in a process's main thread and without another ``ITIMER_REAL`` running; elsewhere (a
thread pool, or a caller's own timer) the step runs without this budget and the caller's bound
applies (the corpus runner has its own per-document deadline). The interruption is a
``BaseException`` so that the libraries' ``except Exception`` handlers cannot swallow it.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator

from ...errors import InputError, Location


class _Expired(BaseException):
    """Raised by the timer inside the step (not an ``Exception``: nothing may catch it on the way)."""


def budget_error(source: str, seconds: float, what: str) -> InputError:
    """``ADA322``: reading the PDF ran past its time budget."""
    return InputError(code="ADA322", message=f"{what} took more than {seconds:g} s, the time budget of a PDF step "
                      "(a reference loop or a content-stream bomb)", location=Location(source),
                      hint="if the file is trusted, raise the budget (PdfOptions.time_budget_s; 0: no limit), "
                           "or repair it (qpdf in.pdf out.pdf)")


def _usable() -> bool:
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return False
    return signal.getitimer(signal.ITIMER_REAL)[0] == 0  # a caller's own timer is left alone


@contextmanager
def time_budget(seconds: float, source: str, what: str) -> Iterator[None]:
    """Run the block under a wall-clock budget of ``seconds`` (0: none).

    Raises:
        InputError: ``ADA322`` when the block runs past the budget.
    """
    if seconds <= 0 or not _usable():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise _Expired()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except _Expired:
        raise budget_error(source, seconds, what) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


__all__ = ["budget_error", "time_budget"]
