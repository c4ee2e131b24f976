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

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import yaml
from ..detect.base import DetectContext, Detector
from ..build import build_component
from ..errors import AdachunkError, Location, ProfileError, ProfileErrors, did_you_mean
from ..registry import detectors
from ..types import Document

_SUITE_KEYS = {"detector", "cases", "description"}
_CASE_KEYS = {"name", "text", "expect", "expect_spans", "description", "split_points", "pairs"}


@dataclass
class Case:
    """One example: a text and what the detector must find in it (texts or exact spans)."""

    name: str
    text: str
    expect: list[str] | None = None
    expect_spans: list[tuple[int, int]] | None = None
    line: int | None = None
    split_points: list[int] | None = None
    pairs: list | None = None

    def context(self) -> DetectContext:
        """The detection context of this case (a document when it gives split points or pairs)."""
        return case_context(self.name, self.text, self.split_points, self.pairs)


def case_context(name: str, text: str, split_points: list[int] | None, pairs: list | None) -> DetectContext:
    """What a detector sees for a case: the text, and a document when the case gives what an
    ingester would know besides it (split points, coreference pairs)."""
    if split_points is None and pairs is None:
        return DetectContext(text)
    doc = Document(id=name, text=text, split_points=split_points, entity_pron_pairs=pairs)
    return DetectContext(doc.text, doc)


@dataclass
class CaseSuite:
    """A detector spec (``type`` + its fields) and the cases it must pass."""

    path: Path
    detector_type: str
    fields: dict[str, Any]
    cases: list[Case]
    index: int = 0
    line: int | None = None

    @property
    def title(self) -> str:
        """What the suite tests, as ``adachunk test`` prints it."""
        return self.detector_type


@dataclass
class CaseResult:
    """Outcome of one case; ``expected``/``got`` are span texts, or [start, end] pairs."""

    name: str
    passed: bool
    expected: list[Any] = field(default_factory=list)
    got: list[Any] = field(default_factory=list)
    message: str = ""


def ensure_builtin_detectors() -> None:
    """Make the built-in detectors known to the registry (lazily declared ones included)."""
    from ..components import ensure_builtins

    ensure_builtins()


def _marks(node: yaml.Node, path: str = "", out: dict[str, int] | None = None) -> dict[str, int]:
    """Map dotted key paths (``0.cases.3.text``) to 1-based line numbers of a composed YAML tree."""
    out = {} if out is None else out
    out[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            _marks(v, f"{path}.{k.value}" if path else str(k.value), out)
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            _marks(v, f"{path}.{i}" if path else str(i), out)
    return out


class _Reader:
    """Validates the loaded YAML while knowing where each key came from."""

    def __init__(self, path: Path, lines: dict[str, int], index: int, single: bool):
        self.path, self.lines, self.single = path, lines, single
        self.prefix = f"{index}."  # line keys always start with the suite index

    def error(self, code: str, key: str, message: str, **kw: Any) -> ProfileError:
        full = f"{self.prefix}{key}".strip(".")
        line = self.lines.get(full) or self.lines.get(self.prefix.strip("."))
        shown = full[len(self.prefix):] if self.single else full  # "cases.2" in a one-suite file
        return ProfileError(
            code=code,
            message=f"{message} (case file {self.path})",
            location=Location(file=str(self.path), line=line),
            key_path=shown or None,
            **kw,
        )

    def check_keys(self, obj: Any, key: str, allowed: set[str], required: Sequence[str]) -> None:
        if not isinstance(obj, dict):
            raise self.error("ADA203", key, f"expected a mapping, got {type(obj).__name__}")
        for k in obj:
            if k not in allowed:
                raise self.error("ADA202", f"{key}.{k}".lstrip("."), f"unknown key '{k}'",
                                 allowed=sorted(allowed), hint=did_you_mean(k, allowed))
        for k in required:
            if k not in obj:
                raise self.error("ADA204", key, f"missing required key '{k}'")


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


def _read_detector_suite(r: _Reader, doc: Any, index: int, seen: set[str]) -> CaseSuite:
    """One suite with a ``detector``, checked; its case names are added to ``seen``."""
    if isinstance(doc, dict) and "detector" not in doc and "cases" in doc:
        raise r.error("ADA204", "", "missing required key 'detector' (a detector suite) or "
                      "'pack'/'profile' (a rule suite)")
    r.check_keys(doc, "", _SUITE_KEYS, ("detector", "cases"))
    spec = doc["detector"]
    if isinstance(spec, str):
        spec = {"type": spec}
    if not isinstance(spec, dict) or not isinstance(spec.get("type"), str):
        raise r.error("ADA203" if isinstance(spec, dict) and "type" in spec else "ADA204",
                      "detector", "'detector' needs a 'type' naming a registered detector")
    if not isinstance(doc["cases"], list) or not doc["cases"]:
        raise r.error("ADA203", "cases", "'cases' must be a non-empty list")
    cases = []
    for j, c in enumerate(doc["cases"]):
        cases.append(_read_case(r, f"cases.{j}", c))
        if c["name"] in seen:
            raise r.error("ADA203", f"cases.{j}.name", f"duplicate case name '{c['name']}'")
        seen.add(c["name"])
    fields = {k: v for k, v in spec.items() if k != "type"}
    return CaseSuite(r.path, spec["type"], fields, cases, index, r.lines.get(f"{r.prefix}detector"))


def _document_fields(r: _Reader, key: str, c: dict) -> dict[str, Any]:
    """The case's ``split_points`` and ``pairs``, checked."""
    out: dict[str, Any] = {}
    sp = c.get("split_points")
    if sp is not None:
        if not isinstance(sp, list) or not all(type(x) is int for x in sp):
            raise r.error("ADA203", f"{key}.split_points", "'split_points' must be a list of integers")
        out["split_points"] = sorted(sp)
    pairs = c.get("pairs")
    if pairs is not None:
        if not isinstance(pairs, list):
            raise r.error("ADA203", f"{key}.pairs", "'pairs' must be a list of [[start, end], [start, end]] pairs")
        out["pairs"] = pairs
    return out


def _read_case(r: _Reader, key: str, c: Any) -> Case:
    r.check_keys(c, key, _CASE_KEYS, ("name", "text"))
    if not isinstance(c["name"], str) or not isinstance(c["text"], str):
        raise r.error("ADA203", key, "'name' and 'text' must be strings")
    extra = _document_fields(r, key, c)
    has_texts, has_spans = "expect" in c, "expect_spans" in c
    if has_texts == has_spans:
        raise r.error("ADA204" if not has_texts else "ADA203", key,
                      "give exactly one of 'expect' (span texts) or 'expect_spans' ([start, end])")
    if has_texts:
        exp = c["expect"]
        if not isinstance(exp, list) or not all(isinstance(x, str) for x in exp):
            raise r.error("ADA203", f"{key}.expect", "'expect' must be a list of strings")
        return Case(c["name"], c["text"], expect=list(exp), line=r.lines.get(r.prefix + key), **extra)
    spans = c["expect_spans"]
    ok = isinstance(spans, list) and all(
        isinstance(p, list) and len(p) == 2 and all(type(x) is int for x in p) for p in spans
    )
    if not ok:
        raise r.error("ADA203", f"{key}.expect_spans",
                      "'expect_spans' must be a list of [start, end] integer pairs")
    return Case(c["name"], c["text"], expect_spans=[(a, b) for a, b in spans],
                line=r.lines.get(r.prefix + key), **extra)


def build_detector(suite: CaseSuite, base_dirs: Sequence[Path] = ()) -> Detector:
    """Build the suite's detector through the registry, validating its fields.

    ``base_dirs`` (e.g. the profile's folders) are searched after the case file's own folder for
    files the detector refers to, such as grammars.

    Raises:
        ProfileError: ADA205 unknown type; ADA202/ADA203/ADA204 invalid fields; or the
            detector's own construction error (ADA207 bad regex, ADA208/ADA210 grammar).
    """
    ensure_builtin_detectors()
    loc = Location(file=str(suite.path), line=suite.line)
    try:
        return build_component(
            detectors, {**suite.fields, "type": suite.detector_type}, ("detector",), location=loc,
            subject=f"{suite.detector_type} (case file {suite.path})",
            factory=lambda cls, params: cls(params, name="case", base_dirs=[suite.path.parent, *map(Path, base_dirs)]))
    except ProfileErrors:
        raise
    except ProfileError as exc:
        if exc.location.file is None:  # e.g. a bad regex: point at the case file's detector
            exc.location = loc
            exc.key_path = exc.key_path or "detector"
        if str(suite.path) not in exc.message:  # e.g. a grammar error keeps the grammar's line
            exc.message = f"{exc.message} (case file {suite.path})"
        exc.args = (exc.render(),)
        raise


def run_case(detector: Detector, case: Case) -> CaseResult:
    """Run one case; detector errors on the input (e.g. ADA306) make it fail, not raise."""
    if case.expect is not None:
        expected: list[Any] = list(case.expect)
    else:
        expected = [list(p) for p in case.expect_spans or []]
    try:
        found = [(s.start, s.end) for s in detector.detect(case.context())]
    except AdachunkError as exc:
        return CaseResult(case.name, False, expected, [], f"{case.name}: {exc}")
    if case.expect is not None:
        got: list[Any] = [case.text[s:e] for s, e in found]
    else:
        got = [list(p) for p in found]
    if expected == got:
        return CaseResult(case.name, True, expected, got)
    diff = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b), None)
    if diff is None:
        message = f"expected {len(expected)} spans, got {len(got)}"
    else:
        message = f"span {diff} differs: expected {expected[diff]!r}, got {got[diff]!r}"
    where = f"{case.name} (line {case.line})" if case.line else case.name
    return CaseResult(case.name, False, expected, got, f"{where}: {message}")


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
