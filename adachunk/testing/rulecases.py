"""Rule suites of YAML case files: the cost of cutting at marked positions, rule by rule.

A rule suite names a rule pack (or a profile) instead of a detector; each case gives a text with
cut positions marked by ``¦`` and the cost the named rule puts on each of them::

    pack: legal                  # a shipped pack, or a path relative to the case file;
                                 # a list merges packs in order, like a profile's rules.include
    # profile: ../profiles/mine.yaml   # or: a profile (its rule overrides apply)
    rule: article_heading        # default rule of the cases (a case may name its own)
    cases:
      - name: inside-the-heading
        text: "Article¦ 5\\nText."
        expect_costs: [600]      # one integer per marker, in order

The costs are computed as the engine computes them: the pack's (or profile's) detector for the
rule's structure runs on the text (markers removed), and the rule's ``on`` and ``off`` shapes are
evaluated at the marked positions by :func:`adachunk.cost.lattice.rule_cost`, each side rounded
to an integer, exactly the parts ``adachunk chunk --explain`` reports for a cut. A marker at the
very start or end of the text is refused: those are the document's ends, never cut costs.
A case may set ``marker`` (or the suite, for all its cases) when its text needs a ``¦``, and
``split_points``/``pairs`` (offsets in the text without markers) as in detector suites.

The loader (:func:`adachunk.testing.casefiles.load_case_file`) reads a suite with ``pack`` or
``profile`` as a :class:`RuleSuite`; :func:`adachunk.testing.casefiles.run_suite` runs either kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..cost.lattice import CostRule, rule_cost
from ..cost.punishments import make_shape
from ..detect.base import DetectContext
from ..errors import Location, ProfileError, did_you_mean
from ..datatypes import span_arrays
from .detectorcases import CaseResult, CaseSuite, _document_fields, build_detector, case_context

MARKER = "¦"
SUITE_KEYS = {"pack", "profile", "rule", "marker", "cases", "description"}
_CASE_KEYS = {"name", "text", "rule", "marker", "expect_costs", "description", "split_points", "pairs"}


@dataclass
class RuleCase:
    """One rule example: a text (markers removed), its cut positions and their expected costs."""

    name: str
    text: str
    rule: str
    cuts: list[int]
    expect_costs: list[int]
    line: int | None = None
    rule_line: int | None = None
    split_points: list[int] | None = None
    pairs: list | None = None

    def context(self) -> DetectContext:
        """The detection context (a document when the case gives split points or pairs)."""
        return case_context(self.name, self.text, self.split_points, self.pairs)


@dataclass
class RuleSuite:
    """Rule packs (or a profile) and the rule cases their rules must pass."""

    path: Path
    packs: list[str] | None
    profile: str | None
    cases: list[RuleCase]
    index: int = 0
    line: int | None = None

    @property
    def title(self) -> str:
        """What the suite tests, as ``adachunk test`` prints it."""
        return f"profile {self.profile}" if self.profile else f"pack {'+'.join(self.packs or [])}"


def read_suite(r: Any, doc: dict, index: int, seen: set[str]) -> RuleSuite:
    """Validate one rule suite (``r`` is the case-file reader that knows every key's line)."""
    r.check_keys(doc, "", SUITE_KEYS, ("cases",))
    if ("pack" in doc) == ("profile" in doc):
        raise r.error("ADA203", "", "a rule suite names exactly one of 'pack' or 'profile'")
    packs = doc.get("pack")
    if packs is not None:
        packs = [packs] if isinstance(packs, str) else packs
        if not isinstance(packs, list) or not packs or not all(isinstance(p, str) for p in packs):
            raise r.error("ADA203", "pack", "'pack' must be a rule pack name or path, or a list of them")
    profile = doc.get("profile")
    if profile is not None and not isinstance(profile, str):
        raise r.error("ADA203", "profile", "'profile' must be a profile name or path")
    for key in ("rule", "marker"):
        if key in doc and (not isinstance(doc[key], str) or not doc[key]):
            raise r.error("ADA203", key, f"'{key}' must be a non-empty string")
    if not isinstance(doc["cases"], list) or not doc["cases"]:
        raise r.error("ADA203", "cases", "'cases' must be a non-empty list")
    cases = []
    for j, c in enumerate(doc["cases"]):
        cases.append(_read_case(r, f"cases.{j}", c, doc))
        if c["name"] in seen:
            raise r.error("ADA203", f"cases.{j}.name", f"duplicate case name '{c['name']}'")
        seen.add(c["name"])
    return RuleSuite(r.path, packs, profile, cases, index, r.lines.get(r.prefix.strip(".")))


def _read_case(r: Any, key: str, c: Any, suite: dict) -> RuleCase:
    r.check_keys(c, key, _CASE_KEYS, ("name", "text", "expect_costs"))
    if not isinstance(c["name"], str) or not isinstance(c["text"], str):
        raise r.error("ADA203", key, "'name' and 'text' must be strings")
    rule = c.get("rule", suite.get("rule"))
    if not isinstance(rule, str) or not rule:
        raise r.error("ADA204" if rule is None else "ADA203", key,
                      "a rule case needs a 'rule' (its own, or the suite's) naming a rule")
    marker = c.get("marker", suite.get("marker", MARKER))
    if not isinstance(marker, str) or not marker:
        raise r.error("ADA203", f"{key}.marker", "'marker' must be a non-empty string")
    parts = c["text"].split(marker)
    text = "".join(parts)
    cuts = list(np.cumsum([len(p) for p in parts[:-1]]).tolist()) if len(parts) > 1 else []
    if not cuts:
        raise r.error("ADA204", f"{key}.text", f"the text marks no cut: put '{marker}' where to cut")
    if any(x <= 0 or x >= len(text) for x in cuts):
        raise r.error("ADA203", f"{key}.text", f"a '{marker}' at the start or end of the text is the "
                      "document's edge, not a cut: mark positions strictly inside")
    exp = c["expect_costs"]
    if not isinstance(exp, list) or not all(type(x) is int for x in exp):
        raise r.error("ADA203", f"{key}.expect_costs", "'expect_costs' must be a list of integers")
    if len(exp) != len(cuts):
        raise r.error("ADA203", f"{key}.expect_costs",
                      f"{len(exp)} expected cost(s) for {len(cuts)} marked cut(s)")
    rule_line = r.lines.get(r.prefix + (f"{key}.rule" if "rule" in c else "rule"))
    return RuleCase(c["name"], text, rule, cuts, list(exp), line=r.lines.get(r.prefix + key),
                    rule_line=rule_line, **_document_fields(r, key, c))


def _pack_path(suite: RuleSuite, name: str) -> Path:
    """A pack file: a path (relative to the case file) or a shipped pack's name."""
    from ..profile.loader import locate

    if name.endswith((".yaml", ".yml")) or "/" in name:
        path = Path(name) if Path(name).is_absolute() else suite.path.parent / name
        if not path.is_file():
            raise ProfileError(code="ADA210", message=f"no rule pack file '{name}' (case file {suite.path})",
                               location=Location(str(suite.path), suite.line), key_path="pack")
        return path.resolve()
    try:
        return locate(name, "rules", None, trusted=False)  # the shipped (or search-path) packs
    except ProfileError as exc:
        exc.location, exc.key_path = Location(str(suite.path), suite.line), "pack"
        exc.message = f"{exc.message} (case file {suite.path})"
        raise


def _load_packs(suite: RuleSuite) -> tuple[dict[str, Any], dict[str, CostRule]]:
    """Merge the suite's packs as ``rules.include`` does: a later pack's structure or rule of the
    same name replaces an earlier one. Returns label → (spec, pack file) and name → rule."""
    from pydantic import ValidationError

    from ..errors import ProfileErrors
    from ..profile.loader import validation_errors
    from ..profile.schema import RulePack
    from ..profile.yamlmarks import load_yaml_file

    specs: dict[str, Any] = {}
    rules: dict[str, CostRule] = {}
    for name in suite.packs or []:
        path = _pack_path(suite, name)
        data = load_yaml_file(path)
        try:
            pack = RulePack.model_validate(data)
        except ValidationError as exc:
            raise ProfileErrors(validation_errors(exc, data, RulePack)) from None
        for label, spec in pack.structures.items():
            specs[label] = (spec.model_dump(exclude_none=True), path)
        for item in pack.rules:
            sides = {s: make_shape(v.shape, v.scale, v.width) if v else None
                     for s, v in (("on", item.on), ("off", item.off))}
            rules[item.name or item.structure] = CostRule(item.name or item.structure, item.structure, **sides)
    return specs, rules


class _Built:
    """The rules of a suite and its detectors, built once per structure label."""

    def __init__(self, suite: RuleSuite):
        self.suite = suite
        self.detectors: dict[str, Any] = {}
        if suite.profile:
            from ..profile.resolve import load_profile

            name = suite.profile
            if name.endswith((".yaml", ".yml")) or "/" in name:
                name = str(Path(name) if Path(name).is_absolute() else suite.path.parent / name)
            policy = load_profile(name).policy  # the real path, overrides and all
            self.rules = {r.name: r for r in policy.rules}
            self.detectors = dict(policy.detectors)
            self.specs: dict[str, Any] = {}
        else:
            self.specs, self.rules = _load_packs(suite)

    def rule(self, case: RuleCase) -> CostRule:
        if case.rule not in self.rules:
            names = sorted(self.rules)
            raise ProfileError(code="ADA206", message=f"no rule '{case.rule}' in {self.suite.title} "
                               f"(case file {self.suite.path})", allowed=names,
                               hint=did_you_mean(case.rule, names),
                               location=Location(str(self.suite.path), case.rule_line or case.line),
                               key_path="rule")
        return self.rules[case.rule]

    def detector(self, label: str, case: RuleCase):
        if label not in self.detectors:
            if label not in self.specs:
                raise ProfileError(code="ADA206", message=f"rule '{case.rule}' refers to structure "
                                   f"'{label}', which {self.suite.title} does not declare (case file "
                                   f"{self.suite.path})", allowed=sorted(self.specs),
                                   hint="list the pack that declares it first under 'pack'",
                                   location=Location(str(self.suite.path), case.rule_line or case.line),
                                   key_path="pack")
            spec, path = self.specs[label]
            fields = {k: v for k, v in spec.items() if k != "type"}
            # the same construction as a detector suite's, with the pack's folder for grammars
            self.detectors[label] = build_detector(CaseSuite(path, spec["type"], fields, []))
        return self.detectors[label]


def _context(text: str, at: int, width: int = 16) -> str:
    return repr(text[max(0, at - width):at] + MARKER + text[at:at + width])


def run_rule_case(built: _Built, case: RuleCase):
    """The rule's integer cost at each marked cut, compared with the expected costs."""
    from ..errors import AdachunkError

    rule = built.rule(case)
    det = built.detector(rule.label, case)
    where = f"{case.name} (line {case.line})" if case.line else case.name
    try:
        spans = span_arrays(det.detect_arrays(case.context()))
    except AdachunkError as exc:
        return CaseResult(case.name, False, case.expect_costs, [], f"{where}: {exc}")
    n = len(case.text)
    on, off = rule_cost(np.arange(n + 1, dtype=np.int64), spans, rule, n)
    got = [int(on[c] + off[c]) for c in case.cuts]
    if got == case.expect_costs:
        return CaseResult(case.name, True, case.expect_costs, got)
    k = next(i for i, (a, b) in enumerate(zip(case.expect_costs, got)) if a != b)
    c = case.cuts[k]
    message = (f"rule '{case.rule}', cut {k} at offset {c} ({_context(case.text, c)}): expected "
               f"{case.expect_costs[k]}, got {got[k]} (on {int(on[c])}, off {int(off[c])}; "
               f"{len(spans[0])} '{rule.label}' span(s) found)")
    return CaseResult(case.name, False, case.expect_costs, got, f"{where}: {message}")


def run_rule_suite(suite: RuleSuite) -> list:
    """Build the suite's rules and detectors once and run every case."""
    built = _Built(suite)
    return [run_rule_case(built, c) for c in suite.cases]
