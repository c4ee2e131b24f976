"""Every case in tests/fixtures/cases/*.yaml passes; the case-file loader reports bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from adachunk.testing.casefiles import (
    Case,
    CaseSuite,
    build_detector,
    ensure_builtin_detectors,
    load_case_file,
    run_case,
    run_suite,
)
from adachunk.errors import ProfileError, ProfileErrors

CASES_DIR = Path(__file__).parent / "fixtures" / "cases"


def _collect():
    params = []
    for path in sorted(CASES_DIR.glob("*.yaml")):
        try:
            suites = load_case_file(path)
        except ProfileError as exc:  # report a broken file as a failing test, not a crash
            params.append(pytest.param(None, None, exc, id=f"{path.name}::<load>"))
            continue
        for suite in suites:
            for case in suite.cases:
                params.append(pytest.param(suite, case, None, id=f"{path.name}::{case.name}"))
    return params


_DETECTORS: dict[tuple[str, int], object] = {}


@pytest.mark.parametrize("suite, case, load_error", _collect())
def test_case(suite: CaseSuite, case: Case, load_error):
    if load_error is not None:
        pytest.fail(str(load_error))
    key = (str(suite.path), suite.index)
    if key not in _DETECTORS:
        _DETECTORS[key] = build_detector(suite)
    result = run_case(_DETECTORS[key], case)
    assert result.passed, (
        f"{result.message}\n  expected: {result.expected!r}\n  got:      {result.got!r}"
    )


def test_every_case_file_is_collected():
    names = {p.name for p in CASES_DIR.glob("*.yaml")}
    assert {"sentence.yaml", "word.yaml", "regex.yaml", "grammar.yaml"} <= names
    n = sum(len(s.cases) for s in load_case_file(CASES_DIR / "sentence.yaml"))
    assert n >= 25


# --- the loader --------------------------------------------------------------------------------


def write(tmp_path: Path, text: str, name: str = "c.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


GOOD = """\
detector: {type: sentence.v1}
cases:
  - name: one
    text: "A. B."
    expect: ["A. B."]
  - name: two
    text: "One. Two."
    expect_spans: [[0, 4], [5, 9]]
"""


def test_load_single_suite_and_run(tmp_path):
    [suite] = load_case_file(write(tmp_path, GOOD))
    assert suite.detector_type == "sentence.v1" and suite.fields == {}
    assert [c.name for c in suite.cases] == ["one", "two"]
    assert suite.cases[1].line == 6
    results = run_suite(suite)
    assert [r.passed for r in results] == [True, True]


def test_load_list_of_suites_and_string_shorthand(tmp_path):
    text = (
        "- detector: word.v1\n  cases: [{name: a, text: 'x y', expect: [x, y]}]\n"
        "- detector: {type: regex.v1, pattern: 'y'}\n"
        "  cases: [{name: b, text: 'x y', expect: [y]}]\n"
    )
    suites = load_case_file(write(tmp_path, text))
    assert [s.detector_type for s in suites] == ["word.v1", "regex.v1"]
    assert suites[1].fields == {"pattern": "y"}
    assert all(r.passed for s in suites for r in run_suite(s))


def test_failing_case_reports_expected_and_got(tmp_path):
    text = GOOD.replace('expect: ["A. B."]', 'expect: ["A.", "B."]')
    [suite] = load_case_file(write(tmp_path, text))
    first = run_suite(suite)[0]
    assert not first.passed
    assert first.expected == ["A.", "B."] and first.got == ["A. B."]
    assert "one" in first.message and "line 3" in first.message


@pytest.mark.parametrize(
    "text, code, key",
    [
        ("detector: {type: sentence.v1\ncases: [", "ADA201", None),
        ("- 1\n- 2\n", "ADA203", None),
        ("", "ADA203", None),
        (GOOD + "extra: 1\n", "ADA202", "extra"),
        (GOOD.replace("  expect_spans", "  expected_spans"), "ADA202", "cases.1.expected_spans"),
        (GOOD.replace('    text: "A. B."\n', ""), "ADA204", "cases.0"),
        (GOOD.replace('    expect: ["A. B."]\n', ""), "ADA204", "cases.0"),
        (GOOD.replace('["A. B."]', '["A. B."]\n    expect_spans: []'), "ADA203", "cases.0"),
        (GOOD.replace("[[0, 4], [5, 9]]", "[[0, 4, 1]]"), "ADA203", "cases.1.expect_spans"),
        (GOOD.replace("name: two", "name: one"), "ADA203", "cases.1.name"),
        (GOOD.replace("{type: sentence.v1}", "{mode: x}"), "ADA204", "detector"),
        ("detector: word.v1\ncases: []\n", "ADA203", "cases"),
    ],
)
def test_bad_case_files(tmp_path, text, code, key):
    path = write(tmp_path, text)
    with pytest.raises(ProfileError) as err:
        load_case_file(path)
    assert err.value.code == code, err.value.render()
    assert str(path) in err.value.message or err.value.location.file == str(path)
    if key is not None:
        assert err.value.key_path == key
        assert err.value.location.line is not None


def test_missing_case_file(tmp_path):
    with pytest.raises(ProfileError) as err:
        load_case_file(tmp_path / "nope.yaml")
    assert "nope.yaml" in err.value.message


def test_yaml_error_has_line(tmp_path):
    with pytest.raises(ProfileError) as err:
        load_case_file(write(tmp_path, "cases:\n  - name: a\n    text: [unclosed\n"))
    assert err.value.code == "ADA201" and err.value.location.line is not None


def test_unknown_detector_type_is_ada205(tmp_path):
    [suite] = load_case_file(write(tmp_path, GOOD.replace("sentence.v1", "sentense.v1")))
    with pytest.raises(ProfileError) as err:
        run_suite(suite)
    assert err.value.code == "ADA205"
    assert "sentence.v1" in (err.value.hint or "")
    assert err.value.location.file == str(suite.path)


@pytest.mark.parametrize(
    "spec, code",
    [
        ("{type: sentence.v1, extra_abbreviation: [x]}", "ADA202"),
        ("{type: sentence.v1, extra_abbreviations: 5}", "ADA203"),
        ("{type: regex.v1}", "ADA204"),
        ("{type: regex.v1, pattern: '(a'}", "ADA207"),
        ("{type: grammar.lark.v1, grammar: nope.lark, start: x}", "ADA210"),
    ],
)
def test_invalid_detector_fields(tmp_path, spec, code):
    [suite] = load_case_file(write(tmp_path, GOOD.replace("{type: sentence.v1}", spec)))
    with pytest.raises(ProfileError) as err:
        build_detector(suite)
    assert err.value.code == code
    assert str(suite.path) in err.value.render()


def test_several_field_errors_are_all_reported(tmp_path):
    spec = "{type: regex.v1, pattern: 1, flagz: []}"
    [suite] = load_case_file(write(tmp_path, GOOD.replace("{type: sentence.v1}", spec)))
    with pytest.raises(ProfileErrors) as err:
        build_detector(suite)
    assert sorted(e.code for e in err.value.errors) == ["ADA202", "ADA203"]


def test_detector_input_error_fails_the_case(tmp_path):
    spec = "{type: regex.v1, pattern: '(a|aa)+$', timeout_s: 0.2}"
    text = GOOD.replace("{type: sentence.v1}", spec).replace('"A. B."]', '"x"]', 1)
    text = text.replace('text: "A. B."', 'text: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"')
    [suite] = load_case_file(write(tmp_path, text))
    first = run_suite(suite)[0]
    assert not first.passed and "ADA306" in first.message


def test_case_file_folder_is_searched_for_grammars(tmp_path):
    (tmp_path / "g.lark").write_text('item: "*"\n', encoding="utf-8")
    text = (
        "detector: {type: grammar.lark.v1, grammar: g.lark, start: item}\n"
        "cases: [{name: a, text: \"* one\\nno\", expect: [\"* one\"]}]\n"
    )
    [suite] = load_case_file(write(tmp_path, text))
    assert [r.passed for r in run_suite(suite)] == [True]


def test_ensure_builtin_detectors_registers_all():
    from adachunk.components.registry import detectors

    ensure_builtin_detectors()
    assert {"sentence.v1", "word.v1", "regex.v1", "grammar.lark.v1"} <= set(detectors.names())
