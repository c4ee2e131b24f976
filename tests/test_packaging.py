"""The wheel carries the shipped profiles, rule packs and grammars (read via importlib.resources)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_contains_data(tmp_path):
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w",
                        str(tmp_path), str(ROOT)], capture_output=True, text=True)
    if r.returncode != 0 and "hatchling" in (r.stderr + r.stdout):
        r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path), str(ROOT)],
                           capture_output=True, text=True)
    if r.returncode != 0:
        pytest.fail(r.stdout[-2000:] + r.stderr[-2000:])
    wheel = next(tmp_path.glob("adachunk-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for kind in ("profiles", "rules", "grammar"):
        shipped = sorted(p.name for p in (ROOT / kind).iterdir() if p.is_file())
        assert shipped, kind
        for name in shipped:
            assert f"adachunk/_data/{kind}/{name}" in names, (kind, name)
