"""The start-up cache stays bounded and shares one ONNX export among environments (issue 49).

Before: the export's key hashed the weights' modification times, so every new virtual
environment's copy of the bundled MiniLM wrote another 87 MB export and nothing removed them.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from adachunk.runtime import cachedir as _cachedir
from adachunk.cli.main import main


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(_cachedir.ENV, str(tmp_path / "cache"))
    return tmp_path / "cache" / "startup"


def _model(path, weights=b"\x01" * 4096):
    path.mkdir(parents=True)
    (path / "config.json").write_text(json.dumps({"hidden_size": 8}))
    (path / "tokenizer.json").write_text("{}")
    (path / "model.safetensors").write_bytes(weights)
    return path


def test_the_export_key_follows_the_weights_content_not_their_folder_or_time(tmp_path, cache):
    pytest.importorskip("onnxruntime")
    from adachunk.models.embedders._onnx import _DIGESTS, export_key

    first = _model(tmp_path / "venv1" / "model")
    copy = tmp_path / "venv2" / "model"
    shutil.copytree(first, copy)
    os.utime(copy / "model.safetensors", ns=(10**18, 10**18))  # a new environment's later install
    key = export_key(str(first))
    assert export_key(str(copy)) == key
    assert export_key(str(first)) == key  # remembered digest: the same answer without hashing
    known = _cachedir.read_marshal(_DIGESTS)
    assert {str((p / "model.safetensors").resolve()) for p in (first, copy)} <= set(known)

    (copy / "model.safetensors").write_bytes(b"\x02" * 4096)  # same size, other weights
    os.utime(copy / "model.safetensors", ns=(2 * 10**18, 2 * 10**18))
    assert export_key(str(copy)) != key


def test_the_remembered_digests_are_used_and_bounded(tmp_path, cache, monkeypatch):
    pytest.importorskip("onnxruntime")
    from adachunk.models.embedders import _onnx

    folder = _model(tmp_path / "m")
    _onnx.export_key(str(folder))
    key = _onnx.export_key(str(folder))

    def no_reading(*args, **kwargs):
        raise AssertionError("the weights were read again")

    monkeypatch.setattr(_onnx, "open", no_reading, raising=False)  # 87 MB for MiniLM: not re-read
    assert _onnx.export_key(str(folder)) == key
    monkeypatch.undo()
    monkeypatch.setenv(_cachedir.ENV, str(cache.parent))
    monkeypatch.setattr(_onnx, "_DIGESTS_KEPT", 3)
    for i in range(5):
        _onnx.export_key(str(_model(tmp_path / f"env{i}", bytes([i]) * 64)))
    known = _cachedir.read_marshal(_onnx._DIGESTS)
    assert len(known) == 3 and str((tmp_path / "env4" / "model.safetensors").resolve()) in known


def _entry(cache, name, size, used):
    assert _cachedir.write_entry(name, b"x" * (size - 32))
    os.utime(cache / name, (used, used))


def test_a_write_keeps_the_cache_under_its_cap_least_recently_used_first(cache, monkeypatch):
    monkeypatch.setattr(_cachedir, "CAP_BYTES", 1000)
    _entry(cache, "onnx-a.onnx", 400, 1_000)
    _entry(cache, "onnx-b.onnx", 400, 2_000)
    _entry(cache, "vocab", 100, 3_000)
    assert _cachedir.read_entry("onnx-a.onnx") is not None  # used now: the newest
    assert _cachedir.write_entry("onnx-c.onnx", b"x" * 368)  # 400 bytes with its digest
    assert sorted(e.name for e in _cachedir.entries()) == ["onnx-a.onnx", "onnx-c.onnx", "vocab"]
    assert sum(e.size for e in _cachedir.entries()) <= 1000
    assert _cachedir.write_entry("huge", b"x" * 5000)  # larger than the cap: kept, the rest go
    assert [e.name for e in _cachedir.entries()] == ["huge"]


def test_prune_removes_stale_temporary_files_only(cache):
    _entry(cache, "vocab", 100, 3_000)
    (cache / ".onnx-x.onnx.1.tmp").write_bytes(b"dead")
    (cache / ".onnx-y.onnx.2.tmp").write_bytes(b"being written")
    os.utime(cache / ".onnx-x.onnx.1.tmp", (1_000, 1_000))
    assert _cachedir.prune() == []
    assert sorted(os.listdir(cache)) == [".onnx-y.onnx.2.tmp", "vocab"]


def test_cache_info_lists_each_entry_and_the_total(cache, capsys):
    _entry(cache, "onnx-a.onnx", 2_000_000, 1_000)
    _entry(cache, "vocab", 500_000, 2_000)
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"start-up cache: {cache} (cap 512 MiB; ADACHUNK_CACHE_DIR moves it)")
    assert out[1].endswith("vocab") and "0.5 MB" in out[1]
    assert out[2].endswith("onnx-a.onnx") and "2.0 MB" in out[2]
    assert out[3] == "total: 2 entries, 2.5 MB"


def test_cache_info_on_an_empty_cache(cache, capsys):
    assert main(["cache", "info"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "total: 0 entries, 0.0 MB"


def test_cache_prune_applies_the_cap_and_all_empties_it(cache, capsys, monkeypatch):
    _entry(cache, "onnx-a.onnx", 600, 1_000)
    _entry(cache, "onnx-b.onnx", 600, 2_000)
    monkeypatch.setattr(_cachedir, "CAP_BYTES", 1000)  # after the writes: both are there
    assert main(["cache", "prune"]) == 0
    out, err = capsys.readouterr()
    assert out.split() == ["removed", "0.0", "MB", "onnx-a.onnx"]
    assert err.strip() == (f"ADA408 {cache}: removed 1 entries (0.0 MB), the least recently used "
                           "beyond 0 MiB; 1 kept (0.0 MB).")
    assert main(["cache", "prune", "--all"]) == 0
    out, err = capsys.readouterr()
    assert "onnx-b.onnx" in out and err.startswith(f"ADA408 {cache}: removed 1 entries (0.0 MB), every entry; 0 kept")
    assert _cachedir.entries() == []
    assert main(["cache", "prune"]) == 0  # nothing left: still fine
    assert "removed 0 entries" in capsys.readouterr().err
