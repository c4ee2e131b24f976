"""The fast Markdown path relies on mistletoe's block internals, so mistletoe is pinned to the
minor version those were read from; this fails on another version or a missing internal."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from pathlib import Path

from mistletoe import block_token as bt
from mistletoe import block_tokenizer as btz
from mistletoe import token as mtoken

ROOT = Path(__file__).resolve().parent.parent


def _pinned_minor() -> str:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (spec,) = [d for d in deps if d.startswith("mistletoe")]
    low, high = re.fullmatch(r"mistletoe>=(\d+\.\d+),<(\d+\.\d+)", spec.split("#")[0].strip()).groups()
    major, minor = map(int, low.split("."))
    assert high == f"{major}.{minor + 1}", "the pin must allow one minor version only"
    return low


def test_installed_mistletoe_is_the_pinned_minor():
    assert version("mistletoe").startswith(_pinned_minor() + ".")


def test_the_internals_the_fast_path_reads_exist():
    assert isinstance(bt._token_types, list) and bt.Paragraph in bt._token_types
    assert hasattr(mtoken, "_root_node")
    assert callable(btz.tokenize_block) and callable(btz.FileWrapper) and callable(btz.ParseBuffer)
    for name in ("List", "ListItem", "ThematicBreak", "SetextHeading", "Quote", "CodeFence", "BlockCode",
                 "Table", "HtmlBlock", "Heading"):
        assert isinstance(getattr(bt, name), type), name
