"""``model2vec.v1``: a static model2vec model (fast mode: thousands of sentences/s, no torch).

No model2vec model is packaged on PyPI, so ``adachunk models distill`` distils one from the
bundled all-MiniLM-L6-v2 (:func:`distill_minilm`: about 150 CPU-seconds and 1 GB of RAM) into the
adachunk cache (``$ADACHUNK_CACHE_DIR/models/m2v-minilm-256``, default
``~/.cache/adachunk/models/m2v-minilm-256``). A static model embeds a text as the mean of its
token vectors, so it has no input limit: windows of any length are embedded whole.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Sequence

import numpy as np
from pydantic import Field

from ...errors import ProfileError
from ...components.registry import embedders
from .base import Embedder, EmbedderParams, normalise

_lock = threading.Lock()


def cache_dir() -> Path:
    """adachunk's cache root: ``$ADACHUNK_CACHE_DIR`` or ``~/.cache/adachunk``."""
    root = os.environ.get("ADACHUNK_CACHE_DIR")
    return Path(root).expanduser() if root else Path.home() / ".cache" / "adachunk"


def default_model_dir(pca_dims: int = 256) -> Path:
    """Where ``adachunk models distill`` writes (and ``model2vec.v1`` looks) by default."""
    return cache_dir() / "models" / f"m2v-minilm-{pca_dims}"


def distill_minilm(out: Path | None = None, pca_dims: int = 256, model: str = "all-MiniLM-L6-v2",
                   force: bool = False) -> Path:
    """Distil a static model2vec model from a sentence-transformers model, offline.

    Args:
        out: target directory (default :func:`default_model_dir`).
        pca_dims: output dimension after PCA.
        model: source model, resolved like ``sentence_transformers.v1`` (default: the bundled
            MiniLM).
        force: redo it even when ``out`` already holds a model.

    Returns:
        The directory holding the model (written atomically: a temporary sibling, then a rename).
    """
    from .st import resolve_model

    out = Path(out).expanduser() if out else default_model_dir(pca_dims)
    if (out / "config.json").is_file() and not force:
        return out
    source, _ = resolve_model(model)
    os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        from model2vec.distill import distill
    except ImportError as exc:
        raise ProfileError(code="ADA213", message=f"model2vec distillation is not available: {exc}",
                           hint='pip install model2vec "skeletoken>=0.6,<0.7"') from None
    static = distill(model_name=source, pca_dims=pca_dims, device="cpu")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=out.name + ".", dir=out.parent))
    static.save_pretrained(str(tmp))
    if out.exists():
        shutil.rmtree(out)
    tmp.rename(out)
    return out


class M2VParams(EmbedderParams):
    """Options of ``model2vec.v1``."""

    path: str | None = Field(
        default=None, description="directory of a model2vec model (None: the one `adachunk models distill` writes)")
    batch_size: int = Field(default=1024, ge=1, le=65536, description="texts per encode batch")
    distill: bool = Field(
        default=False,
        description="with no path: distil the default model from the bundled MiniLM when it is missing (once per "
        "machine, about a minute on 2 cores; `adachunk models distill` does it ahead)")


@embedders.register("model2vec.v1")
class Model2VecEmbedder(Embedder):
    """A model2vec ``StaticModel`` read from a local directory; texts are embedded whole."""

    Params = M2VParams
    type_name = "model2vec.v1"

    def __init__(self, params: M2VParams | None = None):
        super().__init__(params)
        self.path = Path(self.params.path).expanduser() if self.params.path else default_model_dir()
        self._distill = self.params.distill and not self.params.path
        if not self._distill and not (self.path / "config.json").is_file():
            raise ProfileError(code="ADA213", message=f"model2vec model not found in {self.path}",
                               key_path="metrics.embedder.path",
                               hint="run `adachunk models distill` (or give the path of a model2vec model)")
        self._model = None

    def identity(self) -> dict:
        """The model is named by its resolved directory (batch size does not change vectors)."""
        return {"path": str(self.path.resolve())}

    def prepare(self) -> None:
        """Distil the default model now when it is missing and ``distill`` allows it (a run does
        this once in the main process, before its workers start)."""
        if self._distill and not (self.path / "config.json").is_file():
            import warnings

            from ...errors import AdachunkWarning

            warnings.warn(AdachunkWarning(code="ADA420", message=f"distilling the static model {self.path.name} from "
                                          "the bundled MiniLM, once per machine (about a minute)"), stacklevel=2)
            distill_minilm(self.path)

    @property
    def model(self):
        """The loaded StaticModel (once per process)."""
        with _lock:
            if self._model is None:
                from model2vec import StaticModel

                self.prepare()

                self._model = StaticModel.from_pretrained(str(self.path), force_download=False)
        return self._model

    @property
    def dim(self) -> int:
        """Vector dimension of the loaded static model."""
        return int(self.model.dim)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Normalised embeddings of whole texts (a static model has no input limit)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # max_length=None: embed the whole text (a static model has no context limit);
        # no multiprocessing: deterministic and cheap to start
        vecs = self.model.encode(list(texts), max_length=None, batch_size=self.batch_size,
                                 use_multiprocessing=False)
        return normalise(vecs)

    def token_starts(self, text: str) -> np.ndarray:
        """Not needed (no input limit); word starts, for callers that want a length measure."""
        import re

        return np.fromiter((m.start() for m in re.finditer(r"\S+", text)), dtype=np.int64)
