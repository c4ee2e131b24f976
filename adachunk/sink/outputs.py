"""Assemble the run's outputs from the per-document results, in input order, streaming.

``chunks.jsonl`` (winner chunks), ``chunks.parquet``, ``decisions.jsonl`` (one per document),
``summary.json`` (per-candidate means, selection frequencies, totals) and the vector index.
Every file is written to a temporary name and renamed, so readers never see a partial file.
The runner schedules the documents and keeps their results (``adachunk.runner.state``); this
module, like every writer of the output folder, lives in the sink.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterable

from ..datatypes import METRIC_KEYS
from .files import close_and_replace, temp_path, write_error
from .parquet import ParquetWriter
from .records import dumps



class _Means:
    """Running means of metric values, skipping None (per candidate or for the winners)."""

    def __init__(self):
        self.sum: dict[str, float] = defaultdict(float)
        self.n: dict[str, int] = defaultdict(int)

    def add(self, scores: dict[str, Any], score: float | None) -> None:
        for k, v in list(scores.items()) + [("score", score)]:
            if v is not None:
                self.sum[k] += float(v)
                self.n[k] += 1

    def result(self) -> dict[str, float | None]:
        keys = list(METRIC_KEYS) + ["score"]
        return {k: (round(100 * self.sum[k] / self.n[k], 2) if self.n[k] else None) for k in keys}


class _Reader:
    """The retrieval regime of the run and the winners' mean retrieval estimates (percent)."""

    def __init__(self):
        self.regime: dict[str, Any] | None = None
        self.means = _Means()
        self.by: dict[str, list[float]] = defaultdict(list)

    def add(self, retrieval: dict[str, Any] | None) -> None:
        if not retrieval:
            return
        self.regime = self.regime or retrieval.get("regime")
        self.means.add({"rf": retrieval.get("estimate")}, None)
        for row in retrieval.get("by_reader") or []:
            self.by[f"{row['retriever']}@{row['budget']}"].append(float(row["recall"]))

    def result(self) -> dict[str, Any]:
        if self.regime is None:
            return {}
        est = self.means.result()["rf"]
        return {"retrieval": {"regime": self.regime, "estimate": est,
                              "by_reader": {k: round(100 * sum(v) / len(v), 2) for k, v in self.by.items()}}}


class _Writer:
    """A text file written under a temporary name, renamed on close."""

    def __init__(self, path: Path):
        self.path = path
        self.tmp = temp_path(path)
        try:
            self.f = open(self.tmp, "w", encoding="utf-8", newline="\n")
        except OSError as exc:
            raise write_error(path, exc) from None

    def write(self, line: str) -> None:
        try:
            self.f.write(line)
        except OSError as exc:
            raise write_error(self.path, exc) from None

    def close(self) -> None:
        close_and_replace(self.f.close, self.tmp, self.path)


def assemble(out: Path, sources: Iterable[str], store: Any, *, index_sink=None,
             parquet: bool = True, notes: dict[str, Any] | None = None) -> dict[str, Any]:
    """Write the final outputs; returns the summary (also written to ``summary.json``).

    Args:
        out: the output folder.
        sources: the documents the folder holds (the manifest's), in output order.
        store: their saved results.
        index_sink: an :class:`~adachunk.sink.sync.IndexSync` given every document's chunks
            and vectors (None: no index).
        parquet: write ``chunks.parquet`` too.
        notes: more summary keys (what the run listed, kept and dropped).

    Any OS-level write failure (permissions, disk full) becomes ``ADA307`` naming the folder.
    """
    try:
        return _assemble(Path(out), sources, store, index_sink, parquet, notes or {})
    except OSError as exc:
        raise write_error(Path(out), exc) from None


def _assemble(out: Path, sources: Iterable[str], store: Any, index_sink, parquet: bool,
              notes: dict[str, Any]) -> dict[str, Any]:
    """:func:`assemble`'s work: every document's decision, then its chunks, in ``sources`` order."""
    chunks_w, decisions_w = _Writer(out / "chunks.jsonl"), _Writer(out / "decisions.jsonl")
    pq = ParquetWriter(out / "chunks.parquet") if parquet else None
    tally = _Tally()
    for source in sources:
        entry, vectors = store.load(source)
        decisions_w.write(_decision_line(source, entry))
        if tally.add(source, entry):
            _write_chunks(entry, vectors, chunks_w, pq, index_sink)
    for w in (chunks_w, decisions_w):
        w.close()
    if pq is not None:
        pq.close()
    summary = tally.summary(notes)
    if index_sink is not None:
        summary["index"] = index_sink.finish()
    w = _Writer(out / "summary.json")
    w.write(json.dumps(summary, ensure_ascii=False, indent=1) + "\n")
    w.close()
    return summary


def _decision_line(source: str, entry: dict[str, Any] | None) -> str:
    """The document's line of ``decisions.jsonl`` (``entry``: its saved result, None when it
    was never processed)."""
    if entry is None:
        return dumps({"source": source, "ok": False, "error": "not processed"}) + "\n"
    decision = entry.get("decision") or {}
    # results saved before notices were recorded have none to show
    return dumps({"source": source, "ok": entry["ok"], "error": entry.get("error"),
                  "notices": entry.get("notices") or [], **decision}) + "\n"


def _write_chunks(entry: dict[str, Any], vectors, chunks_w: _Writer, pq: ParquetWriter | None,
                  index_sink) -> None:
    """A chunked document's chunks to ``chunks.jsonl``, ``chunks.parquet`` and the index."""
    for rec in entry["chunks"]:
        chunks_w.write(dumps(rec) + "\n")
    if pq is not None:
        pq.add(entry["chunks"])
    if index_sink is not None and vectors is not None and entry["chunks"]:
        index_sink.add(entry["chunks"], vectors)


class _Tally:
    """What ``summary.json`` reports, counted document by document in output order."""

    def __init__(self):
        self.totals, self.embedding = Counter(), Counter()
        self.per_candidate: dict[str, _Means] = defaultdict(_Means)
        self.status: dict[str, Counter] = defaultdict(Counter)
        self.winners, self.adaptive = Counter(), _Means()
        self.reader = _Reader()
        self.failures, self.fell_back = [], []
        self.hard = Counter()
        self.unscored: list[dict[str, Any]] = []
        self.exact_after_stand_in = 0  # documents the exact estimate decided (retrieval.exact_margin)
        self.notices = Counter()  # ADA4xx code -> notices raised on the folder's documents

    def add(self, source: str, entry: dict[str, Any] | None) -> bool:
        """Count one document (``entry``: its saved result, None when it was never processed);
        whether its chunks go to the outputs (it was chunked)."""
        self.totals["documents"] += 1
        if entry is None:
            self.totals["missing"] += 1
            self.failures.append({"source": source, "error": "not processed (run interrupted?)"})
            return False
        self.notices.update(n["code"] for n in entry.get("notices") or [])  # failed documents' too
        if not entry["ok"]:
            self.totals["failed"] += 1
            self.failures.append({"source": source, "error": (entry.get("error") or "").splitlines()[0]})
            return False
        self.totals["ok"] += 1
        self.totals["chunks"] += len(entry["chunks"])
        self._add_decision(source, entry.get("decision") or {})
        return True

    def _add_decision(self, source: str, decision: dict[str, Any]) -> None:
        """Count what a chunked document's decision says: fallbacks, candidates, the winner."""
        if decision.get("detector_errors"):  # select.on_detector_error: fallback
            self.fell_back.append({"source": source,
                                   "structures": [e["structure"] for e in decision["detector_errors"]],
                                   "error": decision["detector_errors"][0]["error"]})
        for cand in decision.get("candidates", []):
            self.status[cand["name"]][cand["status"]] += 1
            if cand["status"] != "error":
                self.per_candidate[cand["name"]].add(cand.get("scores", {}), cand.get("score"))
        for k, v in decision.get("embedding", {}).items():
            self.embedding[k] += v
        for cand in decision.get("candidates", []):
            for k, v in (cand.get("hard_rules") or {}).items():
                if k in ("found", "repaired", "remaining"):
                    self.hard[f"candidates_{k}"] += int(v)
        if (decision.get("retrieval") or {}).get("exact_after_stand_in_margin") is not None:
            self.exact_after_stand_in += 1
        if decision.get("decided_by") == "unscored":
            self.unscored.append({"source": source, "winner": decision.get("winner")})
        if decision.get("winner"):
            self.winners[decision["winner"]] += 1
            best = next(c for c in decision["candidates"] if c["name"] == decision["winner"])
            rec = best.get("hard_rules") or {}
            for k in ("found", "repaired", "remaining"):
                self.hard[f"winners_{k}"] += int(rec.get(k) or 0)
            self.hard["winners_repaired_documents"] += bool(rec.get("repaired"))
            self.hard["winners_breaking_documents"] += bool(rec.get("remaining"))
            self.adaptive.add(best.get("scores", {}), best.get("score"))
            self.reader.add(decision.get("retrieval"))

    def summary(self, notes: dict[str, Any]) -> dict[str, Any]:
        """The summary of the documents counted, with ``notes`` (what the run listed, kept and
        dropped) at its end."""
        totals, status = self.totals, self.status
        n_ok = max(totals["ok"], 1)
        return {
            "totals": {k: totals[k] for k in ("documents", "ok", "failed", "missing", "chunks")},
            "selection_frequency": {k: round(100 * v / n_ok, 2)
                                    for k, v in sorted(self.winners.items(), key=lambda kv: -kv[1])},
            "adaptive": self.adaptive.result(),
            "candidates": {name: {"means": m.result(), "status": dict(status[name])}
                           for name, m in self.per_candidate.items()},
            **self.reader.result(),
            "failures": self.failures[:1000],
            # documents chunked without a structure that failed on them (select.on_detector_error)
            "detector_fallbacks": {"documents": len(self.fell_back), "list": self.fell_back[:1000]},
            # the profile's hard rules (adachunk.split.bind): offending cuts found, repaired, left
            "hard_rules": dict(sorted(self.hard.items())),
            # documents where no candidate could be scored: the profile's select.unscored order decided
            "unscored": {"documents": len(self.unscored), "list": self.unscored[:1000]},
            # documents where the stand-in estimate hesitated and the exact one decided (retrieval.exact_margin)
            "exact_after_stand_in": {"documents": self.exact_after_stand_in},
            # ADA4xx notices (something dropped or replaced) by code; each document's in decisions.jsonl
            "notices": dict(sorted(self.notices.items())),
            # texts the embedders computed against the spans and texts the stages asked for
            "embedding": dict(self.embedding),
            **notes,
        }


__all__ = ["assemble"]
