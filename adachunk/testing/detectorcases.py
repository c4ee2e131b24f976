"""Detector suites of the YAML case files: a detector spec and the spans it must find.

The reading and running of one ``detector:`` suite (:class:`CaseSuite`, :func:`build_detector`,
:func:`run_case`) and what every suite kind shares: a case's detection context and document
fields, the :class:`CaseResult`, the YAML reader that knows each key's line. The file loader
(:mod:`adachunk.testing.casefiles`) dispatches a file's suites here or to the rule suites
(:mod:`adachunk.testing.rulecases`), which build their detectors with this module too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import yaml
from ..detect.base import DetectContext, Detector
from ..components.build import build_component
from ..errors import AdachunkError, Location, ProfileError, ProfileErrors, did_you_mean
from ..components.registry import detectors
from ..datatypes import Document

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
    from ..components.builtins import ensure_builtins

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
