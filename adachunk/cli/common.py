"""Shared CLI helpers: input expansion, JSON lines, error printing."""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import contextmanager
from typing import IO, Any, Callable, Iterator

from ..errors import AdachunkError, ProfileError
from ..api.inputs import expand_inputs, dumps  # noqa: F401 - re-exported for the commands


def print_error(err: AdachunkError) -> None:
    """Print a coded error (all of them for a multi-error) to stderr."""
    print(err.render(), file=sys.stderr)


def open_output(path: str | None):
    """stdout, or a file opened for writing (UTF-8, ``\\n`` newlines); ``ADA307`` when it cannot be."""
    if path in (None, "-"):
        return sys.stdout
    try:
        return open(path, "w", encoding="utf-8", newline="\n")
    except OSError as exc:
        from ..api.inputs import write_error

        raise write_error(path, exc) from None


@contextmanager
def output_to(path: str | None) -> Iterator[IO[str]]:
    """:func:`open_output` as a context: a file is closed afterwards, stdout is left open."""
    out = open_output(path)
    try:
        yield out
    finally:
        if out is not sys.stdout:
            out.close()


def add_solver_flags(p) -> None:
    """The profile and solver flags shared by chunking commands (same names as the API)."""
    p.add_argument("--profile", "-p", default="default", help="builtin profile name or YAML path (default: default)")
    p.add_argument("--max-size", type=int,
                   help="largest chunk (tokens or chars). The DP's (chunk, explain, view); in run, the pool's largest "
                        "candidate: a max_size: auto ladder steps down from it, a larger fixed size is cut to it, "
                        "post-processing stays within it (one ADA407 notice says what it replaced). Below the "
                        "profile's min_size, min_size is lowered to a quarter of it (ADA407)")
    p.add_argument("--min-size", type=int,
                   help="smallest chunk (the last may undershoot); in run, every DP candidate's (at most its size). "
                        "Larger than the max size: ADA211")
    p.add_argument("--granularity", choices=["tokens", "chars"], help="size unit")
    p.add_argument("--tokenizer", help="o200k_base (default) or cl100k_base")
    p.add_argument("--overlap", type=int, help="overlap budget in units (whole sentences, then words)")
    p.add_argument("--chunk-cost", type=int, help="cost per chunk (higher: fewer chunks)")
    p.add_argument("--target-size", type=int, help="preferred chunk size: chunks away from it cost more; in run, "
                   "every DP candidate's (at most its size)")
    p.add_argument("--errors", choices=["strict", "replace"], default="strict",
                   help="invalid UTF-8: fail with ADA301 (strict) or substitute U+FFFD (replace)")
    add_analysis_cache_flag(p)
    add_allow_remote_llm_flag(p)


def add_ocr_flag(p) -> None:
    """``--ocr auto|off`` of the commands that read PDFs (scanned pages read by OCR)."""
    p.add_argument("--ocr", choices=["auto", "off"], default="auto",
                   help="read scanned PDF pages by OCR: auto (default; where the extra adachunk[ocr] is "
                        "installed) or off (such a page is ADA309)")


def add_bounds_flags(p, where: str = "") -> None:
    """``--doc-timeout`` and ``--doc-memory``: the per-document bounds of the pooled commands
    (``where``: which documents they bound, when not all)."""
    p.add_argument("--doc-timeout", type=float, metavar="SECONDS",
                   help=f"wall-clock limit per document{where} (default 600; 0: none): past it the document fails "
                        "with ADA325, its worker is replaced and the others go on")
    p.add_argument("--doc-memory", type=_memory_size, metavar="SIZE",
                   help=f"memory ceiling of the process holding one document{where}, e.g. 4G or 512M (default: "
                        "half the machine's RAM; 0: none): past it ADA326; a worker killed otherwise is ADA327")


def _memory_size(text: str) -> int:
    """argparse type of ``--doc-memory`` (a bad size is a usage error, exit 2)."""
    from ..api.workers import parse_size

    try:
        return parse_size(text)
    except AdachunkError as err:
        raise argparse.ArgumentTypeError(err.message) from None


def add_exclude_flag(p) -> None:
    """``--exclude PATTERN`` of the commands that expand folders (added to ``.adachunkignore``'s)."""
    p.add_argument("--exclude", action="append", default=[], metavar="PATTERN",
                   help="skip a folder's or glob's files matching this gitignore-style pattern (repeatable; "
                        "added to the folder's .adachunkignore: e.g. --exclude README.md --exclude 'drafts/')")


class _AllowRemoteLLM(argparse.Action):
    """Sets ``ADACHUNK_ALLOW_REMOTE_LLM=1`` when parsed, so worker processes inherit it."""

    def __init__(self, option_strings, dest, **kw):
        super().__init__(option_strings, dest, nargs=0, default=False, **kw)

    def __call__(self, parser, namespace, values, option_string=None):
        from ..api.splitting import ALLOW_REMOTE_ENV

        setattr(namespace, self.dest, True)
        os.environ[ALLOW_REMOTE_ENV] = "1"


def add_allow_remote_llm_flag(p) -> None:
    """``--allow-remote-llm``: let the LLM splitter send the API key to a non-local endpoint."""
    p.add_argument("--allow-remote-llm", action=_AllowRemoteLLM,
                   help="allow llm_regex.v1 to send documents and the API key to an endpoint that is "
                   "not on this machine (a profile's base_url; without it such a call is error ADA219)")


def add_analysis_cache_flag(p) -> None:
    """``--analysis-cache DIR``: the store of document analyses (see :mod:`adachunk.analysis`)."""
    p.add_argument("--analysis-cache", metavar="DIR",
                   help="keep each document's analysis (tokens, structures, Markdown parse) in DIR and reuse "
                   "it in later commands: a changed rule, size or weight then re-detects nothing")


def print_flag_notes(rp, kind: str) -> None:
    """One ``ADA407`` notice line saying what the size flags replaced beyond the solver's own
    values (``kind``: ``solver`` for the DP alone, ``pool`` for the candidates of ``run``)."""
    from ..errors import AdachunkWarning, Location

    notes = (getattr(rp, "flag_notes", None) or {}).get(kind) or []
    if notes:
        print(AdachunkWarning("ADA407", "; ".join(notes), Location("<command line>")).render(), file=sys.stderr)


def solver_overrides(args) -> dict:
    """Solver overrides from parsed flags (None = keep the profile's value)."""
    return {"max_size": args.max_size, "min_size": args.min_size, "granularity": args.granularity,
            "tokenizer": args.tokenizer, "overlap": args.overlap, "chunk_cost": args.chunk_cost,
            "target_size": args.target_size}


def argument_type(load: Callable[[], Callable[[str], Any]]) -> Callable[[str], Any]:
    """An argparse ``type=`` from a parser imported on first use (start-up stays light): its
    ``ValueError`` becomes argparse's usage error.

    Args:
        load: returns the parser (a function of the argument's text).
    """

    def parse(text: str) -> Any:
        try:
            return load()(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def _budget_parser():
    from ..api.evaluation import parse_budget

    return parse_budget


#: argparse type of a retrieval token budget (``2048``, ``512*k``): see ``adachunk eval``.
budget_arg = argument_type(_budget_parser)


def parse_params(items: list[str]) -> dict:
    """``--param KEY=VALUE`` strings → parameters, for ``chunk`` and ``score`` alike (values read as
    YAML scalars: ``600`` is an int, ``true`` a bool, ``[a, b]`` a list; JSON values read the same)."""
    import yaml

    params = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ProfileError(code="ADA203", message=f"--param expects KEY=VALUE, got {item!r}",
                               key_path="--param", hint="e.g. --param chunk_size=600")
        try:
            params[key.strip()] = yaml.safe_load(value) if value.strip() else None
        except yaml.YAMLError:
            params[key.strip()] = value
    return params
