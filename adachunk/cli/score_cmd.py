"""``adachunk score``: the paper's five intrinsic metrics of one chunking of one document (and,
on request, the selection's others: ``--metrics sc,bi,rc,icc,dcc,rf,bi_cut,rc_cut``).

The chunking comes from a splitter (default the DP, ``--splitter``/``--param`` for others, then
post-processing unless ``--no-postprocess``) or from a JSONL file of chunks made elsewhere
(``--chunks``). Records carry ``start``/``end`` offsets (as ``adachunk chunk`` writes them) or
only ``text``, located in order; either way the chunks must cover the document in order (overlap
allowed), else ``ADA313``.
"""

from __future__ import annotations

import json
import os
from typing import Any

from ..errors import InputError, Location, ProfileError
from ..datatypes import PAPER_METRIC_KEYS
from .common import add_allow_remote_llm_flag, parse_params

KEYS = PAPER_METRIC_KEYS
CHUNKS_ERROR = "ADA313"


def add_parsers(sub) -> list[str]:
    """Register ``score``."""
    p = sub.add_parser("score", help="score one chunking of one document (SC, BI, RC, ICC, DCC)")
    p.add_argument("input", metavar="FILE", help=".md, .txt, parsed .json, .pdf, .docx or .html document")
    p.add_argument("--profile", "-p", default="default", help="builtin profile name or YAML path")
    p.add_argument("--splitter", default="dp.v1", help="registered splitter (default: dp.v1)")
    p.add_argument("--param", action="append", default=[], metavar="K=V",
                   help="splitter parameter (repeatable), e.g. --param chunk_size=600")
    p.add_argument("--no-postprocess", action="store_true", help="score the splitter's raw output")
    add_allow_remote_llm_flag(p)  # --splitter llm_regex.v1
    p.add_argument("--chunks", metavar="JSONL", help="score these chunks instead of running a splitter")
    p.add_argument("--metrics", default=",".join(KEYS), help="comma-separated metric keys (default: the paper's five; also rf, bi_cut, rc_cut)")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument("--errors", choices=["strict", "replace"], default="strict",
                   help="invalid UTF-8: fail with ADA301 (strict) or substitute U+FFFD (replace)")
    return ["score"]


def _chunks_error(message: str, path: str, line: int | None = None, hint: str | None = None) -> InputError:
    return InputError(code=CHUNKS_ERROR, message=message, location=Location(path, line), hint=hint)


def read_records(path: str, doc_id: str, also: tuple[str, ...] = ()) -> list[dict]:
    """The JSONL records of ``path`` that belong to ``doc_id`` or to one of the ``also`` names
    (all when none names a doc_id)."""
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except FileNotFoundError:
        raise InputError(code="ADA302", message=f"no such file: {path}", location=Location(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(code="ADA302", message=f"cannot read {path}: {exc}", location=Location(path)) from None
    records = []
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise _chunks_error(f"invalid JSON: {exc.msg}", path, no) from None
        if not isinstance(rec, dict):
            raise _chunks_error("each line must be a JSON object (a chunk record)", path, no)
        rec["_line"] = no
        records.append(rec)
    if any("doc_id" in r for r in records):
        mine = [r for r in records if str(r.get("doc_id")) in (doc_id, *also)]
        if not mine:
            raise _chunks_error(f"no chunk record has doc_id '{doc_id}'", path,
                                hint="score the document the chunks were made from")
        records = mine
    return records


def _is_offset(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


_COVER_HINT = "chunks must tile or cover the document in order"


def _given_span(r: dict, i: int, text: str, path: str) -> tuple[int, int]:
    """A record's own ``[start, end)``, checked against the document."""
    s, e = r["start"], r["end"]
    if not 0 <= s <= e <= len(text):
        raise _chunks_error(f"chunk {i} span [{s}, {e}) is outside the document (length {len(text)})",
                            path, r["_line"])
    if isinstance(r.get("text"), str) and r["text"] != text[s:e]:
        raise _chunks_error(f"chunk {i} text differs from the document at [{s}, {e})", path, r["_line"],
                            hint="the chunks were made from another version of the document")
    return s, e


def _located_span(r: dict, i: int, text: str, frontier: int, prev_start: int, path: str) -> tuple[int, int]:
    """Where a text-only record lies: its latest occurrence starting at or before the covered
    ``frontier`` (overlap allowed) and not before the previous chunk's start."""
    t = r["text"]
    s = text.rfind(t, max(prev_start, frontier - len(t)), frontier + len(t))
    if s < 0:
        later = text.find(t, frontier)
        where = f"only after a gap at [{frontier}, {later})" if later >= 0 else f"nowhere after offset {frontier}"
        raise _chunks_error(f"chunk {i} text is found {where}", path, r["_line"], hint=_COVER_HINT)
    return s, s + len(t)


def spans_from_records(records: list[dict], text: str, path: str) -> list[tuple[int, int, int]]:
    """``(start, end, core_start)`` of each record, checked to cover ``text`` in order.

    Records with ``start`` and ``end`` are used as given (``text``, when present, must match the
    slice); records with only ``text`` are located in order (see :func:`_located_span`). Overlap
    is allowed; a gap, a chunk out of order or coverage that stops short is ``ADA313``.
    """
    with_offsets = all(_is_offset(r.get("start")) and _is_offset(r.get("end")) for r in records)
    if not with_offsets and not all(isinstance(r.get("text"), str) for r in records):
        raise _chunks_error("every chunk record needs integer 'start' and 'end' offsets, or every one a 'text'",
                            path)
    spans: list[tuple[int, int, int]] = []
    frontier = prev_start = 0
    for i, r in enumerate(records):
        line = r["_line"]
        s, e = (_given_span(r, i, text, path) if with_offsets
                else _located_span(r, i, text, frontier, prev_start, path))
        if s > frontier:
            raise _chunks_error(f"chunks leave a gap at [{frontier}, {s}) before chunk {i}", path, line,
                                hint=_COVER_HINT)
        if s < prev_start or (spans and e < spans[-1][1]):
            raise _chunks_error(f"chunk {i} [{s}, {e}) is out of order", path, line)
        core = r.get("core_start", s)
        if not _is_offset(core) or not s <= core <= e:
            raise _chunks_error(f"chunk {i} core_start {core!r} is not inside [{s}, {e}]", path, line)
        spans.append((s, e, core))
        prev_start, frontier = s, max(frontier, e)
    if frontier < len(text):
        raise _chunks_error(f"chunks stop at offset {frontier}; the document has {len(text)} characters", path,
                            hint="the last chunk must reach the end of the document")
    return spans


def chunks_from_file(path: str, doc, fingerprint: str, counter) -> list:
    """Chunk objects for the records of ``path`` (see :func:`spans_from_records`)."""
    from ..api.splitting import build_chunks

    # chunk and run name a file by its path (a parsed JSON's document_name aside): both match
    spans = spans_from_records(read_records(path, doc.id, (os.path.basename(doc.source or ""),)), doc.text, path)
    counts: dict[str, int] = {}

    def count(t: str) -> int:  # a span is counted once even though tokens and size both need it
        if t not in counts:
            counts[t] = counter.count(t)
        return counts[t]

    return build_chunks(doc, [(s, e) for s, e, _ in spans], fingerprint=fingerprint, count_tokens=count,
                        unit_size=lambda s, e: count(doc.text[s:e]), core_starts=[c for _, _, c in spans],
                        absorb=False)  # scored as the file cut it


def _splitter(name: str, params: dict[str, Any]):
    """The splitter ``name`` with ``params``, validated as the candidate pool builds it."""
    from ..api.splitting import make_splitter

    return make_splitter(name, params)


def make_chunking(doc, policy, name: str, params: dict[str, Any], postprocess: bool):
    """Run the splitter, then post-processing when asked and enabled.

    Returns:
        ``(chunking, postprocessed)``, ``postprocessed`` True when post-processing ran.
    """
    from ..api.splitting import postprocess as run_postprocess

    chunking = _splitter(name, params).split(doc, policy)
    if not postprocess or not policy.postprocess.enabled:
        return chunking, False
    return run_postprocess(chunking, doc, policy), True


def _fmt(v: float | None) -> str:
    return "—" if v is None else f"{v:.4f}"


def report(doc, chunks: list, results: dict, agg, meta: dict) -> dict:
    """The JSON object of ``score --format json``: the five keys (null when not requested or
    undefined), the aggregate ``score``, ``reasons`` and per-chunk/per-item ``detail``."""
    out: dict[str, Any] = {"doc_id": doc.id, "source": doc.source, **meta}
    out.update({k: (results[k].value if k in results else None) for k in KEYS})
    out.update({k: r.value for k, r in results.items() if k not in KEYS})
    out["score"] = agg.score
    out["reasons"] = {k: (results[k].reason if k in results else "not requested") for k in KEYS}
    out["reasons"].update({k: r.reason for k, r in results.items() if k not in KEYS})
    out["detail"] = {"chunks": [{"index": c.index, "start": c.start, "end": c.end, "core_start": c.core_span[0],
                                 "tokens": c.tokens} for c in chunks],
                     **{k: r.detail for k, r in results.items()}}
    return out


def print_table(doc, results: dict, agg, meta: dict, none_policy: str) -> None:
    """The human-readable form: one line per metric with its note, then the aggregate."""
    state = {True: "post-processed", False: "raw"}
    print(f"{doc.source}: {meta['chunks']} chunks from {meta['splitter']} ({state[meta['postprocessed']]}), "
          f"profile {meta['profile']}")
    print(f"{'metric':<7} {'value':>7}  note")
    for k, r in results.items():
        print(f"{k:<7} {_fmt(r.value):>7}  {r.reason or ''}".rstrip())
    filled = f" ({', '.join(agg.filled)})" if agg.filled else ""
    print(f"{'score':<7} {_fmt(agg.score):>7}  weighted mean, None metrics: {none_policy}{filled}")


def _metric_keys(spec: str) -> list[str]:
    from ..api.scoring import metric_name

    keys = [k.strip().lower() for k in spec.split(",") if k.strip()]
    unknown = [k for k in keys if k not in KEYS and metric_name(k) is None]
    if unknown or not keys:
        raise ProfileError(code="ADA203", message=f"unknown metric key(s) {unknown or spec!r} in --metrics",
                           allowed=list(KEYS))
    return keys


def run(args) -> int:
    """Score one chunking of one document and print the table or JSON object."""
    from ..api import load_profile, read_document
    from ..api.scoring import aggregate, context_for, score_chunking

    keys = _metric_keys(args.metrics)
    rp = load_profile(args.profile)
    policy = rp.policy
    doc = read_document(args.input, errors=args.errors)
    ctx = context_for(doc, policy)
    if args.chunks:
        ctx.chunk_tokenizer = getattr(ctx.counter, "name", None)  # counted below
        chunks = chunks_from_file(args.chunks, doc, rp.fingerprint, ctx.counter)
        meta = {"splitter": "file:" + args.chunks, "postprocessed": False}
    else:
        chunking, done = make_chunking(doc, policy, args.splitter, parse_params(args.param),
                                       not args.no_postprocess)
        chunks = chunking.chunks
        meta = {"splitter": chunking.splitter, "postprocessed": done}
    meta.update(profile=rp.name, fingerprint=rp.fingerprint, chunks=len(chunks))
    results = score_chunking(chunks, ctx, keys)
    none_policy = policy.metrics.none_policy
    agg = aggregate(results, policy.metrics.weights, none_policy)
    if args.format == "json":
        print(json.dumps(report(doc, chunks, results, agg, meta), ensure_ascii=False, indent=1))
    else:
        print_table(doc, results, agg, meta, none_policy)
    return 0
