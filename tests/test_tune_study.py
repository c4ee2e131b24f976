"""``adachunk tune`` end to end on a tiny corpus: determinism, resume, Ctrl-C, held-out honesty,
tuned.yaml that resolves and lists only changes, ADA317, the QA objective."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

pytest.importorskip("optuna")

from adachunk import load_profile  # noqa: E402
from adachunk.cli.main import main  # noqa: E402
from adachunk.errors import InputError  # noqa: E402
from adachunk.tune import tune  # noqa: E402
from adachunk.tune import objective as objective_mod  # noqa: E402
from adachunk.tune.study import make_folds  # noqa: E402

# small sizes so tiny documents get several chunks; weight 0 for the embedding and coreference
# metrics, which these tests are not about (they are not computed)
PROFILE = """\
schema_version: 1
name: tiny
extends: default
solver: {min_size: 10, max_size: 120, chunk_cost: 20}
candidates:
  - {type: dp.v1, name: dp_small, min_size: 10, max_size: 120}
  - {type: page.v1, name: page}
postprocess: {min_tokens: 5, max_tokens: 150, merge_max_tokens: 160}
metrics:
  weights: {sc: 0.4, bi: 0.6}
  sc_min_tokens: 30
  sc_max_tokens: 90
tune:
  folds: 2
  trials: 4
  space:
    rules: {heading: [0.25, 4], sentence: [0.25, 4], paragraph: [0.25, 4]}
    candidates: {dp_small: {max_size: [40, 140]}}
"""

WORDS = ("policy chunk retrieval article clause figure revenue margin model engine index vector "
         "heading paragraph sentence token budget report market").split()


def _doc(rng: random.Random, title: str) -> str:
    parts = [f"# {title}\n"]
    for s in range(rng.randint(2, 4)):
        parts.append(f"\n## Section {s + 1}\n")
        for _ in range(rng.randint(1, 3)):
            sentences = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))).capitalize() + "."
                         for _ in range(rng.randint(2, 5))]
            parts.append("\n" + " ".join(sentences) + "\n")
    return "".join(parts)


@pytest.fixture()
def corpus(tmp_path):
    rng = random.Random(7)
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(6):
        (folder / f"doc{i}.md").write_text(_doc(rng, f"Document {i}"), encoding="utf-8")
    profile = tmp_path / "tiny.yaml"
    profile.write_text(PROFILE, encoding="utf-8")
    return profile, folder


@pytest.fixture(autouse=True)
def _no_analysis_store_afterwards():
    """`adachunk tune` (the CLI) keeps analyses under --out for this process: undo it."""
    yield
    from adachunk.analysis.store import use_store

    use_store(None)


def _run(profile, folder, out, **kw):
    kw.setdefault("seed", 3)
    return tune(str(profile), [str(folder)], out, plots=False, **kw)


def test_same_seed_same_tuned_yaml_and_a_resolvable_profile(corpus, tmp_path, monkeypatch):
    profile, folder = corpus
    monkeypatch.setenv("ADACHUNK_PROFILE_PATH", str(Path(profile).parent))  # the base's folder
    res1, files1 = _run(profile, folder, tmp_path / "a")
    res2, files2 = _run(profile, folder, tmp_path / "b")
    text = files1["tuned"].read_text(encoding="utf-8")
    assert text == files2["tuned"].read_text(encoding="utf-8")
    assert [f.best_point for f in res1.folds] == [f.best_point for f in res2.folds]
    # a real profile extending the base by path, which `profile check` and load_profile accept
    # once the base's folder is a search folder (and refuse without it: profiles are confined)
    assert '\nextends: "../tiny.yaml"\n' in text and "ADACHUNK_PROFILE_PATH=" in text
    assert main(["profile", "check", str(files1["tuned"])]) == 0
    tuned = load_profile(files1["tuned"])
    base = load_profile(profile)
    assert tuned.name == "tiny-tuned"
    # only the changes, each commented with its measured effect
    for key in res1.final_point:
        name = key.split(".")[1]
        assert name in text
    assert text.count("weighted score vs without it") == len(res1.final_point)
    data_lines = [ln for ln in text.splitlines() if ln and not ln.lstrip().startswith("#")]
    assert not any(ln.startswith(("metrics:", "postprocess:", "structures:")) for ln in data_lines)
    # the tuned values are what the profile now holds
    for key, value in res1.final_point.items():
        if key.startswith("candidates."):
            cand = dict((n, p) for _, p, n in tuned.policy.candidates)["dp_small"]
            assert cand[key.rsplit(".", 1)[1]] == int(value)
        if key.startswith("rules."):
            rule = {r.name: r for r in tuned.policy.rules}[key.split(".")[1]]
            old = {r.name: r for r in base.policy.rules}[key.split(".")[1]]
            assert rule.on.scale == objective_mod.scaled(old.on.scale, value)
    summary = json.loads(files1["ab"].read_text(encoding="utf-8"))
    assert summary["held_out"]["documents"] == 6 and len(summary["folds"]) == 2
    assert "beats" in files1["report"].read_text(encoding="utf-8")


def test_first_trial_is_the_base_and_best_never_below_it(corpus, tmp_path):
    profile, folder = corpus
    res, _ = _run(profile, folder, tmp_path / "o")
    for f in res.folds:
        assert f.history[0]["params"]["candidates.dp_small.max_size"] == 120
        assert f.history[0]["params"]["rules.heading"] == 1.0
        assert f.best_value >= f.base_train - 1e-9


def test_held_out_documents_never_pick_the_point(corpus, tmp_path, monkeypatch):
    profile, folder = corpus
    calls = []
    real = objective_mod.Evaluator.evaluate

    def spy(self, point, doc_ids):
        ids = list(doc_ids)
        calls.append((dict(point), ids))
        return real(self, point, ids)

    monkeypatch.setattr(objective_mod.Evaluator, "evaluate", spy)
    res, _ = _run(profile, folder, tmp_path / "o")
    for f in res.folds:
        train_calls = [ids for _, ids in calls if ids == f.train]
        assert len(train_calls) >= f.trials  # every trial of the fold
        assert not set(f.train) & set(f.held_out)
        assert set(f.tuned.docs) == set(f.held_out) == set(f.base.docs)
    # no evaluation mixes a fold's held-out documents into that fold's training set
    folds = [(set(f.train), set(f.held_out)) for f in res.folds]
    for _, ids in calls:
        for train, held in folds:
            if set(ids) == train:
                assert not set(ids) & held


def test_resume_continues_the_remaining_trials(corpus, tmp_path):
    profile, folder = corpus
    out = tmp_path / "o"
    _run(profile, folder, out, trials=3)
    res, files = _run(profile, folder, out, trials=6)
    assert [f.trials for f in res.folds] == [6, 6]
    import optuna

    for i in range(2):
        study = optuna.load_study(study_name=f"fold{i}", storage=f"sqlite:///{out / 'study.db'}")
        assert len(study.trials) == 6  # 3 + 3, not 3 + 6
    # a resumed run draws what an uninterrupted one draws
    _, straight = _run(profile, folder, tmp_path / "straight", trials=6)
    assert files["tuned"].read_text(encoding="utf-8") == straight["tuned"].read_text(encoding="utf-8")


def test_a_trial_left_running_by_a_kill_is_dropped_on_resume(corpus, tmp_path):
    import optuna

    profile, folder = corpus
    out = tmp_path / "o"
    _run(profile, folder, out, trials=2)
    storage = f"sqlite:///{out / 'study.db'}"
    optuna.load_study(study_name="fold0", storage=storage).ask()  # what SIGKILL mid-trial leaves behind
    res, files = _run(profile, folder, out, trials=3)
    states = [t.state.name for t in optuna.load_study(study_name="fold0", storage=storage).trials]
    assert states.count("COMPLETE") == 3 and states.count("FAIL") == 1 and "RUNNING" not in states
    _, straight = _run(profile, folder, tmp_path / "straight", trials=3)
    assert files["tuned"].read_text(encoding="utf-8") == straight["tuned"].read_text(encoding="utf-8")


def test_killed_tune_keeps_best_so_far_and_resumes(corpus, tmp_path, monkeypatch):
    profile, folder = corpus
    out = tmp_path / "o"
    real = objective_mod.Evaluator.evaluate
    seen = {"n": 0}
    train = set(make_folds([f"doc{i}.md" for i in range(6)], 2, 3)[1])  # fold 0 trains on fold 1

    def flaky(self, point, doc_ids):
        ids = list(doc_ids)
        if set(ids) == train:
            seen["n"] += 1
            if seen["n"] == 4:  # base_train, then trials 1 and 2; the third trial is "killed"
                raise KeyboardInterrupt
        return real(self, point, ids)

    monkeypatch.setattr(objective_mod.Evaluator, "evaluate", flaky)
    code = main(["tune", "--profile", str(profile), str(folder), "--out", str(out), "--seed", "3",
                 "--trials", "5", "--no-plots", "-q"])
    assert code == 130
    first = json.loads((out / "ab.json").read_text(encoding="utf-8"))
    assert first["interrupted"] is True and first["folds"][0]["trials"] == 2
    assert first["folds"][0]["best_point"] is not None and "trials" in first["folds"][1]
    assert (out / "tuned.yaml").is_file() and (out / "analysis").is_dir()
    monkeypatch.setattr(objective_mod.Evaluator, "evaluate", real)
    assert main(["tune", "--profile", str(profile), str(folder), "--out", str(out), "--seed", "3",
                 "--trials", "5", "--no-plots", "-q"]) == 0
    again = json.loads((out / "ab.json").read_text(encoding="utf-8"))
    assert again["interrupted"] is False and [f["trials"] for f in again["folds"]] == [5, 5]


def test_a_study_of_another_setup_is_ada317(corpus, tmp_path, capsys):
    profile, folder = corpus
    out = tmp_path / "o"
    _run(profile, folder, out, trials=2)
    with pytest.raises(InputError) as exc:
        tune(str(profile), [str(folder)], out, trials=2, seed=3, plots=False, params=["rules.heading=0.5:2"])
    assert exc.value.code == "ADA317" and "space" in exc.value.message
    code = main(["tune", "--profile", "default", str(folder), "--out", str(out), "--trials", "2", "-k", "2",
                 "--param", "rules.heading=0.5:2", "-q"])
    assert code == 2 and "ADA317" in capsys.readouterr().err


def test_plot_and_importances(corpus, tmp_path):
    pytest.importorskip("matplotlib")
    profile, folder = corpus
    res, files = tune(str(profile), [str(folder)], tmp_path / "o", seed=3, trials=5, plots=True)
    assert files["plot"].is_file() and files["plot"].stat().st_size > 1000
    assert all(isinstance(v, float) for f in res.folds for v in f.importances.values())


def test_fold_split_is_seeded_and_partitions():
    ids = [f"d{i}" for i in range(11)]
    a, b = make_folds(ids, 3, 5), make_folds(list(reversed(ids)), 3, 5)
    assert a == b and sorted(x for f in a for x in f) == sorted(ids)
    assert make_folds(ids, 3, 6) != a


def test_qa_objective_fits_weights_with_their_spread(tmp_path, monkeypatch):
    pytest.importorskip("adachunk.evaluate", reason="adachunk.evaluate (QA evaluation) is not installed")
    monkeypatch.setenv("ADACHUNK_PROFILE_PATH", str(tmp_path))  # tuned.yaml extends ../qa.yaml
    from tests.conftest import EXAMPLES

    profile = tmp_path / "qa.yaml"
    profile.write_text(PROFILE.replace("name: tiny", "name: qa").replace(
        "candidates:\n  - {type: dp.v1", "candidates:\n  - {type: recursive.v1, chunk_size: 200, name: rec}\n"
        "  - {type: dp.v1"), encoding="utf-8")
    docs = [str(p) for p in sorted(EXAMPLES.glob("*.md"))]
    res, files = tune(str(profile), docs, tmp_path / "o", objective="qa", qa=str(EXAMPLES / "qa.jsonl"),
                      qa_measure="recall@3", trials=4, folds=2, seed=1, target="pool",
                      params=["weights.sc=0:1", "weights.bi=0:1"], plots=False)
    summary = json.loads(files["ab"].read_text(encoding="utf-8"))
    assert set(summary["weights_spread"]) == {"sc", "bi"}
    assert all(0 <= s["min"] <= s["mean"] <= s["max"] <= 1 for s in summary["weights_spread"].values())
    assert all(f.tuned.qa is not None for f in res.folds)
    load_profile(files["tuned"])  # resolves, with or without a weight change


def test_tuned_yaml_restates_rules_solver_and_weights_so_they_override_the_base(tmp_path):
    """Rules replace the pack's rule of the same name, the solver key alone, weights whole."""
    from adachunk.tune.objective import DocEval, Evaluation
    from adachunk.tune.output import tuned_yaml
    from adachunk.tune.space import space_from
    from adachunk.tune.study import FoldResult, TuneResult

    rp = load_profile("default")
    space = space_from(rp, ["rules.heading=0.25:4", "rules.word=0.25:4", "solver.chunk_cost=0:200",
                            "weights.bi=0:1"], target="pool", objective="qa")
    point = {"rules.heading": 2.0, "rules.word": 0.5, "solver.chunk_cost": 55, "weights.bi": 0.6}
    ev = Evaluation(0.9, 0.9, 0.5, {"b": DocEval(0.9, "dp_1100", {}, 3)})
    fold = FoldResult(0, ["a"], ["b"], trials=3, best_point=point, best_value=0.9, base_train=0.8,
                      base=Evaluation(0.8, 0.8, 0.4, {"b": DocEval(0.8, "dp_1100", {}, 3)}), tuned=ev)
    res = TuneResult(tmp_path, [fold], point, ev, Evaluation(0.8, 0.8, 0.4, {}),
                     {k: Evaluation(0.85, 0.85, 0.45, {}) for k in point}, False, 1.0,
                     {"seed": 0, "objective": "qa"})
    text = tuned_yaml(res, rp, space, "default", objective="qa", qa_measure="coverage@5")
    (tmp_path / "tuned.yaml").write_text(text, encoding="utf-8")
    tuned = load_profile(tmp_path / "tuned.yaml")
    rules = {r.name: r for r in tuned.policy.rules}
    base = {r.name: r for r in rp.policy.rules}
    assert rules["heading"].on.scale == 2 * base["heading"].on.scale
    assert rules["heading"].off.scale == 2 * base["heading"].off.scale
    assert rules["heading"].off.width == base["heading"].off.width
    assert rules["word"].on.scale == 0.5 * base["word"].on.scale  # the text.word pack's rule, replaced
    assert len(tuned.policy.rules) == len(rp.policy.rules)
    assert tuned.policy.solver.chunk_cost == 55 and tuned.policy.solver.max_size == rp.policy.solver.max_size
    w = tuned.policy.metrics.weights
    assert set(w) == set(rp.policy.metrics.weights) | {"bi"} and abs(sum(w.values()) - 1) < 1e-5
    assert 0 < w["bi"] < 1
    assert "candidates:" not in text  # untouched sections are not restated
    assert text.count("vs without it") == 4


def test_qa_budget_reaches_the_retrieval_and_the_study_signature(tmp_path, monkeypatch, capsys):
    """`--qa-budget` is handed to evaluate_chunks, and a study with another budget is ADA317."""
    pytest.importorskip("adachunk.evaluate")
    from adachunk import evaluate
    from adachunk.retrieval.measures import Budget
    from tests.conftest import EXAMPLES

    seen = []
    real = evaluate.evaluate_chunks

    def spy(*args, **kw):
        seen.append(kw.get("budget"))
        return real(*args, **kw)

    monkeypatch.setattr(evaluate, "evaluate_chunks", spy)
    docs = [str(p) for p in sorted(EXAMPLES.glob("*.md"))]
    out = tmp_path / "o"
    common = ["tune", "--profile", str(tmp_path / "tiny.yaml"), *docs, "--objective", "qa", "--qa",
              str(EXAMPLES / "qa.jsonl"), "--trials", "2", "-k", "2", "--out", str(out), "--no-plots", "-q"]
    (tmp_path / "tiny.yaml").write_text(PROFILE, encoding="utf-8")
    assert main(common + ["--qa-budget", "512*k"]) == 0
    assert seen and all(b == Budget(512, per_k=True) for b in seen)
    assert main(common + ["--qa-budget", "256*k"]) == 2
    assert "ADA317" in capsys.readouterr().err
