"""Facts that must hold when real public PDFs are converted: paragraphs, headings, table rows.

Each ``bench/pdf_real/<pdf stem>.yaml`` lists, for one file of ``../shared/corpus/pdf-real/``,
facts checked by eye against the rendered page (see its ``checked`` line):

* ``paragraphs``: each comes out whole at the start of one Markdown block (whitespace-normalised,
  hyphenation at line ends joined; a long paragraph may be given by its first sentences), and
  the paragraphs come in the order listed;
* ``headings``: each is a Markdown heading line of the given level;
* ``not_headings``: no Markdown heading line starts with any of these;
* ``rows``: each is one Markdown table row with exactly these cells, in these columns.

The converter is the shipped one (:func:`adachunk.ingest.pdf.convert_pdf`, default options but
scanned pages kept empty, so one scanned page does not void the other facts). For comparison,
pdfplumber's plain ``extract_text()`` is scored on the paragraphs (a paragraph holds when it is
in the page text with its lines joined, in order). Prints a table per file and writes JSON to
``bench/out/pdf_real/``.

    python bench/pdf_real_bench.py [--corpus ../shared/corpus/pdf-real] [--only federal-register]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adachunk.errors import AdachunkError  # noqa: E402
from adachunk.ingest.pdf import convert_pdf  # noqa: E402

FACTS = ROOT / "bench" / "pdf_real"
CORPUS = ROOT.parent / "shared" / "corpus" / "pdf-real"
OUT = ROOT / "bench" / "out" / "pdf_real"
KINDS = ("paragraphs", "headings", "not_headings", "rows")

_WS = re.compile(r"\s+")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~<])")
_DASH_SPACE = re.compile(r"([\u2010-\u2015-])\s+")  # "FAA–2020–\n0686" is one token whichever way it breaks
_FOOTREF = re.compile(r"\[\^[^\]]+\]")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_LIST_MARK = re.compile(r"^(?:[-*+]|\d{1,9}[.)])\s+")


def norm(text: str) -> str:
    """Whitespace-normalised text: Markdown escapes and footnote references removed, quotes and
    dashes left as they are, a break after a dash not counted as a space."""
    text = _FOOTREF.sub("", _ESCAPE.sub(r"\1", text))
    return _DASH_SPACE.sub(r"\1", _WS.sub(" ", text)).strip()


def join_hyphens(text: str) -> str:
    """Plain text lines with a word broken by a hyphen at a line end rejoined (``pro-\\nposal``)."""
    return re.sub(r"(\w)-\n(?=[a-z])", r"\1", text)


def md_blocks(markdown: str) -> list[str]:
    """The Markdown's blocks (split at blank lines; a list's items apart, their markers
    dropped), normalised, comments dropped."""
    out = []
    for block in re.split(r"\n\s*\n", markdown):
        if block.lstrip().startswith("<!--"):
            continue
        # each item of a list is a block of its own
        for part in re.split(r"\n(?=\s*(?:[-*+]|\d{1,9}[.)])\s)", block):
            b = norm(_LIST_MARK.sub("", part.strip()))
            if b:
                out.append(b)
    return out


def in_order(facts: list[str], blocks: list[str]) -> tuple[list[bool], list[bool]]:
    """For each paragraph: whether it is whole at the start of one block (after a list marker,
    if any), and whether it also comes after the previous paragraph found."""
    whole, ordered = [], []
    last = -1
    for fact in facts:
        f = norm(fact)
        hits = [i for i, b in enumerate(blocks) if b.startswith(f)]
        whole.append(bool(hits))
        after = [i for i in hits if i > last]
        ordered.append(bool(after))
        if after:
            last = after[0]
        elif hits:
            last = max(last, hits[0])
    return whole, ordered


def heading_lines(markdown: str) -> list[tuple[int, str]]:
    """(level, normalised text) of every Markdown heading line."""
    out = []
    for line in markdown.splitlines():
        m = _HEADING.match(line)
        if m:
            out.append((len(m.group(1)), norm(m.group(2))))
    return out


def table_rows(markdown: str) -> list[list[str]]:
    """Cells of every Markdown table row (separator rows left out)."""
    rows = []
    for line in markdown.splitlines():
        s = line.strip()
        if not (s.startswith("|") and s.endswith("|")) or re.fullmatch(r"\|[\s:|-]+\|", s):
            continue
        cells = re.split(r"(?<!\\)\|", s[1:-1])
        rows.append([norm(c) for c in cells])
    return rows


def check(spec: dict[str, Any], markdown: str) -> dict[str, list[bool]]:
    """Every fact of one expectation file against the converter's Markdown."""
    blocks = md_blocks(markdown)
    whole, ordered = in_order(spec.get("paragraphs") or [], blocks)
    heads = heading_lines(markdown)
    head_set = set(heads)
    rows = table_rows(markdown)
    out = {
        "paragraphs": [w and o for w, o in zip(whole, ordered)],
        "paragraphs_whole": whole,
        "headings": [(int(h["level"]), norm(h["text"])) in head_set for h in spec.get("headings") or []],
        "not_headings": [not any(t.startswith(norm(s)) for _, t in heads) for s in spec.get("not_headings") or []],
        "rows": [[norm(c) for c in r] in rows for r in spec.get("rows") or []],
    }
    return out


def pdfplumber_paragraphs(pdf_path: Path, paragraphs: list[str]) -> list[bool]:
    """pdfplumber's plain ``extract_text()`` (pages joined, hyphens at line ends rejoined):
    whether each paragraph is in it, in order."""
    import pdfplumber

    with pdfplumber.open(pdf_path) as pdf:
        text = "\n".join(join_hyphens(p.extract_text() or "") for p in pdf.pages)
    flat = norm(text)
    out, pos = [], 0
    for fact in paragraphs:
        at = flat.find(norm(fact), pos)
        out.append(at >= 0)
        if at >= 0:
            pos = at
    return out


def convert(pdf_path: Path) -> tuple[str, str | None, list[str]]:
    """The converter's Markdown, the error code when it failed, and the notices it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            doc = convert_pdf(pdf_path, scanned_pages="warn")
            text, error = doc.text, None
        except AdachunkError as exc:
            text, error = "", exc.code
    return text, error, [str(w.message) for w in caught]


def share(values: list[bool]) -> str:
    return f"{sum(values)}/{len(values)}" if values else "-"


def run_file(spec_path: Path, corpus: Path) -> dict[str, Any] | None:
    """Score one expectation file; None when its PDF is not in the corpus."""
    spec = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    pdf_path = corpus / spec["source"]
    if not pdf_path.is_file():
        return None
    t = time.process_time()
    markdown, error, notices = convert(pdf_path)
    cpu = time.process_time() - t
    facts = check(spec, markdown)
    held = [v for k in KINDS for v in facts[k]]
    plumber = pdfplumber_paragraphs(pdf_path, spec.get("paragraphs") or [])
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{pdf_path.stem}.md").write_text(markdown, encoding="utf-8")
    return {"file": spec["source"], "error": error, "notices": notices, "cpu_s": round(cpu, 3),
            "facts": facts, "held": sum(held), "total": len(held),
            "pdfplumber_paragraphs": plumber}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--only", default="", help="only expectation files whose name contains this")
    args = ap.parse_args()
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}: nothing to measure")
        return
    results = []
    for spec_path in sorted(FACTS.glob("*.yaml")):
        if args.only in spec_path.stem:
            r = run_file(spec_path, args.corpus)
            if r is not None:
                results.append(r)
    head = f"{'file':44} {'paragraphs':>10} {'(whole)':>8} {'headings':>9} {'not_head':>9} {'rows':>9} " \
           f"{'share':>7} {'plumber¶':>9}"
    print(head)
    print("-" * len(head))
    for r in results:
        f = r["facts"]
        pct = f"{100 * r['held'] / r['total']:.0f}%" if r["total"] else "-"
        tag = f" [{r['error']}]" if r["error"] else ""
        name = r["file"][:44 - len(tag)] + tag
        print(f"{name:44} {share(f['paragraphs']):>10} {share(f['paragraphs_whole']):>8} "
              f"{share(f['headings']):>9} {share(f['not_headings']):>9} {share(f['rows']):>9} {pct:>7} "
              f"{share(r['pdfplumber_paragraphs']):>9}")
    held, total = sum(r["held"] for r in results), sum(r["total"] for r in results)
    if total:
        print(f"{'all':44} {'':>10} {'':>8} {'':>9} {'':>9} {'':>9} {100 * held / total:6.0f}%")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(f"JSON: {OUT / 'results.json'}")


if __name__ == "__main__":
    main()
