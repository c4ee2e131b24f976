"""The layering contracts of ``pyproject.toml`` hold for every import, module-level or inside a
function; moved modules keep their old import paths; the CLI's door (``adachunk.api``) opens.

``lint-imports`` checks the same contracts in ``.ci/run``; this walk reads them from the same
file (one source of truth) so that ``pytest`` alone fails on an import that goes up a layer.
"""

from __future__ import annotations

import ast
import re
import importlib
import tomllib
from pathlib import Path

import pytest

import adachunk

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(adachunk.__file__).resolve().parent


def _top_level_modules() -> set[str]:
    names = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    names |= {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    return names


def _contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def _contract(prefix: str) -> dict:
    (found,) = [c for c in _contracts() if c["name"].startswith(prefix)]
    return found


def _layers() -> list[tuple[list[str], bool]]:
    """The layers contract as ``(names, independent)`` per layer, highest first (import-linter's
    syntax: ``a | b`` independent siblings, ``a : b`` siblings that may import each other)."""
    (contract,) = [c for c in _contracts() if c["type"] == "layers"]
    assert contract["containers"] == ["adachunk"]
    out = []
    for layer in contract["layers"]:
        sep = ":" if ":" in layer else "|"
        out.append(([name.strip() for name in layer.split(sep)], sep == "|"))
    return out


def _imported_modules(source: str, package: str) -> set[str]:
    """Every module ``source`` imports, at module level or inside a function, as absolute names
    (``package``: the package relative imports start from)."""
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


def _upward_imports(source: str, module: str, is_package: bool = False) -> list[str]:
    """The imports of ``source`` (the code of ``module``) that break the layers contract: into a
    higher layer, or into an independent sibling of the same layer."""
    rank, independent = {}, {}
    for i, (names, indep) in enumerate(_layers()):
        for name in names:
            rank[name], independent[name] = i, indep
    package = module if is_package else module.rpartition(".")[0]
    own = module.split(".")[1]
    bad = []
    for target in sorted(_imported_modules(source, package)):
        parts = target.split(".")
        if parts[0] != "adachunk" or len(parts) < 2 or parts[1] not in rank or parts[1] == own:
            continue  # another package, the root itself, a name imported from it, or its own module
        other = parts[1]
        if rank[other] < rank[own] or (rank[other] == rank[own] and independent[own]):
            bad.append(target)
    return bad


def _modules() -> list[tuple[Path, str, bool]]:
    """Every module of the package: its file, dotted name and whether it is a package."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ["adachunk", *path.relative_to(PACKAGE).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        if len(parts) > 1:  # the root __init__ is the container, in no layer
            out.append((path, ".".join(parts), is_package))
    return out


def test_the_layers_place_every_top_level_module_once():
    # import-linter's `exhaustive` says the same; this says it without running lint-imports
    placed = [name for names, _ in _layers() for name in names]
    assert len(placed) == len(set(placed))
    assert set(placed) == _top_level_modules()


def test_every_import_goes_down_the_layers_even_inside_a_function():
    bad = {}
    for path, module, is_package in _modules():
        found = _upward_imports(path.read_text(encoding="utf-8"), module, is_package)
        if found:
            bad[str(path.relative_to(PACKAGE))] = found
    assert not bad, f"imports that go up the layers of pyproject.toml: {bad}"


def test_the_walk_catches_an_upward_import_inside_a_function():
    source = "from ..datatypes import Document\n\ndef f():\n    from ..detect.markdown import parse\n    from .. import split\n"
    found = _upward_imports(source, "adachunk.analysis.keys")
    assert {"adachunk.detect.markdown", "adachunk.split"} <= set(found) and "adachunk.datatypes" not in found
    # a sibling of an independent layer is as forbidden as a higher layer
    assert _upward_imports("def f():\n    from ..split import dp\n", "adachunk.metrics.size") == \
        ["adachunk.split", "adachunk.split.dp"]


def test_import_walker_sees_lazy_relative_imports():
    source = "from ..datatypes import Document\n\ndef f():\n    from ..detect.markdown import parse\n    from .. import split\n"
    found = _imported_modules(source, "adachunk.analysis")
    assert {"adachunk.datatypes", "adachunk.detect.markdown", "adachunk.split"} <= found


@pytest.mark.parametrize("prefix, allowed", [
    ("the CLI reaches the library only through", {"cli", "api", "errors", "datatypes"}),
])
def test_only_contracts_forbid_every_other_module(prefix, allowed):
    # a new module must be placed on one side or the other, or the contract silently allows it
    forbidden = {m.removeprefix("adachunk.") for m in _contract(prefix)["forbidden_modules"]}
    assert not forbidden & allowed
    assert forbidden | allowed == _top_level_modules()


def test_the_cli_imports_only_its_door_even_inside_a_function():
    allowed = {"adachunk", "adachunk.cli", "adachunk.api", "adachunk.errors", "adachunk.datatypes"}
    bad = {}
    for path, module, is_package in _modules():
        if not module.startswith("adachunk.cli"):
            continue
        package = module if is_package else module.rpartition(".")[0]
        found = sorted(m for m in _imported_modules(path.read_text(encoding="utf-8"), package)
                       if m.startswith("adachunk.") and ".".join(m.split(".")[:2]) not in allowed
                       and m.split(".")[1] in _top_level_modules())
        if found:
            bad[path.name] = found
    assert not bad


def _module_graph(sources: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """Module -> the modules of ``sources`` it imports, module-level or inside a function
    (``sources``: dotted name -> (code, is_package)). ``from . import x`` is an edge to the
    submodule ``x`` when there is one, else to the package whose name it takes."""
    names = set(sources)
    graph: dict[str, set[str]] = {}
    for module, (source, is_package) in sources.items():
        package = module if is_package else module.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] if node.level else [])
                base = ".".join(filter(None, [base, node.module]))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in names else base for a in node.names]
            else:
                continue
            for target in targets:
                parts = target.split(".")
                while parts and ".".join(parts) not in names:  # a name imported from a module
                    parts.pop()
                if parts and ".".join(parts) != module:
                    found.add(".".join(parts))
        graph[module] = found
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next((w for w in edges if w not in index or w in on_stack), None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
            elif nxt in index:  # on the stack: a back edge
                low[node] = min(low[node], index[nxt])
            else:
                index[nxt] = low[nxt] = len(index)
                stack.append(nxt)
                on_stack.add(nxt)
                work.append((nxt, iter(sorted(graph[nxt]))))
    return out


def test_no_import_cycle_between_modules_even_inside_a_function():
    """Issue 51: where two modules need each other, the shared names live in a leaf module both
    import (e.g. ``ingest/files.py``, ``ingest/pdf/_errors.py``, ``detect/text_units/_charsets.py``,
    ``testing/detectorcases.py``, ``cli/_chunk_file.py``); a lazy import inside a function is
    still a cycle."""
    sources = {module: (path.read_text(encoding="utf-8"), is_package) for path, module, is_package in _modules()}
    assert _cycles(_module_graph(sources)) == []


def test_the_cycle_walk_catches_a_lazy_cycle_and_ignores_a_package_import():
    sources = {
        "adachunk.x": ("", True),
        "adachunk.x.a": ("from . import b\n", False),
        "adachunk.x.b": ("def f():\n    from .c import g\n", False),
        "adachunk.x.c": ("from .a import h\nfrom . import d\n", False),
        "adachunk.x.d": ("from .. import x\n", False),  # the package itself: no cycle through it
    }
    graph = _module_graph(sources)
    assert graph["adachunk.x.c"] == {"adachunk.x.a", "adachunk.x.d"} and graph["adachunk.x.d"] == {"adachunk.x"}
    assert _cycles(graph) == [["adachunk.x.a", "adachunk.x.b", "adachunk.x.c"]]


# the old homes of moved modules: gone, not aliased (issue 51: an alias makes a folder name lie)
REMOVED = ("adachunk.metrics.embedders", "adachunk.metrics.coref", "adachunk.evaluate.retrievers",
           "adachunk.evaluate.measures", "adachunk.evaluate.generate", "adachunk.detect.words",
           "adachunk.detect.line_break",
           # the regrouping of issue 51: no module named after the standard library's, the selector,
           # token helpers, component plumbing and each reader's modules in one package each
           "adachunk.types", "adachunk.select", "adachunk.tokenize", "adachunk.registry", "adachunk.params",
           "adachunk.build", "adachunk._jit", "adachunk._cachedir", "adachunk._gcpause", "adachunk._puretok",
           "adachunk._vocab", "adachunk._token_edges", "adachunk.split.pool", "adachunk.metrics.aggregate",
           "adachunk.ingest._pdf_extract", "adachunk.ingest.pymupdf_backend", "adachunk.ingest._docx_body",
           "adachunk.ingest._html_tree", "adachunk.evaluate.report")


def test_the_top_level_holds_at_most_ten_loose_modules():
    """Issue 51: the top level shows the stages (packages); loose modules are the few every
    stage shares (20 before the regrouping)."""
    loose = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
    assert len(loose) <= 10, loose


def test_no_module_aliases_itself_into_sys_modules():
    """No module of the package rebinds an import path (``sys.modules[...] = ...``): each module
    lives at one path, which its folder names."""
    bad = []
    for path, module, _ in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else []
            if any(isinstance(t, ast.Subscript) and ast.unparse(t.value) == "sys.modules" for t in targets):
                bad.append(f"{module}:{node.lineno}")
    assert not bad


@pytest.mark.parametrize("old", REMOVED)
def test_an_old_module_path_does_not_import(old):
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)


def test_the_models_read_the_detectors_text_structure_as_lent():
    from adachunk.detect.markdown import parse_blocks
    from adachunk.detect.text_units import split_sentences
    from adachunk.models import structure

    assert structure.lent(structure.MARKDOWN_BLOCKS) is parse_blocks
    assert structure.lent(structure.SENTENCES) is split_sentences


VERBS = sorted(p.stem for p in (PACKAGE / "api").glob("*.py") if p.stem != "__init__")


@pytest.mark.parametrize("verb", VERBS)
def test_each_verb_of_the_api_imports_what_it_exports(verb):
    """The CLI's door is ``adachunk.api``: its package and one module per verb, each importing its
    library names statically (import-linter sees every edge) and exporting them in ``__all__``."""
    module = importlib.import_module(f"adachunk.api.{verb}")
    assert module.__all__ and all(getattr(module, name) is not None for name in module.__all__)
    source = (PACKAGE / "api" / f"{verb}.py").read_text(encoding="utf-8")
    assert "importlib" not in source and "__getattr__" not in source  # no name resolved at run time


def test_the_api_has_about_ten_verbs_and_the_cli_uses_each():
    cli = "".join(p.read_text(encoding="utf-8") for p in (PACKAGE / "cli").glob("*.py"))
    assert 8 <= len(VERBS) <= 14, VERBS
    assert all(f"..api.{verb} import" in cli or f"import {verb} as" in cli for verb in VERBS)


# a Sphinx role (:mod:`adachunk.x`) or a code span (``adachunk.x.f`` in a docstring, `adachunk.x` on a page)
_XREF = re.compile(r":(?:mod|func|class|meth|data|attr|exc):`~?(adachunk(?:\.\w+)+)`|``(adachunk(?:\.\w+)+)``"
                   r"|(?<![`\w])`(adachunk(?:\.\w+)+)`")


def _resolves(name: str) -> bool:
    """Whether ``adachunk.a.b.c`` names a module, or an attribute path inside the longest module."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_every_cross_reference_to_the_package_resolves():
    """A moved module or function leaves no docstring or docs page pointing at its old home
    (``:mod:`adachunk.x.y```, ``:func:`~adachunk.x.f```...)."""
    from adachunk.components import registry

    groups = {f"adachunk.{r.name}" for r in vars(registry).values() if isinstance(r, registry.Registry)}
    meant = set(REMOVED) | groups  # the old homes said to be gone; the plugins' entry-point groups
    pages = [*PACKAGE.rglob("*.py"), *(ROOT / "docs").rglob("*.md"), ROOT / "README.md"]
    found = {(next(filter(None, m.groups())), p.name) for p in pages for m in _XREF.finditer(p.read_text(encoding="utf-8"))}
    stale = sorted((name, page) for name, page in found if name not in meant and not _resolves(name))
    assert len(found) > 100 and not stale, stale
