"""HTML parsers and reference converters for adachunk's HTML → Markdown converter.

Usage (from the repository root)::

    python bench/html_readers.py [--mb 3] [--repeat 3]

Compares, on a generated EUR-Lex-like page of about ``--mb`` MB and on the test pages:

* the two candidate parsers under adachunk's converter: selectolax (Lexbor backend, what
  ``adachunk.ingest.html`` uses) and ``lxml.html`` (libxml2), both feeding the same element tree
  and walker, so that only the parser differs: parse time, parse + convert time, and whether the
  Markdown of the test pages is what the tests expect;
* two reference converters from PyPI, ``markdownify`` (on BeautifulSoup) and
  ``html-to-markdown`` (Rust): their speed, and what they make of the EUR-Lex excerpt (point
  tables: does the ``legal`` profile still find the point lists?) and of a rowspan table.

Prints a Markdown table. Not a test; needs ``selectolax``, ``lxml``, ``markdownify`` and
``html-to-markdown`` installed.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adachunk.ingest.html._blocks import Walker  # noqa: E402
from adachunk.ingest.html._clean import content_roots  # noqa: E402
from adachunk.ingest.html._tree import Node, build_tree, parse_html  # noqa: E402
from adachunk.ingest.converted import assemble  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "html"
EURLEX = FIXTURES / "eurlex_gdpr_excerpt.html"
TWIN = FIXTURES / "eurlex_gdpr_excerpt.md"
ROWSPAN = ("<table><thead><tr><th>Group</th><th>Item</th></tr></thead><tbody><tr><td rowspan='2'>G1</td>"
           "<td>a</td></tr><tr><td>b</td></tr></tbody></table>")
ROWSPAN_ROWS = ("| G1 | a |", "| G1 | b |")
# tag soup a browser repairs: an unclosed <p> before a <div>, misnested emphasis, a table
# without <tbody>, a stray </p>; the expected Markdown is what a browser displays
SOUP = ("<body><p>One<div>Two</div><p>Three <b>bold <i>both</b> italic</i></p></p>"
        "<table><tr><td>x</td><td>y</td></tr><tr><td>1</td><td>2</td></tr></table><main2>tail</main2>")
SOUP_EXPECTED = ("One\n\nTwo\n\nThree **bold *both*** *italic*\n\n<Table>\n| x | y |\n| --- | --- |\n"
                 "| 1 | 2 |\n</Table>\n\ntail\n")


def _lxml_children(el: Any) -> Iterator[tuple[str, str, Any, Any]]:
    if el.text:
        yield ("text", el.text, None, None)
    for child in el:
        if isinstance(child.tag, str):  # comments and processing instructions have a callable tag
            yield ("el", child.tag.lower(), {k.lower(): v or "" for k, v in child.attrib.items()}, child)
        if child.tail:
            yield ("text", child.tail, None, None)


def parse_lxml(text: str) -> Node:
    """The converter's tree built from lxml.html's parse (libxml2)."""
    import lxml.html

    root = lxml.html.document_fromstring(text)
    return build_tree(root, "html", dict(root.attrib), _lxml_children)


def convert_with(parse: Callable[[str], Node], text: str) -> str:
    """adachunk's conversion of ``text`` with the tree from ``parse`` (default options)."""
    root = parse(text)
    walker = Walker("text", "drop", True)
    for node in content_roots(root, "drop"):
        walker.container(node)
    return assemble(walker.blocks).text


def markdownify_md(text: str) -> str:
    """markdownify's Markdown (ATX headings)."""
    from markdownify import markdownify

    return markdownify(text, heading_style="ATX")


def h2m_md(text: str) -> str:
    """html-to-markdown's Markdown."""
    from html_to_markdown import convert

    return convert(text).content


def big_page(mb: float) -> str:
    """A EUR-Lex-like page of about ``mb`` MB: the excerpt's body repeated with new article
    numbers, plus a data table with spans every tenth copy."""
    src = EURLEX.read_text(encoding="utf-8")
    start, end = src.index('<div class="eli-container">'), src.index("<footer>")
    body = src[start:end]
    parts, n, size = [], 0, 0
    while size < mb * 2**20:
        n += 1
        chunk = re.sub(r"Article (\d+)", lambda m: f"Article {int(m.group(1)) + 4 * n}", body)
        if n % 10 == 0:
            chunk += ROWSPAN * 5
        parts.append(chunk)
        size += len(chunk.encode())
    return src[:start] + "".join(parts) + src[end:]


def best(fn: Callable[[], Any], repeat: int) -> float:
    """The best of ``repeat`` wall times of ``fn()``, in milliseconds."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times) * 1000


def legal_counts(md: str) -> str:
    """What the legal profile finds: articles / article_paragraphs / point_lists."""
    from adachunk import load_profile
    from adachunk.detect.base import DetectContext

    detectors = load_profile("legal").policy.detectors
    counts = [len(detectors[name].detect(DetectContext(md))) for name in ("article", "article_paragraph",
                                                                          "point_list")]
    return "/".join(map(str, counts))


def main() -> None:
    """Measure and print the Markdown table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=3.0, help="size of the generated page in MB")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs (the best is shown)")
    args = ap.parse_args()
    page = big_page(args.mb)
    eurlex, twin = EURLEX.read_text(encoding="utf-8"), TWIN.read_text(encoding="utf-8")
    from selectolax.lexbor import LexborHTMLParser
    import lxml.html

    rows = []
    ours = {"selectolax (Lexbor) + adachunk": (parse_html, lambda t: LexborHTMLParser(t).root),
            "lxml.html + adachunk": (parse_lxml, lxml.html.document_fromstring)}
    for name, (parse, raw_parse) in ours.items():
        md = convert_with(parse, eurlex)
        rows.append([name, f"{best(lambda: raw_parse(page), args.repeat):.0f}",
                     f"{best(lambda: convert_with(parse, page), args.repeat):.0f}",
                     "yes" if md == twin else "no", legal_counts(md),
                     "yes" if all(r in convert_with(parse, ROWSPAN) for r in ROWSPAN_ROWS) else "no",
                     "yes" if convert_with(parse, SOUP) == SOUP_EXPECTED else "no"])
    for name, fn in {"markdownify 1.2": markdownify_md, "html-to-markdown 3": h2m_md}.items():
        md = fn(eurlex)
        rows.append([name, "-", f"{best(lambda: fn(page), args.repeat):.0f}", "no" if md.strip() != twin.strip()
                     else "yes", legal_counts(md), "yes" if all(r in fn(ROWSPAN) for r in ROWSPAN_ROWS) else "no",
                     "-"])
    print(f"Page: {len(page.encode()) / 2**20:.1f} MB generated EUR-Lex-like HTML; best of {args.repeat} runs.\n")
    print("| reader | parse ms | convert ms | EUR-Lex excerpt = its Markdown twin | legal: articles/paragraphs/"
          "point lists (twin: " + legal_counts(twin) + ") | rowspan repeated | tag soup as a browser |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
