"""Cross-validated tuning with Optuna: folds over documents, one resumable study per fold.

For each of k folds (a seeded split of the documents), a TPE study tunes on the other folds'
documents; its best point is then scored on the held-out fold, next to the base profile, so
every reported held-out number comes from documents that did not pick the point.

* **Storage.** ``--out/study.db`` (SQLite), one study per fold; ``tune.json`` records the run's
  signature (profile fingerprint, space, objective, folds, seed, documents). A rerun with the
  same signature continues the remaining trials (``--trials`` is the total per fold); another
  signature is ``ADA317``.
* **Determinism.** Trials run one at a time; trial *t* of a fold is drawn by a TPE sampler
  seeded with ``(seed, t)`` from that fold's finished trials, so a resumed run draws what an
  uninterrupted one would have. The first trial of every fold is the base profile itself.
* **Ctrl-C.** The running trial is dropped (Optuna records it as failed; it is not counted),
  and the outputs are written from the finished trials: the best so far.
* **The final values** written to ``tuned.yaml`` are the fold winner with the best mean over all
  documents: one of k points, each already validated on its held-out fold, so picking among
  them adds little selection bias and needs no extra trials (a median of the winners would be
  a point nobody measured). Nothing changes unless the pooled held-out score beats the base's
  and that winner beats the base on all documents. Then each change whose removal does not lower that score is dropped (backward
  elimination), and each kept change is reported with its contribution (the score without it).
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError, Location
from ..runner.progress import Progress
from .objective import Evaluation, Evaluator
from .space import Space

log = logging.getLogger("adachunk.tune")


@dataclass
class FoldResult:
    """One fold: its documents, its study's best point and the held-out comparison."""

    index: int
    train: list[str]
    held_out: list[str]
    trials: int = 0
    best_point: dict[str, float] | None = None
    best_value: float | None = None
    base_train: float | None = None
    base: Evaluation | None = None
    tuned: Evaluation | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
    importances: dict[str, float] = field(default_factory=dict)


@dataclass
class TuneResult:
    """What :func:`run_tune` did (the outputs are written by :mod:`adachunk.tune.output`)."""

    out: Path
    folds: list[FoldResult]
    final_point: dict[str, float]
    final_all: Evaluation | None
    base_all: Evaluation | None
    effects: dict[str, Evaluation]
    interrupted: bool
    seconds: float
    signature: dict[str, Any]


def make_folds(doc_ids: list[str], k: int, seed: int) -> list[list[str]]:
    """A seeded split of the documents into ``k`` folds (sorted ids, shuffled, dealt round-robin)."""
    ids = sorted(doc_ids)
    random.Random(seed).shuffle(ids)
    return [sorted(ids[i::k]) for i in range(k)]


def signature_of(rp, space: Space, docs: dict, *, objective: str, qa_measure: str, qa_path: str | None,
                 folds: int, seed: int, qa_options: dict | None = None) -> dict[str, Any]:
    """What a study in ``--out`` must agree on to be resumed."""
    # one path, or several joined by ";" (tune --qa given more than once): their bytes in order
    qa_hash = hashlib.sha256(b"\0".join(Path(p).read_bytes() for p in qa_path.split(";"))).hexdigest()[:16] \
        if qa_path else None
    doc_hash = hashlib.sha256(json.dumps(sorted((d, doc.content_hash) for d, doc in docs.items())).encode())
    return {"profile": rp.name, "fingerprint": rp.fingerprint[:16], "space": space.signature(),
            "target": space.target, "objective": objective, "qa_measure": qa_measure if qa_path else None,
            "qa": qa_hash, "folds": folds, "seed": seed, "documents": doc_hash.hexdigest()[:16],
            # retriever, budget: they change every QA score (absent for the intrinsic objective)
            **({"qa_options": {k: str(v) for k, v in sorted((qa_options or {}).items())}} if qa_path else {})}


def _check_store(out: Path, sig: dict[str, Any], storage: str) -> None:
    """``ADA317`` when ``out`` holds a study of another profile, space or setup."""
    meta = out / "tune.json"
    old = None
    if meta.is_file():
        try:
            old = json.loads(meta.read_text(encoding="utf-8")).get("signature")
        except (OSError, ValueError):
            old = {"unreadable": True}
    elif (out / "study.db").exists():
        import optuna

        names = optuna.get_all_study_names(storage)
        attrs = [optuna.load_study(study_name=n, storage=storage).user_attrs.get("signature") for n in names]
        old = next((a for a in attrs if a != sig), sig if attrs else None)
    if old is not None and old != sig:
        diff = sorted(k for k in set(old) | set(sig) if old.get(k) != sig.get(k))
        raise InputError(code="ADA317", message=f"the tune study in {out} belongs to another setup "
                         f"(differs in: {', '.join(diff)}; it is for profile {old.get('profile')!r})",
                         location=Location(str(out / "study.db")),
                         hint="use another --out, or delete the folder to start over")
    out.mkdir(parents=True, exist_ok=True)
    meta.write_text(json.dumps({"signature": sig}, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _suggest(trial, space: Space) -> dict[str, float]:
    point = {}
    for p in space.params:
        if p.integer:
            point[p.key] = trial.suggest_int(p.key, int(p.low), int(p.high))
        else:
            point[p.key] = trial.suggest_float(p.key, p.low, p.high, log=p.log)
    return point


def _finished(study) -> list:
    from optuna.trial import TrialState

    return [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]


def _drop_stale(study, storage) -> None:
    """Mark the trials a killed run left RUNNING as failed (one writer at a time: any running
    trial found at the start is stale); failed trials are not counted nor used by the sampler."""
    from optuna.trial import TrialState

    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        storage.set_trial_state_values(t._trial_id, TrialState.FAIL)


def _best(trials: list) -> Any:
    """Highest value, ties to the earliest trial (deterministic)."""
    return max(trials, key=lambda t: (round(t.value, 9), -t.number)) if trials else None


class _Progress(Progress):
    """``\r[fold f/k] trial t/n best B (base A) ETA m:ss`` on stderr when it is a TTY (or forced)."""

    def __init__(self, total: int, enabled: bool | None):
        super().__init__(total, enabled=enabled)

    def update(self, fold: int, k: int, n: int, trials: int, best: float | None, base: float | None) -> None:
        self.done += 1
        if not self.enabled:
            return
        rate, eta = self.rate_eta()
        fmt = lambda v: "-" if v is None else f"{v:.5f}"  # noqa: E731 - local formatting helper
        self.stream.write(f"\r[fold {fold + 1}/{k}] trial {n}/{trials} best {fmt(best)} (base {fmt(base)}) "
                          f"{rate:.2f} trials/s ETA {eta}   ")
        self.stream.flush()


def _run_fold(study, ev: Evaluator, space: Space, fold: FoldResult, trials: int, seed: int,
              progress: _Progress, k: int) -> None:
    """Run the fold's remaining trials, one at a time (see the module docstring on seeds)."""
    import optuna

    def objective(trial):
        point = _suggest(trial, space)
        res = ev.evaluate(point, fold.train)
        trial.set_user_attr("intrinsic", res.intrinsic)
        if res.qa is not None:
            trial.set_user_attr("qa", res.qa)
        trial.set_user_attr("seconds", round(res.seconds, 3))
        trial.set_user_attr("embed_calls", res.embed_calls)
        return res.value

    while True:
        done = _finished(study)
        if len(done) >= trials:
            break
        # constant_liar off: trials run one at a time, and a stale trial of a killed run must not
        # steer the draws (it is marked failed by _drop_stale anyway)
        study.sampler = optuna.samplers.TPESampler(seed=(seed * 1_000_003 + len(done)) % (2**32),
                                                   multivariate=True, constant_liar=False)
        study.optimize(objective, n_trials=1, catch=())
        best = _best(_finished(study))
        progress.update(fold.index, k, len(_finished(study)), trials, best.value if best else None, fold.base_train)


def run_tune(rp, docs: dict, space: Space, out: str | Path, *, trials: int, folds: int, seed: int,
             objective: str = "intrinsic", qa=None, qa_path: str | None = None, qa_measure: str = "coverage@5",
             qa_options: dict | None = None, progress: bool | None = None) -> TuneResult:
    """Cross-validated tune of ``rp`` on ``docs`` (id → Document); see the module docstring.

    Raises:
        InputError: ``ADA317`` when ``out`` holds a study of another setup.
        ValueError: fewer documents than folds.
    """
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    if len(docs) < folds:
        raise ValueError(f"{folds} folds need at least {folds} documents, got {len(docs)}")
    t0 = time.perf_counter()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    sig = signature_of(rp, space, docs, objective=objective, qa_measure=qa_measure, qa_path=qa_path,
                       folds=folds, seed=seed, qa_options=qa_options)
    url = f"sqlite:///{out / 'study.db'}"
    _check_store(out, sig, url)
    storage = optuna.storages.RDBStorage(url)  # one engine for every fold's study
    ev = Evaluator(rp.policy, docs, space, objective=objective, qa=qa, qa_measure=qa_measure,
                   qa_options=dict(qa_options or {}))
    split = make_folds(list(docs), folds, seed)
    results = [FoldResult(i, sorted(d for j, f in enumerate(split) if j != i for d in f), split[i])
               for i in range(folds)]
    bar = _Progress(trials * folds, progress)
    interrupted = False
    studies = {}
    try:
        for fold in results:
            study = optuna.create_study(storage=storage, study_name=f"fold{fold.index}", direction="maximize",
                                        load_if_exists=True)
            studies[fold.index] = study
            if not study.get_trials(deepcopy=False):
                study.set_user_attr("signature", sig)
                study.set_user_attr("train", fold.train)
                study.enqueue_trial(space.base_params(), user_attrs={"base": True})
            _drop_stale(study, storage)
            bar.done += min(len(_finished(study)), trials)
            fold.base_train = ev.evaluate({}, fold.train).value
            _run_fold(study, ev, space, fold, trials, seed, bar, folds)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    return _conclude(ev, space, results, studies, out, interrupted, t0, sig)


def _conclude(ev: Evaluator, space: Space, results: list[FoldResult], studies: dict, out: Path,
              interrupted: bool, t0: float, sig: dict) -> TuneResult:
    """Held-out comparison per fold, the final point, and each change's effect alone."""
    for fold in results:
        study = studies.get(fold.index)
        if study is None:
            continue
        done = _finished(study)
        fold.trials = len(done)
        fold.history = [{"number": t.number, "value": t.value, "params": dict(t.params), **t.user_attrs}
                        for t in sorted(done, key=lambda t: t.number)]
        best = _best(done)
        if best is None:
            continue
        fold.best_point, fold.best_value = dict(best.params), best.value
        fold.base = ev.evaluate({}, fold.held_out)
        fold.tuned = ev.evaluate(fold.best_point, fold.held_out)
        fold.importances = importances(study)
    all_ids = sorted(d for f in results for d in f.held_out)
    base_all = ev.evaluate({}, all_ids)
    final, final_all = {}, None
    winners = [f.best_point for f in results if f.best_point is not None]
    unique = list({json.dumps(p, sort_keys=True): p for p in winners}.values())
    scored = [(ev.evaluate(p, all_ids), i, p) for i, p in enumerate(unique)]
    tuned_folds = [f for f in results if f.tuned is not None]
    held_out_gain = sum((f.tuned.value - f.base.value) * len(f.held_out) for f in tuned_folds)
    # change nothing unless the held-out folds show that tuning helps: an in-sample gain alone
    # is what a search finds on any corpus
    if scored and held_out_gain > 0:
        top = max(scored, key=lambda s: (s[0].value, -s[1]))
        if top[0].value > base_all.value:
            final, final_all = top[2], top[0]
    final = simplify(ev, changed(space, final, ev.base), all_ids)
    # each kept change's contribution: the score without it, everything else kept
    effects = {key: ev.evaluate({k: v for k, v in final.items() if k != key}, all_ids) for key in final}
    if final:
        final_all = ev.evaluate(final, all_ids)
    return TuneResult(out, results, final, final_all, base_all, effects, interrupted,
                      time.perf_counter() - t0, sig)


def simplify(ev: Evaluator, point: dict[str, float], ids: list[str]) -> dict[str, float]:
    """Backward elimination: drop each change (in space order) whose removal does not lower the
    objective on ``ids``, so ``tuned.yaml`` lists only changes that earn their place."""
    current = dict(point)
    score = ev.evaluate(current, ids).value
    for key in list(point):
        trial = {k: v for k, v in current.items() if k != key}
        value = ev.evaluate(trial, ids).value
        if value >= score:
            current, score = trial, value
    return current


def changed(space: Space, point: dict[str, float], base) -> dict[str, float]:
    """The values of ``point`` that differ from the ``base`` policy once applied (a multiplier
    that rounds every scale of its rule back to the base value changes nothing)."""
    from .objective import scaled

    rules = {r.name: r for r in base.rules}
    out = {}
    for p in space.params:
        if p.key not in point:
            continue
        v = point[p.key]
        if p.kind == "rule":
            shapes = [s for s in (rules[p.name].on, rules[p.name].off) if s is not None]
            if all(scaled(s.scale, v) == s.scale for s in shapes):
                continue
        elif p.base is not None and v == p.base:
            continue
        out[p.key] = v
    return out


def importances(study) -> dict[str, float]:
    """Parameter importances of a study (PED-ANOVA: no scikit-learn needed); empty when too few trials."""
    try:
        from optuna.importance import PedAnovaImportanceEvaluator, get_param_importances

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            imp = get_param_importances(study, evaluator=PedAnovaImportanceEvaluator())
        return {k: round(float(v), 4) for k, v in imp.items()}
    except Exception as exc:  # too few or constant trials: importances are undefined, not an error
        log.debug("importances unavailable: %s", exc)
        return {}
