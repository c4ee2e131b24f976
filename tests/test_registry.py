"""Registries: lazily declared built-ins are known by name, imported on first use, and each
declared module registers exactly the names declared for it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from adachunk.components import registry
from adachunk.components.builtins import LAZY, ensure_builtins, load_all
from adachunk.errors import ProfileError


@pytest.mark.parametrize("reg_name", sorted(LAZY))
def test_each_lazy_module_registers_the_names_declared_for_it(reg_name):
    load_all()
    reg = getattr(registry, reg_name)
    for name in LAZY[reg_name]:
        assert name in reg._items, f"{reg_name}: {name} is declared but its module does not register it"


def test_every_builtin_name_is_declared_or_eager():
    """A built-in added without a declaration would be unknown to profiles until something
    imported it by chance."""
    load_all()
    lazy_modules = {m for names in LAZY.values() for m in names.values()}
    for reg_name, declared in LAZY.items():
        reg = getattr(registry, reg_name)
        from_lazy = {n for n, obj in reg._items.items()
                     if any(getattr(obj, "__module__", "").startswith(m) for m in lazy_modules)}
        assert from_lazy <= set(declared), f"{reg_name}: undeclared {sorted(from_lazy - set(declared))}"


def test_lazy_names_validate_and_miss_with_a_hint():
    ensure_builtins()
    assert "recursive.v1" in registry.splitters.names() and "grammar.lark.v1" in registry.detectors.names()
    with pytest.raises(ProfileError) as err:
        registry.splitters.get("recursive.v2")
    assert err.value.code == "ADA205" and "recursive.v1" in err.value.allowed


def test_chunking_imports_neither_lark_nor_the_metrics():
    """The default profile names its candidates (their classes validate their parameters), but
    chunking with it needs no grammar, metric, embedder, coreference or LLM module."""
    code = ("import sys; import adachunk; "
            "c = adachunk.chunk_text('# T\\n\\nHello world. Bye now.\\n', max_size=8, min_size=0); "
            "print(len(c) > 0, [m for m in ('lark', 'adachunk.detect.grammar', 'adachunk.metrics.cohesion',"
            " 'adachunk.metrics.coherence', 'adachunk.models.coref.heuristic', 'adachunk.split.llm_regex',"
            " 'adachunk.split.semantic', 'adachunk.ingest.pdf') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True []"
