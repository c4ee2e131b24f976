"""``adachunk cache info`` and ``adachunk cache prune``: the per-user start-up cache.

The start-up cache (``$ADACHUNK_CACHE_DIR/startup``, default ``~/.cache/adachunk/startup``)
holds files derived from installed data that make a new process start sooner: the ONNX export
of an embedding model (87 MB for MiniLM), tokenizer vocabularies in a quickly loaded form. It
keeps itself under a size cap; these commands show it and shrink it on demand.
"""

from __future__ import annotations

import sys
import time


def add_parsers(sub) -> list[str]:
    """Register ``cache`` with its ``info`` and ``prune`` actions."""
    p = sub.add_parser("cache", help="show or empty the start-up cache (ONNX exports, tokenizer tables)")
    acts = p.add_subparsers(dest="cache_action", required=True)
    acts.add_parser("info", help="the cache's folder, each entry's size and last use, the total")
    pr = acts.add_parser("prune", help="remove the least recently used entries beyond the size cap "
                                       "(ADA408 says what was removed)")
    pr.add_argument("--all", action="store_true", help="remove every entry (each is made again when needed)")
    return ["cache"]


def run(args) -> int:
    """Dispatch ``cache info`` / ``cache prune``."""
    from ..api.models import startup_cache

    if args.cache_action == "prune":
        return _prune(startup_cache, args.all)
    return _info(startup_cache)


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def _cap(cache) -> str:
    return f"{cache.CAP_BYTES / 2**20:.0f} MiB"


def _info(cache) -> int:
    where = cache.folder()
    found = cache.entries()
    print(f"start-up cache: {where if where is not None else '(no home folder: none)'} "
          f"(cap {_cap(cache)}; {cache.ENV} moves it)")
    for entry in found:
        used = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.used))
        print(f"  {_mb(entry.size):>10}  {used}  {entry.name}")
    print(f"total: {len(found)} entries, {_mb(sum(e.size for e in found))}")
    return 0


def _prune(cache, everything: bool) -> int:
    from ..errors import AdachunkWarning, Location

    removed = cache.prune(None if everything else cache.CAP_BYTES)
    for entry in removed:
        print(f"removed {_mb(entry.size):>10}  {entry.name}")
    left = cache.entries()
    how = "every entry" if everything else f"the least recently used beyond {_cap(cache)}"
    text = (f"removed {len(removed)} entries ({_mb(sum(e.size for e in removed))}), {how}; "
            f"{len(left)} kept ({_mb(sum(e.size for e in left))})")
    print(AdachunkWarning("ADA408", text, Location(str(cache.folder()))).render(), file=sys.stderr)
    return 0
