"""Table cell accuracy of borderless-table extractors on the generated PDF corpus.

The corpus is tests/pdf_corpus.py (reportlab; tables without ruling lines unless said): the
240-row finance table, the statement with a spanning header and its lease note, the 120-row
segment table with and without a repeated header, the ruled 90-row series. A cell counts as
right when the extracted row that matches its expected row best holds it in the same column;
a *spurious row* is an extracted row of two cells or more that matches no expected row (prose
or page furniture read as a table; the two-column page has no table at all). Time: CPU seconds
in this process (camelot: wall seconds of its interpreter, start-up included).

    python bench/bench_pdf_tables.py [--camelot-python /path/to/venv/bin/python]

``adachunk`` is the shipped converter (pdfplumber words, pdfplumber's text-alignment column
strategy, adachunk's region and clean-up rules); ``pdfplumber-text`` is pdfplumber's own
``find_tables`` with both strategies ``"text"``; camelot's ``stream`` and ``network`` flavours
run in the interpreter given (camelot-py pulls OpenCV and pandas, so it is not a dependency).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import pdf_corpus as pc  # noqa: E402

from adachunk.ingest.pdf import convert_pdf  # noqa: E402

CAMELOT = """
import json, sys, camelot
out = []
for path in sys.argv[2:]:
    tables = camelot.read_pdf(path, flavor=sys.argv[1], pages="all")
    out.append([[[str(c) for c in row] for row in t.df.values.tolist()] for t in tables])
print(json.dumps(out))
"""


def norm(cell: str) -> str:
    return " ".join(str(cell).replace("\n", " ").split())


def markdown_rows(text: str) -> list[list[str]]:
    """Every row of every <Table> in adachunk's Markdown (header rows included)."""
    rows = []
    for body in re.findall(r"<Table>\n(.*?)\n</Table>", text, re.S):
        lines = body.splitlines()
        for ln in [lines[0]] + lines[2:]:
            rows.append([c.strip().replace("\\|", "|") for c in ln.strip()[1:-1].split(" | ")])
    return rows


def cell_accuracy(expected: list[list[list[str]]], got: list[list[str]]) -> tuple[int, int]:
    """(right cells, expected cells): each expected row against its best-matching extracted row."""
    got = [[norm(c) for c in r] for r in got]
    right = total = 0
    for table in expected:
        for row in table:
            row = [norm(c) for c in row]
            total += len(row)
            right += max((sum(a == b for a, b in zip(row, g)) for g in got), default=0)
    return right, total


def spurious(expected: list[list[list[str]]], got: list[list[str]]) -> int:
    """Extracted rows with two filled cells that share fewer than two cells with any expected row
    (prose or page furniture read as a table)."""
    exp = [[norm(c) for c in r] for t in expected for r in t]
    n = 0
    for g in got:
        g = [norm(c) for c in g]
        if sum(bool(c) for c in g) >= 2 and not any(sum(a == b and a != "" for a, b in zip(g, e)) >= 2 for e in exp):
            n += 1
    return n


def corpus(tmp: Path) -> dict[str, tuple[Path, list]]:
    return {
        "finance (240 rows, 7 pages)": pc.build_finance(tmp / "finance.pdf"),
        "statement + note": pc.build_statement(tmp / "statement.pdf"),
        "borderless, header repeated": pc.build_borderless_multipage(tmp / "b1.pdf", True),
        "borderless, header not repeated": pc.build_borderless_multipage(tmp / "b0.pdf", False),
        "ruled, header not repeated": pc.build_ruled_multipage(tmp / "r0.pdf", False),
        "two columns, no table": pc.build_two_column(tmp / "two.pdf"),
    }


def run_adachunk(path: Path) -> list[list[str]]:
    return markdown_rows(convert_pdf(path).text)


def run_pdfplumber_text(path: Path) -> list[list[str]]:
    import pdfplumber

    rows = []
    with pdfplumber.open(path) as pdf:
        for page in pdf.pages:
            for t in page.find_tables({"vertical_strategy": "text", "horizontal_strategy": "text"}):
                rows += [[c or "" for c in r] for r in t.extract()]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--camelot-python", help="an interpreter with camelot-py installed")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cases = corpus(Path(tmp))
        tools = {"adachunk": run_adachunk, "pdfplumber-text": run_pdfplumber_text}
        results: dict[str, dict] = {}
        for tool, fn in tools.items():
            for name, (path, expected) in cases.items():
                t = time.process_time()
                got = fn(path)
                results.setdefault(tool, {})[name] = (*cell_accuracy(expected, got), spurious(expected, got),
                                                      time.process_time() - t)
        if args.camelot_python:
            for flavor in ("stream", "network"):
                paths = [str(p) for p, _ in cases.values()]
                t = time.time()
                proc = subprocess.run([args.camelot_python, "-c", CAMELOT, flavor, *paths], capture_output=True,
                                      text=True)
                if proc.returncode:
                    print(f"camelot {flavor} failed: {proc.stderr.strip().splitlines()[-1:]}")
                    continue
                per_doc = json.loads(proc.stdout.strip().splitlines()[-1])
                for (name, (_, expected)), tables in zip(cases.items(), per_doc):
                    got = [r for tb in tables for r in tb]
                    results.setdefault(f"camelot-{flavor}", {})[name] = (*cell_accuracy(expected, got),
                                                                      spurious(expected, got), 0.0)
                results[f"camelot-{flavor}"]["wall"] = time.time() - t
        names = [n for n, (_, e) in cases.items() if e]
        print("| extractor | " + " | ".join(names) + " | all cells | spurious rows | CPU s |")
        print("|---|" + "---:|" * (len(names) + 3))
        for tool, per in results.items():
            cells = [f"{100 * per[n][0] / per[n][1]:.1f}%" for n in names]
            r_all, t_all = sum(per[n][0] for n in names), sum(per[n][1] for n in names)
            junk = sum(v[2] for k, v in per.items() if k != "wall")
            secs = per.get("wall", sum(v[3] for k, v in per.items() if k != "wall"))
            print(f"| {tool} | " + " | ".join(cells) + f" | {r_all:,}/{t_all:,} = {100 * r_all / t_all:.1f}% | "
                  f"{junk} | {secs:.1f} |")

if __name__ == "__main__":
    main()
