"""YAML case files: example-based tests for detectors, kept next to the profile that uses them.

A case file holds one suite, or a YAML list of suites::

    detector: {type: sentence.v1, extra_abbreviations: ["Cl."]}   # a structure spec
    cases:
      - name: abbreviations
        text: "See Art. 5 of the Act. It applies."
        expect: ["See Art. 5 of the Act.", "It applies."]   # texts of the detected spans, in order
      - name: spans
        text: "One. Two."
        expect_spans: [[0, 4], [5, 9]]                      # or the exact [start, end] pairs

A case may also give what an ingester knows besides the text, for detectors that read it:
``split_points`` (the block starts of a parsed document, ``document.block.v1``) and ``pairs``
(entity→pronoun pairs ``[[e_start, e_end], [p_start, p_end]]``, inclusive ends, the precomputed
pairs ``coref.pair.v1`` reads).

A suite that names a rule ``pack`` (or a ``profile``) instead of a ``detector`` is a *rule
suite*: texts with marked cuts and the cost a rule puts on each (:mod:`adachunk.testing.rulecases`).
A file is a case file when it holds a list of suites or a mapping with ``cases``
(:func:`is_case_file`), so rule packs and case files may share a folder.

Use :func:`load_case_file` then :func:`run_suite` (or the ``pytest`` parametrisation shown in
``tests/test_casefiles.py``). Problems with the file itself raise :class:`ProfileError` with the
file, line and key path; a failing case is a :class:`CaseResult` with ``passed=False``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import yaml
from ..errors import Location, ProfileError
from .detectorcases import (Case, CaseResult, CaseSuite, _marks, _read_detector_suite, _Reader, build_detector,
                            case_context, ensure_builtin_detectors, run_case)

__all__ = ["Case", "CaseResult", "CaseSuite", "build_detector", "case_context", "ensure_builtin_detectors",
           "is_case_file", "load_case_file", "run_case", "run_suite"]

def is_case_file(path: str | Path) -> bool:
    """Whether a YAML file holds case suites (a list, or a mapping with ``cases``), not, say, a
    rule pack. A file that does not parse counts as one, so that the loader reports its error."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return True
    return isinstance(data, list) or (isinstance(data, dict) and "cases" in data)


def load_case_file(path: str | Path) -> list[Any]:
    """Read a case file (one suite, or a list of suites): :class:`CaseSuite` for a suite with a
    ``detector``, :class:`~adachunk.testing.rulecases.RuleSuite` for one with a ``pack`` or ``profile``.

    Raises:
        ProfileError: ADA201 (YAML syntax), ADA202 (unknown key), ADA203 (wrong type),
            ADA204 (missing key); the location names the file and line.
    """
    path = Path(path)
    node, data = _parse_yaml(path)
    docs, lines, single = _suite_entries(path, node, data)
    suites: list[Any] = []
    seen: set[str] = set()  # case names, unique across the file's suites
    for i, doc in enumerate(docs):
        r = _Reader(path, lines, i, single)
        if isinstance(doc, dict) and "detector" not in doc and ("pack" in doc or "profile" in doc):
            from .rulecases import read_suite

            suites.append(read_suite(r, doc, i, seen))
        else:
            suites.append(_read_detector_suite(r, doc, i, seen))
    return suites


def _parse_yaml(path: Path) -> tuple[yaml.Node | None, Any]:
    """The file's composed YAML tree (for line numbers) and its data.

    Raises:
        ProfileError: ADA210 (the file cannot be read), ADA201 (YAML syntax).
    """
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ProfileError(code="ADA210", message=f"cannot read case file {path}: {exc}",
                           location=Location(file=str(path))) from None
    try:
        node = yaml.compose(source, Loader=yaml.SafeLoader)
        data = yaml.safe_load(source)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ProfileError(
            code="ADA201",
            message=f"YAML error in case file {path}: {getattr(exc, 'problem', None) or exc}",
            location=Location(file=str(path), line=mark.line + 1 if mark else None,
                              column=mark.column + 1 if mark else None),
        ) from None
    return node, data


def _suite_entries(path: Path, node: yaml.Node | None, data: Any) -> tuple[list, dict[str, int], bool]:
    """The file's suites as a list, the line of each key path (under the suite's index, ``0.``
    for a one-suite file too), and whether the file holds a single suite.

    Raises:
        ProfileError: ADA203 when the file holds neither a suite nor a list of them (a rule
            pack, say).
    """
    lines = _marks(node) if node is not None else {}
    single = isinstance(data, dict)
    if single:
        docs = [data]
        lines = {f"0.{k}" if k else "0": v for k, v in lines.items()}
    elif isinstance(data, list) and data:
        docs = data
    else:
        raise ProfileError(code="ADA203", message=f"case file {path} must hold a mapping with "
                           "'cases' and a 'detector' (or a rule 'pack'/'profile'), or a list of them",
                           location=Location(file=str(path), line=1))
    if single and "cases" not in data and ("structures" in data or "rules" in data):
        raise ProfileError(code="ADA203", message=f"{path} is a rule pack, not a case file: its cases go "
                           "in a case file that names it with 'pack:' (e.g. rules/cases/)",
                           location=Location(file=str(path), line=1))
    return docs, lines, single


def run_suite(suite: Any, base_dirs: Sequence[Path] = ()) -> list[CaseResult]:
    """Build the suite's detector (or a rule suite's rules) once and run every case.

    Raises:
        ProfileError: the detector is invalid; for a rule suite also ADA206 (unknown rule, or a
            structure no pack declares) and ADA210 (unknown pack).
    """
    if not isinstance(suite, CaseSuite):
        from .rulecases import run_rule_suite

        return run_rule_suite(suite)
    detector = build_detector(suite, base_dirs)
    return [run_case(detector, c) for c in suite.cases]
