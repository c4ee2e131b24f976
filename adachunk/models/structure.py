"""The text structure the models read, lent by the detectors that own it.

The embedders' pooling grid (:mod:`adachunk.models.embedders.pooling`) cuts a long span at the
document's Markdown block starts and, inside a long block, at its sentences. The Markdown reader
(:mod:`adachunk.detect.markdown`) and the sentence scanner (:mod:`adachunk.detect.text_units`)
belong to ``detect``, a layer above this package (its ``coref.pair.v1`` and
``semantic.shift.v1`` detectors use the models), so they are handed in, not imported: each
module lends its function here when it is imported, and a use that finds one missing first calls
:func:`~adachunk.components.builtins.ensure_builtins`, which imports both (they are engine modules every
command loads). The functions are the very ones ``detect`` runs, so the grid is what it was.
"""

from __future__ import annotations

from typing import Any, Callable

# what detect lends: name -> function
_LENT: dict[str, Callable[..., Any]] = {}
MARKDOWN_BLOCKS = "markdown_blocks"  # parse_blocks(text) -> Structures of every block
SENTENCES = "sentences"  # split_sentences(text) -> [(start, end)] of each sentence


def lend(name: str, fn: Callable[..., Any]) -> None:
    """Make ``fn`` the models' ``name`` (:data:`MARKDOWN_BLOCKS` or :data:`SENTENCES`)."""
    _LENT[name] = fn


def lent(name: str) -> Callable[..., Any]:
    """The function lent as ``name``; the built-in components are loaded first if it is missing.

    Raises:
        LookupError: nothing lends ``name`` even with the built-ins loaded (a programming error).
    """
    if name not in _LENT:
        from ..components.builtins import ensure_builtins

        ensure_builtins()
    try:
        return _LENT[name]
    except KeyError:
        raise LookupError(f"no detector module lends the models {name!r}") from None
