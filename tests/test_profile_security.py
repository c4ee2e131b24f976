"""Profiles are untrusted input (issue 15, items 6, 7, 9, 16).

Files a profile names resolve only inside its own folder, the shipped data and the folders of
``ADACHUNK_PROFILE_PATH``; limits it sets are capped; credentials it names must look like API
keys; YAML merge keys work and errors name the real file.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adachunk.cli.main import main
from adachunk.errors import ProfileError
from adachunk.profile.resolve import resolve
from adachunk.profile.yamlmarks import load_yaml_text


@pytest.fixture(autouse=True)
def _no_search_path(monkeypatch):
    monkeypatch.delenv("ADACHUNK_PROFILE_PATH", raising=False)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def errors_of(profile) -> list:
    with pytest.raises(ProfileError) as info:  # a broken extends chain stops at its first error
        resolve(profile)
    return getattr(info.value, "errors", [info.value])


def one(profile, code: str):
    errs = [e for e in errors_of(profile) if e.code == code]
    assert errs, [e.render() for e in errors_of(profile)]
    return errs[0]


GRAMMAR = 'start: "Article" " " /[0-9]+/\n'


def grammar_profile(folder: Path, grammar: str) -> Path:
    return write(folder / "p.yaml", "name: p\nstructures:\n"
                 f"  art: {{type: grammar.lark.v1, grammar: '{grammar}', start: start}}\n")


# --- 7: files outside the allowed places --------------------------------------------------------


def test_a_grammar_beside_the_profile_and_a_shipped_one_still_load(tmp_path):
    write(tmp_path / "mine.lark", GRAMMAR)
    assert resolve(grammar_profile(tmp_path, "mine.lark")).policy.detectors["art"]
    prof = write(tmp_path / "q.yaml", "name: q\nstructures:\n"
                 "  art: {type: grammar.lark.v1, grammar: legal.lark, start: article_heading}\n")
    assert resolve(prof).policy.detectors["art"]


@pytest.mark.parametrize("name", ["/etc/passwd", "../outside.lark", "sub/../../outside.lark"])
def test_a_grammar_outside_the_allowed_folders_is_refused(tmp_path, name):
    write(tmp_path / "outside.lark", GRAMMAR)
    (tmp_path / "team" / "sub").mkdir(parents=True)
    prof = grammar_profile(tmp_path / "team", name)
    err = one(prof, "ADA220")
    assert err.key_path == "structures.art.grammar"
    assert err.location.file == str(prof) and err.location.line == 3
    assert "outside" in err.message or "passwd" in err.message


def test_a_symlink_leading_out_of_the_profile_folder_is_refused(tmp_path):
    write(tmp_path / "secret.lark", GRAMMAR)
    team = tmp_path / "team"
    team.mkdir()
    os.symlink(tmp_path / "secret.lark", team / "link.lark")
    assert one(grammar_profile(team, "link.lark"), "ADA220").key_path == "structures.art.grammar"


def test_a_search_path_folder_is_allowed(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    write(shared / "mine.lark", GRAMMAR)
    write(shared / "base.yaml", "name: base\nsolver: {max_size: 300}\n")
    monkeypatch.setenv("ADACHUNK_PROFILE_PATH", os.pathsep.join([str(tmp_path / "nowhere"), str(shared)]))
    prof = write(tmp_path / "team" / "p.yaml", "name: p\nextends: base\nstructures:\n"
                 f"  art: {{type: grammar.lark.v1, grammar: '{shared / 'mine.lark'}', start: start}}\n")
    rp = resolve(prof)
    assert rp.profile.solver.max_size == 300 and "art" in rp.policy.detectors


@pytest.mark.parametrize("target", ["../base.yaml", "ABS"])
def test_extends_outside_the_allowed_folders_is_refused(tmp_path, target):
    base = write(tmp_path / "base.yaml", "name: base\n")
    target = str(base) if target == "ABS" else target
    prof = write(tmp_path / "team" / "p.yaml", f"name: p\nextends: '{target}'\n")
    err = one(prof, "ADA220")
    assert err.key_path == "extends" and err.location.file == str(prof) and err.location.line == 2


def test_extends_of_etc_shadow_opens_nothing(tmp_path, monkeypatch):
    opened = []
    real = Path.read_text

    def spy(self, *a, **kw):
        opened.append(str(self))
        return real(self, *a, **kw)

    monkeypatch.setattr(Path, "read_text", spy)
    prof = write(tmp_path / "p.yaml", "name: p\nextends: /etc/passwd\n")
    assert one(prof, "ADA220").key_path == "extends"
    assert "/etc/passwd" not in opened


def test_include_outside_the_allowed_folders_is_refused(tmp_path):
    write(tmp_path / "pack.yaml", "structures: {}\nrules: []\n")
    prof = write(tmp_path / "team" / "p.yaml", "name: p\nrules: {include: [../pack]}\n")
    err = one(prof, "ADA220")
    assert err.key_path == "rules.include.0" and err.location.file == str(prof)


def test_a_user_given_profile_path_is_not_confined(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "p.yaml", "name: p\n")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert resolve("../p.yaml").name == "p"  # the command line is the user's own choice


def test_an_oversized_extends_file_is_refused_before_reading(tmp_path, monkeypatch):
    big = tmp_path / "big.yaml"
    with open(big, "wb") as fh:
        fh.truncate(64 * 1024 * 1024)  # sparse: 64 MiB of NULs, read whole it would be slow
    prof = write(tmp_path / "p.yaml", "name: p\nextends: big\n")
    err = one(prof, "ADA221")
    assert err.key_path == "extends" and "MiB" in err.message


@pytest.mark.parametrize("cache_dir", ["/tmp/adachunk-evil", "../elsewhere", "~/.ssh"])
def test_llm_cache_dir_outside_is_refused(tmp_path, cache_dir):
    prof = write(tmp_path / "team" / "p.yaml", "name: p\ncandidates:\n"
                 f"  - {{type: llm_regex.v1, base_url: 'http://127.0.0.1:9/v1', cache_dir: '{cache_dir}'}}\n")
    err = one(prof, "ADA220")
    assert err.key_path == "candidates.0.cache_dir" and err.location.line == 3


def test_llm_cache_dir_inside_resolves_against_the_profile_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ADACHUNK_CACHE_DIR", str(tmp_path / "usercache"))
    for value, expected in (("llmcache", tmp_path / "team" / "llmcache"),
                            (str(tmp_path / "usercache" / "llm2"), tmp_path / "usercache" / "llm2")):
        prof = write(tmp_path / "team" / "p.yaml", "name: p\ncandidates:\n"
                     f"  - {{type: llm_regex.v1, base_url: 'http://127.0.0.1:9/v1', cache_dir: '{value}'}}\n")
        params = resolve(prof).policy.candidates[0][1]
        assert Path(params["cache_dir"]) == expected.resolve()


def test_model2vec_path_outside_is_refused(tmp_path):
    prof = write(tmp_path / "team" / "p.yaml",
                 "name: p\nmetrics:\n  embedder: {type: model2vec.v1, path: /etc}\n")
    assert one(prof, "ADA220").key_path == "metrics.embedder.path"


def test_the_retrieval_estimates_model_path_is_confined_too(tmp_path):
    prof = write(tmp_path / "team" / "p.yaml",
                 "name: p\nretrieval:\n  estimate: {type: model2vec.v1, path: /etc}\n")
    assert one(prof, "ADA220").key_path == "retrieval.estimate.path"
    inside = tmp_path / "team" / "m2v"
    inside.mkdir()
    prof = write(tmp_path / "team" / "q.yaml",
                 "name: q\nretrieval:\n  estimate: {type: model2vec.v1, path: m2v}\n")
    assert resolve(prof).policy.retrieval.estimate.model_dump()["path"] == str(inside.resolve())


# --- 9: limits a profile sets are capped ------------------------------------------------------


@pytest.mark.parametrize("spec,key", [
    ("{type: regex.v1, pattern: 'x', timeout_s: 1000000000}", "structures.s.timeout_s"),
    ("{type: grammar.lark.v1, grammar: legal.lark, start: article_heading, timeout_s: 1e9}", "structures.s.timeout_s"),
])
def test_detector_time_limits_cannot_be_lifted(tmp_path, spec, key):
    prof = write(tmp_path / "p.yaml", f"name: p\nstructures:\n  s: {spec}\n")
    err = one(prof, "ADA203")
    assert err.key_path == key and "600" in err.render()


@pytest.mark.parametrize("section", [
    "candidates:\n  - {type: llm_regex.v1, timeout_s: 1000000000}",
    "candidates:\n  - {type: llm_regex.v1, max_retries: 1000}",
    "postprocess: {max_tokens: 100000000000}",
    "metrics: {dcc_window_tokens: 100000000000}",
    "index: {batch_size: 100000000000}",
])
def test_schema_limits_are_capped(tmp_path, section):
    prof = write(tmp_path / "p.yaml", f"name: p\n{section}\n")
    assert any(e.code == "ADA203" for e in errors_of(prof))


def test_profile_check_rejects_a_huge_regex_timeout(tmp_path, capsys):
    prof = write(tmp_path / "p.yaml", "name: p\nstructures:\n  s: {type: regex.v1, pattern: 'x', timeout_s: 1000000000}\n")
    assert main(["profile", "check", str(prof)]) == 2
    assert "structures.s.timeout_s" in capsys.readouterr().err


# --- 6: credentials ---------------------------------------------------------------------------


def test_api_key_env_outside_the_allow_list_is_a_profile_error(tmp_path, capsys):
    prof = write(tmp_path / "p.yaml", "name: p\ncandidates:\n"
                 "  - {type: llm_regex.v1, base_url: 'http://127.0.0.1:9/v1', api_key_env: AWS_SECRET_ACCESS_KEY}\n")
    assert main(["profile", "check", str(prof)]) == 2
    err = capsys.readouterr().err
    assert "ADA218" in err and f"{prof}:3" in err and "candidates.0.api_key_env" in err
    assert "AWS_SECRET_ACCESS_KEY" in err


def test_profile_check_warns_about_a_remote_base_url(tmp_path, capsys):
    prof = write(tmp_path / "p.yaml", "name: p\ncandidates:\n"
                 "  - {type: dp.v1}\n  - {type: llm_regex.v1, base_url: 'https://llm.attacker.example/v1'}\n")
    assert main(["profile", "check", str(prof)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("ok:")
    assert "warning" in captured.err and "llm.attacker.example" in captured.err
    assert "--allow-remote-llm" in captured.err and "candidates.1.base_url" in captured.err


def test_profile_check_is_quiet_about_a_loopback_base_url(tmp_path, capsys):
    prof = write(tmp_path / "p.yaml", "name: p\ncandidates:\n"
                 "  - {type: llm_regex.v1, base_url: 'http://127.0.0.1:8080/v1'}\n")
    assert main(["profile", "check", str(prof)]) == 0
    assert "warning" not in capsys.readouterr().err


# --- 16: YAML merge keys and file names in errors ---------------------------------------------


def test_merge_key_with_an_override_is_accepted():
    data = load_yaml_text("base: &b {shape: const, scale: 5}\nx:\n  <<: *b\n  scale: 9\n", "f.yaml")
    assert dict(data["x"]) == {"shape": "const", "scale": 9}
    data = load_yaml_text("a: &a {k: 1, m: 1}\nb: &b {k: 2}\nx: {<<: [*b, *a]}\n", "f.yaml")
    assert dict(data["x"]) == {"k": 2, "m": 1}  # YAML 1.1: earlier mappings in the list win


def test_an_explicit_duplicate_key_is_still_an_error():
    with pytest.raises(ProfileError) as info:
        load_yaml_text("x:\n  a: 1\n  a: 2\n", "f.yaml")
    assert info.value.code == "ADA201" and info.value.location.file == "f.yaml"
    assert info.value.location.line == 3


def test_merge_keys_in_a_profile(tmp_path):
    prof = write(tmp_path / "p.yaml", "name: p\nrules:\n  items:\n"
                 "    - &r {structure: heading, on: {shape: const, scale: 5}}\n"
                 "    - {<<: *r, name: h2, on: {shape: const, scale: 7}}\n"
                 "structures:\n  heading: {type: regex.v1, pattern: '^#'}\n")
    rp = resolve(prof)
    assert [r.on.scale for r in rp.profile.rules.items] == [5, 7]


def test_schema_errors_after_a_merge_name_the_file(tmp_path):
    prof = write(tmp_path / "p.yaml", "name: p\nx: &x {max_size: 100}\n")
    errs = errors_of(prof)
    assert all(e.location.file == str(prof) for e in errs), [e.render() for e in errs]


def test_a_path_like_sentence_transformers_model_is_confined(tmp_path):
    (tmp_path / "models" / "x").mkdir(parents=True)
    prof = write(tmp_path / "team" / "p.yaml",
                 "name: p\nmetrics:\n  embedder: {type: sentence_transformers.v1, model: ../models/x}\n")
    assert one(prof, "ADA220").key_path == "metrics.embedder.model"
    (tmp_path / "team" / "m").mkdir()
    prof.write_text("name: p\nmetrics:\n  embedder: {type: sentence_transformers.v1, model: ./m}\n")
    assert resolve(prof).policy.metrics.embedder.model == str((tmp_path / "team" / "m").resolve())


# --- issue 37: a grammar's %import is confined as the grammar is -----------------------------------


def _import_profile(prof: Path, grammar: str) -> Path:
    write(prof / "g.lark", grammar)
    return write(prof / "p.yaml", "name: p\nstructures:\n"
                 "  art: {type: grammar.lark.v1, grammar: g.lark, start: start}\n")


@pytest.fixture
def no_read_outside(monkeypatch, tmp_path):
    """Fail the test if anything under tmp_path/outside (or /etc/passwd) is opened for reading."""
    import builtins
    import io

    outside = os.path.realpath(tmp_path / "outside")
    real_open = builtins.open

    def guarded(file, *a, **kw):
        mode = a[0] if a else kw.get("mode", "r")
        if isinstance(file, (str, os.PathLike)) and not set(mode) & set("wax"):  # a read
            real = os.path.realpath(file)
            if real.startswith(outside + os.sep) or real == "/etc/passwd":
                pytest.fail(f"an outside file was opened: {file}")
        return real_open(file, *a, **kw)

    monkeypatch.setattr(builtins, "open", guarded)
    monkeypatch.setattr(io, "open", guarded)
    return tmp_path / "outside"


def test_an_import_through_a_symlinked_folder_is_refused(tmp_path, no_read_outside):
    write(no_read_outside / "x.lark", 'A: "zz"\n')
    prof = tmp_path / "prof"
    prof.mkdir()
    os.symlink(no_read_outside, prof / "sub")
    p = _import_profile(prof, 'start: "Article" " " A\n%import .sub.x (A)\n')
    err = one(p, "ADA220")
    assert err.location.file == str(prof / "g.lark") and err.location.line == 2
    assert err.key_path == "structures.art"
    assert str(no_read_outside / "x.lark") in err.message


def test_an_import_of_a_file_symlink_opens_nothing(tmp_path, no_read_outside):
    prof = tmp_path / "prof"
    prof.mkdir()
    os.symlink("/etc/passwd", prof / "leak.lark")
    p = _import_profile(prof, 'start: "Article" " " ROOT\n\n%import .leak.ROOT\n')
    err = one(p, "ADA220")
    assert err.location.file == str(prof / "g.lark") and err.location.line == 3
    assert "/etc/passwd" in err.message
    assert not [e for e in errors_of(p) if e.code == "ADA208"]  # nothing parsed, nothing blamed


def test_an_import_through_a_search_path_folder_is_confined_too(tmp_path, monkeypatch, no_read_outside):
    write(no_read_outside / "x.lark", 'A: "zz"\n')
    shared = tmp_path / "shared"
    write(shared / "ok.lark", 'B: "yy"\n')
    os.symlink(no_read_outside / "x.lark", shared / "evil.lark")
    monkeypatch.setenv("ADACHUNK_PROFILE_PATH", str(shared))
    prof = tmp_path / "prof"
    prof.mkdir()
    # a library-style import found in a search folder is allowed ...
    good = _import_profile(prof, 'start: "Article" " " B\n%import ok.B\n')
    rp = resolve(good)
    assert "art" in rp.policy.detectors
    assert (shared / "ok.lark").resolve() in [Path(f).resolve() for f in rp.files]  # in the fingerprint
    # ... one that links out of it is not
    bad = _import_profile(prof, 'start: "Article" " " A\n%import evil.A\n')
    err = one(bad, "ADA220")
    assert err.location.file == str(prof / "g.lark") and err.location.line == 2


def test_a_missing_import_is_not_looked_for_in_the_working_folder(tmp_path, monkeypatch, no_read_outside):
    write(no_read_outside / "x.lark", 'A: "zz"\n')
    monkeypatch.chdir(no_read_outside)  # Lark's last resort opens the import relative to here
    prof = tmp_path / "prof"
    prof.mkdir()
    err = one(_import_profile(prof, 'start: "Article" " " A\n%import x.A\n'), "ADA210")
    assert err.location.line == 2


def test_an_import_beside_the_grammar_still_loads(tmp_path):
    prof = tmp_path / "prof"
    write(prof / "parts" / "num.lark", 'NUM: /[0-9]+/\n')
    p = _import_profile(prof, 'start: "Article" " " NUM\n%import .parts.num.NUM\n%import common.WS\n')
    assert "art" in resolve(p).policy.detectors


@pytest.mark.parametrize("field", ["model_path", "encoder", "spacy_model"])
def test_maverick_model_folders_outside_are_refused(tmp_path, field):
    (tmp_path / "models").mkdir()
    team = tmp_path / "team"
    team.mkdir()
    os.symlink(tmp_path / "models", team / "linked")
    for value in ("../models", "./linked"):
        prof = write(team / "p.yaml", f"name: p\nmetrics:\n  coref: {{type: maverick.v1, {field}: '{value}'}}\n")
        err = one(prof, "ADA220")
        assert err.key_path == f"metrics.coref.{field}" and err.location.file == str(prof)


def test_a_maverick_model_folder_beside_the_profile_is_made_absolute(tmp_path):
    (tmp_path / "maverick").mkdir()
    prof = write(tmp_path / "p.yaml", "name: p\nmetrics:\n  coref: {type: maverick.v1, model_path: maverick}\n")
    coref = resolve(prof).policy.metrics.coref.model_dump()
    assert coref["model_path"] == str((tmp_path / "maverick").resolve())
