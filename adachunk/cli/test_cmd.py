"""``adachunk test``: run YAML case files for detectors and rules (a team's own, in its own repo).

A case file gives a detector spec and examples of what it must find (see
:mod:`adachunk.testing.casefiles`), or a rule pack (or profile) and the cost of cutting at marked
positions of texts (:mod:`adachunk.testing.rulecases`). In a folder, only YAML files holding a list of
suites or a mapping with ``cases`` are case files: ``adachunk test rules/`` skips the packs
themselves and runs ``rules/cases/``; ``--builtin`` runs the shipped packs' cases.
Exit status: 0 when every case passes, 1 when a case fails, 2 when a case file, its detector or
its rules are invalid (the coded error is printed).
"""

from __future__ import annotations

import sys
from pathlib import Path

DEFAULT_DIR = Path("tests") / "cases"


def add_parsers(sub) -> list[str]:
    """Register ``test``."""
    p = sub.add_parser("test", help="run YAML case files for detectors and rules (default: every case "
                       "file under ./tests/cases)")
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="case files or folders (searched recursively; in a folder, a *.yaml is a case "
                   "file when it holds a list of suites or a mapping with 'cases', others such as "
                   "rule packs are skipped)")
    p.add_argument("--builtin", action="store_true",
                   help="also run the case files of the shipped rule packs (rules/cases)")
    p.add_argument("--grammar-dir", action="append", default=[], metavar="DIR",
                   help="another folder to search for grammar files (repeatable)")
    p.add_argument("-q", "--quiet", action="store_true", help="print failures and the summary only")
    return ["test"]


def case_files(paths: list[str]) -> list[Path]:
    """The case files named or found (recursively, sorted) under the given paths.

    A file named explicitly is always loaded (so that a wrong one is reported); in a folder,
    YAML files that are not case files (rule packs, profiles) are skipped.
    """
    from ..api.profiles import is_case_file
    from ..errors import InputError, Location

    paths = paths or [str(DEFAULT_DIR)]
    out: list[Path] = []
    for item in paths:
        path = Path(item)
        if path.is_dir():
            out += sorted(p for p in path.rglob("*")
                          if p.suffix in (".yaml", ".yml") and p.is_file() and is_case_file(p))
        elif path.is_file():
            out.append(path)
        else:
            raise InputError(code="ADA302", message=f"no case file or folder '{item}'", location=Location(item),
                             hint="give case files or folders, or run from a repository with tests/cases/")
    if not out:
        raise InputError(code="ADA302", message=f"no case file (*.yaml with 'cases') under {', '.join(paths)}",
                         location=Location(paths[0]))
    return out


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 300 else text[:297] + "..."


def run(args) -> int:
    """Run every suite of every case file; print one line per case and a summary."""
    from ..api.profiles import load_case_file, run_suite
    from ..errors import ProfileError
    from .common import print_error

    paths = list(args.paths)
    if getattr(args, "builtin", False):
        from ..api.profiles import data_dir

        paths.append(str(data_dir("rules") / "cases"))
    passed = failed = broken = 0
    for path in case_files(paths):
        try:
            suites = load_case_file(path)
            results = [(s, run_suite(s, args.grammar_dir)) for s in suites]
        except ProfileError as err:
            print_error(err)
            print(f"ERROR {path}: the case file, its detector or its rules are invalid")
            broken += 1
            continue
        for suite, outcome in results:
            for case, res in zip(suite.cases, outcome):
                where = f"{path}:{case.line}" if case.line else str(path)
                what = suite.title + (f" {case.rule}" if getattr(case, "rule", None) else "")
                if res.passed:
                    passed += 1
                    if not args.quiet:
                        print(f"PASS {where} {what} {case.name}")
                    continue
                failed += 1
                print(f"FAIL {where} {what} {case.name}: {res.message}")
                print(f"     expected: {_short(res.expected)}")
                print(f"     got:      {_short(res.got)}")
    print(f"{passed} passed, {failed} failed" + (f", {broken} invalid file(s)" if broken else ""))
    sys.stdout.flush()
    return 2 if broken else (1 if failed else 0)
