"""The ONNX runtime of ``sentence_transformers.v1``: the same model without importing torch.

Why: importing sentence-transformers (torch, transformers and their imports) costs about 4.4 s
of CPU in every new process, more than the whole main job on a small document; onnxruntime and
the ``tokenizers`` library load in about 0.2 s. The vectors are the exact model's (measured on
1,500 CLAIR spans: largest difference 2.2e-7, cosine 0.9999999; ``tests/test_embedders.py``
compares the two runtimes) and the speed on CPU is the same (24.9 s against 24.2 s for those
spans, one thread per batch worker), so the choice changes start-up only.

The model is exported once from its own weights (``torch.onnx.export``, which needs torch,
transformers and the ``onnx`` package: the ``ml`` extra) into adachunk's start-up cache, keyed by
the weights' and configuration's content and the exporter's versions, so every virtual
environment that holds the same weights shares one export (:func:`export_key`); a damaged entry
reads as a miss (:mod:`adachunk.runtime.cachedir`, which also bounds the folder's size) and is exported
again. Only the plain sentence-transformers
shape is exported: a Transformer, then mean or CLS pooling, then an optional Normalize, no prompt,
no remote code (:func:`plain_model`) and a declared ``max_seq_length`` (the pooled variant of long
texts needs the limit); any other model runs on torch.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Sequence

import numpy as np

from ...runtime import cachedir as _cachedir

log = logging.getLogger("adachunk.embedders")

_PLAIN_MODULES = ("sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling",
                  "sentence_transformers.models.Normalize")
_EXPORT_VERSION = 1  # bump when the exported graph changes
INT8_VERSION = 2  # bump when the quantiser's settings change
_OPSET = 17
_DIGESTS = "weights-sha256.marshal"  # start-up cache entry: path -> (size, mtime_ns, sha256)
_DIGESTS_KEPT = 64  # paths remembered (one per environment and model): a bounded entry


def _read_json(path: Path) -> dict | list | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def plain_model(folder: str) -> str | None:
    """The pooling (``mean`` or ``cls``) of a model folder that this runtime reproduces exactly,
    or None: not a folder, another module layout, another pooling, a prompt, or no
    ``tokenizer.json``."""
    root = Path(folder)
    modules = _read_json(root / "modules.json")
    if not root.is_dir() or not isinstance(modules, list) or not (root / "tokenizer.json").is_file():
        return None
    kinds = [m.get("type") for m in modules if isinstance(m, dict)]
    if kinds not in (list(_PLAIN_MODULES[:2]), list(_PLAIN_MODULES)) or modules[0].get("path"):
        return None
    st_config = _read_json(root / "config_sentence_transformers.json") or {}
    if st_config.get("prompts") or st_config.get("default_prompt_name"):
        return None  # sentence-transformers would prepend a prompt: left to it
    pooling = _read_json(root / modules[1].get("path", "") / "config.json") or {}
    modes = {k for k, v in pooling.items() if k.startswith("pooling_mode_") and v}
    return {frozenset({"pooling_mode_mean_tokens"}): "mean",
            frozenset({"pooling_mode_cls_token"}): "cls"}.get(frozenset(modes))


def _weights(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.suffix in (".safetensors", ".bin") and p.is_file())


def export_key(folder: str) -> str:
    """The cache entry's name: the content of the model's configuration and weights and the
    versions that shape the exported graph. The same weights in another folder (a new virtual
    environment's copy of the bundled model, newer modification times) give the same name."""
    import onnxruntime

    root = Path(folder)
    h = hashlib.sha256(f"{_EXPORT_VERSION}:{_OPSET}:{onnxruntime.__version__}".encode())
    for name in ("config.json", "tokenizer.json", "sentence_bert_config.json"):
        h.update((root / name).read_bytes() if (root / name).is_file() else b"-")
    known = _cachedir.read_marshal(_DIGESTS)
    known = dict(known) if isinstance(known, dict) else {}
    before = dict(known)
    for path in _weights(root):
        h.update(f"{path.name}:{_file_digest(path, known)}".encode())
    if known != before:
        _cachedir.write_marshal(_DIGESTS, dict(list(known.items())[-_DIGESTS_KEPT:]))
    return f"onnx-{h.hexdigest()[:24]}.onnx"


def _file_digest(path: Path, known: dict) -> str:
    """The sha256 of a weights file, hashed once per (path, size, modification time).

    Why remembered: hashing MiniLM's 87 MB costs about 0.2 s, on every start of every worker;
    the stat that finds it in ``known`` costs microseconds. A file changed in place has a new
    size or time, so it is hashed again, never served a stale digest.
    """
    st = path.stat()
    stamp = (st.st_size, st.st_mtime_ns)
    where = str(path.resolve())
    hit = known.get(where)
    if isinstance(hit, tuple) and len(hit) == 3 and hit[:2] == stamp:
        return hit[2]
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    known.pop(where, None)  # re-inserted last: the oldest paths are the ones dropped
    known[where] = (*stamp, h.hexdigest())
    return known[where][2]


def export(folder: str) -> bytes:
    """The ONNX graph of the folder's Transformer (inputs ``input_ids``, ``attention_mask``,
    ``token_type_ids``; output the last hidden state), exported from its weights with torch."""
    import io
    import os
    import warnings

    os.environ["HF_HUB_OFFLINE"] = "1"  # the weights are local: never reach for the hub
    import torch
    from transformers import AutoModel
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # "Loading weights" bars on stderr, even under --quiet

    class _Encoder(torch.nn.Module):
        # keyword arguments: BertModel.forward's positional order changed across transformers 4 -> 5
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.model(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    model = _Encoder(AutoModel.from_pretrained(folder, local_files_only=True).eval())
    ids = torch.ones(2, 8, dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    buf = io.BytesIO()
    with torch.inference_mode(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on BERT's Python branches
        torch.onnx.export(model, (ids, ids, torch.zeros_like(ids)), buf, input_names=names,
                          output_names=["hidden"], opset_version=_OPSET, dynamo=False,
                          dynamic_axes={n: {0: "batch", 1: "length"} for n in [*names, "hidden"]})
    return buf.getvalue()


def quantize_int8(graph: bytes) -> bytes:
    """The exported graph with dynamic int8 MatMuls (onnxruntime's quantiser, per-channel int8
    weights; activations are quantised when the graph runs, one scale per input tensor).

    Why per-channel: MiniLM's per-tensor variant drifts further from the exact vectors. Why
    ``reduce_range`` (7-bit weights): on x86 CPUs without VNNI onnxruntime multiplies uint8
    activations by int8 weights with an instruction whose pairwise sums saturate at 16 bits, so
    full-range weights would give other vectors there than on a CPU with VNNI; 7-bit weights
    cannot saturate it, and cost little here (cosine 0.990 against 0.992, same speed). Why
    onnxruntime's and not torch's: measured on 815 CLAIR sentences, cosine to the exact vectors
    0.990 on average (0.974 at worst) against torch's 0.97, at 2.2 times fewer CPU seconds.
    """
    import tempfile

    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    level = root.level
    with tempfile.TemporaryDirectory(prefix="adachunk-int8-") as tmp:
        src, dst = Path(tmp) / "fp32.onnx", Path(tmp) / "int8.onnx"
        src.write_bytes(graph)
        root.setLevel(logging.ERROR)  # the quantiser's advice to pre-process, on the root logger
        try:
            quantize_dynamic(src, dst, per_channel=True, reduce_range=True, weight_type=QuantType.QInt8)
        finally:
            root.setLevel(level)
        return dst.read_bytes()


def _entry(folder: str, quantize: bool) -> str:
    """The start-up cache entry of the folder's exact graph, or of its int8 graph."""
    key = export_key(folder)
    return key.replace(".onnx", f"-int8v{INT8_VERSION}.onnx") if quantize else key


def _graph(folder: str, quantize: bool) -> bytes:
    """The cached graph of the folder's model (exact, or int8), made and cached on a miss (the
    exact graph is read only where the int8 one must be made from it)."""
    key = _entry(folder, quantize)
    graph = _cachedir.read_entry(key)
    if graph is None:
        if quantize:
            log.info("quantising %s to int8 (once; cached as %s)", folder, key)
            graph = quantize_int8(_graph(folder, quantize=False))
        else:
            log.info("exporting %s to ONNX (once; cached as %s)", folder, key)
            graph = export(folder)
        _cachedir.write_entry(key, graph)
    return graph


def ensure_export(folder: str, quantize: bool = False) -> None:
    """Export (and quantise) the model now unless cached: a run calls it once before starting its
    worker processes, which would otherwise each export it at the same time. A cached entry is
    not read here (87 MB for MiniLM's exact graph): the workers read it."""
    if not _cachedir.has_entry(_entry(folder, quantize)):
        _graph(folder, quantize)


class OnnxModel:
    """A plain sentence-transformers model run by onnxruntime, one thread per call.

    With ``quantize`` the int8 graph runs, one text per model call: its activations are quantised
    with one scale per input tensor, so in a batch a text's vector would depend on its batch mates
    and their padding. Alone, each text's vector is a function of the text (measured: as fast as
    batches, 6.8 against 7.1 CPU-s for 815 sentences, since no padding is computed).

    Attributes:
        max_seq_length: input limit in word pieces, special tokens included (None: none).
        specials: special tokens the tokenizer adds to every text ([CLS] and [SEP]: 2).
        dim: vector dimension.
    """

    def __init__(self, folder: str, pooling: str, max_seq_length: int | None, quantize: bool = False):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        root = Path(folder)
        self.pooling = pooling
        self.max_seq_length = max_seq_length
        self._plain = Tokenizer.from_file(str(root / "tokenizer.json"))
        self._plain.no_padding()
        self._plain.no_truncation()
        self._reader = Tokenizer.from_file(str(root / "tokenizer.json"))
        self._reader.no_padding()
        if max_seq_length:
            self._reader.enable_truncation(max_length=max_seq_length)
        else:
            self._reader.no_truncation()
        self.specials = len(self._reader.encode("").ids)
        self.dim = int((_read_json(root / "config.json") or {}).get("hidden_size", 0))
        self.per_text = quantize
        graph = _graph(folder, quantize)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1  # the embedder's batch workers are the parallelism
        opts.inter_op_num_threads = 1
        self._session = ort.InferenceSession(graph, opts, providers=["CPUExecutionProvider"])

    def lengths(self, texts: Sequence[str]) -> list[int]:
        """Word pieces of each text as the model reads it (special tokens included, truncated)."""
        return [len(e.ids) for e in self.encodings(texts)]

    def encodings(self, texts: Sequence[str]) -> list:
        """The tokenizer's encodings of ``texts`` as the model reads them (for :meth:`lengths`
        and :meth:`prepare`: a caller planning batches tokenises once)."""
        return self._reader.encode_batch(list(texts))

    def prepare(self, encs: Sequence) -> dict[str, np.ndarray]:
        """One batch's padded inputs from its texts' :meth:`encodings` (made in the calling thread)."""
        width = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, e in enumerate(encs):
            n = len(e.ids)
            ids[row, :n], mask[row, :n], types[row, :n] = e.ids, 1, e.type_ids
        return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}

    def forward(self, feed: dict[str, np.ndarray]) -> np.ndarray:
        """Pooled (not yet normalised) vectors of one prepared batch."""
        if self.per_text and len(feed["input_ids"]) > 1:
            return np.concatenate([self.forward(_row(feed, r)) for r in range(len(feed["input_ids"]))])
        hidden = self._session.run(None, feed)[0]
        if self.pooling == "cls":
            return hidden[:, 0].astype(np.float32)
        mask = feed["attention_mask"][..., None].astype(np.float32)
        return ((hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)).astype(np.float32)

    def token_starts(self, text: str) -> np.ndarray:
        """Sorted start offsets of the tokenizer's non-empty tokens of ``text``."""
        enc = self._plain.encode(text, add_special_tokens=False)
        return np.sort(np.asarray([a for a, b in enc.offsets if b > a], dtype=np.int64))


def _row(feed: dict[str, np.ndarray], row: int) -> dict[str, np.ndarray]:
    """One text of a prepared batch, without its padding."""
    n = int(feed["attention_mask"][row].sum())
    return {k: v[row:row + 1, :n] for k, v in feed.items()}
