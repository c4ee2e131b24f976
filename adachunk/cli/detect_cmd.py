"""``adachunk detect``: the structures a profile finds in a document (table, JSON or HTML)."""

from __future__ import annotations

import json

from .common import add_solver_flags, output_to, solver_overrides

PREVIEW = 60


def add_parsers(sub) -> list[str]:
    """Register ``detect``."""
    p = sub.add_parser("detect", help="list the structures a profile detects in a file (label, span, line:col, preview)")
    p.add_argument("input", metavar="FILE", help=".md, .txt, parsed .json, .pdf, .docx or .html file")
    p.add_argument("--format", choices=["table", "json", "html"], default="table")
    p.add_argument("-o", "--output", help="output file (default: stdout)")
    p.add_argument("--labels", help="comma-separated structure labels (default: all but words, sentences and line breaks)")
    p.add_argument("--all", action="store_true", help="include words, sentences and line breaks")
    add_solver_flags(p)
    return ["detect"]


def _labels(args, rp) -> list[str]:
    from ..errors import ProfileError, did_you_mean
    from ..api.views import default_labels

    if args.labels:
        wanted = [x.strip() for x in args.labels.split(",") if x.strip()]
        known = list(rp.policy.detectors)
        for label in wanted:
            if label not in known:
                raise ProfileError(code="ADA206", message=f"the profile has no structure '{label}'",
                                   key_path="--labels", allowed=known, hint=did_you_mean(label, known))
        return wanted
    return list(rp.policy.detectors) if args.all else default_labels(rp.policy)


def rows(text: str, structures: dict) -> list[dict]:
    """One record per structure, in document order: label, start, end, line, col, preview."""
    import bisect

    line_starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    out = []
    for label, (starts, ends) in structures.items():
        for s, e in zip(starts.tolist(), ends.tolist()):
            line = bisect.bisect_right(line_starts, s)
            out.append({"label": label, "start": s, "end": e, "line": line, "col": s - line_starts[line - 1] + 1,
                        "preview": text[s:e][:PREVIEW]})
    out.sort(key=lambda r: (r["start"], -r["end"], r["label"]))
    return out


def _refuse_size_flags(args) -> None:
    """``detect`` cuts nothing: a solver flag (shared with ``view``, which draws the chunks) would
    be accepted and ignored, so it is refused (``ADA203``)."""
    from ..errors import Location, ProfileError

    given = [f"--{key.replace('_', '-')}" for key, value in solver_overrides(args).items() if value is not None]
    if given:
        raise ProfileError(code="ADA203", message=f"{', '.join(given)}: detect finds structures and cuts nothing",
                           location=Location("<command line>"),
                           hint="Use the flag with chunk, explain, view or run, or leave it out")


def view_inputs(args):
    """What ``detect`` and ``view`` start from: ``(profile, document, labels to draw)``."""
    from ..api import load_profile, read_document

    rp = load_profile(args.profile, **solver_overrides(args))
    doc = read_document(args.input, errors=args.errors)
    return rp, doc, _labels(args, rp)


def run(args) -> int:
    """Detect the structures of one file and write them in the chosen format."""
    from ..api.views import build_view, render_view

    _refuse_size_flags(args)
    rp, doc, labels = view_inputs(args)
    data = build_view(doc, rp, labels=labels, with_chunks=False)
    with output_to(args.output) as out:
        if args.format == "html":
            out.write(render_view(data, labels))
        elif args.format == "json":
            out.write(json.dumps({"doc_id": doc.id, "profile": rp.name, "fingerprint": rp.fingerprint,
                                  "structures": rows(doc.text, data.structures)}, ensure_ascii=False, indent=1) + "\n")
        else:
            _table(out, doc, rp, data)
    return 0


def _table(out, doc, rp, data) -> None:
    recs = rows(doc.text, data.structures)
    counts = ", ".join(f"{lb} {len(s)}" for lb, (s, _e) in data.structures.items())
    out.write(f"{doc.source or doc.id}: {len(recs)} structures (profile {rp.name}: {counts})\n")
    width = max([len(r["label"]) for r in recs] + [5])
    out.write(f"{'label':<{width}} {'start':>8} {'end':>8} {'line:col':>10}  preview\n")
    for r in recs:
        preview = r["preview"].replace("\n", "⏎").replace("\t", "⇥")
        out.write(f"{r['label']:<{width}} {r['start']:>8} {r['end']:>8} {str(r['line']) + ':' + str(r['col']):>10}  {preview}\n")
