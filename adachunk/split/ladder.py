"""Candidate sizes derived from the retrieval regime: the ``auto`` sizes of the adaptive pool.

A ``dp.v1`` candidate with ``max_size: auto`` (or ``recursive.v1`` with ``chunk_size: auto``)
stands for one candidate per size of a ladder that the profile's ``retrieval`` section implies:

* the **top** is the largest chunk the reader can use whole: half the smallest budget (so at
  least two chunks fit each budget) and, when the reader retrieves densely (``dense`` or
  ``hybrid``), at most the embedder's input limit (the model never sees the rest of a longer
  chunk when the index truncates it, and sees it blurred into one mean when the index pools it);
* below it, ``retrieval.sizes`` steps of a factor sqrt(2): with MiniLM's 254 word pieces and
  budgets of 1,000 and 2,000 tokens, 254, 180 and 127.

The limit is counted in the model's tokens and the sizes in the solver's (o200k word pieces run
about 1.0-1.2 per o200k token on English): a chunk at the top can lose its last tokens to
truncation, which the ``rf`` metric measures in the model's own tokens. Which size suits a
document is the selection's call, not this module's.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Iterator

AUTO = "auto"
#: The parameter an ``auto`` candidate of each splitter type sizes.
AUTO_KEYS = {"dp.v1": "max_size", "recursive.v1": "chunk_size"}
#: Smallest size a ladder goes down to (a chunk of a few tokens holds no passage).
FLOOR = 16


def uses_embedder(retrievers: Iterable[str]) -> bool:
    """Whether the regime's retrievers read chunks through the embedder."""
    return any(r in ("dense", "hybrid") for r in retrievers)


def top_size(retrievers: Iterable[str], budgets: Iterable[int], limit: int | None) -> int:
    """The largest useful chunk of a regime (see the module docstring)."""
    top = max(1, min(budgets) // 2)
    if limit is not None and uses_embedder(retrievers):
        top = min(top, int(limit))
    return max(1, top)


def size_ladder(retrievers: Iterable[str], budgets: Iterable[int], limit: int | None, steps: int) -> list[int]:
    """The regime's sizes, largest first: ``top / sqrt(2)^i`` for ``i < steps``, rounded, distinct,
    none below :data:`FLOOR` (the top alone when it is below the floor)."""
    return ladder_from(top_size(list(retrievers), list(budgets), limit), steps)


def ladder_from(top: int, steps: int) -> list[int]:
    """``top / sqrt(2)^i`` for ``i < steps``, rounded, distinct, none below :data:`FLOOR` (the
    top alone when it is below the floor): a regime's ladder, or one from ``--max-size``."""
    sizes = [round(top / math.sqrt(2) ** i) for i in range(max(1, steps))]
    kept = [s for s in dict.fromkeys(sizes) if s >= FLOOR]
    return kept or [top]


def is_auto(cand: Any) -> bool:
    """Whether a raw candidate spec asks for ``auto`` sizes."""
    kind = cand.get("type") if isinstance(cand, dict) else None
    key = AUTO_KEYS.get(kind) if isinstance(kind, str) else None
    return key is not None and cand.get(key) == AUTO


def expand(cand: dict, sizes: Iterable[int]) -> Iterator[dict]:
    """The concrete candidates an ``auto`` candidate stands for, one per size, named
    ``<name>_<size>``. A DP candidate without its own ``min_size`` gets a quarter of its size
    (the solver's would squeeze small sizes: 100..128); one with a larger ``min_size`` than a
    size gets that size."""
    key = AUTO_KEYS[cand["type"]]
    base = cand.get("name") or cand["type"].split(".")[0]
    for size in sizes:
        out = {**cand, key: int(size), "name": f"{base}_{size}"}
        if cand["type"] == "dp.v1":
            given = cand.get("min_size")
            if given is None:
                out["min_size"] = max(1, size // 4)
            elif isinstance(given, int) and not isinstance(given, bool):
                out["min_size"] = min(given, int(size))  # else left for the splitter's Params to reject
        yield out
