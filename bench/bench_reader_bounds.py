"""The cost of the readers' bounds (issue 50) on ordinary files: CPU seconds of each reader.

Usage (from the repository root; run it once per tree to compare, e.g. a checkout of the
commit before the bounds)::

    PYTHONPATH=TREE python bench/bench_reader_bounds.py [--repeat 3]

Reads every ``.docx`` of ``/work/shared/corpus/docx-real``, every ``.pdf`` of
``/work/shared/corpus/pdf-real`` and the EUR-Lex HTML fixture (alone and repeated 40 times into
one page, so that the nesting pre-scan runs: it is skipped on pages with fewer tags than the
cap), best of ``--repeat`` runs, CPU time (``time.process_time``) of the reader alone (imports
excluded), and a digest of the text so the two trees can be checked to read the same.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tempfile
import time
from pathlib import Path

CORPUS = Path("/work/shared/corpus")
HTML = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "html" / "eurlex_gdpr_excerpt.html"


def _big_html(folder: Path) -> Path:
    page = HTML.read_text(encoding="utf-8")
    body = re.search(r"<body[^>]*>(.*)</body>", page, re.S | re.I)
    inner = body.group(1) if body else page
    path = folder / "eurlex_x40.html"
    path.write_text(page.replace(inner, inner * 40) if body else page * 40, encoding="utf-8")
    return path


def _time(files: list[Path], repeat: int) -> tuple[float, str]:
    from adachunk.ingest import read_document

    best, digest = float("inf"), ""
    for _ in range(repeat):
        h = hashlib.sha256()
        t = time.process_time()
        for f in files:
            h.update(read_document(f).text.encode())
        best = min(best, time.process_time() - t)
        digest = h.hexdigest()[:12]
    return best, digest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    import adachunk

    with tempfile.TemporaryDirectory() as tmp:
        sets = {"docx-real": sorted((CORPUS / "docx-real").glob("*.docx")),
                "pdf-real": sorted((CORPUS / "pdf-real").glob("*.pdf")),
                "html (eurlex excerpt)": [HTML],
                "html (eurlex x40)": [_big_html(Path(tmp))]}
        out = {"tree": str(Path(adachunk.__file__).parent.parent)}
        for name, files in sets.items():
            cpu, digest = _time(files, args.repeat)
            out[name] = {"files": len(files), "cpu_s": round(cpu, 3), "digest": digest}
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
