"""``adachunk convert``: PDF, Word (.docx) and HTML → Markdown (and the paper's parsed JSON), offline.

One input: ``-o FILE.md`` (``-`` for stdout) and ``--json FILE.json``. Several inputs (files,
folders, globs): ``-o`` and ``--json`` name folders; without ``-o`` each Markdown file is written
beside its input, and ``--json`` without a value writes the JSON beside the Markdown. The JSON
of a Word or HTML file carries the ``source_map`` (where each block came from). A file that
cannot be converted (``ADA308`` encrypted, ``ADA309`` no text layer, ``ADA310`` corrupt or
truncated PDF; ``ADA304`` malformed Word file; ``ADA301`` undecodable HTML) is reported and
skipped; the exit code is then 2.

Several inputs are converted one at a time in a worker process under the per-document bounds
(``--doc-timeout``, ``--doc-memory``; :class:`adachunk.runner.pool.BoundedPool`): a file that
hangs or swells fails alone (``ADA325``-``ADA327``), its worker is replaced and the next file is
read. One input runs in this process unless a bound is given: it has no other file to cost.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..errors import AdachunkError, missing_dependency
from .common import add_bounds_flags, expand_inputs, output_to, print_error


def _non_negative(value: str) -> int:
    n = int(value)
    if n < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return n


def add_parsers(sub) -> list[str]:
    """Register ``convert``."""
    p = sub.add_parser("convert", help="convert PDF, Word and HTML files to structure-aware Markdown (+ parsed JSON)")
    p.add_argument("inputs", nargs="+", metavar="FILE", help=".pdf, .docx, .html/.htm files, folders or globs")
    p.add_argument("-o", "--output", help="Markdown output: a file for one input ('-' = stdout), a folder for "
                                          "several (default: FILE.md beside each input)")
    p.add_argument("--json", nargs="?", const="", metavar="FILE",
                   help="also write the parsed JSON (document_name, pages, full_text, split_points, titles): a "
                        "file for one input, a folder for several; without a value, beside the Markdown")
    p.add_argument("--backend", choices=["pdfplumber", "pymupdf"], default="pdfplumber",
                   help="pdfplumber (default, MIT) or pymupdf (extra adachunk[pymupdf], AGPL-3.0)")
    p.add_argument("--no-table-wrapper", action="store_true", help="do not wrap tables in <Table> ... </Table>")
    p.add_argument("--tracked-changes", choices=["accept", "reject"], default="accept",
                   help="Word: 'accept' keeps insertions and drops deletions (default), 'reject' the reverse")
    p.add_argument("--comments", choices=["drop", "keep"], default="drop",
                   help="Word: reviewer comments dropped (default) or kept as <!-- Comment: ... -->")
    p.add_argument("--boilerplate", choices=["drop", "keep"], default="drop",
                   help="HTML: navigation, page header/footer, cookie banners, menus dropped (default) or kept")
    p.add_argument("--links", choices=["text", "markdown"], default="text",
                   help="HTML: a link as its text (default) or as a Markdown link [text](href)")
    p.add_argument("--max-table-rows", type=_non_negative, default=40, metavar="N",
                   help="split tables into parts of at most N body rows, each with the header (0: never)")
    p.add_argument("--furniture", choices=["comment", "drop"], default="comment",
                   help="running headers/footers (PDF pages, Word headers and footers): keep as "
                        "<!-- PageHeader/PageFooter --> comments, or drop")
    p.add_argument("--scanned-pages", choices=["error", "warn"], default="error",
                   help="a page that is an image without a text layer that OCR did not read: error (ADA309, "
                        "default) or warn (keep the other pages, leave it empty)")
    p.add_argument("--ocr", choices=["auto", "off"], default="auto",
                   help="read scanned PDF pages by OCR: auto (default; where the extra adachunk[ocr] is "
                        "installed) or off")
    p.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                   help="processes extracting the pages of a long PDF in parallel (default 1)")
    p.add_argument("--errors", choices=["strict", "replace"], default="strict",
                   help="HTML: bytes invalid in the page's encoding are an error (ADA301, default) or U+FFFD")
    p.add_argument("--password", help="user password of encrypted PDFs (or set ADACHUNK_PDF_PASSWORD, which "
                                      "other users cannot read in the process list)")
    add_bounds_flags(p, where=" (several inputs, or one with a bound given; not with --jobs > 1)")
    return ["convert"]


def _target(src: str, option: str | None, many: bool, suffix: str, beside: Path | None = None) -> str:
    """Where one output goes: the given file, a file in the given folder, or beside ``beside``."""
    stem = Path(src).stem + suffix
    if option:
        if many or Path(option).is_dir():
            Path(option).mkdir(parents=True, exist_ok=True)
            return str(Path(option) / stem)
        return option
    return str((beside or Path(src)).with_suffix(suffix))


def _write(path: str, text: str) -> None:
    with output_to(path) as out:
        out.write(text)


_SUFFIXES = [".pdf", ".docx", ".html", ".htm"]


def _converters(args) -> dict[str, Any]:
    """One function per input suffix: path, source → Document, with the command's options."""
    from ..api import conversion as api

    pdf = api.PdfOptions(backend=args.backend, table_wrapper=not args.no_table_wrapper,
                         max_table_rows=args.max_table_rows, furniture=args.furniture,
                         scanned_pages=args.scanned_pages, ocr=args.ocr,
                         password=args.password or os.environ.get("ADACHUNK_PDF_PASSWORD"),
                         workers=max(1, args.jobs))
    docx = api.DocxOptions(tracked_changes=args.tracked_changes, comments=args.comments,
                           furniture=args.furniture, table_wrapper=not args.no_table_wrapper)
    html = api.HtmlOptions(table_wrapper=not args.no_table_wrapper, links=args.links,
                           boilerplate=args.boilerplate)

    def html_reader(path: str, source: str):
        return api.read_html(Path(path), source, args.errors, options=html)

    return {".pdf": lambda path, source: api.convert_pdf(path, pdf, source=source),
            ".docx": lambda path, source: api.read_docx(Path(path), source, options=docx),
            ".html": html_reader, ".htm": html_reader}


def _convert_one(path: str, converters: dict[str, Any]):
    """The input converted by its suffix's converter (``ADA303`` for any other suffix)."""
    from ..errors import InputError, Location

    convert = converters.get(Path(path).suffix.lower())
    if convert is None:
        raise InputError(code="ADA303", message=f"convert reads {', '.join(_SUFFIXES)}, not '{Path(path).suffix}'",
                         location=Location(path), allowed=_SUFFIXES)
    return convert(path, path)


def _converted(src: str, args, many: bool, worker: bool = False) -> tuple[str, str, str]:
    """Convert ``src`` and write its outputs: the summary line, what the readers printed on
    stderr (a ``worker``'s warnings, sent with its reply) and the Markdown path."""
    import contextlib
    import io
    import warnings

    from ..api.conversion import parsed_json

    errs = io.StringIO()

    def show(message, category, filename, lineno, file=None, line=None):
        errs.write(warnings.formatwarning(message, category, filename, lineno, line))

    # in a worker, its warnings are printed by the main process, in input order (a forked worker
    # inherits whatever hook its parent had); here, they are warnings as any caller expects
    with contextlib.redirect_stderr(errs) if worker else contextlib.nullcontext(), warnings.catch_warnings():
        if worker:
            warnings.showwarning = show
        doc = _convert_one(src, _converters(args))
    md_path = _target(src, args.output, many, ".md")
    _write(md_path, doc.text)
    if args.json is not None:
        beside = Path(md_path) if md_path != "-" else Path(src)
        _write(_target(src, args.json, many, ".json", beside),
               json.dumps(parsed_json(doc), ensure_ascii=False, indent=1) + "\n")
    pages = f"{len(doc.pages)} pages, " if doc.pages else ""
    line = f"{src}: {pages}{len(doc.split_points or []) + 1} blocks, {len(doc.titles or [])} headings -> {md_path}"
    return line, errs.getvalue(), md_path


def _bounded(args, many: bool):
    """The bounded worker pool, or None where inputs are converted in this process: ``--jobs``
    above 1 (its page workers cannot run inside a worker), stdout as the output, the bounds
    off, or one input with the default bounds."""
    from ..api.workers import Bounds

    given = args.doc_timeout is not None or args.doc_memory is not None
    bounds = Bounds.of(args.doc_timeout, args.doc_memory)
    if args.jobs > 1 or args.output == "-" or not bounds.active or not (many or given):
        return None
    import multiprocessing as mp

    from ..api.workers import BoundedPool, worker_init
    from ._chunk_pool import start_method

    return BoundedPool(1, bounds, mp.get_context(start_method()), worker_init)


def _one(src: str, args, many: bool, pool) -> tuple[str, str, str]:
    """``_converted`` here, or in the pool's worker (a breach there is the file's coded error)."""
    if pool is None:
        return _converted(src, args, many)
    pool.submit(src, src, _converted, src, args, many, True)
    _, outcome = pool.next_done()
    if outcome.raised is not None:
        raise outcome.raised
    if outcome.error is not None:
        raise outcome.error
    return outcome.value


def run(args) -> int:
    """Convert every input; report each failure and go on."""
    import contextlib

    inputs = list(expand_inputs(args.inputs, _SUFFIXES))
    many = len(inputs) > 1
    if many and args.output == "-":
        print("adachunk convert: '-o -' (stdout) takes a single input", file=sys.stderr)
        return 2
    failed = 0
    pool = _bounded(args, many)
    with pool if pool is not None else contextlib.nullcontext():
        for src in inputs:
            try:
                line, printed, md_path = _one(src, args, many, pool)
            except (AdachunkError, ImportError) as exc:
                err = missing_dependency(exc, src) or exc  # pdfplumber missing: ADA314 naming the pdf extra
                if not isinstance(err, AdachunkError):
                    raise  # an ImportError that no extra explains: a bug
                print_error(err)
                failed += 1
                continue
            sys.stderr.write(printed)
            if md_path != "-":
                print(line, file=sys.stderr)
    return 2 if failed else 0
