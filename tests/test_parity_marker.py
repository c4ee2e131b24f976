"""The parity tests (a fast path against its reference twin) live in ``tests/parity/``, whose
``conftest.py`` gives every test there the ``parity`` marker: ``pytest -m parity`` runs the whole
contract of the compiled and Python fast paths at once, and the default run keeps them. The
Markdown spec cases among them need nothing outside the clone and never skip."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parent
PARITY = HERE / "parity"


def _marks_itself(path: Path) -> bool:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytestmark" for t in node.targets):
            return "parity" in ast.unparse(node.value)
    return False


def test_parity_test_files_live_in_the_parity_folder():
    outside = [p.name for p in HERE.glob("test_*.py")
               if p.name != Path(__file__).name and ("parity" in p.name or _marks_itself(p))]
    assert outside == []
    assert len(list(PARITY.glob("test_*.py"))) >= 12


def _collect(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           *args, "tests/parity"], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_every_test_in_the_parity_folder_carries_the_marker():
    unmarked = _collect("-m", "not parity")
    assert unmarked.returncode == 5, unmarked.stdout + unmarked.stderr  # nothing left: all marked
    deselected = int(re.search(r"no tests collected \((\d+) deselected\)", unmarked.stdout).group(1))
    default = _collect()  # the default run's marker expression keeps them
    assert default.returncode == 0, default.stdout + default.stderr
    assert re.search(rf"\b{deselected} tests collected", default.stdout), default.stdout[-500:]
    assert deselected >= 900


def test_the_spec_case_module_never_skips():
    """.ci/run's parity step fails on a skipped spec case; this says so before CI does."""
    tree = ast.parse((PARITY / "test_md_spec_cases.py").read_text(encoding="utf-8"))
    named = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    named |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert not {n for n in named if "skip" in n.lower()}
