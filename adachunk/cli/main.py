"""``adachunk`` command line.

Each sub-command lives in its own module listed in :data:`COMMANDS`; a module provides
``add_parsers(subparsers)`` and ``run(args) -> int`` (dispatched on ``args.command``). Heavy
imports stay inside ``run`` so ``adachunk --help`` is instant.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from ..errors import AdachunkError
from .common import print_error

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
)


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, object]]:
    """The argument parser and the module owning each sub-command."""
    from .. import __version__

    parser = argparse.ArgumentParser(prog="adachunk", description="Policy-driven optimal chunking for RAG.")
    parser.add_argument("--version", action="version", version=f"adachunk {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    owners: dict[str, object] = {}
    for name in COMMANDS:
        module = importlib.import_module(name)
        for command in module.add_parsers(sub):
            owners[command] = module
    return parser, owners


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``adachunk`` console script; returns the exit code.

    Exit codes: 0 success, 2 a user error (bad profile, bad input; printed as ``ADAxxx`` lines),
    1 an unexpected internal error.
    """
    parser, owners = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "analysis_cache", None):
        from ..analysis.store import use_store

        use_store(args.analysis_cache)  # workers started from here on inherit it
    try:
        return int(owners[args.command].run(args))
    except AdachunkError as err:
        print_error(err)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
