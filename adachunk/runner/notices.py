"""A document's notices (``ADA4xx`` :class:`~adachunk.errors.AdachunkWarning`), captured where
the document is processed and carried back with its result.

A worker process is not the CLI's process: a spawned worker never ran
:func:`~adachunk.errors.install_notice_format`, so a notice raised there printed as a raw
Python warning (``file.py:290: AdachunkWarning: ... source line``) across the progress line,
and was gone once the terminal scrolled. So the job captures them (:func:`captured`), the
result carries them, the main process shows them again (:func:`emit`) in whatever form its own
``warnings`` set-up prints (the CLI's one coded line), and the outputs record them per document
(:func:`records`: ``decisions.jsonl``) and count them (``summary.json``). The same path serves
one worker and many, so both print and record the same.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, Iterator

from ..errors import AdachunkWarning, Location


@contextlib.contextmanager
def captured() -> Iterator[list[AdachunkWarning]]:
    """Collect the notices raised inside the block (any other warning shows as before).

    Every notice is collected, whatever the process's filters say: the filters apply when
    :func:`emit` shows them again in the main process, where the user set them. A notice raised
    twice with the same text (one per candidate, say) is kept once, as Python's ``default``
    filter would have shown it once.

    Yields:
        The list the notices are appended to (distinct ones, in order).
    """
    caught: list[AdachunkWarning] = []
    seen: set[tuple[type, str]] = set()
    with warnings.catch_warnings():
        show = warnings.showwarning  # the hook in force outside (catch_warnings restores it)

        def hook(message, category, filename, lineno, file=None, line=None):
            if not isinstance(message, AdachunkWarning):
                return show(message, category, filename, lineno, file, line)
            key = (type(message), message.render())
            if key not in seen:
                seen.add(key)
                caught.append(message)
            return None

        warnings.showwarning = hook
        warnings.simplefilter("always", AdachunkWarning)
        yield caught


def emit(notices: list[AdachunkWarning]) -> None:
    """Show captured notices again in this process, through ``warnings`` (so its filters and
    format apply: the CLI prints each as its one coded line)."""
    for n in notices:
        # a fresh registry: the same notice of a document processed again (a second run in one
        # process) is shown again; "<adachunk run>" has no source line for warnings to print
        warnings.warn_explicit(n, type(n), "<adachunk run>", 0, module="adachunk.runner", registry=None)


def records(notices: list[AdachunkWarning]) -> list[dict[str, Any]]:
    """The notices as ``decisions.jsonl`` writes them: ``{code, message}`` (and ``line`` when
    the notice points at one); the file is the document's ``source``."""
    return [{"code": n.code, "message": n.message,
             **({"line": n.location.line} if n.location.line is not None else {})} for n in notices]


def renamed(notices: list[AdachunkWarning], old: str, new: str) -> list[AdachunkWarning]:
    """The notices with the path ``old`` (a worker's view of the document) named ``new``."""
    out = []
    for n in notices:
        loc = n.location
        file = new if loc.file == old else loc.file
        out.append(type(n)(n.code, n.message.replace(old, new), Location(file, loc.line, loc.column)))
    return out
