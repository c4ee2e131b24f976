"""``adachunk view``: a self-contained HTML page with chunk boundaries, structures and costs.

``view FILE`` chunks the file with the DP alone. ``view OUT_DIR [DOC]`` (or ``view --run OUT_DIR
DOC``) draws what ``adachunk run`` wrote to that output folder for one document: the winning
candidate's chunks of ``chunks.jsonl``, with the decision of ``decisions.jsonl`` in the header.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..errors import InputError, Location
from .common import add_solver_flags, output_to


def add_parsers(sub) -> list[str]:
    """Register ``view``."""
    p = sub.add_parser("view", help="write an HTML page showing chunk boundaries, structures and the cost heatmap")
    p.add_argument("input", metavar="FILE", nargs="?",
                   help=".md, .txt, parsed .json, .pdf, .docx or .html file; or a run output folder "
                        "(holding chunks.jsonl) to draw the chunks `adachunk run` chose")
    p.add_argument("doc", metavar="DOC", nargs="?",
                   help="with a run output folder: the document (doc_id or source path; "
                        "optional when the run holds one document)")
    p.add_argument("--run", metavar="OUT_DIR",
                   help="draw the chunks `adachunk run` wrote to OUT_DIR (FILE is then the document)")
    p.add_argument("-o", "--output", default="view.html", help="HTML file to write (default: view.html; '-': stdout)")
    p.add_argument("--labels", help="comma-separated structure labels to draw (default: all but words, sentences and line breaks)")
    p.add_argument("--all", action="store_true", help="also draw words, sentences and line breaks")
    add_solver_flags(p)
    return ["view"]


def run(args) -> int:
    """Chunk one file with explanations (or read a run's chunks of it) and write the page."""
    from ..api.views import build_view, render_view

    run_dir, doc_sel = _run_target(args)
    if run_dir is not None:
        data, labels = run_view(args, run_dir, doc_sel)
    else:
        from .detect_cmd import view_inputs

        rp, doc, labels = view_inputs(args)
        data = build_view(doc, rp, labels=labels)
    page = render_view(data, labels)
    with output_to(args.output) as out:
        out.write(page)
    if args.output not in (None, "-"):
        print(f"wrote {args.output} ({len(page.encode('utf-8')) // 1024} KB)", file=sys.stderr)
    return 0


def _is_run_dir(path: str | None) -> bool:
    return bool(path) and Path(path).is_dir() and (Path(path) / "chunks.jsonl").is_file()


def _run_target(args) -> tuple[Path | None, str | None]:
    """``(run folder, document selector)``, or ``(None, None)`` for a plain file."""
    if args.run:
        if args.doc:
            raise InputError(code="ADA302", message=f"view --run {args.run}: name one document, not {args.input!r} and {args.doc!r}")
        if not _is_run_dir(args.run):
            raise InputError(code="ADA302", location=Location(args.run),
                             message="not a run output folder (no chunks.jsonl)")
        return Path(args.run), args.input
    if args.input is None:
        raise InputError(code="ADA302", message="view: name a FILE, or a run output folder (OUT_DIR [DOC] or --run OUT_DIR DOC)")
    if _is_run_dir(args.input):
        return Path(args.input), args.doc
    if args.doc:
        raise InputError(code="ADA302", message=f"view {args.input}: DOC is only for a run output folder (one holding chunks.jsonl)")
    return None, None


def _jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _pick(records: list[dict], doc_sel: str | None, run_dir: Path) -> str:
    """The doc_id of the document ``doc_sel`` names (doc_id, source path or its file name)."""
    ids = list(dict.fromkeys(r["doc_id"] for r in records))
    if doc_sel is None:
        if len(ids) == 1:
            return ids[0]
        raise InputError(code="ADA302", location=Location(str(run_dir)), message=f"{len(ids)} documents; name one of: {', '.join(ids[:20])}"
                         + (", ..." if len(ids) > 20 else ""))
    for key in ("doc_id", "source"):
        for r in records:
            if r.get(key) == doc_sel:
                return r["doc_id"]
    name = Path(doc_sel).name
    match = list(dict.fromkeys(r["doc_id"] for r in records if Path(r.get("source") or "").name == name))
    if len(match) == 1:
        return match[0]
    raise InputError(code="ADA302", location=Location(str(run_dir)), message=f"no document {doc_sel!r} in chunks.jsonl (documents: {', '.join(ids[:20])}"
                     + (", ..." if len(ids) > 20 else "") + ")")


def run_view(args, run_dir: Path, doc_sel: str | None):
    """``(ViewData, labels)`` of the chunks ``adachunk run`` wrote for one document of ``run_dir``.

    The text comes from the source file when it is still readable and its offsets agree with the
    chunks (the structures of ``--profile`` are then drawn too); otherwise it is put together from
    the chunk texts. There is no cost heatmap: the winner may not be the DP.
    """
    from ..api.views import ViewData
    from ..datatypes import Chunk

    records = _jsonl(run_dir / "chunks.jsonl")
    if not records:
        raise InputError(code="ADA302", message=f"{run_dir}/chunks.jsonl: no chunks")
    doc_id = _pick(records, doc_sel, run_dir)
    mine = sorted((r for r in records if r["doc_id"] == doc_id), key=lambda r: r["index"])
    decision = next((d for d in _jsonl(run_dir / "decisions.jsonl") if d.get("doc_id") == doc_id), {})
    chunks = [Chunk(index=r["index"], start=r["start"], end=r["end"], text=r["text"], size=r.get("size", r.get("tokens", 0)),
                    tokens=r.get("tokens", 0), heading_path=tuple(r.get("heading_path") or ()),
                    pages=tuple(r.get("pages") or ()), id=r.get("id", ""), core_start=r.get("core_start", r["start"]))
              for r in mine]
    text, structures, labels = _run_text(args, mine)
    cuts = [{"position": c.core_span[0], "cost": "-", "contributions": [],
             "note": f"chunk {c.index} of the run's winner starts here (no costs: a run folder)"} for c in chunks[1:]]
    meta: dict = {"run": str(run_dir), "winner": decision.get("winner") or mine[0].get("candidate", "?"),
                  "chunks": len(chunks)}
    if decision.get("winner_score") is not None:
        meta["winner score"] = decision["winner_score"]
    if decision.get("decided_by"):
        meta["decided by"] = decision["decided_by"]
    others = [f"{c['name']} {_count(c.get('stats', {}).get('chunks'))}"
              + (f", score {c['score']}" if c.get("score") is not None else "")
              for c in decision.get("candidates", [])]
    if others:
        meta["candidates"] = "; ".join(others)
    meta.update(profile=mine[0].get("profile", "?"), fingerprint=str(mine[0].get("profile_fingerprint", ""))[:16],
                characters=len(text))
    return ViewData(doc_id, text, structures, None, None, chunks, cuts, meta), labels


def _count(n) -> str:
    return "? chunks" if n is None else f"{n} chunk{'' if n == 1 else 's'}"


def _run_text(args, mine: list[dict]):
    """``(text, structures, labels)``: the source file's when it matches the chunks, else the chunks' own."""
    source = mine[0].get("source")
    if source and Path(source).is_file():
        try:
            from ..api.views import build_view
            from .detect_cmd import view_inputs

            args.input = source
            rp, doc, labels = view_inputs(args)
            if all(doc.text[r["start"]:r["end"]] == r["text"] for r in mine):
                return doc.text, build_view(doc, rp, labels=labels, with_chunks=False).structures, labels
        except Exception:  # noqa: BLE001 - any failure to re-read the source: draw from the chunks alone
            pass
    n = max(r["end"] for r in mine)
    chars = [" "] * n
    for r in mine:
        chars[r["start"]:r["end"]] = list(r["text"])
    return "".join(chars), {}, []
