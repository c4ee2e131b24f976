"""``adachunk tune`` search spaces (ADA215) and ``metrics.weights`` presets (ADA203)."""

from __future__ import annotations

import pytest

from adachunk import load_profile
from adachunk.cli.main import main
from adachunk.errors import ProfileError, ProfileErrors
from adachunk.selection.aggregate import WEIGHT_PRESETS
from adachunk.tune.objective import make_variant, weights_of
from adachunk.tune.space import parse_cli, space_from, split_key

SHIPPED = ["default", "legal", "finance", "technical", "darn"]


def _errors(exc: ProfileError) -> list[ProfileError]:
    return exc.errors if isinstance(exc, ProfileErrors) else [exc]


def _write(tmp_path, text: str, name: str = "p.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_profiles_have_a_valid_space(name):
    rp = load_profile(name)
    space = space_from(rp, None, target=None, objective="intrinsic", profile=name)
    assert space.params and space.target in {c[2] for c in rp.policy.candidates} | {"solver"}
    assert all(p.low <= p.high for p in space.params)


def test_paper_profile_tunes_weights_against_qa():
    space = space_from(load_profile("paper"), None, target=None, objective="qa", profile="paper")
    assert space.target == "pool" and space.tunes_weights


def test_empty_space_is_ada215_with_key_path(tmp_path):
    path = _write(tmp_path, "name: p\nextends: default\ntune:\n  space: {}\n")
    with pytest.raises(ProfileError) as exc:
        space_from(load_profile(path), None, target=None, objective="intrinsic", profile=str(path))
    err = _errors(exc.value)[0]
    assert err.code == "ADA215" and err.key_path == "tune.space"
    assert str(path) in err.location.render() and err.location.line == 4


def test_unknown_rule_is_ada215_with_hint_and_line(tmp_path):
    path = _write(tmp_path, "name: p\nextends: default\ntune:\n  space:\n    rules:\n      hedding: [0.5, 2]\n")
    with pytest.raises(ProfileError) as exc:
        space_from(load_profile(path), None, target=None, objective="intrinsic", profile=str(path))
    err = _errors(exc.value)[0]
    assert (err.code, err.key_path, err.location.line) == ("ADA215", "tune.space.rules.hedding", 6)
    assert "Did you mean 'heading'?" in err.render() and "heading" in err.allowed


def test_cli_space_errors_name_the_key_and_the_command_line(capsys, tmp_path):
    code = main(["tune", "--profile", "default", "examples/SOURCES.md", "--param", "rules.hedding=0.5:2",
                 "--param", "candidates.dp_25A.max_size=500:900", "--out", str(tmp_path / "o"), "-q"])
    err = capsys.readouterr().err
    assert code == 2
    assert "ADA215 <command line> tune.space.rules.hedding" in err and "Did you mean 'heading'?" in err
    assert "tune.space.candidates.dp_25A" in err and "Did you mean 'dp_254'?" in err
    assert not (tmp_path / "o" / "study.db").exists()


@pytest.mark.parametrize("items,where", [
    (["rules.heading"], "tune.space"),  # not KEY=LOW:HIGH
    (["rules.heading=2:0.5"], "tune.space.rules.heading"),  # low > high
    (["rules.heading=0:2"], "tune.space.rules.heading.0"),  # a log multiplier must be > 0
    (["solver.max_sise=1:2"], "tune.space.solver.max_sise"),
    (["weights.bi=0:1"], "tune.space.weights"),  # weights need a QA objective
])
def test_invalid_cli_items(items, where):
    with pytest.raises(ProfileError) as exc:
        space_from(load_profile("default"), items, target=None, objective="intrinsic")
    err = _errors(exc.value)[0]
    assert err.code == "ADA215" and err.key_path == where, err.render()


def test_solver_key_that_the_target_overrides_is_rejected():
    # dp_254 sets its own max_size: the solver section's would change nothing
    with pytest.raises(ProfileError) as exc:
        space_from(load_profile("default"), ["solver.max_size=500:900"], target=None, objective="intrinsic")
    err = _errors(exc.value)[0]
    assert err.key_path == "tune.space.solver.max_size" and "candidates.dp_254.max_size" in err.hint


def test_parse_cli_keeps_dotted_candidate_names():
    assert parse_cli(["candidates.dp.v1.max_size=100:200", "rules.heading=0.5:2"]) == {
        "candidates": {"dp.v1": {"max_size": [100, 200]}}, "rules": {"heading": [0.5, 2.0]}}
    assert split_key("candidates.dp.v1.max_size") == ("candidates", "dp.v1", "max_size")


def test_variant_scales_rules_and_sets_sizes_without_touching_the_base():
    rp = load_profile("default")
    space = space_from(rp, ["rules.heading=0.5:2", "candidates.dp_254.max_size=100:300",
                            "candidates.dp_254.min_size=50:2000"], target=None, objective="intrinsic")
    v = make_variant(rp.policy, space, {"rules.heading": 2.0, "candidates.dp_254.max_size": 200,
                                        "candidates.dp_254.min_size": 900})
    heading = next(r for r in v.policy.rules if r.name == "heading")
    base = next(r for r in rp.policy.rules if r.name == "heading")
    assert (heading.on.scale, heading.off.scale) == (2 * base.on.scale, 2 * base.off.scale)
    assert v.cands == [("dp.v1", {**v.cands[0][1]}, "dp_254")]
    assert v.cands[0][1]["max_size"] == 200 and v.cands[0][1]["min_size"] == 200  # repaired: min <= max
    assert dict(rp.policy.candidates[0][1])["max_size"] == 254  # base unchanged
    assert v.policy.detectors is rp.policy.detectors  # same detector instances: analyses are reused


def test_weights_of_renormalises():
    w = weights_of({"weights.bi": 0.6}, {"sc": 0.2, "bi": 0.2, "rc": 0.2, "icc": 0.2, "dcc": 0.2})
    assert abs(sum(w.values()) - 1) < 1e-6 and w["bi"] == pytest.approx(0.6 / 1.4, abs=1e-6)


# -- metrics.weights presets --------------------------------------------------------------------
@pytest.mark.parametrize("preset", sorted(WEIGHT_PRESETS))
def test_weight_presets_resolve_to_dicts(tmp_path, preset):
    path = _write(tmp_path, f"name: p\nextends: default\nmetrics:\n  weights: {preset}\n")
    weights = load_profile(path).policy.metrics.weights
    assert weights == WEIGHT_PRESETS[preset] and abs(sum(weights.values()) - 1) < 1e-9


def test_presets_favour_their_metrics():
    assert max(WEIGHT_PRESETS["finance"], key=WEIGHT_PRESETS["finance"].get) == "bi"
    assert max(WEIGHT_PRESETS["support"], key=WEIGHT_PRESETS["support"].get) == "dcc"
    legal = WEIGHT_PRESETS["legal"]
    assert legal["bi"] == legal["rc"] == max(legal.values())
    assert set(WEIGHT_PRESETS["balanced"].values()) == {0.2}


def test_unknown_preset_is_ada203_with_hint(tmp_path):
    path = _write(tmp_path, "name: p\nextends: default\nmetrics:\n  weights: finanse\n")
    with pytest.raises(ProfileError) as exc:
        load_profile(path)
    err = _errors(exc.value)[0]
    assert err.code == "ADA203" and err.key_path == "metrics.weights" and err.location.line == 4
    assert "Did you mean 'finance'?" in err.render() and "support" in err.allowed


def test_tune_section_does_not_change_the_fingerprint(tmp_path):
    plain = _write(tmp_path, "name: p\nextends: default\n", "a.yaml")
    tuned = _write(tmp_path, "name: p\nextends: default\ntune:\n  trials: 3\n  space:\n    rules: {heading: [1, 2]}\n",
                   "b.yaml")
    assert load_profile(plain).fingerprint == load_profile(tuned).fingerprint
