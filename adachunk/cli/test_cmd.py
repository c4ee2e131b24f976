"""``adachunk test``: run YAML case files for detectors (a team's own rules, in its own repo).

A case file gives a detector spec and examples of what it must find (see
:mod:`adachunk.casefiles`). Exit status: 0 when every case passes, 1 when a case fails, 2 when a
case file or its detector is invalid (the coded error is printed).
"""

from __future__ import annotations

import sys
from pathlib import Path

DEFAULT_DIR = Path("tests") / "cases"


def add_parsers(sub) -> list[str]:
    """Register ``test``."""
    p = sub.add_parser("test", help="run YAML detector case files (default: every *.yaml under ./tests/cases)")
    p.add_argument("paths", nargs="*", metavar="PATH", help="case files or folders (searched recursively)")
    p.add_argument("--grammar-dir", action="append", default=[], metavar="DIR",
                   help="another folder to search for grammar files (repeatable)")
    p.add_argument("-q", "--quiet", action="store_true", help="print failures and the summary only")
    return ["test"]


def case_files(paths: list[str]) -> list[Path]:
    """The case files named or found (recursively, sorted) under the given paths."""
    from ..errors import InputError, Location

    paths = paths or [str(DEFAULT_DIR)]
    out: list[Path] = []
    for item in paths:
        path = Path(item)
        if path.is_dir():
            out += sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
        elif path.is_file():
            out.append(path)
        else:
            raise InputError(code="ADA302", message=f"no case file or folder '{item}'", location=Location(item),
                             hint="give case files or folders, or run from a repository with tests/cases/")
    if not out:
        raise InputError(code="ADA302", message=f"no *.yaml case file under {', '.join(paths)}",
                         location=Location(paths[0]))
    return out


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 300 else text[:297] + "..."


def run(args) -> int:
    """Run every suite of every case file; print one line per case and a summary."""
    from ..casefiles import load_case_file, run_suite
    from ..errors import ProfileError
    from .common import print_error

    passed = failed = broken = 0
    for path in case_files(args.paths):
        try:
            suites = load_case_file(path)
            results = [(s, run_suite(s, args.grammar_dir)) for s in suites]
        except ProfileError as err:
            print_error(err)
            print(f"ERROR {path}: the case file or its detector is invalid")
            broken += 1
            continue
        for suite, outcome in results:
            for case, res in zip(suite.cases, outcome):
                where = f"{path}:{case.line}" if case.line else str(path)
                if res.passed:
                    passed += 1
                    if not args.quiet:
                        print(f"PASS {where} {suite.detector_type} {case.name}")
                    continue
                failed += 1
                print(f"FAIL {where} {suite.detector_type} {case.name}: {res.message}")
                print(f"     expected: {_short(res.expected)}")
                print(f"     got:      {_short(res.got)}")
    print(f"{passed} passed, {failed} failed" + (f", {broken} invalid file(s)" if broken else ""))
    sys.stdout.flush()
    return 2 if broken else (1 if failed else 0)
