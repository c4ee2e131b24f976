"""``run_eval``: documents + QA set + chunkings × retrievers → the eval report (``eval.json``).

The report holds the settings, the QA set's warnings, each chunking, the summary per retriever
and chunking, the paired deltas of every chunking against the first (bootstrap CI per measure),
the selection statistics on the primary measure, the gate, and one row per question.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ..errors import InputError, Location
from ..datatypes import Document
from .chunkings import ChunkingSet, load_chunkings
from .core import evaluate_chunks
from ..report.gate import MeasureCondition, check_measure_gate
from ..retrieval.measures import parse_budget
from .qa import QASet, load_qa
from .stats import paired_delta, selection

REPORT_VERSION = 1


@dataclass
class EvalReport:
    """What :func:`run_eval` made: the report dict (``eval.json``) and the gate outcome."""

    report: dict[str, Any]
    gate: list[dict[str, Any]]

    @property
    def gate_failed(self) -> bool:
        """Whether any ``--fail-if`` condition holds (the command then exits non-zero)."""
        return any(g["holds"] for g in self.gate)


def read_documents(inputs: Iterable[str], errors: str = "strict") -> tuple[dict[str, Document], list[str]]:
    """The input documents by id (files, folders, globs as ``adachunk run`` takes them).

    Ids as ``adachunk run`` gives them (the path relative to the inputs' root; a parsed JSON's
    ``document_name``). Two inputs with the same id keep the first; the second is reported.
    """
    from ..ingest import read_document, supported_suffixes
    from ..ingest.discover import document_key, expand_inputs, input_root

    inputs = list(inputs)
    root = input_root(inputs)
    docs: dict[str, Document] = {}
    notes = []
    for path in expand_inputs(inputs, supported_suffixes()):
        doc = read_document(path, errors=errors)
        if doc.id == Path(path).name:  # run's id (a parsed JSON's document_name stays: QA files name it)
            doc.id = document_key(path, root)
        if doc.id in docs:
            notes.append(f"{path}: document id {doc.id!r} already read from {docs[doc.id].source}; skipped")
            continue
        docs[doc.id] = doc
    return docs, notes


def default_embedder(profile: Any = "default") -> Any:
    """The profile's index embedder, else its metrics embedder (as ``adachunk run`` indexes)."""
    from ..profile.cached import load_profile

    policy = load_profile(profile).policy
    from ..policy_types import index_embedder

    return index_embedder(policy.index, policy.metrics)[0].model_dump()  # plain data: the report writes it


def default_long_text(profile: Any = "default") -> str:
    """How the profile's retrieval regime says its index embeds long chunks (``pool`` or
    ``truncate``; ``pool`` for a profile without the setting)."""
    from ..profile.cached import load_profile

    retrieval = getattr(load_profile(profile).policy, "retrieval", None)
    return getattr(retrieval, "long_chunks", "pool")


def _check_coverage(cs: ChunkingSet, qa: QASet) -> None:
    """ADA316 when a chunking has no chunk for any QA document; a warning per missing one."""
    have = [d for d in qa.docs if cs.chunks.get(d)]
    if not have:
        raise InputError(code="ADA316", message=f"chunking {cs.label!r} has no chunk for any document of the QA set",
                         location=Location(cs.spec), hint=f"the QA set is about {', '.join(qa.docs[:5])}")
    for d in qa.docs:
        if not cs.chunks.get(d):
            n = sum(q.doc == d for q in qa.questions)
            cs.warnings.append(f"no chunks for document {d!r}: its {n} questions count as misses")


def primary_measure(ks: Sequence[int], primary: str | None = None) -> str:
    """The measure the selection statistics rank by: ``primary``, else recall@5 (or at the
    largest k when 5 is not among ``ks``)."""
    return primary or f"recall@{5 if 5 in ks else max(ks)}"


def run_eval(inputs: Iterable[str], qa_path: str, specs: Sequence[str], *, retrievers: Sequence[str] = ("bm25",),
             ks: Sequence[int] = (1, 3, 5, 10), budget: Any = None, scope: str = "corpus", rrf_k: int = 60,
             embedder: Any = None, profile: Any = "default", index_text: str = "text", n_boot: int = 2000,
             seed: int = 0, primary: str | None = None, conditions: Sequence[MeasureCondition] = (),
             errors: str = "strict", progress: Callable[[str], None] | None = None,
             bootstrap_unit: str = "question", budgets: Sequence[int] = (), tokenizer: str | None = None,
             long_text: str | None = None) -> EvalReport:
    """Evaluate each chunking of ``specs`` with each retriever on the QA set.

    Args:
        inputs: the documents (files, folders, globs).
        qa_path: the QA JSONL file.
        specs: chunking specs (:mod:`adachunk.evaluate.chunkings`); the first is the baseline of
            the deltas.
        retrievers: ``bm25``, ``dense``, ``hybrid`` (any of them, in order).
        ks: the cut-offs k of the measures (duplicates dropped).
        budget: token budget of the retrieved context (None, ``2048`` in all, or ``"512*k"``
            per retrieved chunk), as :func:`~adachunk.evaluate.evaluate_chunks` takes it.
        scope: ``corpus`` (rank every document's chunks) or ``doc`` (the question's own).
        rrf_k: the reciprocal-rank-fusion constant of ``hybrid``.
        index_text: what is indexed: ``text`` or ``heading_path+text``.
        embedder: embedder spec for dense/hybrid (None: the profile's index, else metrics, embedder).
        profile: the profile for the embedder and the ``fixed:``/``splitter:`` policy.
        n_boot: how many bootstrap resamples the confidence intervals use.
        seed: the seed of the bootstrap resampling (same seed, same intervals).
        bootstrap_unit: ``question`` (resample questions) or ``document`` (resample whole
            documents with their questions: a cluster bootstrap, wider CIs when questions of one
            document move together).
        primary: the measure of the selection statistics (default :func:`primary_measure`).
        budgets: token budgets of the ``coverage@Btok`` measures (chunks in rank order while they
            fit, the last one truncated, no cut-off k).
        tokenizer: count chunk tokens (budgets, ``tokens@k``) with this tokenizer and truncate to
            exact tokens; None: the chunks' own counts, truncated proportionally.
        long_text: how ``dense`` embeds chunks longer than the model's input (``pool`` or
            ``truncate``); None: the profile's ``retrieval.long_chunks``.
        conditions: ``--fail-if`` conditions.
        errors: invalid UTF-8 handling of the readers.
        progress: called with a short status line now and then.

    Raises:
        InputError: ``ADA315`` (QA file), ``ADA316`` (a chunking), ``ADA3xx`` (documents).
        ValueError: a bad setting or gate condition.
    """
    ks = sorted(dict.fromkeys(int(k) for k in ks))
    bud = parse_budget(budget)
    docs, notes = read_documents(inputs, errors)
    qa = load_qa(qa_path, docs)
    sets = _load_covering_chunkings(specs, docs, qa, profile, progress)
    embedder, long_text = _profile_defaults(embedder, long_text, retrievers, profile)
    measure = primary_measure(ks, primary)
    retrieval = dict(scope=scope, rrf_k=rrf_k, index_text=index_text, budgets=budgets, tokenizer=tokenizer,
                     long_text=long_text)
    results, comparisons, rows = _evaluate_retrievers(sets, qa, retrievers, ks, bud, embedder, retrieval,
                                                      measure, n_boot, seed, bootstrap_unit, progress)
    settings = _settings_record(retrievers, ks, bud, embedder, retrieval, n_boot, bootstrap_unit, seed, measure)
    report = _assemble_report(settings, docs, notes, qa, sets, results, comparisons, rows)
    gate = check_measure_gate(report, conditions)
    report["gate"] = gate
    return EvalReport(report, gate)


def _load_covering_chunkings(specs: Sequence[str], docs: dict[str, Document], qa: QASet, profile: Any,
                             progress: Callable[[str], None] | None) -> list[ChunkingSet]:
    """The chunkings of ``specs``, each checked to cover the QA set's documents (ADA316)."""
    sets = load_chunkings(specs, docs, profile, progress)
    for cs in sets:
        _check_coverage(cs, qa)
    return sets


def _profile_defaults(embedder: Any, long_text: str | None, retrievers: Sequence[str],
                      profile: Any) -> tuple[Any, str]:
    """The embedder (only where a retriever embeds) and long-text handling the profile gives
    where the caller gave none."""
    if embedder is None and any(r != "bm25" for r in retrievers):
        embedder = default_embedder(profile)
    if long_text is None:
        long_text = default_long_text(profile)
    return embedder, long_text


def _evaluate_retrievers(sets: list[ChunkingSet], qa: QASet, retrievers: Sequence[str], ks: list[int], bud: Any,
                         embedder: Any, retrieval: dict[str, Any], measure: str, n_boot: int, seed: int,
                         bootstrap_unit: str, progress: Callable[[str], None] | None) -> tuple[dict, dict, list]:
    """Every chunking under every retriever: ``(results, comparisons, per-question rows)``.

    ``retrieval``: the keyword settings :func:`evaluate_chunks` takes besides the budget and
    embedder. Raises ValueError (after the first retriever's evaluation) when ``measure`` is
    not one of its measures.
    """
    results, comparisons, rows = {}, {}, []
    for ret in retrievers:
        if progress:
            progress(f"retrieving with {ret}")
        evals = [evaluate_chunks(cs.chunks, qa, ret, ks, bud, embedder, **retrieval) for cs in sets]
        if measure not in evals[0].keys:
            raise ValueError(f"unknown primary measure {measure!r}; allowed: {', '.join(evals[0].keys)}")
        results[ret] = {cs.label: ev.summary for cs, ev in zip(sets, evals)}
        groups = [r["doc"] for r in evals[0].per_question] if bootstrap_unit == "document" else None
        comparisons[ret] = _compare(sets, evals, measure, n_boot, seed, groups)
        for cs, ev in zip(sets, evals):
            rows += [{"retriever": ret, "chunking": cs.label, **r} for r in ev.per_question]
    return results, comparisons, rows


def _settings_record(retrievers: Sequence[str], ks: list[int], bud: Any, embedder: Any, retrieval: dict[str, Any],
                     n_boot: int, bootstrap_unit: str, seed: int, measure: str) -> dict[str, Any]:
    """The report's ``settings`` (plain data, in the file's key order)."""
    r = retrieval
    return {"retrievers": list(retrievers), "ks": ks, "budget": str(bud) if bud else None,
            "budgets": sorted(dict.fromkeys(int(b) for b in r["budgets"])), "tokenizer": r["tokenizer"],
            "long_text": r["long_text"], "scope": r["scope"], "rrf_k": r["rrf_k"], "index_text": r["index_text"],
            "embedder": _jsonable(embedder) if embedder else None,
            "bootstrap": n_boot, "bootstrap_unit": bootstrap_unit, "seed": seed, "primary": measure}


def _assemble_report(settings: dict[str, Any], docs: dict[str, Document], notes: list[str], qa: QASet,
                     sets: list[ChunkingSet], results: dict, comparisons: dict, rows: list) -> dict[str, Any]:
    """The report dict (``eval.json``) without its gate, in the file's key order."""
    return {
        "version": REPORT_VERSION,
        "settings": settings,
        "documents": {"count": len(docs), "ids": list(docs), "notes": notes},
        "qa": qa.record(),
        "chunkings": [cs.record() for cs in sets],
        "results": results,
        "comparisons": comparisons,
        "per_question": rows,
    }


def _compare(sets: list[ChunkingSet], evals: list, measure: str, n_boot: int, seed: int,
             groups: list | None = None) -> dict[str, Any]:
    base = evals[0]
    deltas = {cs.label: {k: paired_delta(base.values(k), ev.values(k), n_boot, seed, groups) for k in base.keys}
              for cs, ev in zip(sets[1:], evals[1:])}
    sel = selection([cs.label for cs in sets], [ev.values(measure) for ev in evals], n_boot, seed, groups) \
        if len(sets) > 1 else None
    return {"baseline": sets[0].label, "deltas": deltas, "selection": sel}


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except TypeError:
        return getattr(value, "fingerprint", None) or repr(value)


def write_report(report: dict[str, Any], out: str | Path) -> Path:
    """Write ``OUT/eval.json`` (the folder is created).

    Raises:
        InputError: ``ADA307`` when it cannot be written.
    """
    folder = Path(out)
    path = folder / "eval.json"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name("eval.json.tmp")
        tmp.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        raise InputError(code="ADA307", message=f"cannot write {path}: {exc.strerror or exc}",
                         location=Location(str(path))) from None
    return path
