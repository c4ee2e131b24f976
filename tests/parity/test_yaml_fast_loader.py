"""The libyaml-backed profile loader reads exactly what the pure-Python loader reads.

``yamlmarks.load_yaml_text`` parses with libyaml's C parser when PyYAML has it (the common
wheel) and re-parses with the Python loader on any problem. These tests pin that both give the
same values and the same marks on every shipped YAML file and on hand-written edge cases, and
that errors are the Python loader's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from adachunk.errors import ProfileError
from adachunk.profile import yamlmarks as ym

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted([*ROOT.glob("profiles/**/*.yaml"), *ROOT.glob("rules/**/*.yaml"),
                  *ROOT.glob("adachunk/**/*.yaml")])

needs_libyaml = pytest.mark.skipif(ym._FAST_LOADER is None, reason="PyYAML without libyaml")


def _tree(data):
    """Values with their marks, recursively (MarkedDict/MarkedList carry ``marks``/``here``)."""
    if isinstance(data, dict):
        return ("map", data.here, dict(data.marks), {k: _tree(v) for k, v in data.items()})
    if isinstance(data, list):
        return ("seq", data.here, dict(data.marks), [_tree(v) for v in data])
    return (type(data).__name__, data)


def _both(text: str, file: str = "f.yaml"):
    return ym._load(ym._FAST_LOADER, text, file), ym._load(ym._Loader, text, file)


def test_shipped_yaml_files_exist():
    assert len(SHIPPED) >= 10


@needs_libyaml
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_shipped_files_same_values_and_marks(path):
    fast, slow = _both(path.read_text(encoding="utf-8"), str(path))
    assert _tree(fast) == _tree(slow)


EDGE_CASES = {
    "non-ascii keys": "ééé: {ü: 1, b: [1, 2]}\nk:\n  \"日本\": x\n  z:    9\n",
    "byte-order mark": "\ufeffa: 1\nb: [x, {c: d}]\n",
    "yaml 1.2 booleans": "on: 1\noff: no\nyes: true\nflag: False\n",
    "merge keys": "base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  y: 3\n",
    "merge list": "a: &a {x: 1}\nb: &b {x: 2, z: 0}\nc:\n  <<: [*a, *b]\n",
    "block scalars": "text: |\n  one\n  two\nfold: >-\n  a\n  b\n",
    "emoji and tabs": "k: \"\U0001f600\\tx\"\nlist:\n- 1\n-   - 2\n    - 3\n",
    "numbers": "i: 0x1f\nf: 1.5e3\nn: ~\ns: '012'\n",
    "crlf": "a: 1\r\nb:\r\n  - x\r\n",
}


@needs_libyaml
@pytest.mark.parametrize("name", EDGE_CASES)
def test_edge_cases_same_values_and_marks(name):
    fast, slow = _both(EDGE_CASES[name])
    assert _tree(fast) == _tree(slow)


BAD = {
    "duplicate key": "a: 1\nb: 2\na: 3\n",
    "bad indentation": "a:\n  b: 1\n c: 2\n",
    "unclosed flow": "a: [1, 2\n",
    "unsafe tag": "a: !!python/object:os.system x\n",
    "list key": "? [1, 2]\n: x\n",
    "NUL": "a: 1\x00\n",
    "control character": "a: \x07\n",
}


@pytest.mark.parametrize("name", BAD)
def test_errors_are_the_python_loaders(name):
    """load_yaml_text raises what the pure-Python loader raises, location included."""
    with pytest.raises(ProfileError) as got:
        ym.load_yaml_text(BAD[name], "bad.yaml")
    with pytest.raises(ProfileError) as want:
        ym._load(ym._Loader, BAD[name], "bad.yaml")
    assert (got.value.code, got.value.message, got.value.location, got.value.hint) == (
        want.value.code, want.value.message, want.value.location, want.value.hint)


def test_without_libyaml_the_python_loader_is_used(monkeypatch):
    monkeypatch.setattr(ym, "_FAST_LOADER", None)
    data = ym.load_yaml_text("a: {b: 1}\n", "x.yaml")
    assert data == {"a": {"b": 1}} and data["a"].marks["b"] == ("x.yaml", 1, 5)


@needs_libyaml
def test_fast_loader_is_libyaml():
    assert issubclass(ym._FAST_LOADER, yaml.CSafeLoader)
