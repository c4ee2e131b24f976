"""Typed, frozen policy sections: one definition (and one set of defaults) for the schema and
the stages; the component builder's single error translator."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic import ValidationError

from adachunk import policy_types
from adachunk.components import build
from adachunk.errors import ProfileError, ProfileErrors
from adachunk.metrics.base import MetricContext
from adachunk.policy import Policy
from adachunk.policy_types import SolverSpec
from adachunk.profile import schema
from adachunk.profile.resolve import load_profile
from adachunk.components.registry import splitters
from adachunk.selection.candidates import make_splitter
from adachunk.datatypes import Document

SECTIONS = {"solver": "SolverSpec", "postprocess": "PostprocessSpec", "metrics": "MetricsSpec",
            "select": "SelectSpec", "index": "IndexSpec"}


def test_schema_and_policy_share_one_model_per_section():
    for name in SECTIONS.values():
        assert getattr(schema, name) is getattr(policy_types, name)
    rp = load_profile("default")
    for section, name in SECTIONS.items():
        value = getattr(rp.policy, section)
        assert isinstance(value, getattr(policy_types, name)), section
        assert value == getattr(rp.profile, section)  # built once from the schema


def test_hand_made_policy_defaults_are_the_schema_defaults():
    """A policy built without a section gets the schema's defaults (no restated copy)."""
    p = Policy(name="t", fingerprint="fp", detectors={}, rules=(), solver=SolverSpec())
    empty = schema.Profile(name="x")
    for section in SECTIONS:
        assert getattr(p, section) == getattr(empty, section), section
    assert p.postprocess.max_tokens == 1100 and p.metrics.weights["sc"] == 0.2
    assert p.select.exclude_fallbacks is True and p.index.embed_text == "heading_path+text"


def test_sections_are_frozen():
    rp = load_profile("default")
    with pytest.raises(ValidationError):
        rp.policy.postprocess.max_tokens = 5
    with pytest.raises(ValidationError):
        rp.policy.solver.max_size = 5
    with pytest.raises(dataclasses.FrozenInstanceError):
        rp.policy.metrics = None  # type: ignore[misc]
    assert hash(rp.policy.solver) == hash(rp.policy.solver.with_overrides())


def test_updated_validates_and_leaves_the_original():
    m = policy_types.MetricsSpec()
    hashed = m.updated(embedder={"type": "hash.v1", "dim": 8})
    assert hashed.embedder.type == "hash.v1" and hashed.embedder.model_dump()["dim"] == 8
    assert m.embedder.type == "sentence_transformers.v1"
    with pytest.raises(ValidationError):
        m.updated(weights="nope")


def test_with_overrides_rejects_unknown_fields():
    s = SolverSpec()
    assert s.with_overrides(max_size=99, min_size=None).max_size == 99
    with pytest.raises(TypeError, match="no field"):
        s.with_overrides(max_sise=99)


def test_metric_context_takes_the_section_or_a_mapping():
    doc = Document(id="d", text="Hello.")
    ctx = MetricContext(doc, {"sc_min_tokens": 3, "chunk_tokenizer": "words"})
    assert isinstance(ctx.settings, policy_types.MetricsSpec)
    assert ctx.settings.sc_min_tokens == 3 and ctx.settings.sc_max_tokens == 1100
    assert ctx.chunk_tokenizer == "words"
    assert MetricContext(doc).settings is policy_types.DEFAULT_METRICS


# -- build_component ----------------------------------------------------------------------------
def test_unknown_type_is_ada205_with_a_hint_and_key_path():
    with pytest.raises(ProfileError) as err:
        build.build_component(splitters, {"type": "recursiv.v1"}, ("candidates", 2))
    assert err.value.code == "ADA205" and "recursive.v1" in err.value.allowed
    assert "recursive.v1" in (err.value.hint or "") and err.value.key_path == "candidates.2.type"


def test_field_errors_are_coded_with_allowed_keys_and_located():
    marks = {("candidates", 0, "chunk_sise"): ("p.yaml", 7, 5)}
    with pytest.raises(ProfileError) as err:
        build.component_params(splitters, {"type": "recursive.v1", "name": "r", "chunk_sise": 5},
                               ("candidates", 0), reserved=("type", "name"), locate=marks.get)
    e = err.value
    assert e.code == "ADA202" and e.message == "unknown key 'chunk_sise'"
    assert e.key_path == "candidates.0.chunk_sise" and (e.location.file, e.location.line) == ("p.yaml", 7)
    assert {"chunk_size", "type", "name"} <= set(e.allowed) and "chunk_size" in e.hint


def test_several_field_errors_come_together_and_name_the_component():
    with pytest.raises(ProfileErrors) as err:
        make_splitter("recursive.v1", {"chunk_size": "big", "nope": 1})
    codes = sorted(e.code for e in err.value.errors)
    assert codes == ["ADA202", "ADA203"]
    assert all(e.message.endswith("for recursive.v1") for e in err.value.errors)


def test_a_forced_code_covers_every_problem():
    from adachunk.models.coref import get_backend

    with pytest.raises(ProfileError) as err:
        get_backend({"type": "heuristic.v1", "sentencez": 2}, Document(id="d", text="x"))
    assert err.value.code == "ADA203" and err.value.key_path == "metrics.coref.sentencez"
    assert "coreference backend heuristic.v1" in err.value.message


def test_score_param_errors_go_through_the_builder(tmp_path, capsys):
    from adachunk.cli.main import main

    doc = tmp_path / "d.md"
    doc.write_text("# T\n\nHello world.\n", encoding="utf-8")
    code = main(["score", str(doc), "--splitter", "recursive.v1", "--param", "chunk_sise=5", "--metrics", "sc"])
    assert code != 0
    err = capsys.readouterr().err
    assert "ADA202" in err and "chunk_sise" in err
