"""Which device the models run on: ``--device auto|cpu|cuda`` and how big a GPU batch may be.

``adachunk run --device X`` (or ``run_corpus(device=X)``) sets :data:`ENV` for the run, so every
worker process, Dask's included, inherits it; an embedder then runs on that device whatever its
profile says (the operator knows the machine, the profile's author does not). Without it, the
embedder's own ``device`` parameter holds.

``auto`` asks torch only where an NVIDIA driver is loaded: on a machine without one it is the CPU
at no cost, because importing torch to ask would cost more than a small run (the ONNX runtime
exists to avoid that import).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ..errors import ProfileError

ENV = "ADACHUNK_DEVICE"
DRIVER = Path("/proc/driver/nvidia/version")  # present once the NVIDIA kernel driver is loaded
CHOICES = ("auto", "cpu", "cuda")


def requested(configured: str) -> str:
    """The device asked for: the run's ``--device`` (:data:`ENV`) when set, else ``configured``."""
    return os.environ.get(ENV) or configured


def _cuda_available() -> bool:
    if not DRIVER.exists():
        return False
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def resolve(device: str, key_path: str = "metrics.embedder.device") -> str:
    """``cpu``, or a CUDA device name, for a requested device.

    Raises:
        ProfileError: ADA222 when CUDA is asked for and this machine (or this torch build) has none.
    """
    if device == "cpu":
        return "cpu"
    if device == "auto":
        return "cuda" if _cuda_available() else "cpu"
    if device.startswith("cuda"):
        if not _cuda_available():
            raise ProfileError(code="ADA222", message=f"device '{device}' was asked for but no CUDA device is usable "
                               "here (no NVIDIA driver, or a CPU build of torch)", key_path=key_path,
                               hint="use --device cpu or auto; on a GPU machine install a CUDA build of torch")
        return device
    return device  # another torch device name (e.g. 'mps'): torch says whether it works


def cuda_batch_tokens(free_bytes: int, hidden: int, floor: int) -> int:
    """Padded word pieces per batch on a GPU with ``free_bytes`` free: a quarter of the free memory
    at about 48 floats of activations per hidden unit and word piece (a BERT layer's queries, keys,
    values, attention output and 4x feed-forward, held while the next is computed), never below
    ``floor`` (the CPU batch) nor above 2**20."""
    per_piece = max(1, hidden) * 4 * 48
    return int(max(floor, min(1 << 20, free_bytes // 4 // per_piece)))


@contextmanager
def run_device(device: str) -> Iterator[str]:
    """Run the models of this block on ``device`` (set in :data:`ENV`, inherited by the workers
    started inside it); checked first, so a machine without the device fails before any work.

    Yields:
        the resolved device (``cpu`` or a CUDA device).

    Raises:
        ValueError: ``device`` is not one of :data:`CHOICES`.
        ProfileError: ADA222 when it is not usable here.
    """
    if device not in CHOICES:
        raise ValueError(f"device must be one of {', '.join(CHOICES)}, not {device!r}")
    resolved = resolve(device, key_path="--device")
    before = os.environ.get(ENV)
    os.environ[ENV] = device
    try:
        yield resolved
    finally:
        if before is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = before
