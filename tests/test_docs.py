"""The documentation: its runnable examples run, its generated pages match the code, the site
builds strictly.

A fenced block right after a ``<!-- runnable ... -->`` line (README.md, docs/) is executed: a
Python block in a fresh interpreter from the repository root, a YAML profile is loaded and
validated like ``adachunk profile check``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from adachunk import load_profile

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_BLOCK = re.compile(r"^<!-- runnable[^\n]*-->\n```(\w+)\n(.*?)^```", re.M | re.S)


def _runnable() -> list[tuple[str, str, str]]:
    out = []
    for page in PAGES:
        for i, m in enumerate(_BLOCK.finditer(page.read_text(encoding="utf-8"))):
            out.append((f"{page.relative_to(ROOT)}#{i}", m.group(1), m.group(2)))
    return out


BLOCKS = _runnable()


def test_the_readme_marks_its_examples_runnable():
    assert {lang for name, lang, _ in BLOCKS if name.startswith("README")} == {"python", "yaml"}


@pytest.mark.parametrize("name, lang, code", BLOCKS, ids=[b[0] for b in BLOCKS])
def test_runnable_block_runs(name, lang, code, tmp_path):
    if lang == "python":
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip(), "an example prints what it shows"
    elif lang == "yaml":
        path = tmp_path / "profile.yaml"
        path.write_text(code, encoding="utf-8")
        assert load_profile(str(path)).policy is not None
    else:
        pytest.fail(f"{name}: no runner for {lang} blocks")


def test_generated_reference_pages_are_current():
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import gen_reference
    finally:
        sys.path.pop(0)
    assert gen_reference.main(["--check"]) == 0, "run: python docs/gen_reference.py"


@pytest.mark.skipif(shutil.which("mkdocs") is None and not (Path(sys.executable).parent / "mkdocs").exists(),
                    reason="mkdocs is not installed (extra adachunk[docs])")
def test_site_builds_strictly(tmp_path):
    mkdocs = shutil.which("mkdocs") or str(Path(sys.executable).parent / "mkdocs")
    done = subprocess.run([mkdocs, "build", "--strict", "-d", str(tmp_path / "site")], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
