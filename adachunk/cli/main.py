"""``adachunk`` command line.

Each sub-command lives in its own module listed in :data:`COMMANDS`; a module provides
``add_parsers(subparsers)`` and ``run(args) -> int`` (dispatched on ``args.command``). Heavy
imports stay inside ``run`` so ``adachunk --help`` is instant.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys

from ..errors import AdachunkError, install_notice_format, missing_dependency

COMMANDS = (
    "adachunk.cli.chunk_cmd",
    "adachunk.cli.profile_cmd",
    "adachunk.cli.run_cmd",
    "adachunk.cli.convert_cmd",
    "adachunk.cli.models_cmd",
    "adachunk.cli.score_cmd",
    "adachunk.cli.detect_cmd", "adachunk.cli.test_cmd", "adachunk.cli.view_cmd",
    "adachunk.cli.ab_cmd",
    "adachunk.cli.tune_cmd",
    "adachunk.cli.eval_cmd",
    "adachunk.cli.cache_cmd",
)
# sub-command -> its module, so that ``adachunk chunk ...`` imports (and builds the parser of)
# chunk_cmd alone; tests/test_cold_start.py checks it against what the modules register
OWNERS = {
    "chunk": "adachunk.cli.chunk_cmd", "explain": "adachunk.cli.chunk_cmd",
    "profile": "adachunk.cli.profile_cmd", "run": "adachunk.cli.run_cmd", "search": "adachunk.cli.run_cmd",
    "convert": "adachunk.cli.convert_cmd", "models": "adachunk.cli.models_cmd",
    "score": "adachunk.cli.score_cmd", "detect": "adachunk.cli.detect_cmd", "test": "adachunk.cli.test_cmd",
    "view": "adachunk.cli.view_cmd", "ab": "adachunk.cli.ab_cmd", "tune": "adachunk.cli.tune_cmd",
    "eval": "adachunk.cli.eval_cmd", "cache": "adachunk.cli.cache_cmd",
}
# Python's default (700, 10, 10) runs a young collection every 700 new objects and rescans the
# whole heap as it grows: ~5% of a cold run (the imports build ~10^6 objects) and 10-20% of
# chunking a 20 MB document. Objects of a chunking run are almost never cyclic garbage, so a
# command runs with these thresholds (the caller's are put back when it returns).
GC_THRESHOLDS = (100_000, 50, 100)


def build_parser(command: str | None = None) -> tuple[argparse.ArgumentParser, dict[str, object]]:
    """The argument parser and the module owning each sub-command.

    Args:
        command: a sub-command name from :data:`OWNERS`: only its module is imported and
            registered (its parser is the same); None registers them all (``--help``).
    """
    from .. import __version__

    parser = argparse.ArgumentParser(prog="adachunk", description="Policy-driven optimal chunking for RAG.")
    parser.add_argument("--version", action="version", version=f"adachunk {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    owners: dict[str, object] = {}
    for name in [OWNERS[command]] if command in OWNERS else COMMANDS:
        module = importlib.import_module(name)
        for command in module.add_parsers(sub):
            owners[command] = module
    return parser, owners


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``adachunk`` console script; returns the exit code.

    Exit codes: 0 success, 2 a user error (bad profile, bad input; printed as ``ADAxxx`` lines),
    1 an unexpected internal error.
    """
    before = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        return _main(argv)
    finally:
        gc.set_threshold(*before)


def _main(argv: list[str] | None) -> int:
    from .common import print_error  # here: the engine's imports run under GC_THRESHOLDS

    install_notice_format()  # ADA4xx notices print as one coded line, like errors
    words = sys.argv[1:] if argv is None else argv
    parser, owners = build_parser(words[0] if words else None)
    args = parser.parse_args(words)
    if getattr(args, "analysis_cache", None):
        from ..api.corpus import use_store

        use_store(args.analysis_cache)  # workers started from here on inherit it
    try:
        return int(owners[args.command].run(args))
    except AdachunkError as err:
        print_error(err)
        return 2
    except ImportError as exc:
        # an optional extra's package that is not installed: ADA223 (ADA314 for a PDF reader)
        # naming the extra, never a traceback (docs/cli.md); any other ImportError is a bug
        coded = missing_dependency(exc)
        if coded is None:
            raise
        print_error(coded)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def console() -> None:
    """The ``adachunk`` console script: :func:`main`, then exit with its code.

    Python's shutdown runs full garbage collections over every object the imports made (about
    10^6: pydantic's schemas, numpy, the tokenizer), 0.2 CPU-s of a one-page ``chunk`` run that
    takes 1 s in all. Chunking leaves no cyclic garbage worth finding at exit, so the objects are
    frozen (:func:`gc.freeze`) and those collections skip them; module teardown, ``atexit``
    handlers and the closing of files still run. Only the process entry does this: :func:`main`
    called in-process (tests, other programs) leaves the collector alone.
    """
    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    console()
