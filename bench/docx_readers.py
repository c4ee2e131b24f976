"""Which .docx reader keeps what the legal profile needs? adachunk's own converter vs docx2python
vs mammoth on the shared docx-real files (bench-only dependencies: pip install docx2python mammoth).

Scores per reader, summed over the files:

* labels: numbered paragraphs shown with the label Word displays, directly followed by their
  text (the expectations are the hand-derived REAL_LABELS of tests/test_docx.py);
* headings: heading paragraphs (by style / outline level, read from the XML) whose text appears
  as a heading in the output (Markdown ``#`` line, or ``<hN>`` for docx2python's HTML mode);
* cells: distinct non-empty table cell texts (from the XML) found in the output.

Run: python bench/docx_readers.py   (prints a Markdown table; skips when ../shared is absent)
"""

from __future__ import annotations

import re
import sys
import warnings
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCX_REAL = ROOT.parent / "shared" / "corpus" / "docx-real"
sys.path.insert(0, str(ROOT))


def norm(s: str) -> str:
    return " ".join(re.sub(r"<[^>]+>|\*\*|__|\\", " ", s).split())


def truth(path: Path) -> tuple[list[str], list[str]]:
    """Heading texts and table cell texts of a file, read from its XML with adachunk's style rules."""
    from adachunk.ingest.docx._styles import Styles
    from adachunk.ingest.docx._text import InlineReader
    from adachunk.ingest.docx._xml import W, parse_xml, val

    with zipfile.ZipFile(path) as z:
        doc = parse_xml(z.read("word/document.xml"), path.name, "document")
        styles = Styles(parse_xml(z.read("word/styles.xml"), path.name, "styles")
                        if "word/styles.xml" in z.namelist() else None)
    reader = InlineReader()
    heads = []
    for p in doc.iter(W + "p"):
        ppr = p.find(W + "pPr")
        sid = val(ppr, "pStyle") or styles.default_paragraph
        text = reader.paragraph(p).text
        if text and styles.heading_level(sid, ppr):
            heads.append(" ".join(text.split()))
    cells = {" ".join(" ".join(InlineReader().paragraph(p).text for p in tc.iter(W + "p")).split())
             for tc in doc.iter(W + "tc") if tc.find(W + "tbl") is None}
    return heads, sorted(c for c in cells if c)


def ours(path: Path) -> tuple[str, list[str]]:
    from adachunk.ingest.docx import convert_docx

    text = convert_docx(path.read_bytes(), path.name).text
    return text, [ln.lstrip("#").strip() for ln in text.splitlines() if ln.startswith("#")]


def d2p(path: Path) -> tuple[str, list[str]]:
    from docx2python import docx2python

    with docx2python(path, html=True) as d:
        text = d.text
    return text, [norm(h) for h in re.findall(r"<h\d>(.*?)</h\d>", text, re.S)]


def mam(path: Path) -> tuple[str, list[str]]:
    import mammoth

    with open(path, "rb") as f:
        text = mammoth.convert_to_markdown(f).value
    return text, [ln.lstrip("#").strip() for ln in text.splitlines() if ln.startswith("#")]


READERS = {"adachunk": ours, "docx2python": d2p, "mammoth": mam}


def main() -> int:
    if not DOCX_REAL.is_dir():
        print(f"skipped: {DOCX_REAL} is not available")
        return 0
    from tests.test_docx import REAL_LABELS

    totals = {r: [0, 0, 0] for r in READERS}
    want = [0, 0, 0]
    rows = []
    for name in sorted(REAL_LABELS):
        path = DOCX_REAL / name
        heads, cells = truth(path)
        labels = REAL_LABELS[name]
        want[0] += len(labels)
        want[1] += len(heads)
        want[2] += len(cells)
        row = [name]
        for r, fn in READERS.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                text, found_heads = fn(path)
            flat = norm(text)
            lab = sum(1 for label, full in labels if norm(full) in flat
                      or norm(label + " " + full[len(label):]) in flat)
            hd = sum(1 for h in heads if any(norm(h) in norm(f) for f in found_heads))
            cl = sum(1 for c in cells if norm(c) in flat)
            for i, v in enumerate((lab, hd, cl)):
                totals[r][i] += v
            row.append(f"{lab}/{len(labels)} · {hd}/{len(heads)} · {cl}/{len(cells)}")
        rows.append(row)
    print("| file | " + " | ".join(READERS) + " |")
    print("|---|" + "---|" * len(READERS))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print("| **total** (labels · headings · cells) | " + " | ".join(
        f"**{t[0]}/{want[0]} · {t[1]}/{want[1]} · {t[2]}/{want[2]}**" for t in totals.values()) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
