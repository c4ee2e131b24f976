"""``adachunk view``: a self-contained HTML page with chunk boundaries, structures and costs."""

from __future__ import annotations

import sys

from .common import add_solver_flags, output_to


def add_parsers(sub) -> list[str]:
    """Register ``view``."""
    p = sub.add_parser("view", help="write an HTML page showing chunk boundaries, structures and the cost heatmap")
    p.add_argument("input", metavar="FILE", help=".md, .txt, parsed .json, .pdf, .docx or .html file")
    p.add_argument("-o", "--output", default="view.html", help="HTML file to write (default: view.html; '-': stdout)")
    p.add_argument("--labels", help="comma-separated structure labels to draw (default: all but words, sentences and line breaks)")
    p.add_argument("--all", action="store_true", help="also draw words, sentences and line breaks")
    add_solver_flags(p)
    return ["view"]


def run(args) -> int:
    """Chunk one file with explanations and write the page."""
    from ..api import build_view, render_view
    from .detect_cmd import view_inputs

    rp, doc, labels = view_inputs(args)
    page = render_view(build_view(doc, rp, labels=labels), labels)
    with output_to(args.output) as out:
        out.write(page)
    if args.output not in (None, "-"):
        print(f"wrote {args.output} ({len(page.encode('utf-8')) // 1024} KB)", file=sys.stderr)
    return 0
