"""``adachunk convert``: PDF → Markdown (and the paper's parsed JSON), offline.

One input: ``-o FILE.md`` (``-`` for stdout) and ``--json FILE.json``. Several inputs (files,
folders, globs): ``-o`` and ``--json`` name folders; without ``-o`` each Markdown file is written
beside its PDF, and ``--json`` without a value writes the JSON beside the Markdown. A PDF that
cannot be converted (``ADA308`` encrypted, ``ADA309`` no text layer, ``ADA310`` corrupt or
truncated) is reported and skipped; the exit code is then 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ..errors import AdachunkError
from .common import expand_inputs, output_to, print_error


def _non_negative(value: str) -> int:
    n = int(value)
    if n < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return n


def add_parsers(sub) -> list[str]:
    """Register ``convert``."""
    p = sub.add_parser("convert", help="convert PDF files to structure-aware Markdown (+ parsed JSON)")
    p.add_argument("inputs", nargs="+", metavar="FILE", help=".pdf files, folders or globs")
    p.add_argument("-o", "--output", help="Markdown output: a file for one input ('-' = stdout), a folder for "
                                          "several (default: FILE.md beside each PDF)")
    p.add_argument("--json", nargs="?", const="", metavar="FILE",
                   help="also write the parsed JSON (document_name, pages, full_text, split_points, titles): a "
                        "file for one input, a folder for several; without a value, beside the Markdown")
    p.add_argument("--backend", choices=["pdfplumber", "pymupdf"], default="pdfplumber",
                   help="pdfplumber (default, MIT) or pymupdf (extra adachunk[pymupdf], AGPL-3.0)")
    p.add_argument("--no-table-wrapper", action="store_true", help="do not wrap tables in <Table> ... </Table>")
    p.add_argument("--max-table-rows", type=_non_negative, default=40, metavar="N",
                   help="split tables into parts of at most N body rows, each with the header (0: never)")
    p.add_argument("--furniture", choices=["comment", "drop"], default="comment",
                   help="running headers/footers: keep as <!-- PageHeader/PageFooter --> comments, or drop")
    p.add_argument("--scanned-pages", choices=["error", "warn"], default="error",
                   help="a page that is an image without a text layer: error (ADA309, default; OCR is not built "
                        "in) or warn (keep the other pages, leave it empty)")
    p.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                   help="processes extracting the pages of a long PDF in parallel (default 1)")
    p.add_argument("--password", help="user password of encrypted PDFs (or set ADACHUNK_PDF_PASSWORD, which "
                                      "other users cannot read in the process list)")
    return ["convert"]


def _target(pdf: str, option: str | None, many: bool, suffix: str, beside: Path | None = None) -> str:
    """Where one output goes: the given file, a file in the given folder, or beside ``beside``."""
    stem = Path(pdf).stem + suffix
    if option:
        if many or Path(option).is_dir():
            Path(option).mkdir(parents=True, exist_ok=True)
            return str(Path(option) / stem)
        return option
    return str((beside or Path(pdf)).with_suffix(suffix))


def _write(path: str, text: str) -> None:
    with output_to(path) as out:
        out.write(text)


def run(args) -> int:
    """Convert every input; report each failure and go on."""
    from ..api import PdfOptions, convert_pdf, parsed_json

    options = PdfOptions(backend=args.backend, table_wrapper=not args.no_table_wrapper,
                         max_table_rows=args.max_table_rows, furniture=args.furniture,
                         scanned_pages=args.scanned_pages,
                         password=args.password or os.environ.get("ADACHUNK_PDF_PASSWORD"), workers=max(1, args.jobs))
    inputs = list(expand_inputs(args.inputs, [".pdf"]))
    many = len(inputs) > 1
    if many and args.output == "-":
        print("adachunk convert: '-o -' (stdout) takes a single input", file=sys.stderr)
        return 2
    failed = 0
    for pdf in inputs:
        try:
            doc = convert_pdf(pdf, options, source=pdf)
            md_path = _target(pdf, args.output, many, ".md")
            _write(md_path, doc.text)
            if args.json is not None:
                beside = Path(md_path) if md_path != "-" else Path(pdf)
                _write(_target(pdf, args.json, many, ".json", beside),
                       json.dumps(parsed_json(doc), ensure_ascii=False, indent=1) + "\n")
        except AdachunkError as err:
            print_error(err)
            failed += 1
            continue
        if md_path != "-":
            print(f"{pdf}: {len(doc.pages or [])} pages, {len(doc.split_points or []) + 1} blocks, "
                  f"{len(doc.titles or [])} headings -> {md_path}", file=sys.stderr)
    return 2 if failed else 0
