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
