"""``adachunk tune``: cross-validated search of a profile's rules, sizes and metric weights.

:func:`tune` reads the corpus once, checks the search space (:mod:`.space`), runs one resumable
Optuna study per fold (:mod:`.study`) scoring points with :mod:`.objective`, and writes
``tuned.yaml``, the held-out A/B report and the search plot (:mod:`.output`). Optuna and
matplotlib are imported only when a tune runs.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Iterable

from .space import Space, space_from

log = logging.getLogger("adachunk.tune")


def read_corpus(inputs: Iterable[str], errors: str = "strict") -> dict[str, Any]:
    """Documents of the inputs (files, folders, globs) keyed by id, in input order; a second
    document with an id already seen is skipped with a warning (ids key folds and QA lines)."""
    from ..ingest import read_document, supported_suffixes
    from ..ingest.discover import document_key, expand_inputs, input_root

    inputs = list(inputs)
    root = input_root(inputs)
    docs: dict[str, Any] = {}
    for path in expand_inputs(inputs, supported_suffixes()):
        doc = read_document(path, errors=errors)
        if doc.id == Path(path).name:  # run's id (a parsed JSON's document_name stays: QA files name it)
            doc.id = document_key(path, root)
        if doc.id in docs:
            log.warning("%s: document id %r already read from %s; skipped", path, doc.id, docs[doc.id].source)
            continue
        docs[doc.id] = doc
    return docs


def tune(profile: str, inputs: Iterable[str], out: str | Path, *, objective: str | None = None,
         qa: "str | list[str] | None" = None, qa_measure: str | None = None, trials: int | None = None,
         folds: int | None = None, seed: int | None = None, target: str | None = None,
         params: list[str] | None = None, errors: str = "strict", progress: bool | None = False,
         plots: bool = True, qa_options: dict | None = None):
    """Tune ``profile`` on the documents of ``inputs``; write the results into ``out``.

    Every option left None takes the profile's ``tune:`` value.

    Args:
        profile: builtin profile name or YAML path.
        inputs: files, folders or globs.
        out: output folder (the study lives there and resumes from there).
        objective: ``intrinsic``, ``qa`` or ``both``.
        qa: the QA file (JSONL, or Chroma's CSV), or several (their questions together); needed
            by ``qa``/``both``.
        qa_measure: the QA summary measure maximised (``coverage@5``, ``recall@5``, ``mrr``...), or
            ``regime``: the evidence the profile's retrieval regime reads (its retrievers and
            budgets, :func:`adachunk.tune.objective.regime_value`).
        trials: trials per fold (the total: a resumed run adds only the missing ones).
        folds: cross-validation folds over documents.
        seed: seed of the split and the sampler.
        target: a dp.v1 candidate name, ``solver`` or ``pool``.
        params: ``KEY=LOW:HIGH`` items replacing the profile's ``tune.space``.
        errors: ``strict`` or ``replace`` for invalid UTF-8.
        progress: the progress line (None: when stderr is a TTY).
        plots: write ``plots/search.png`` (needs matplotlib).
        qa_options: extra ``evaluate_chunks`` arguments (retriever, ks, budget, scope).

    Returns:
        ``(TuneResult, files written)``.
    """
    from ..profile.resolve import load_profile
    from .output import write_outputs
    from .study import run_tune

    rp = load_profile(profile)
    spec = rp.profile.tune
    objective = objective or spec.objective
    qa_measure = qa_measure or spec.qa_measure
    space = space_from(rp, params, target=target, objective=objective, profile=profile)
    if objective != "intrinsic" and not qa:
        raise ValueError(f"--objective {objective} needs a QA file (--qa FILE)")
    docs = read_corpus(inputs, errors)
    qa_set = None
    paths = [qa] if isinstance(qa, str) else list(qa or [])
    if objective != "intrinsic":
        from ..evaluate import load_qa_files

        qa_set = load_qa_files(paths, docs)
    res = run_tune(rp, docs, space, out, trials=trials or spec.trials, folds=folds or spec.folds,
                   seed=spec.seed if seed is None else seed, objective=objective, qa=qa_set,
                   qa_path=";".join(paths) if objective != "intrinsic" else None, qa_measure=qa_measure,
                   qa_options=qa_options, progress=progress)
    files = write_outputs(res, rp, space, profile, objective=objective, qa_measure=qa_measure, plots=plots)
    return res, files


__all__ = ["Space", "read_corpus", "space_from", "tune"]
