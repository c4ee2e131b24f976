"""The parity tests (a fast path against its reference twin) carry the ``parity`` marker, so that
``pytest -m parity`` runs the whole contract of the compiled and Python fast paths at once."""

from __future__ import annotations

import ast
from pathlib import Path

HERE = Path(__file__).parent
#: Parity tests whose file name does not say so.
NAMED = {"test_md_block_starts.py", "test_document_blocks_fast.py", "test_detect_markdown_fast.py",
         "test_detect_re_fast.py", "test_detect_text_units_fast.py"}


def _marked(path: Path) -> bool:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytestmark" for t in node.targets):
            return "parity" in ast.unparse(node.value)
    return False


def test_every_parity_test_file_is_marked():
    files = sorted({p.name for p in HERE.glob("test_*parity*.py")} - {Path(__file__).name} | NAMED)
    assert len(files) >= 9
    assert [f for f in files if not _marked(HERE / f)] == []
