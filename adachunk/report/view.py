"""Boundary visualizer: one self-contained HTML page (inline CSS and JS, no external assets).

The page shows the document text with

* the chunk boundaries (a numbered marker at each cut; its tooltip is the cut's cost breakdown:
  rule, side, shape, value),
* the detected structures as coloured spans, one toggle per label,
* the cost heatmap: every candidate position coloured by its cost (normalised on a log scale
  to ten levels); hovering shows the costs of that stretch in the status bar.

To stay usable on large documents (400 KB and more) the text is cut into *runs*: maximal
stretches where the heat level and the set of covering structures do not change. Each run is one
``<span>``, so the page grows with the number of such changes, never with the number of
characters. All document text is HTML-escaped.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ..datatypes import Chunk, SpanArrays

LEVELS = 10  # heat levels 1..LEVELS; level 0 (cost 0) is not coloured
TEXT_UNIT_TYPES = ("word.v1", "sentence.v1")  # too many spans to draw by default
HIDDEN_LABELS = ("line_break",)  # the layout pack's one-span-per-line-break structure


@dataclass
class ViewData:
    """Everything the page shows (the CLI builds it; tests may build it by hand).

    Attributes:
        title: page title (usually the document id).
        text: the document text.
        structures: label → ``(starts, ends)`` arrays of the spans to draw.
        positions: candidate cut positions (code points, sorted), for the heatmap.
        costs: cost of a cut at each candidate position (same length as ``positions``).
        chunks: the chunks (their core starts after the first are the cuts).
        cuts: per interior cut, ``{"position", "cost", "contributions": [{rule, side, shape,
            value, ...}]}`` (``Chunking.meta["cuts"]`` of :func:`~adachunk.split.dp.dp_chunk`
            with ``explain=True``).
        meta: free key → value lines shown in the header (profile, fingerprint, sizes...).
    """

    title: str
    text: str
    structures: dict[str, SpanArrays] = field(default_factory=dict)
    positions: np.ndarray | None = None
    costs: np.ndarray | None = None
    chunks: Sequence[Chunk] = ()
    cuts: Sequence[dict] = ()
    meta: dict[str, Any] = field(default_factory=dict)


def heat_levels(costs: np.ndarray) -> tuple[np.ndarray, float]:
    """Level 0..LEVELS per cost: 0 for a free cut, then log-scaled up to the largest cost."""
    costs = np.asarray(costs, dtype=np.float64)
    top = float(costs.max()) if len(costs) else 0.0
    if top <= 0:
        return np.zeros(len(costs), dtype=np.int64), top
    lv = np.ceil(LEVELS * np.log1p(np.maximum(costs, 0)) / math.log1p(top)).astype(np.int64)
    return np.clip(lv, 0, LEVELS), top


def _char_heat(n: int, positions: np.ndarray | None, costs: np.ndarray | None):
    """Stretches of constant heat level: boundaries, level, and the cost range of each.

    The character at ``i`` shows the cost of cutting at the last candidate ``<= i`` (for token
    candidates: the cost of cutting right before the token it belongs to). Stretches follow the
    level, not the exact cost: sloped shapes change the cost at every token, and one element per
    token would make the page of a long document several times larger.
    """
    zero = np.zeros(1, np.int64)
    if positions is None or costs is None or len(positions) == 0:
        return np.array([0, n]), zero, zero, zero
    pos = np.asarray(positions, dtype=np.int64)
    cst = np.asarray(costs, dtype=np.int64)
    keep = pos < n
    pos, cst = pos[keep], cst[keep]
    if len(pos) == 0 or pos[0] != 0:
        pos, cst = np.concatenate([[0], pos]), np.concatenate([[0], cst])
    levels, _ = heat_levels(cst)
    change = np.ones(len(pos), dtype=bool)
    change[1:] = levels[1:] != levels[:-1]
    first = np.flatnonzero(change)
    return (np.concatenate([pos[first], [n]]), levels[first],
            np.minimum.reduceat(cst, first), np.maximum.reduceat(cst, first))


def _segments(data: ViewData, labels: list[str]):
    """Runs of text with constant heat level, cost and covering structures."""
    n = len(data.text)
    heat_bounds, heat_lv, heat_lo, heat_hi = _char_heat(n, data.positions, data.costs)
    cut_pos = [c.core_span[0] for c in list(data.chunks)[1:]]
    points = [heat_bounds, np.asarray(cut_pos, dtype=np.int64)]
    for label in labels:
        s, e = data.structures[label]
        points += [np.clip(np.asarray(s, np.int64), 0, n), np.clip(np.asarray(e, np.int64), 0, n)]
    bounds = np.unique(np.concatenate(points + [np.array([0, n], np.int64)]))
    seg_start = bounds[:-1]
    k = np.searchsorted(heat_bounds, seg_start, side="right") - 1
    covers = []
    for label in labels:  # coverage count per segment with a difference array
        s, e = data.structures[label]
        diff = np.zeros(len(bounds) + 1, dtype=np.int64)
        np.add.at(diff, np.searchsorted(bounds, np.clip(np.asarray(s, np.int64), 0, n)), 1)
        np.add.at(diff, np.searchsorted(bounds, np.clip(np.asarray(e, np.int64), 0, n)), -1)
        covers.append(np.cumsum(diff)[: len(seg_start)] > 0)
    costs = [str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in zip(heat_lo[k].tolist(), heat_hi[k].tolist())]
    return bounds, heat_lv[k], costs, covers, set(cut_pos)


def _cut_title(i: int, cut: dict, text: str) -> str:
    pos = cut["position"]
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    lines = [f"cut {i} at {pos} (line {line}:{col}), cost {cut['cost']}"]
    for c in cut.get("contributions", []):
        lines.append(f"{c['rule']} ({c['label']}) {c['side']} {c['shape']}: {c['value']}")
    if not cut.get("contributions"):
        lines.append(cut.get("note") or "no rule punishes this position")
    return "\n".join(lines)


def _body(data: ViewData, labels: list[str]) -> str:
    bounds, lv, cost, covers, cut_set = _segments(data, labels)
    by_pos = {c["position"]: (i, c) for i, c in enumerate(data.cuts, 1)}
    chunk_no = {c.core_span[0]: c.index for c in data.chunks}
    out: list[str] = []
    prev_cls = None
    buf: list[str] = []
    text = data.text

    def flush():
        if buf:
            out.append(f'<span class="{prev_cls[0]}" data-c="{prev_cls[1]}">{"".join(buf)}</span>')
            buf.clear()

    for j in range(len(bounds) - 1):
        a, b = int(bounds[j]), int(bounds[j + 1])
        if a in cut_set:
            flush()
            prev_cls = None
            i, cut = by_pos.get(a, (chunk_no.get(a, 0), {"position": a, "cost": "?", "contributions": []}))
            title = html.escape(_cut_title(i, cut, text), quote=True)
            out.append(f'<span class="cut" id="cut{i}" data-i="{chunk_no.get(a, i)}" title="{title}"></span>')
        cls = " ".join([f"h{lv[j]}"] + [f"s{m}" for m, cov in enumerate(covers) if cov[j]])
        key = (cls, cost[j])
        if key != prev_cls:
            flush()
            prev_cls = key
        buf.append(html.escape(text[a:b], quote=False))
    flush()
    return "".join(out)


_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#222}
header{position:sticky;top:0;background:#f6f6f6;border-bottom:1px solid #ccc;padding:6px 10px;z-index:2}
header h1{font-size:16px;margin:0 0 4px}
.meta{font-size:12px;color:#555}
.controls label{margin-right:10px;font-size:12px;white-space:nowrap}
main{display:flex;align-items:flex-start}
#doc{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:13px;padding:10px;flex:1;min-width:0;overflow-wrap:anywhere}
aside{width:360px;max-height:calc(100vh - 90px);overflow:auto;position:sticky;top:80px;font-size:12px;border-left:1px solid #ddd;padding:6px}
aside table{border-collapse:collapse;width:100%}
aside td{border-bottom:1px solid #eee;padding:2px 4px;vertical-align:top}
aside a{color:#06c;text-decoration:none}
.cut{display:inline-block;width:0;border-left:2px solid #d00;position:relative}
.cut::before{content:"\\2702 " attr(data-i);position:relative;left:1px;top:-0.6em;font-size:10px;color:#d00;background:#fff;padding:0 2px;border-radius:2px}
#status{font-size:12px;color:#333}
.legend span{display:inline-block;width:18px;text-align:center;font-size:10px}
"""

_JS = """
(function(){
var doc=document.getElementById('doc');
document.querySelectorAll('input[data-label]').forEach(function(cb){
  cb.addEventListener('change',function(){doc.classList.toggle('on-'+cb.dataset.label,cb.checked);});
});
document.querySelectorAll('input[name=mode]').forEach(function(r){
  r.addEventListener('change',function(){doc.classList.toggle('heat',r.value==='heat'&&r.checked);});
});
var status=document.getElementById('status');
doc.addEventListener('mouseover',function(ev){
  var t=ev.target;
  if(t.classList&&t.classList.contains('cut')){status.textContent=t.title.split('\\n')[0];return;}
  if(t.dataset&&t.dataset.c!==undefined){status.textContent='cost of a cut here: '+t.dataset.c+' (range over this stretch)';}
});
})();
"""


def _palette(k: int, n: int) -> str:
    return f"hsla({int(360 * k / max(n, 1)) % 360},70%,60%,0.35)"


def _heat_css() -> str:
    rules = []
    for lv in range(1, LEVELS + 1):
        light = 96 - int(46 * lv / LEVELS)
        rules.append(f"#doc.heat .h{lv}{{background:hsl({int(60 - 60 * lv / LEVELS)},90%,{light}%)}}")
    return "\n".join(rules)


def _legend(top: float) -> str:
    cells = []
    for lv in range(1, LEVELS + 1):
        hi = math.expm1(lv / LEVELS * math.log1p(top)) if top > 0 else 0
        light = 96 - int(46 * lv / LEVELS)
        cells.append(f'<span title="cost up to {hi:.0f}" style="background:hsl({int(60 - 60 * lv / LEVELS)},90%,{light}%)">'
                     f"{lv}</span>")
    return "".join(cells)


def _cut_table(data: ViewData) -> str:
    rows = []
    for i, cut in enumerate(data.cuts, 1):
        parts = ", ".join(f"{c['rule']}:{c['side']}:{c['shape']}={c['value']}" for c in cut.get("contributions", []))
        rows.append(f'<tr><td><a href="#cut{i}">{i}</a></td><td>{cut["position"]}</td><td>{cut["cost"]}</td>'
                    f"<td>{html.escape(parts or '-', quote=False)}</td></tr>")
    return ("<table><tr><td>#</td><td>pos</td><td>cost</td><td>rules</td></tr>" + "".join(rows) + "</table>"
            if rows else "<p>no cuts</p>")


def render_view(data: ViewData, labels: Sequence[str] | None = None) -> str:
    """The complete HTML page for ``data`` (``labels``: structures to draw; default all)."""
    labels = [lb for lb in (labels if labels is not None else list(data.structures)) if lb in data.structures]
    body = _body(data, labels)
    _, top = heat_levels(np.asarray(data.costs if data.costs is not None else [], dtype=np.int64))
    struct_css = "\n".join(f"#doc.on-s{m} .s{m}{{background:{_palette(m, len(labels))}}}" for m in range(len(labels)))
    toggles = "".join(
        f'<label><input type="checkbox" data-label="s{m}"> <span style="background:{_palette(m, len(labels))}">'
        f"{html.escape(lb)}</span> ({len(data.structures[lb][0])})</label>" for m, lb in enumerate(labels))
    meta = " · ".join(f"{html.escape(str(k))}: {html.escape(str(v))}" for k, v in data.meta.items())
    heat = data.costs is not None
    mode = ('<label><input type="radio" name="mode" value="heat" checked> cost heatmap</label>'
            '<label><input type="radio" name="mode" value="plain"> structures only</label>' if heat else "")
    legend = f'<span class="legend">cost level {_legend(top)} (max {top:.0f})</span>' if heat else ""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html.escape(data.title)} — adachunk view</title>\n"
        f"<style>{_CSS}\n{_heat_css()}\n{struct_css}</style>\n</head>\n<body>\n"
        f"<header><h1>{html.escape(data.title)}</h1><div class=\"meta\">{meta}</div>"
        f"<div class=\"controls\">{mode} {legend}<br>{toggles}</div>"
        "<div id=\"status\">hover the text for the cost of a cut there; hover a ✂ marker for its breakdown</div>"
        "</header>\n<main>\n"
        f"<div id=\"doc\" class=\"{'heat' if heat else ''}\">{body}</div>\n"
        f"<aside><h2>cuts</h2>{_cut_table(data)}</aside>\n</main>\n"
        f"<script>{_JS}</script>\n</body>\n</html>\n"
    )


def default_labels(policy) -> list[str]:
    """Structure labels drawn by default: all but text units (words, sentences, line breaks)."""
    types = {label: spec.get("type") for label, spec in policy.data.get("structures", {}).items()}
    return [label for label in policy.detectors
            if types.get(label) not in TEXT_UNIT_TYPES and label not in HIDDEN_LABELS]


def build_view(doc, rp, settings=None, labels: Sequence[str] | None = None, with_chunks: bool = True) -> ViewData:
    """Detect, cost and chunk ``doc`` under a resolved profile; return what the page shows.

    Args:
        doc: the :class:`~adachunk.datatypes.Document`.
        rp: a :class:`~adachunk.profile.resolve.ResolvedProfile`.
        settings: solver settings (default: the profile's).
        labels: structure labels to detect and draw (default: :func:`default_labels`).
        with_chunks: also chunk the document (False: structures only, no costs or cuts).
    """
    from ..analysis import analysis_of
    from ..detect.base import DetectContext
    from ..split.dp import Candidates, detect_all, dp_chunk

    policy = rp.policy
    settings = settings or policy.solver
    labels = list(labels) if labels is not None else default_labels(policy)
    meta: dict[str, Any] = {"profile": rp.name, "fingerprint": rp.fingerprint[:16], "characters": len(doc.text)}
    ctx = DetectContext(doc.text, doc, metrics=policy.metrics)
    if not with_chunks:
        structures = {lb: analysis_of(doc).spans(policy.detectors[lb], ctx) for lb in labels}
        return ViewData(doc.id, doc.text, structures, meta=meta)
    # the document's analysis detects once for the drawing, the costs and the chunking
    structures = detect_all(policy, ctx)
    lattice = Candidates(doc, settings)
    lattice.add_costs(policy, structures)
    positions, costs = lattice.P, lattice.cost
    chunking = dp_chunk(doc, policy, settings, explain=True)
    meta.update(chunks=len(chunking.chunks), granularity=settings.granularity,
                max_size=settings.max_size, total_cost=chunking.meta.get("total_cost"))
    return ViewData(doc.id, doc.text, {lb: structures[lb] for lb in labels}, positions, costs,
                    chunking.chunks, chunking.meta.get("cuts", []), meta)
