"""Rule case files: every shipped rule pack has cases in rules/cases/, and every case passes.

Also the rule-suite loader (located errors), readable failures, profile suites and
``adachunk test rules/``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adachunk.datafiles import data_dir
from adachunk.testing.casefiles import is_case_file, load_case_file, run_suite
from adachunk.cli.main import main
from adachunk.errors import ProfileError
from adachunk.testing.rulecases import RuleSuite

RULES = data_dir("rules")
CASES = RULES / "cases"
PACKS = sorted(p.stem for p in RULES.glob("*.yaml"))


def _collect():
    params = []
    for path in sorted(CASES.glob("*.yaml")):
        try:
            suites = load_case_file(path)
        except ProfileError as exc:  # a broken file is a failing test, not a collection crash
            params.append(pytest.param(path, None, exc, id=f"{path.name}::<load>"))
            continue
        for suite in suites:
            params.append(pytest.param(path, suite, None, id=f"{path.name}::{suite.index}"))
    return params


@pytest.mark.parametrize("path, suite, load_error", _collect())
def test_shipped_rule_cases_pass(path, suite, load_error):
    if load_error is not None:
        pytest.fail(str(load_error))
    failures = [r.message for r in run_suite(suite) if not r.passed]
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("pack", PACKS)
def test_every_shipped_pack_has_rule_cases(pack):
    path = CASES / f"{pack}.yaml"
    assert path.is_file(), f"rules/{pack}.yaml has no case file rules/cases/{pack}.yaml"
    suites = load_case_file(path)
    assert all(isinstance(s, RuleSuite) and pack in (s.packs or []) for s in suites)
    assert sum(len(s.cases) for s in suites) >= 3
    # every rule of the pack is exercised by at least one case
    from adachunk.profile.yamlmarks import load_yaml_file

    names = {r.get("name") or r["structure"] for r in load_yaml_file(RULES / f"{pack}.yaml")["rules"]}
    tested = {c.rule for s in suites for c in s.cases}
    assert names <= tested, f"rules without a case: {sorted(names - tested)}"


def test_packs_are_not_case_files_and_cases_are():
    assert not any(is_case_file(RULES / f"{p}.yaml") for p in PACKS)
    assert all(is_case_file(p) for p in CASES.glob("*.yaml"))


SUITE = """\
pack: text.word
rule: word
cases:
  - name: inside
    text: "Hel¦lo world"
    expect_costs: [150]
"""


def _write(tmp_path: Path, text: str, name: str = "c.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_rule_suite_loads_with_positions(tmp_path):
    (suite,) = load_case_file(_write(tmp_path, SUITE))
    assert isinstance(suite, RuleSuite) and suite.packs == ["text.word"]
    case = suite.cases[0]
    assert case.text == "Hello world" and case.cuts == [3] and case.rule == "word" and case.line == 4
    assert [r.passed for r in run_suite(suite)] == [True]


def test_wrong_expectation_fails_readably(tmp_path):
    (suite,) = load_case_file(_write(tmp_path, SUITE.replace("[150]", "[100]")))
    (res,) = run_suite(suite)
    assert not res.passed and res.expected == [100] and res.got == [150]
    assert "rule 'word', cut 0 at offset 3" in res.message
    assert "expected 100, got 150" in res.message and "'Hel¦lo world'" in res.message
    assert "(line 4)" in res.message


def test_marker_can_be_changed(tmp_path):
    text = SUITE.replace('rule: word\n', 'rule: word\nmarker: "@@"\n').replace("Hel¦lo", "Hel@@lo ¦")
    (suite,) = load_case_file(_write(tmp_path, text))
    assert suite.cases[0].text == "Hello ¦ world" and suite.cases[0].cuts == [3]


@pytest.mark.parametrize(
    "text, code, key, line",
    [
        (SUITE + "extra: 1\n", "ADA202", "extra", 7),
        (SUITE.replace("    expect_costs: [150]\n", ""), "ADA204", "cases.0", 4),
        (SUITE.replace("[150]", "[150, 0]"), "ADA203", "cases.0.expect_costs", 6),
        (SUITE.replace("[150]", "['150']"), "ADA203", "cases.0.expect_costs", 6),
        (SUITE.replace("Hel¦lo", "Hello"), "ADA204", "cases.0.text", 5),
        (SUITE.replace("Hel¦lo", "¦Hello"), "ADA203", "cases.0.text", 5),
        (SUITE.replace("rule: word\n", ""), "ADA204", "cases.0", 3),
        (SUITE.replace("pack: text.word", "pack: text.word\nprofile: default"), "ADA203", None, 1),
        (SUITE.replace("pack: text.word", "pack: [1]"), "ADA203", "pack", 1),
        (SUITE.replace("expect_costs", "expect_cost"), "ADA202", "cases.0.expect_cost", 6),
    ],
)
def test_malformed_rule_suite_is_located(tmp_path, text, code, key, line):
    path = _write(tmp_path, text)
    with pytest.raises(ProfileError) as err:
        load_case_file(path)
    e = err.value
    assert (e.code, e.key_path, e.location.line) == (code, key, line)
    assert e.location.file == str(path)


@pytest.mark.parametrize(
    "text, code",
    [
        (SUITE.replace("rule: word", "rule: wrod"), "ADA206"),       # unknown rule (did you mean)
        (SUITE.replace("text.word", "text.wrod"), "ADA210"),         # unknown pack
        (SUITE.replace("text.word", "technical").replace("rule: word", "rule: code"), "ADA206"),
    ],
)
def test_unknown_rule_pack_or_structure_raises_when_run(tmp_path, text, code):
    (suite,) = load_case_file(_write(tmp_path, text))
    with pytest.raises(ProfileError) as err:
        run_suite(suite)
    assert err.value.code == code and err.value.location.file == str(suite.path)


def test_profile_suite_sees_the_profiles_overrides(tmp_path):
    # default.yaml retunes markdown.core's heading (on 100 → 400; off reverse_linear 300 over 300)
    # and word (150 → 1000): "# Tit¦le" is inside the heading, "Bo¦dy" 2 chars after its end
    text = """\
profile: default
cases:
  - {name: heading-inside, rule: heading, text: "# Tit¦le\\n\\n¦Body.\\n", expect_costs: [400, 298]}
  - {name: word-inside, rule: word, text: "# Title\\n\\nBo¦dy.\\n", expect_costs: [1000]}
"""
    (suite,) = load_case_file(_write(tmp_path, text))
    assert suite.title == "profile default"
    assert [r.message for r in run_suite(suite) if not r.passed] == []


def test_user_pack_beside_the_case_file(tmp_path):
    _write(tmp_path, "structures:\n  num: {type: regex.v1, pattern: '\\d+'}\n"
           "rules:\n  - {name: num, structure: num, on: {shape: const, scale: 7}}\n", "mine.yaml")
    cases = tmp_path / "cases"
    cases.mkdir()
    _write(cases, "pack: ../mine.yaml\nrule: num\ncases:\n"
           "  - {name: inside-number, text: 'a 12¦34 b¦', expect_costs: [7, 0]}\n".replace("b¦'", "b¦ c'"))
    assert main(["test", "-q", str(tmp_path)]) == 0


def test_cli_runs_rules_folder(capsys):
    assert main(["test", "-q", str(RULES)]) == 0
    out = capsys.readouterr().out
    assert " 0 failed" in out and "invalid" not in out


def test_cli_reports_failed_rule_case(tmp_path, capsys):
    _write(tmp_path, SUITE.replace("[150]", "[1]"))
    assert main(["test", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "pack text.word word inside" in out and "expected 1, got 150" in out


def test_cli_explicit_pack_file_is_an_error(capsys):
    assert main(["test", str(RULES / "legal.yaml")]) == 2
    captured = capsys.readouterr()
    assert "is a rule pack, not a case file" in captured.out + captured.err
