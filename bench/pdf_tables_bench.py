"""Rows recovered from real report tables: adachunk vs camelot (stream, lattice) vs pdfplumber.

The public table set is listed in ``bench/pdf_tables/set.yaml`` (real PDFs shipped in a PyPI
sdist, not the shared corpus; ``bench/pdf_tables/README.md`` says how to assemble the folder),
each file with reference rows: the package's own test expectation (a CSV) or rows hand-checked
here (a YAML file next to the set). The generated cases of issue 48's five phenomena
(``tests/pdf_report_tables.py``: overprint, dot leaders, nil markers, grouped header,
statistical page) are scored the same way, their header rows included.

A reference row counts as *recovered* when some row of the tool's output holds its non-empty
cells, whitespace-normalised, in order and nothing else (empty cells ignored on both sides, so
an empty stub or a column the tool split off empty does not matter; a cell merged with its
neighbour, a figure missing or a label cut off does). For adachunk the rows are those of the
Markdown tables of :func:`adachunk.ingest.pdf.convert_pdf` (header rows included); for
pdfplumber those of ``page.find_tables()`` with its default (ruling lines) and with its
``"text"`` strategies; camelot runs in the interpreter given (camelot-py pulls OpenCV, pandas and
pdfium, so it is not a dependency of adachunk) with ``pages="all"``.

    python bench/pdf_tables_bench.py FOLDER [--camelot-python /path/to/venv/bin/python] [--json out.json]
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SET = ROOT / "bench" / "pdf_tables"
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import pdf_report_tables as prt  # noqa: E402

from adachunk.ingest.pdf import convert_pdf  # noqa: E402

CAMELOT = """
import json, sys, warnings, camelot
warnings.simplefilter("ignore")
out = []
for path in sys.argv[2:]:
    try:
        tables = camelot.read_pdf(path, flavor=sys.argv[1], pages="all")
        out.append([[[str(c) for c in row] for row in t.df.values.tolist()] for t in tables])
    except Exception as exc:
        out.append({"error": f"{type(exc).__name__}: {exc}"})
print(json.dumps(out))
"""


def norm(cell: str) -> str:
    return " ".join(str(cell).replace("\\|", "|").split())


def key(row: list[str]) -> tuple[str, ...]:
    """A row's non-empty normalised cells, in order."""
    return tuple(c for c in (norm(x) for x in row) if c)


def recovered(reference: list[list[str]], got: list[list[str]]) -> int:
    """How many reference rows some output row holds exactly (module docstring)."""
    have = {key(r) for r in got}
    return sum(key(r) in have for r in reference if key(r))


def markdown_rows(text: str) -> list[list[str]]:
    """Every row of every pipe table in adachunk's Markdown (header rows included)."""
    rows = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("|") and s.endswith("|") and not re.fullmatch(r"\|(?:\s*:?-+:?\s*\|)+", s):
            rows.append(re.split(r"(?<!\\)\|", s[1:-1]))
    return rows


def run_adachunk(path: Path) -> list[list[str]]:
    return markdown_rows(convert_pdf(path).text)


def run_pdfplumber(path: Path, strategy: str | None) -> list[list[str]]:
    import pdfplumber

    settings = {"vertical_strategy": strategy, "horizontal_strategy": strategy} if strategy else {}
    rows = []
    with pdfplumber.open(path) as pdf:
        for page in pdf.pages:
            for t in page.find_tables(settings):
                rows += [[c or "" for c in r] for r in t.extract()]
    return rows


def run_camelot(python: str, flavor: str, paths: list[Path]) -> tuple[list, float]:
    t = time.time()
    proc = subprocess.run([python, "-c", CAMELOT, flavor, *map(str, paths)], capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1:])
    per_doc = json.loads(proc.stdout.strip().splitlines()[-1])
    return [d if isinstance(d, dict) else [r for tb in d for r in tb] for d in per_doc], time.time() - t


def reference(folder: Path, entry: dict) -> list[list[str]]:
    ref = entry["reference"]
    if "csv" in ref:
        with open(folder / ref["csv"], newline="", encoding="utf-8") as f:
            return [r for r in csv.reader(f)]
    return yaml.safe_load((SET / ref["rows"]).read_text(encoding="utf-8"))["rows"]


def cases(folder: Path, tmp: Path) -> dict[str, tuple[Path, list[list[str]]]]:
    """The public set (files present in ``folder``) and the generated phenomenon cases."""
    out = {}
    for entry in yaml.safe_load((SET / "set.yaml").read_text(encoding="utf-8"))["files"]:
        path = folder / entry["file"]
        if path.exists():
            out[entry["file"]] = (path, reference(folder, entry))
        else:
            print(f"missing from the folder: {entry['file']} (see bench/pdf_tables/README.md)")
    for name, build in prt.BUILDERS.items():
        path, rows = build(tmp / f"{name}.pdf")
        out[f"generated: {name}"] = (path, rows)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="the assembled public table set")
    ap.add_argument("--camelot-python", help="an interpreter with camelot-py installed")
    ap.add_argument("--json", type=Path, help="write the per-file counts here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        all_cases = cases(args.folder, Path(tmp))
        names = list(all_cases)
        scores: dict[str, dict[str, int | str]] = {}
        secs: dict[str, float] = {}
        tools = {"adachunk": run_adachunk, "pdfplumber (lines)": lambda p: run_pdfplumber(p, None),
                 "pdfplumber (text)": lambda p: run_pdfplumber(p, "text")}
        for tool, fn in tools.items():
            t = time.process_time()
            scores[tool] = {n: recovered(ref, fn(path)) for n, (path, ref) in all_cases.items()}
            secs[tool] = time.process_time() - t
        if args.camelot_python:
            for flavor in ("stream", "lattice"):
                try:
                    per_doc, secs[f"camelot {flavor}"] = run_camelot(args.camelot_python, flavor,
                                                                     [p for p, _ in all_cases.values()])
                except RuntimeError as exc:
                    print(f"camelot {flavor} failed: {exc}")
                    continue
                scores[f"camelot {flavor}"] = {n: (f"error: {got['error'][:40]}" if isinstance(got, dict)
                                                   else recovered(all_cases[n][1], got))
                                               for n, got in zip(names, per_doc)}
    public = [n for n in names if not n.startswith("generated")]
    print("| file | reference rows | " + " | ".join(scores) + " |")
    print("|---|---:|" + "---:|" * len(scores))
    for n in names:
        print(f"| {n} | {len(all_cases[n][1])} | " + " | ".join(str(s[n]) for s in scores.values()) + " |")
    for label, group in (("public set", public), ("generated", [n for n in names if n not in public])):
        total = sum(len(all_cases[n][1]) for n in group)
        got = [sum(s[n] for n in group if isinstance(s[n], int)) for s in scores.values()]
        print(f"| **{label}** | {total} | " + " | ".join(f"{g} ({100 * g / max(total, 1):.0f}%)" for g in got) + " |")
    print("| seconds (CPU; camelot: wall, start-up included) | | " + " | ".join(f"{secs[t]:.1f}" for t in scores) + " |")
    if args.json:
        args.json.write_text(json.dumps({"scores": scores, "seconds": secs,
                                         "reference_rows": {n: len(all_cases[n][1]) for n in names}}, indent=1))


if __name__ == "__main__":
    main()
