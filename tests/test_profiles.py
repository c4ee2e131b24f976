"""Profiles: builtin loading, extends/include merging, fingerprints, and coded errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from adachunk import load_profile
from adachunk.errors import ProfileError, ProfileErrors
from adachunk.profile.resolve import resolve

BAD = Path(__file__).parent / "fixtures" / "profiles"

# file, code, line, key path (substring), hint/allowed text expected in the rendering
CASES = [
    ("unknown_key.yaml", "ADA202", 4, "solver.max_sise", "Did you mean 'max_size'?"),
    ("wrong_type.yaml", "ADA203", 3, "solver.max_size", "integer"),
    ("unknown_label.yaml", "ADA206", 6, "rules.items.0.structure", "Did you mean 'table'?"),
    ("invalid_regex.yaml", "ADA207", 3, "structures.article", "Article"),
    ("lark_error.yaml", "ADA208", None, "structures.clause", "broken.lark:2:11"),
    ("cycle_a.yaml", "ADA209", None, "extends", "cycle"),
    ("unsafe_tag.yaml", "ADA201", 2, None, "tag"),
    ("unknown_shape.yaml", "ADA205", 6, "rules.items.0.on.shape", "Did you mean 'triangular'?"),
    ("unknown_detector.yaml", "ADA205", 3, "structures.para.type", "Did you mean 'markdown.block.v1'?"),
    ("min_gt_max.yaml", "ADA211", 2, "solver", "min_size"),
    ("duplicate_key.yaml", "ADA201", 4, None, "duplicate key 'max_size'"),
    ("unknown_pack.yaml", "ADA210", 3, "rules.include.0", "Did you mean 'markdown.core'?"),
    ("unknown_base.yaml", "ADA209", 2, "extends", "Did you mean 'default'?"),
    ("missing_name.yaml", "ADA204", 1, "name", "missing required key 'name'"),
    ("bad_granularity.yaml", "ADA203", 3, "solver.granularity", "'tokens'"),
    ("bad_block.yaml", "ADA203", 3, "structures.t.block", "Did you mean 'table'?"),
    ("detector_extra_key.yaml", "ADA202", 3, "structures.t.levls", "Did you mean 'levels'?"),
    ("negative_scale.yaml", "ADA203", 6, "rules.items.0.on.scale", "greater than or equal to 0"),
    ("unknown_splitter.yaml", "ADA205", 3, "candidates.0.type", "dp.v1"),
    ("yaml_syntax.yaml", "ADA201", 3, None, ""),
]


@pytest.mark.parametrize("fname,code,line,key,text", CASES, ids=[c[0] for c in CASES])
def test_invalid_profile(fname, code, line, key, text):
    with pytest.raises(ProfileError) as exc:
        resolve(BAD / fname)
    errors = exc.value.errors if isinstance(exc.value, ProfileErrors) else [exc.value]
    err = next((e for e in errors if e.code == code), None)
    assert err is not None, [e.render() for e in errors]
    rendered = err.render()
    assert rendered.startswith(code + " ")
    assert err.location.file and Path(err.location.file).name.endswith((".yaml", ".lark")), rendered
    if line is not None:
        assert err.location.line == line, rendered
    if key is not None:
        assert err.key_path and key in err.key_path, rendered
    assert text in rendered, rendered


def test_all_errors_reported_at_once(tmp_path):
    p = tmp_path / "many.yaml"
    p.write_text("name: x\nsolver: {max_sise: 1, granularity: words}\nstructures:\n  a: {type: nope.v1}\n")
    with pytest.raises(ProfileErrors) as exc:
        resolve(p)
    codes = sorted(e.code for e in exc.value.errors)
    assert codes == ["ADA202", "ADA203", "ADA205"], exc.value.render()


def test_builtin_profiles_load():
    for name in ("default", "darn"):
        rp = load_profile(name)
        assert rp.name == name and len(rp.fingerprint) == 64
        assert {"heading", "paragraph", "table_row", "sentence", "word"} <= set(rp.policy.detectors)


def test_extends_merges_rules_by_name_and_overrides_solver():
    rp = resolve(BAD / "good_child.yaml")
    base = load_profile("default")
    assert rp.policy.solver.max_size == 300
    assert rp.policy.solver.min_size == base.policy.solver.min_size
    words = [r for r in rp.policy.rules if r.name == "word"]
    assert len(words) == 1 and words[0].on.scale == 999
    assert len(rp.policy.rules) == len(base.policy.rules)


def test_fingerprint_is_stable_and_sensitive(tmp_path):
    a = resolve("default").fingerprint
    assert a == resolve("default").fingerprint
    child = tmp_path / "c.yaml"
    child.write_text("name: default\nextends: default\n")
    assert resolve(child).fingerprint == a  # same resolved policy, same fingerprint
    child.write_text("name: default\nextends: default\nsolver: {chunk_cost: 41}\n")
    assert resolve(child).fingerprint != a


def test_overrides_apply_and_are_validated():
    assert load_profile("default", max_size=128).policy.solver.max_size == 128
    with pytest.raises(ProfileErrors) as exc:
        load_profile("default", max_size=10, min_size=50)
    assert exc.value.errors[0].code == "ADA211"


def test_yaml_on_off_keys_are_not_booleans(tmp_path):
    p = tmp_path / "p.yaml"
    p.write_text("name: x\nstructures:\n  w: {type: word.v1}\nrules:\n  items:\n"
                 "    - {structure: w, on: {shape: const, scale: 1}, off: {shape: const, scale: 2}}\n")
    rule = resolve(p).policy.rules[0]
    assert rule.on.scale == 1 and rule.off.scale == 2
