"""The layering contracts cover every module, and the CLI's door (``adachunk.api``) opens."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import adachunk
import adachunk.api as api

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(adachunk.__file__).resolve().parent


def _top_level_modules() -> set[str]:
    names = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    names |= {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    return {f"adachunk.{n}" for n in names}


def _contract(prefix: str) -> dict:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (found,) = [c for c in contracts if c["name"].startswith(prefix)]
    return found


@pytest.mark.parametrize("prefix, allowed", [
    ("the solver imports nothing", {"adachunk.solve", "adachunk._jit"}),
    ("the CLI reaches the library only through", {"adachunk.cli", "adachunk.api", "adachunk.errors", "adachunk.types"}),
])
def test_only_contracts_forbid_every_other_module(prefix, allowed):
    # a new module must be placed on one side or the other, or the contract silently allows it
    contract = _contract(prefix)
    forbidden = set(contract["forbidden_modules"])
    assert not forbidden & allowed
    assert forbidden | allowed == _top_level_modules()


@pytest.mark.parametrize("name", sorted(api.SERVICES))
def test_every_service_of_the_api_resolves(name):
    assert getattr(api, name) is not None
    assert name in dir(api)


def test_unknown_api_names_are_attribute_errors():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        api.nope  # noqa: B018



def _imported_modules(source: str, package: str) -> set[str]:
    """Every module ``source`` imports, at module level or inside a function, as absolute names
    (``package``: the package relative imports start from)."""
    import ast

    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")
            base = parts[: len(parts) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names)  # `from .. import detect`
    return out


def test_analysis_imports_no_stage_even_lazily():
    # lint-imports reads the contract; this also catches an import inside a function body
    forbidden = _contract("the analysis layer imports no stage")["forbidden_modules"]
    for path in sorted((PACKAGE / "analysis").glob("*.py")):
        found = _imported_modules(path.read_text(encoding="utf-8"), "adachunk.analysis")
        bad = sorted(m for m in found for f in forbidden if m == f or m.startswith(f + "."))
        assert not bad, f"{path.name} imports {bad}"


def test_import_walker_sees_lazy_relative_imports():
    source = "from ..types import Document\n\ndef f():\n    from ..detect.markdown import parse\n    from .. import split\n"
    found = _imported_modules(source, "adachunk.analysis")
    assert {"adachunk.types", "adachunk.detect.markdown", "adachunk.split"} <= found
