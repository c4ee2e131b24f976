"""The self-contained HTML page of an A/B comparison.

One file, no external assets: inline CSS, the PNG plots as base64 ``data:`` URIs, and a
Content-Security-Policy that forbids loading anything else (a stray external reference would
fail loudly in the browser instead of silently needing the network). A tiny inline script
records on ``<body data-images-ok>`` whether every image decoded, so a headless browser test
can read it from the dumped DOM. Every string that comes from documents, profiles or file
names is HTML-escaped.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any, Sequence

from ._ab_boundaries import render_boundaries
from ._ab_moves import top_rules
from ._ab_stats import METRICS

NAMES = {"sc": "Size compliance", "bi": "Block integrity", "rc": "Reference completeness",
         "icc": "Intrachunk cohesion", "dcc": "Document contextual coherence", "rf": "Retrieval fit",
         "bi_cut": "Block integrity per cut", "rc_cut": "Reference completeness per cut", "score": "Weighted score"}
MAX_VIEWS = 50  # documents with a boundary view; the rest are listed in summary.json
CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'")

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1d2330;max-width:1500px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d8dce6}
h3{font-size:15px;margin:18px 0 6px} .muted{color:#667085} code{font-size:12px}
table{border-collapse:collapse;margin:6px 0 12px} th,td{border:1px solid #d8dce6;padding:3px 8px;text-align:right}
th{background:#f2f4f8} td.l,th.l{text-align:left}
.pos{color:#1a7f37;font-weight:600} .neg{color:#c4320a;font-weight:600}
.gate-fail{background:#fde8e4} .gate-pass{background:#e6f4ea}
img{max-width:100%;border:1px solid #e4e7ee;margin:4px 0}
table.sbs{width:100%;table-layout:fixed;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
table.sbs td{text-align:left;vertical-align:top;white-space:pre-wrap;overflow-wrap:anywhere}
table.sbs td.ln,table.sbs th.ln{width:48px;text-align:right;color:#98a2b3}
table.sbs tr.changed td.ln{color:#1d2330;font-weight:700}
table.sbs tr.skip td{text-align:center;color:#98a2b3;background:#f8f9fb;font-style:italic}
.cut{display:inline-block;padding:0 3px;margin:0 1px;border-radius:3px;font-weight:700;font-size:11px}
.cut.same{background:#e4e7ee;color:#475467}
.cut.diff.a{background:#3b6fb6;color:#fff} .cut.diff.b{background:#d9822b;color:#fff}
.gap{color:#98a2b3}
"""

SCRIPT = """
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.every(function (i) { return i.complete && i.naturalWidth > 0; });
  document.body.dataset.imagesOk = ok ? "true" : "false";
  document.body.dataset.imagesChecked = String(imgs.length);
});
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _num(value: float | None, digits: int = 2, signed: bool = False) -> str:
    if value is None:
        return "–"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def _delta_cell(value: float | None) -> str:
    cls = "" if not value else (' class="pos"' if value > 0 else ' class="neg"')
    return f"<td{cls}>{_num(value, 2, True)}</td>"


def _table(table_id: str, head: Sequence[str], rows: Sequence[str], left: int = 1) -> str:
    ths = "".join(f'<th{" class=l" if i < left else ""}>{h}</th>' for i, h in enumerate(head))
    return f'<table id="{table_id}"><thead><tr>{ths}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _metrics_table(summary: dict[str, Any]) -> str:
    rows, unmeasured = [], []
    for m in METRICS:
        s = summary["metrics"][m]
        if s["mean_a"] is None and s["mean_b"] is None:
            unmeasured.append(m.upper())
            continue
        ci = "–" if s["ci95"] is None else f"[{_num(s['ci95'][0], 2, True)}, {_num(s['ci95'][1], 2, True)}]"
        p = "–" if s["p_value"] is None else f"{s['p_value']:.4f}"
        rows.append(f'<tr><td class="l">{m.upper()} <span class="muted">{NAMES[m]}</span></td>'
                    f"<td>{_num(s['mean_a'])}</td><td>{_num(s['mean_b'])}</td>{_delta_cell(s['delta'])}"
                    f"<td>{ci}</td><td>{p}</td><td>{s['n']}</td><td>{s['b_higher']} / {s['a_higher']}</td></tr>")
    head = ["metric", "A mean", "B mean", "Δ B−A (pp)", "95% CI", "p (Wilcoxon)", "pairs", "B higher / A higher"]
    note = (f'<p class="muted">Not measured: {", ".join(unmeasured)} (neither profile weighs them in '
            "<code>metrics.weights</code>; add a weight to compare them).</p>") if unmeasured else ""
    return _table("metrics", head, rows) + note


def _outcomes_table(summary: dict[str, Any]) -> str:
    o = summary["outcomes"]
    rows = [f'<tr><td class="l">{label}</td><td>{o[k]}</td></tr>' for k, label in
            (("b_better", "B better"), ("a_better", "A better"), ("tie", "tie"), ("not_comparable", "not comparable"))]
    return _table("outcomes", ["weighted score, per document", "documents"], rows)


def _selection_table(summary: dict[str, Any]) -> str:
    sel = summary["selection_frequency"]
    rows = []
    for side in ("a", "b"):
        label = summary["profiles"][side]["label"]
        for name, s in sel[side].items():
            rows.append(f'<tr><td class="l">{side.upper()}: {_e(label)}</td><td class="l">{_e(name)}</td>'
                        f"<td>{s['count']}</td><td>{_num(s['percent'], 1)}</td></tr>")
    return _table("selection", ["profile", "candidate", "won (documents)", "won (%)"], rows, left=2)


def _sizes_table(summary: dict[str, Any]) -> str:
    rows = []
    for side in ("a", "b"):
        c = summary["chunks"][side]
        t, d = c["tokens"], c["per_document"]
        rows.append(f'<tr><td class="l">{side.upper()}: {_e(summary["profiles"][side]["label"])}</td>'
                    f"<td>{c['chunks']}</td><td>{_num(d.get('mean'), 1)}</td>"
                    + "".join(f"<td>{_num(t.get(k), 1)}</td>" for k in ("mean", "median", "p10", "p90"))
                    + f"<td>{t.get('max', '–')}</td></tr>")
    head = ["profile", "chunks", "chunks / doc", "mean tokens", "median", "p10", "p90", "max"]
    return _table("sizes", head, rows)


def _hard_rules_table(summary: dict[str, Any]) -> str:
    """What each side's hard rules found and repaired (candidates, then winners)."""
    rows = []
    for side in ("a", "b"):
        h = (summary.get("hard_rules") or {}).get(side)
        if not h:
            continue
        c, w = h["candidates"], h["winners"]
        labels = ", ".join(f"{k} {v}" for k, v in h["winners_by_label"].items()) or "–"
        rows.append(f'<tr><td class="l">{side.upper()}: {_e(summary["profiles"][side]["label"])}</td>'
                    f"<td>{c['found']}</td><td>{c['repaired']}</td><td>{c['remaining']}</td>"
                    f"<td>{w['found']}</td><td>{w['repaired']}</td><td>{w['remaining']}</td>"
                    f'<td class="l">{_e(labels)}</td><td>{h["winners_repaired"]}</td><td>{h["winners_breaking"]}</td></tr>')
    head = ["profile", "candidates: offending cuts", "repaired", "left", "winners: offending cuts", "repaired", "left",
            "winners' offending cuts by rule", "winners repaired", "winners breaking a rule"]
    return _table("hard-rules", head, rows)


def _documents_table(summary: dict[str, Any]) -> str:
    rows = []
    views = {d["source"]: i for i, d in enumerate(summary["boundaries"]["documents"][:MAX_VIEWS])}
    moves = {d["source"]: d.get("moves") or {} for d in summary["boundaries"]["documents"]}
    for r in summary["per_document"]:
        cuts = str(r["differing_cuts"])
        if r["source"] in views:  # link to the side-by-side view
            cuts = f'<a href="#view-{views[r["source"]]}">{cuts}</a>'

        verdict = {"b_better": "B", "a_better": "A", "tie": "tie", "not_comparable": "–"}[r["outcome"]]
        moved = _e(top_rules(moves.get(r["source"], {})))
        rows.append(f'<tr><td class="l">{_e(r["doc_id"])}</td><td class="l">{_e(r["winner_a"])}</td>'
                    f'<td class="l">{_e(r["winner_b"])}</td><td>{r["chunks_a"]}</td><td>{r["chunks_b"]}</td>'
                    f"<td>{_num(r['a']['score'])}</td><td>{_num(r['b']['score'])}</td>"
                    f"{_delta_cell(r['delta']['score'])}"
                    f'<td>{verdict}</td><td>{cuts}</td><td class="l">{moved}</td></tr>')
    head = ["document", "A winner", "B winner", "A chunks", "B chunks", "A score", "B score", "Δ score", "better",
            "differing cuts", "moved by (cuts)"]
    return _table("documents", head, rows, left=3)


def _rules_table(summary: dict[str, Any]) -> str:
    """The rules behind the moved boundaries, over all documents."""
    b = summary["boundaries"]
    if "rules" not in b:
        return f"<p>{_e(b.get('rules_error', 'Not explained.'))}</p>" if b.get("rules_error") else ""
    rows = [f'<tr><td class="l"><code>{_e(r)}</code></td><td>{v["moved_cuts"]}</td><td>{v["documents"]}</td></tr>'
            for r, v in b["rules"].items()]
    rows.append(f'<tr><td class="l">no rule differs (sizes, chunk cost, the other cuts)</td>'
                f'<td>{b.get("unexplained_cuts", 0)}</td><td></td></tr>')
    return ('<p class="muted">At each cut only one side makes, both profiles\' rules are priced: B leaves a cut of '
            "A's where its rules cost more, and takes one where they cost less; each rule that differs that way is "
            "credited with the move.</p>" + _table("rules", ["rule", "moved cuts", "documents"], rows))


def _gate(summary: dict[str, Any]) -> str:
    gate = summary.get("gate") or []
    if not gate:
        return ""
    rows = [f'<tr class="{"gate-fail" if g["holds"] else "gate-pass"}">'
            f'<td class="l"><code>{_e(g["condition"])}</code></td>'
            f'<td>{_num(g["delta"], 2, True)}</td><td class="l">{"FAILS" if g["holds"] else "passes"}</td></tr>'
            for g in gate]
    return "<h2>CI gate</h2>" + _table("gate", ["condition (Δ B−A, pp)", "Δ", "result"], rows)


def _image(name: str, path: Path) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f'<figure><img id="plot-{_e(name)}" alt="{_e(name)} plot" src="data:image/png;base64,{data}"></figure>'


def _moves_line(moves: dict[str, Any] | None) -> str:
    """One line under a document's view: the rules that moved its cuts."""
    if not moves:
        return ""
    if "skipped" in moves:
        return f'<p class="muted">Rules not explained: {_e(moves["skipped"])}.</p>'
    moved = top_rules(moves, 6) or "no rule difference"
    note = f" {_e(moves['note'])}." if moves.get("note") else ""
    return (f'<p class="moves">Moved by: {_e(moved)}; {moves["unexplained"]} moved cuts without a rule '
            f"difference.{note}</p>")


def _views(summary: dict[str, Any], runs, texts: dict[str, str]) -> str:
    docs = summary["boundaries"]["documents"]
    rows = {r["source"]: r for r in summary["per_document"]}
    la, lb = summary["profiles"]["a"]["label"], summary["profiles"]["b"]["label"]
    parts = [f'<section id="boundaries"><h2>Boundaries that differ ({len(docs)} documents)</h2>'
             '<p class="muted">The text once, A\'s cuts left and B\'s right; <span class="cut diff a">✂</span> '
             '<span class="cut diff b">✂</span> only one side cuts there, <span class="cut same">✂</span> both do. '
             'Long documents show only the lines around differing cuts.</p>']
    if not docs:
        parts.append("<p>Both profiles cut every document at the same places.</p>")
    for i, d in enumerate(docs[:MAX_VIEWS]):
        parts.append(f'<h3 class="doc" id="view-{i}">{_e(d["doc_id"])} '
                     f'<span class="muted">{d["differing_cuts"]} differing cuts '
                     f'(A {d["cuts_a"]}, B {d["cuts_b"]} cuts, {d["shared_cuts"]} shared)</span></h3>')
        parts.append(_moves_line(d.get("moves")))
        text = texts.get(d["source"])
        if text is None or not rows[d["source"]]["same_text"]:
            parts.append("<p>The document text changed between the two runs: no side-by-side view.</p>")
            continue
        parts.append(render_boundaries(text, runs[0].cuts(d["source"]), runs[1].cuts(d["source"]), la, lb))
    if len(docs) > MAX_VIEWS:
        parts.append(f"<p>{len(docs) - MAX_VIEWS} more documents differ; see <code>summary.json</code>.</p>")
    parts.append("</section>")
    return "".join(parts)


def render_report(summary: dict[str, Any], runs, texts: dict[str, str], images: dict[str, Path]) -> str:
    """The whole page (see the module docstring)."""
    pa, pb = summary["profiles"]["a"], summary["profiles"]["b"]
    docs = summary["documents"]
    fails = "".join(f'<li>{side.upper()}: {_e(f["source"])}: {_e(f["error"])}</li>'
                    for side in ("a", "b") for f in summary["failures"][side])
    body = [
        f"<h1>A/B: {_e(pa['label'])} vs {_e(pb['label'])}</h1>",
        f'<p class="muted">A = <code>{_e(pa["profile"])}</code>, B = <code>{_e(pb["profile"])}</code>; '
        f"{docs['compared']} documents compared of {docs['total']} "
        f"({docs['failed_a']} failed in A, {docs['failed_b']} in B).<br>Units: {_e(summary['statistics']['unit'])}."
        f"<br>Test: {_e(summary['statistics']['test'])}.<br>Interval: {_e(summary['statistics']['interval'])}.</p>",
        f"<h2>Failed documents</h2><ul>{fails}</ul>" if fails else "",
        _gate(summary),
        "<h2>Metrics of the winning chunkings</h2>", _metrics_table(summary),
        "<h2>Per-document outcome</h2>", _outcomes_table(summary),
        "<h2>Candidate selection</h2>", _selection_table(summary),
        "<h2>Chunk sizes</h2>", _sizes_table(summary),
        "<h2>Hard rules</h2>", '<p class="muted">Cuts that broke a profile\'s hard rules (a chunk ending with a '
        "heading whose body follows, an atomic structure cut while it fits), in every candidate and in the "
        "winners, and how many the repair moved.</p>", _hard_rules_table(summary),
        '<h2>Plots</h2><section id="plots">' + "".join(_image(n, p) for n, p in images.items()) + "</section>",
        "<h2>Documents</h2>", _documents_table(summary),
        "<h2>Rules behind the moved boundaries</h2>", _rules_table(summary),
        _views(summary, runs, texts),
    ]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>A/B {_e(pa['label'])} vs {_e(pb['label'])}</title><style>{CSS}</style></head>\n<body>\n"
            + "\n".join(b for b in body if b) + f"\n<script>{SCRIPT}</script>\n</body></html>\n")
