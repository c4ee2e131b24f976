"""Paired statistics over questions: bootstrap CIs of deltas, probability of being best, power.

Every chunking is evaluated on the same questions, so comparisons are *paired*: a bootstrap
resample draws question indices once and applies them to every chunking. Resamples come from
``numpy.random.default_rng(seed)``: the same seed gives the same numbers.

* **Delta** B − A: the mean of the per-question differences; its 95 % CI is the 2.5/97.5
  percentiles of the resampled means (percentile bootstrap).
* **P(best)**: the share of resamples in which a chunking has the highest mean (ties share the
  resample equally).
* **Ruled out**: P(best) < 5 %, or the 95 % CI of its delta to the leader (the highest observed
  mean) lies below 0.
* **Questions needed** to settle a delta: with ``sd`` the standard deviation of the paired
  per-question differences (ddof = 1) and ``d`` their mean, the normal-approximation 95 % CI
  half-width is ``1.96 · sd / √n``; it is below ``|d|`` when ``n ≥ (1.96 · sd / d)²``. The
  estimate assumes the observed ``d`` and ``sd`` are the true ones (they are noisy for small n);
  ``d = 0`` can never be settled (None).

Questions of one document are not independent (they share chunks): resampling questions gives
somewhat optimistic CIs on a corpus with few documents. With ``groups`` (each question's
document; ``adachunk eval --bootstrap-unit document``) the bootstrap draws whole documents with
replacement instead (a cluster bootstrap): a resample's mean is the sum over its drawn
documents' questions divided by their count.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

Z95 = 1.959964  # two-sided 95 % normal quantile
RULE_OUT_P = 0.05


def resample_indices(n: int, n_boot: int = 2000, seed: int = 0) -> np.ndarray:
    """``(n_boot, n)`` question indices drawn with replacement (deterministic for a seed)."""
    return np.random.default_rng(seed).integers(0, n, size=(n_boot, n)) if n else np.zeros((n_boot, 0), np.int64)


def resampled_means(values: np.ndarray, n_boot: int, seed: int, groups: Sequence[Any] | None = None) -> np.ndarray:
    """Bootstrap means of each row of ``values`` (``(rows, questions)``) → ``(rows, n_boot)``.

    Without ``groups`` questions are drawn with replacement; with them, whole groups are
    (one label per question, e.g. its document), all rows with the same draws (paired).
    """
    if groups is None:
        return values[:, resample_indices(values.shape[1], n_boot, seed)].mean(axis=2)
    labels, cluster = np.unique(np.asarray([str(g) for g in groups]), return_inverse=True)
    sums = np.zeros((values.shape[0], len(labels)))
    np.add.at(sums.T, cluster, values.T)
    counts = np.bincount(cluster, minlength=len(labels)).astype(np.float64)
    draws = resample_indices(len(labels), n_boot, seed)  # (n_boot, groups)
    return sums[:, draws].sum(axis=2) / counts[draws].sum(axis=1)[None, :]


def paired_delta(a: Sequence[float], b: Sequence[float], n_boot: int = 2000, seed: int = 0,
                 groups: Sequence[Any] | None = None) -> dict[str, Any]:
    """Mean delta ``b − a`` over paired questions with a 95 % percentile-bootstrap CI
    (``groups``: resample whole groups of questions, see the module docstring).

    Returns:
        ``mean_a``, ``mean_b``, ``delta``, ``ci95`` ([low, high]), ``n``, ``sd`` (of the paired
        differences) and ``questions_needed`` (see the module docstring); means None without
        questions.
    """
    x, y = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {len(x)} vs {len(y)}")
    n = len(x)
    if n == 0:
        return {"mean_a": None, "mean_b": None, "delta": None, "ci95": None, "n": 0, "sd": None,
                "questions_needed": None}
    d = y - x
    means = resampled_means(d[None, :], n_boot, seed, groups)[0]
    lo, hi = np.percentile(means, [2.5, 97.5])
    sd = float(d.std(ddof=1)) if n > 1 else 0.0
    return {"mean_a": _r(x.mean()), "mean_b": _r(y.mean()), "delta": _r(d.mean()), "ci95": [_r(lo), _r(hi)],
            "n": n, "sd": _r(sd), "questions_needed": questions_needed(float(d.mean()), sd)}


def questions_needed(delta: float, sd: float, z: float = Z95) -> int | None:
    """Smallest n with ``z · sd / √n < |delta|``: ``floor((z · sd / delta)²) + 1`` (1 when sd = 0,
    None when delta = 0)."""
    if delta == 0:
        return None
    if sd == 0:
        return 1
    return int(math.floor((z * sd / abs(delta)) ** 2)) + 1


def prob_best(values: Sequence[Sequence[float]], n_boot: int = 2000, seed: int = 0,
              groups: Sequence[Any] | None = None) -> list[float]:
    """Per option (row), the share of paired resamples of the questions (or of ``groups``) in
    which its mean is the highest; options tied for the highest share that resample equally."""
    m = np.asarray(values, np.float64)
    if m.ndim != 2 or m.shape[1] == 0:
        return [1.0 / len(m)] * len(m) if len(m) else []
    means = resampled_means(m, n_boot, seed, groups)  # (options, n_boot)
    top = means.max(axis=0)
    winners = np.isclose(means, top[None, :], rtol=0, atol=1e-12)
    share = winners / winners.sum(axis=0, keepdims=True)
    return [_r(p) for p in share.mean(axis=1)]


def selection(labels: Sequence[str], values: Sequence[Sequence[float]], n_boot: int = 2000,
              seed: int = 0, groups: Sequence[Any] | None = None) -> dict[str, Any]:
    """Selection-aware comparison of N options on one measure (rows of ``values`` = options).

    Returns:
        ``leader`` (highest observed mean; ties: the first), and per option ``mean``,
        ``p_best``, ``delta_vs_leader``, ``ci95``, ``questions_needed``, ``more_questions``
        (beyond those observed; 0 when already settled), ``ruled_out`` and ``why``.
    """
    m = np.asarray(values, np.float64)
    means = m.mean(axis=1) if m.size else np.zeros(len(labels))
    lead = int(np.argmax(means)) if len(labels) else 0
    p = prob_best(m, n_boot, seed, groups)
    n = m.shape[1] if m.ndim == 2 else 0
    options = []
    for i, label in enumerate(labels):
        row: dict[str, Any] = {"label": label, "mean": _r(means[i]), "p_best": p[i]}
        if i == lead:
            row.update(delta_vs_leader=0.0, ci95=None, questions_needed=None, more_questions=None,
                       ruled_out=False, why="leader")
        else:
            cmp = paired_delta(m[lead], m[i], n_boot, seed, groups)
            below = cmp["ci95"] is not None and cmp["ci95"][1] < 0
            why = [w for w, ok in ((f"P(best) {p[i]:.3f} < {RULE_OUT_P}", p[i] < RULE_OUT_P),
                                   ("95% CI of the delta to the leader below 0", below)) if ok]
            need = cmp["questions_needed"]
            settled = cmp["ci95"] is not None and (cmp["ci95"][1] < 0 or cmp["ci95"][0] > 0)
            row.update(delta_vs_leader=cmp["delta"], ci95=cmp["ci95"], questions_needed=need,
                       more_questions=0 if settled else (None if need is None else max(0, need - n)),
                       ruled_out=bool(why), why="; ".join(why) or "not ruled out")
        options.append(row)
    return {"leader": labels[lead] if labels else None, "n": n, "n_boot": n_boot, "seed": seed, "options": options}


def _r(x: float) -> float:
    return round(float(x), 6)
