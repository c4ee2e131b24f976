"""Figures and their columns in the PDF reader's statement tables, on the financebench-dev 10-Ks.

Reads the 12 public SEC filings of ``../shared/corpus/financebench-dev/pdfs`` and counts, per
file, in the Markdown the PDF reader writes (issue "A figure never loses its column"):

    a  table cells holding only a currency sign ("$", "€", "US$", ...)
    b  table cells holding only "%"
    c  headings whose text is only a year, period or unit phrase ("2022", "Year Ended December 31,")
    d  tables whose header row holds no year or period while one of their first three body rows
       holds two cells or more that do (the years read as a body row)
    e  tables whose header row holds a figure (a body row taken for the header: the real header
       was lost, or the table has none)
    f  text blocks outside tables that are only a year, period or unit phrase (column headers
       read as paragraphs)
    g  tables whose header row is empty (no header found: the reader writes an empty one rather
       than a body row, which e counts)
    h  page numbers standing in the text (a block that is only a number, outside comments)
    i  footnotes with no text (``[^4]:`` alone: a page number read as a footnote's label)
    j  paragraphs broken mid-sentence within a page: a text block ending in a lower-case word or a
       comma and the next opening in lower case (across a page break a paragraph is two blocks,
       the break's comments between them: not counted)
    k  running headers left in the text: a text line that is the same (by the reader's furniture
       key: case, digit runs and spacing aside) on five pages or more,
       each time the first block after a page break

``--base REV`` converts with the reader of git revision REV too (its ``adachunk`` exported by
``git archive`` into a temporary folder), in a second process alongside the current tree's, and
prints both side by side::

    python bench/fin_cells.py --base main [--out /tmp/fin_cells] [--only ULTABEAUTY]

``--before DIR`` / ``--after DIR`` read Markdown already written there (NAME.md) instead of
converting. Skips cleanly (exit 0) when ../shared is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adachunk.ingest._table_cells import is_currency, is_figure, is_period_phrase, is_unit_phrase  # noqa: E402
from adachunk.ingest.pdf._furniture import norm_key  # noqa: E402

PDFS = ROOT.parent / "shared" / "corpus" / "financebench-dev" / "pdfs"
METRICS = ("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k")
_BROKEN = re.compile(r"[a-z,]\n\n[a-z]")
_AFTER_BREAK = re.compile(r"<!-- PageBreak -->\n\n((?:<!--[^\n]*-->\n+)*)([^<\n][^\n]*)")
_CONVERT = """
import sys
from pathlib import Path
from adachunk.ingest.pdf import convert_pdf
out = Path(sys.argv[1])
for name in sys.argv[2:]:
    (out / (Path(name).stem + ".md")).write_text(convert_pdf(name).text, encoding="utf-8")
"""
_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def convert_all(pdfs: list[Path], out: Path, src: Path) -> subprocess.Popen:
    """Start a process converting ``pdfs`` with the ``adachunk`` under ``src`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(src)}
    # run from `src`: python -c puts the working folder first on sys.path
    return subprocess.Popen([sys.executable, "-c", _CONVERT, str(out), *map(str, pdfs)], env=env, cwd=src)


def export_revision(rev: str, into: Path) -> Path:
    """The ``adachunk`` package of git revision ``rev``, exported under ``into``."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "adachunk"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def tables(md: str) -> list[tuple[list[str], list[list[str]]]]:
    """Every pipe table of the Markdown: its header row and body rows (cells stripped)."""
    out: list[tuple[list[str], list[list[str]]]] = []
    lines = md.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("| ---"):
            j = i + 2
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            rows = [[c.strip() for c in _CELL_SPLIT.split(ln.strip())[1:-1]] for ln in [lines[i]] + lines[i + 2:j]]
            out.append((rows[0], rows[1:]))
            i = j
        else:
            i += 1
    return out


def _period_cell(cell: str) -> bool:
    return bool(cell) and is_period_phrase(cell) and not is_unit_phrase(cell)


def text_blocks(md: str) -> list[str]:
    """The blocks of the Markdown outside tables and comments (blank-line separated)."""
    md = re.sub(r"<Table>.*?</Table>", "", md, flags=re.S)
    md = re.sub(r"<!--.*?-->", "", md, flags=re.S)
    return [b.strip() for b in md.split("\n\n") if b.strip() and not b.lstrip().startswith("|")]


def measure(md: str) -> dict[str, int]:
    """The counts a-g of one converted document (module docstring)."""
    found = tables(md)
    cells = [c for head, body in found for row in [head] + body for c in row]
    blocks = text_blocks(md)
    heads = [b for b in blocks if re.match(r"#{1,6} ", b)]
    return {
        "tables": len(found),
        "a": sum(1 for c in cells if is_currency(c)),
        "b": sum(1 for c in cells if c == "%"),
        "c": sum(1 for h in heads if is_period_phrase(h.lstrip("#").strip())),
        "d": sum(1 for head, body in found if not any(_period_cell(c) for c in head)
                 and any(sum(_period_cell(c) for c in row) >= 2 for row in body[:3])),
        "e": sum(1 for head, _ in found if any(is_figure(c) and not is_period_phrase(c) for c in head[1:])),
        "f": sum(1 for b in blocks if not b.startswith("#") and "\n" not in b and is_period_phrase(b)),
        "g": sum(1 for head, _ in found if not any(head)),
        "h": sum(1 for b in blocks if re.fullmatch(r"\d{1,4}", b)),
        "i": len(re.findall(r"^\[\^[^\]]+\]:[ \t]*$", md, re.M)),
        "j": len(_BROKEN.findall(md)),
        "k": _running_lines(md),
    }


def _running_lines(md: str) -> int:
    """Lines that open five pages or more, the same each time, outside comments (count k)."""
    counts: dict[str, int] = {}
    for m in _AFTER_BREAK.finditer(md):
        key = norm_key(m.group(2))  # the reader's own key: case, digit runs and spacing aside
        counts[key] = counts.get(key, 0) + 1
    return sum(c for c in counts.values() if c >= 5)


def report(before: dict[str, dict[str, int]] | None, after: dict[str, dict[str, int]]) -> str:
    """A Markdown table: per file, each count (before → after when both are given)."""
    cols = ["tables"] + list(METRICS)
    lines = ["| file | " + " | ".join(cols) + " |", "| --- |" + " ---: |" * len(cols)]
    names = sorted(after)
    total_b = {k: 0 for k in cols}
    total_a = {k: 0 for k in cols}
    for name in names + ["total"]:
        row = []
        for k in cols:
            if name == "total":
                a, b = total_a[k], total_b[k]
            else:
                a = after[name][k]
                b = before[name][k] if before else a
                total_a[k] += a
                total_b[k] += b
            row.append(f"{b} → {a}" if before else str(a))
        lines.append(f"| {name} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def read_dir(folder: Path, names: list[str]) -> dict[str, dict[str, int]]:
    """Counts of each NAME.md in ``folder``."""
    return {n: measure((folder / f"{n}.md").read_text(encoding="utf-8")) for n in names}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", help="git revision whose reader gives the 'before' counts (e.g. main)")
    ap.add_argument("--before", type=Path, help="folder of Markdown already converted by the base reader")
    ap.add_argument("--after", type=Path, help="folder of Markdown already converted by this tree's reader")
    ap.add_argument("--out", type=Path, help="keep the Markdown and counts here (default: a temporary folder)")
    ap.add_argument("--only", nargs="*", default=[], help="file name prefixes to keep")
    args = ap.parse_args()
    if not PDFS.is_dir():
        print(f"skipped: {PDFS} is absent (the financebench-dev corpus lives in ../shared)")
        return 0
    pdfs = sorted(p for p in PDFS.glob("*.pdf") if not args.only or p.name.startswith(tuple(args.only)))
    names = [p.stem for p in pdfs]
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        jobs = []
        after_dir = args.after or out / "after"
        if not args.after:
            jobs.append(convert_all(pdfs, after_dir, ROOT))
        before_dir = args.before
        if args.base and not before_dir:
            before_dir = out / "before"
            jobs.append(convert_all(pdfs, before_dir, export_revision(args.base, Path(tmp) / "base")))
        if any(j.wait() for j in jobs):
            print("a conversion failed", file=sys.stderr)
            return 1
        after = read_dir(after_dir, names)
        before = read_dir(before_dir, names) if before_dir else None
        (out / "fin_cells.json").write_text(json.dumps({"before": before, "after": after}, indent=1))
    print(report(before, after))
    return 0


if __name__ == "__main__":
    sys.exit(main())
