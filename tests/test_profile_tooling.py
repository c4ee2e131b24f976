"""Profile tooling and the detect/test commands: origins, diff, JSON Schema, case files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adachunk.datafiles import data_dir
from adachunk.cli.main import main
from adachunk.profile.resolve import resolve
from adachunk.profile.tooling import Change, annotated_yaml, diff_data, json_schema, origins
from adachunk.profile.yamlmarks import load_yaml_file, load_yaml_text, plain

from .conftest import EXAMPLES

jsonschema = pytest.importorskip("jsonschema")


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line)


# --- show --origins ------------------------------------------------------------------------------


def test_show_origins_names_file_and_line_or_default(capsys):
    assert main(["profile", "show", "default", "--origins"]) == 0
    out = capsys.readouterr().out
    line = _line_of(data_dir("profiles") / "default.yaml", "max_size:")
    assert f"max_size: 512  # profiles/default.yaml:{line}" in out
    assert "backend: numba  # default" in out  # a schema default, set by no file
    pack_line = _line_of(data_dir("rules") / "text.word.yaml", "word: {type: word.v1}")
    assert f"type: word.v1  # rules/text.word.yaml:{pack_line}" in out


def test_origins_follow_extends_and_rule_packs(tmp_path):
    child = tmp_path / "team.yaml"
    child.write_text("name: team\nextends: legal\nsolver:\n  max_size: 300\n"
                     "rules:\n  items:\n    - {name: definition, structure: definition, on: {shape: const, scale: 5}}\n",
                     encoding="utf-8")
    rp = resolve(child)
    where = origins(rp)
    assert where[("solver", "max_size")].endswith("team.yaml:4")
    assert where[("solver", "min_size")] == f"profiles/legal.yaml:{_line_of(data_dir('profiles') / 'legal.yaml', 'min_size')}"
    assert where[("solver", "backend")] == "default"
    idx = [r["name"] for r in rp.policy.data["rules"]["items"]].index("definition")
    assert where[("rules", "items", idx, "on", "scale")].endswith("team.yaml:7")
    heading = [r["name"] for r in rp.policy.data["rules"]["items"]].index("article_heading")
    assert where[("rules", "items", heading, "off", "width")].startswith("rules/legal.yaml:")
    assert where[("structures", "article_heading", "grammar")].startswith("rules/legal.yaml:")


def test_annotated_yaml_reads_back_as_the_effective_profile():
    for name in ("default", "legal", "finance", "technical"):
        rp = resolve(name)
        text = annotated_yaml(rp.policy.data, origins(rp))
        assert plain(load_yaml_text(text)) == rp.policy.data, name


# --- diff ------------------------------------------------------------------------------------------


def test_diff_matches_rules_by_name_and_structures_by_label():
    a = {"name": "a", "structures": {"x": {"type": "regex.v1", "pattern": "a"}},
         "rules": {"include": [], "items": [{"name": "r1", "structure": "x", "on": {"shape": "const", "scale": 1.0}},
                                            {"name": "r2", "structure": "x", "on": None}]},
         "solver": {"max_size": 512}}
    b = {"name": "a", "structures": {"x": {"type": "regex.v1", "pattern": "b"}, "y": {"type": "word.v1"}},
         "rules": {"include": [], "items": [{"name": "r2", "structure": "x", "on": None},
                                            {"name": "r1", "structure": "x", "on": {"shape": "const", "scale": 9.0}}]},
         "solver": {"max_size": 800}}
    rendered = [c.render() for c in diff_data(a, b)]
    assert rendered == [
        "~ structures.x.pattern: a → b",
        "+ structures.y: {type: word.v1}",
        "~ rules[r1].on.scale: 1.0 → 9.0",
        "~ rules (order): [r1, r2] → [r2, r1]",
        "~ solver.max_size: 512 → 800",
    ]
    assert Change("removed", "rules[z]", old={"name": "z"}).render() == "- rules[z]: {name: z}"


def test_profile_diff_command_and_exit_code(tmp_path, capsys):
    child = tmp_path / "child.yaml"
    child.write_text("name: default\nextends: default\nsolver: {max_size: 300}\n"
                     "rules:\n  items:\n    - {name: word, structure: word, on: {shape: const, scale: 999}}\n",
                     encoding="utf-8")
    assert main(["profile", "diff", "default", str(child)]) == 0
    out = capsys.readouterr().out
    assert "~ rules[word].on.scale: 1000.0 → 999.0" in out
    assert "~ solver.max_size: 512 → 300" in out
    assert "2 difference(s): 0 added, 0 removed, 2 changed" in out
    assert main(["profile", "diff", "default", str(child), "--exit-code"]) == 1
    capsys.readouterr()
    assert main(["profile", "diff", "default", "default", "--exit-code"]) == 0
    assert "no differences" in capsys.readouterr().out


def test_profile_diff_of_domain_profiles_lists_their_rules(capsys):
    assert main(["profile", "diff", "default", "legal"]) == 0
    out = capsys.readouterr().out
    assert "+ rules[article_paragraph]:" in out and "+ structures.article_heading:" in out


def test_profile_diff_reports_invalid_profile(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nsolver: {max_sise: 3}\n", encoding="utf-8")
    assert main(["profile", "diff", "default", str(bad)]) == 2
    assert "ADA202" in capsys.readouterr().err


# --- JSON Schema ------------------------------------------------------------------------------


def test_schema_is_valid_json_schema_with_components(tmp_path, capsys):
    target = tmp_path / "profile.schema.json"
    assert main(["profile", "schema", "-o", str(target)]) == 0
    schema = json.loads(target.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert {"$schema", "title", "type", "properties", "$defs", "required"} <= set(schema)
    assert {"structures", "rules", "solver", "candidates", "metrics", "extends"} <= set(schema["properties"])
    branches = {b["title"]: b for b in schema["$defs"]["StructureSpec"]["oneOf"]}
    assert {"grammar.lark.v1", "regex.v1", "markdown.block.v1", "word.v1", "sentence.v1"} <= set(branches)
    grammar = branches["grammar.lark.v1"]
    assert {"type", "grammar", "start", "mode", "parser"} <= set(grammar["properties"])
    assert grammar["properties"]["type"] == {"const": "grammar.lark.v1", "description": "registered component name"}
    assert {b["title"] for b in schema["$defs"]["CandidateSpec"]["oneOf"]} >= {"dp.v1", "recursive.v1", "page.v1"}
    assert "const" in schema["$defs"]["ShapeSpec"]["properties"]["shape"]["enum"]
    assert main(["profile", "schema"]) == 0
    assert json.loads(capsys.readouterr().out) == schema


def test_schema_accepts_shipped_files_and_rejects_bad_ones():
    validator = jsonschema.Draft202012Validator(json_schema("profile"))
    for path in sorted(data_dir("profiles").glob("*.yaml")):
        errors = list(validator.iter_errors(plain(load_yaml_file(path))))
        assert not errors, (path.name, errors[0].message)
    bad = plain(load_yaml_text("name: x\nstructures:\n  h: {type: grammar.lark.v1, grammar: g.lark, strat: x}\n"
                               "solver: {granularity: words}\n"))
    assert len(list(validator.iter_errors(bad))) >= 2
    packs = jsonschema.Draft202012Validator(json_schema("pack"))
    for path in sorted(data_dir("rules").glob("*.yaml")):
        assert not list(packs.iter_errors(plain(load_yaml_file(path)))), path.name


# --- detect ------------------------------------------------------------------------------------------


def test_detect_table_and_json(capsys, tmp_path):
    doc = EXAMPLES / "regulation_excerpt.md"
    assert main(["detect", str(doc), "--profile", "legal", "--labels", "article_heading,definition"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split() == ["label", "start", "end", "line:col", "preview"]
    art = [line for line in out if line.startswith("article_heading")]
    assert len(art) == 6 and "## Article 1 — Subject matter" in art[0]
    text = doc.read_text(encoding="utf-8")
    start = text.index("## Article 1 —")
    line = text.count("\n", 0, start) + 1
    assert art[0].split()[1] == str(start) and art[0].split()[3] == f"{line}:1"
    target = tmp_path / "s.json"
    assert main(["detect", str(doc), "--profile", "legal", "--format", "json", "-o", str(target)]) == 0
    data = json.loads(target.read_text(encoding="utf-8"))
    labels = {r["label"] for r in data["structures"]}
    assert {"article_heading", "point_list", "definition", "heading"} <= labels and "word" not in labels
    rec = next(r for r in data["structures"] if r["label"] == "definition")
    assert text[rec["start"]:rec["end"]].startswith(rec["preview"][:20]) and rec["col"] == 1


def test_detect_unknown_label_is_a_coded_error(capsys):
    assert main(["detect", str(EXAMPLES / "regulation_excerpt.md"), "--labels", "artcle_heading",
                 "--profile", "legal"]) == 2
    err = capsys.readouterr().err
    assert "ADA206" in err and "Did you mean 'article_heading'?" in err


# --- test -------------------------------------------------------------------------------------------

GOOD = """detector: {type: grammar.lark.v1, grammar: team.lark, start: ticket, mode: text}
cases:
  - name: tickets
    text: "see JIRA-12 and JIRA-7"
    expect: ["JIRA-12", "JIRA-7"]
  - name: none
    text: "no ticket"
    expect: []
"""


def _team_repo(tmp_path: Path) -> Path:
    cases = tmp_path / "tests" / "cases"
    cases.mkdir(parents=True)
    (cases / "team.lark").write_text('ticket: "JIRA-" INT\n%import common.INT\n', encoding="utf-8")
    (cases / "tickets.yaml").write_text(GOOD, encoding="utf-8")
    return cases


def test_test_command_passes_from_default_folder(tmp_path, monkeypatch, capsys):
    _team_repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["test"]) == 0
    out = capsys.readouterr().out
    assert "PASS tests/cases/tickets.yaml:3 grammar.lark.v1 tickets" in out
    assert out.strip().endswith("2 passed, 0 failed")


def test_test_command_fails_with_expected_and_got(tmp_path, capsys):
    cases = _team_repo(tmp_path)
    (cases / "tickets.yaml").write_text(GOOD.replace('["JIRA-12", "JIRA-7"]', '["JIRA-12"]'), encoding="utf-8")
    assert main(["test", str(cases), "-q"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "tickets" in out and "PASS" not in out
    assert "expected: ['JIRA-12']" in out and "got:      ['JIRA-12', 'JIRA-7']" in out
    assert "1 passed, 1 failed" in out


def test_test_command_invalid_file_and_missing_path(tmp_path, capsys):
    cases = _team_repo(tmp_path)
    (cases / "broken.yaml").write_text("detector: {type: regex.v1, pattern: '(a'}\ncases: [{name: a, text: a, expect: []}]\n",
                                       encoding="utf-8")
    assert main(["test", str(cases)]) == 2
    captured = capsys.readouterr()
    assert "ADA207" in captured.err and "ERROR" in captured.out
    assert main(["test", str(tmp_path / "nope")]) == 2
    assert "ADA302" in capsys.readouterr().err


def test_test_command_runs_the_shipped_grammar_cases(capsys):
    root = Path(__file__).parent / "fixtures" / "cases"
    assert main(["test", str(root / "finance_grammar.yaml"), "-q"]) == 0
    assert ", 0 failed" in capsys.readouterr().out
