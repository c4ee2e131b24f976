"""``adachunk ab``: the A/B comparison of two profiles (summary statistics, HTML report, CI gate)."""

from __future__ import annotations

import base64
import json
import shutil
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import wilcoxon

from adachunk.cli.main import main
from adachunk.report._ab_boundaries import render_boundaries
from adachunk.report._ab_stats import (bootstrap_ci, compare_metric, cut_difference, distribution, outcome,
                                       paired_deltas, wilcoxon_p)
from adachunk.report.ab import load_run, run_ab, side_labels, write_report
from adachunk.report.gate import check_metric_gate, parse_metric_condition

from .conftest import EXAMPLES, FAST_PROFILE

# The real pipeline with a model-free embedder and precomputed coreference (as tests/test_run.py),
# selecting with the paper's five metrics, under which the DP candidate wins the examples; B
# retunes the solver so that the DP candidate cuts elsewhere.
FAST_A = FAST_PROFILE.replace("name: fast", "name: fast_a").replace("metrics:\n", "metrics:\n  weights: balanced\n")
FAST_B = FAST_A.replace("name: fast_a", "name: fast_b") + "solver:\n  max_size: 300\n"
METRICS = ("sc", "bi", "rc", "icc", "dcc", "score")


def write_profiles(folder: Path) -> tuple[str, str]:
    """The two test profiles as YAML files in ``folder``."""
    a, b = folder / "fast_a.yaml", folder / "fast_b.yaml"
    a.write_text(FAST_A, encoding="utf-8")
    b.write_text(FAST_B, encoding="utf-8")
    return str(a), str(b)


def copy_examples(folder: Path, names: tuple[str, ...] = ()) -> Path:
    """Copy the example documents (not SOURCES.md) into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for p in sorted(EXAMPLES.glob("*.md")):
        if p.name != "SOURCES.md" and (not names or p.name in names):
            shutil.copy(p, folder / p.name)
    return folder


@pytest.fixture(scope="module")
def ab(tmp_path_factory):
    """One A/B run over the three examples, shared by the tests that only read its outputs."""
    tmp = tmp_path_factory.mktemp("ab")
    prof_a, prof_b = write_profiles(tmp)
    res = run_ab([str(copy_examples(tmp / "corpus"))], prof_a, prof_b, tmp / "out", workers=1, progress=False,
                 conditions=[parse_metric_condition("score < 100"), parse_metric_condition("sc > 0")])
    return res


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


# --- the A/B run --------------------------------------------------------------------------------

def test_summary_has_every_section_with_sane_values(ab):
    s = json.loads((ab.out / "summary.json").read_text(encoding="utf-8"))
    assert ab.runs_ok and (ab.out / "fast_a" / "chunks.jsonl").is_file()
    assert (ab.out / "fast_b" / "decisions.jsonl").is_file()
    assert {"profiles", "documents", "statistics", "metrics", "outcomes", "selection_frequency", "chunks",
            "boundaries", "per_document", "failures", "gate"} <= set(s)
    assert s["documents"] == {"total": 3, "compared": 3, "failed_a": 0, "failed_b": 0}
    assert [s["profiles"][k]["label"] for k in "ab"] == ["fast_a", "fast_b"]
    rows = s["per_document"]
    for m in METRICS:
        stat = s["metrics"][m]
        deltas = [r["delta"][m] for r in rows if r["delta"][m] is not None]
        assert stat["n"] == len(deltas)
        if not deltas:  # RC: the Markdown examples carry no coreference pairs
            assert stat["delta"] is None and stat["ci95"] is None and stat["p_value"] is None
            continue
        assert stat["delta"] == pytest.approx(np.mean(deltas), abs=1e-3)
        assert stat["delta"] == pytest.approx(stat["mean_b"] - stat["mean_a"], abs=1e-3)
        assert stat["mean_a"] == pytest.approx(np.mean([r["a"][m] for r in rows]), abs=1e-3)
        assert stat["p_value"] is None or 0.0 <= stat["p_value"] <= 1.0
        lo, hi = stat["ci95"]
        assert lo - 1e-9 <= stat["delta"] <= hi + 1e-9
        assert all(0.0 <= r[side][m] <= 100.0 for r in rows for side in "ab")
    assert s["metrics"]["rc"]["delta"] is None
    assert sum(s["outcomes"].values()) == 3
    assert [r["outcome"] for r in rows] == [outcome(r["a"]["score"], r["b"]["score"]) for r in rows]


def test_selection_sizes_and_boundaries_match_the_runs(ab):
    s = ab.summary
    for side, label in (("a", "fast_a"), ("b", "fast_b")):
        sel = s["selection_frequency"][side]
        assert list(sel) == ["dp.v1", "recursive_600", "fixed"]  # never-winners listed at 0
        assert sum(v["count"] for v in sel.values()) == 3
        assert sum(v["percent"] for v in sel.values()) == pytest.approx(100.0, abs=0.1)
        chunks = _jsonl(ab.out / label / "chunks.jsonl")
        toks = [c["tokens"] for c in chunks]
        dist = s["chunks"][side]["tokens"]
        assert s["chunks"][side]["chunks"] == dist["count"] == len(chunks)
        assert dist["max"] == max(toks) and dist["median"] == pytest.approx(float(np.median(toks)), abs=0.01)
        assert dist["p10"] <= dist["median"] <= dist["p90"] <= dist["max"]
    # B's smaller max_size moves DP cuts: boundaries differ, and exactly as the chunk files say
    cuts = {side: {} for side in ("fast_a", "fast_b")}
    for side in cuts:
        for c in _jsonl(ab.out / side / "chunks.jsonl"):
            if c["index"]:
                cuts[side].setdefault(c["source"], set()).add(c["start"])
    listed = s["boundaries"]["documents"]
    assert s["boundaries"]["documents_differing"] == len(listed) >= 1
    for d in listed:
        a, b = cuts["fast_a"].get(d["source"], set()), cuts["fast_b"].get(d["source"], set())
        assert d["only_a"] == sorted(a - b) and d["only_b"] == sorted(b - a)
        assert d["differing_cuts"] == len(a ^ b) > 0
    assert {d["source"] for d in listed} == {r["source"] for r in s["per_document"] if r["differing_cuts"]}


def test_every_moved_boundary_is_priced_under_both_profiles(ab):
    """B only shrinks max_size: the rules are the same on both sides, so no rule moved a cut and
    every differing cut is put down to the sizes."""
    b = ab.summary["boundaries"]
    assert b["rules"] == {}
    total = 0
    for d in b["documents"]:
        moves = d["moves"]
        assert len(moves["cuts"]) == d["differing_cuts"] == moves["unexplained"]
        for row in moves["cuts"]:
            assert row["side"] in ("a", "b") and row["rules"] == {} and row["cost_a"] == row["cost_b"]
            assert (row["position"] in d["only_a"]) == (row["side"] == "a")
        total += moves["unexplained"]
    assert b["unexplained_cuts"] == total > 0


def test_rule_moves_are_summed_over_documents(tmp_path):
    """A side that retunes one rule has the moved cuts credited to that rule, per document and in
    total (write_report on two existing runs)."""
    prof_a, _ = write_profiles(tmp_path)
    prof_b = tmp_path / "fast_c.yaml"
    prof_b.write_text(FAST_A.replace("name: fast_a", "name: fast_c") + "rules:\n  items:\n"
                      "    - {name: sentence, structure: sentence, on: {shape: const, scale: 5000}}\n"
                      "    - {name: document_block, structure: document_block, on: {shape: const, scale: 0}}\n",
                      encoding="utf-8")
    corpus = copy_examples(tmp_path / "corpus", ("regulation_excerpt.md",))
    res = run_ab([str(corpus)], prof_a, str(prof_b), tmp_path / "out", workers=1, progress=False, plots=False)
    b = res.summary["boundaries"]
    assert b["documents_differing"] == 1
    moves = b["documents"][0]["moves"]
    assert set(moves["rules"]) <= {"sentence", "document_block"} and moves["rules"]
    assert b["rules"] == {r: {"moved_cuts": n, "documents": 1} for r, n in moves["rules"].items()}
    html_text = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "Rules behind the moved boundaries" in html_text and "Moved by:" in html_text


class _Page(HTMLParser):
    """Collects table ids, image sources and boundary-view classes of the report."""

    def __init__(self):
        super().__init__()
        self.tables, self.images, self.classes, self.refs = [], [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.tables.append(a.get("id") or a.get("class"))
        if tag == "img":
            self.images.append(a.get("src", ""))
        if a.get("class"):
            self.classes.append(a["class"])
        self.refs += [v for k, v in attrs if k in ("src", "href") and v and not v.startswith(("data:", "#"))]


def test_report_html_is_self_contained_with_tables_plots_and_views(ab):
    page = _Page()
    text = (ab.out / "report.html").read_text(encoding="utf-8")
    page.feed(text)
    assert {"metrics", "outcomes", "selection", "sizes", "documents", "gate", "rules"} <= set(page.tables)
    assert page.tables.count("sbs") == ab.summary["boundaries"]["documents_differing"]
    assert len(page.images) == 3 and not page.refs  # every asset inline
    for src in page.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1]).startswith(b"\x89PNG\r\n\x1a\n")
    assert sorted(p.name for p in (ab.out / "plots").iterdir()) == ["deltas.png", "metrics.png", "sizes.png"]
    assert "cut diff a" in page.classes or "cut diff b" in page.classes
    assert "Content-Security-Policy" in text and "imagesOk" in text


def test_metrics_no_profile_weighs_are_named_as_not_measured(ab, capsys):
    """Metrics neither profile weighs (here rf and the per-cut measures) have no values: the
    report and the command's table name them as not measured instead of showing empty rows."""
    from adachunk.cli.ab_cmd import _print_table
    from adachunk.report._ab_stats import METRICS as AB_METRICS

    unmeasured = [m for m in AB_METRICS if ab.summary["metrics"][m]["mean_a"] is None
                  and ab.summary["metrics"][m]["mean_b"] is None]
    assert "rf" in unmeasured and "sc" not in unmeasured
    text = (ab.out / "report.html").read_text(encoding="utf-8")
    assert f"Not measured: {', '.join(m.upper() for m in unmeasured)} (neither profile weighs them" in text
    _print_table(ab.summary)
    out = capsys.readouterr().out
    assert "not measured (neither profile weighs them in metrics.weights): " in out
    assert not [ln for ln in out.splitlines() if ln.startswith("rf ")]  # no empty row for it


def test_gate_results_are_recorded(ab):
    gate = {g["condition"]: g for g in ab.summary["gate"]}
    assert gate["score < 100"]["holds"] and not gate["sc > 0"]["holds"]  # SC is 100 on both sides
    assert ab.gate_failed


def test_rereport_from_run_folders_is_deterministic(ab, tmp_path):
    runs = [load_run(ab.out / label, label, ab.summary["profiles"][k]["profile"])
            for k, label in (("a", "fast_a"), ("b", "fast_b"))]
    again = write_report(tmp_path, *runs, [parse_metric_condition("score < 100"), parse_metric_condition("sc > 0")])
    assert again == ab.summary
    for name in ("summary.json", "report.html", "plots/metrics.png", "plots/sizes.png", "plots/deltas.png"):
        assert (tmp_path / name).read_bytes() == (ab.out / name).read_bytes(), name


# --- CLI: exit codes ----------------------------------------------------------------------------

@pytest.fixture()
def one_doc(tmp_path) -> tuple[Path, str, str]:
    prof_a, prof_b = write_profiles(tmp_path)
    return copy_examples(tmp_path / "corpus", ("technical_manual_excerpt.md",)), prof_a, prof_b


def test_cli_gate_exit_codes(one_doc, tmp_path, capsys):
    corpus, prof_a, prof_b = one_doc
    base = ["ab", "-p", prof_a, "-p", prof_b, str(corpus), "-j", "1", "-q", "--no-plots"]
    assert main(base + ["--out", str(tmp_path / "o1"), "--fail-if", "score < -1000", "--fail-if", "rc < 0"]) == 0
    assert (tmp_path / "o1" / "report.html").is_file() and (tmp_path / "o1" / "fast_b" / "summary.json").is_file()
    capsys.readouterr()
    assert main(base + ["--out", str(tmp_path / "o2"), "--fail-if", "score < -1000", "--fail-if", "sc>=0"]) == 1
    err = capsys.readouterr().err
    assert "sc >= 0 holds" in err and "score < -1000" not in err


def test_cli_failed_document_exits_2(one_doc, tmp_path, capsys):
    corpus, prof_a, prof_b = one_doc
    (corpus / "broken.md").write_bytes(b"valid start \xff\xfe then garbage")
    code = main(["ab", "-p", prof_a, "-p", prof_b, str(corpus), "--out", str(tmp_path / "o"), "-j", "1", "-q",
                 "--no-plots", "--fail-if", "sc >= 0"])
    assert code == 2  # a failed document outranks the gate
    s = json.loads((tmp_path / "o" / "summary.json").read_text(encoding="utf-8"))
    assert s["documents"]["compared"] == 1 and s["documents"]["failed_a"] == s["documents"]["failed_b"] == 1
    assert "ADA301" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--fail-if", "bi << 1"], ["--fail-if", "foo < 1"], []])
def test_cli_usage_errors_exit_2(argv, tmp_path, capsys):
    extra = ["-p", "default"] if not argv else ["-p", "default", "-p", "darn"]
    with pytest.raises(SystemExit) as exc:
        main(["ab", *extra, str(tmp_path), "--out", str(tmp_path / "o"), *argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert ("METRIC OP NUMBER" in err) if argv else ("exactly twice" in err)


def test_missing_report_extra_is_reported_before_running(monkeypatch, tmp_path, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    code = main(["ab", "-p", "default", "-p", "darn", str(tmp_path), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("ADA223") and "adachunk[report]" in err
    assert not (tmp_path / "o").exists()  # nothing ran


def test_help_documents_the_gate_syntax(capsys):
    with pytest.raises(SystemExit):
        main(["ab", "--help"])
    out = capsys.readouterr().out
    assert "--fail-if" in out and "percentage" in out and "<=" in out and "Exit codes" in out


# --- statistics and helpers on hand-made numbers ------------------------------------------------

def test_wilcoxon_matches_scipy_and_needs_five_nonzero_pairs():
    d = [1.5, -0.5, 2.0, 0.0, 3.25, 0.75, -1.0, 0.0, 2.5]
    expected = wilcoxon(d, zero_method="zsplit").pvalue
    assert wilcoxon_p(d) == pytest.approx(expected, abs=1e-6)
    assert 0.0 <= wilcoxon_p(d) <= 1.0
    assert wilcoxon_p([1.0, 2.0, -1.0, 0.0, 0.0, 0.0, 3.0]) is None  # 4 non-zero pairs
    assert wilcoxon_p([0.0] * 10) is None
    assert wilcoxon_p([1.0, 2.0, 3.0, 4.0, 5.0]) == pytest.approx(wilcoxon([1, 2, 3, 4, 5]).pvalue)


def test_bootstrap_is_deterministic_and_brackets_the_mean():
    d = [0.5, -1.0, 2.0, 1.5, 0.0, 3.0, -0.5]
    ci = bootstrap_ci(d)
    assert ci == bootstrap_ci(list(d)) and ci[0] < np.mean(d) < ci[1]
    assert bootstrap_ci(d, seed=1) != ci  # the seed, not chance, fixes the interval
    assert bootstrap_ci([2.0, 2.0, 2.0]) == [2.0, 2.0]
    assert bootstrap_ci([]) is None
    wide, narrow = bootstrap_ci(d, level=0.99), bootstrap_ci(d, level=0.5)
    assert wide[0] <= ci[0] <= narrow[0] <= narrow[1] <= ci[1] <= wide[1]


def test_compare_metric_pairs_only_defined_values():
    a, b = [50.0, None, 70.0, 80.0], [55.0, 60.0, None, 79.0]
    assert paired_deltas(a, b) == [5.0, -1.0]
    rec = compare_metric(a, b)
    assert rec["n"] == 2 and rec["delta"] == 2.0 and rec["mean_a"] == pytest.approx(66.6667, abs=1e-4)
    assert rec["mean_b"] == pytest.approx(64.6667, abs=1e-4) and rec["p_value"] is None
    assert (rec["b_higher"], rec["a_higher"], rec["nonzero"]) == (1, 1, 2)
    assert compare_metric([None], [None])["delta"] is None


def test_outcome_distribution_and_cut_difference():
    assert [outcome(0.5, 0.6), outcome(0.6, 0.5), outcome(0.5, 0.5), outcome(None, 0.5)] == [
        "b_better", "a_better", "tie", "not_comparable"]
    dist = distribution(list(range(1, 11)))
    assert dist == {"count": 10, "mean": 5.5, "median": 5.5, "p10": 1.9, "p90": 9.1, "min": 1, "max": 10}
    assert distribution([]) == {"count": 0}
    assert cut_difference([10, 20, 30], [20, 35]) == {"only_a": [10, 30], "only_b": [35], "differing_cuts": 3,
                                                       "shared_cuts": 1}


def test_labels_conditions_and_gate():
    assert side_labels("default", "profiles/legal.yaml") == ("default", "legal")
    assert side_labels("x/fast.yaml", "y/fast.yaml") == ("fast_A", "fast_B")
    assert side_labels("plots", "a b.yml") == ("plots_", "a_b")
    c = parse_metric_condition(" bi<-0.5 ")
    assert (c.metric, c.op, c.threshold, str(c)) == ("bi", "<", -0.5, "bi < -0.5")
    for bad in ("bi < x", "bi = 1", "xx < 1", "bi < 1 2"):
        with pytest.raises(ValueError, match="METRIC OP NUMBER"):
            parse_metric_condition(bad)
    summary = {"metrics": {"bi": {"delta": -0.6}, "rc": {"delta": None}, "score": {"delta": 0.0}}}
    conds = [parse_metric_condition(x) for x in ("bi < -0.5", "bi <= -0.7", "rc < 100", "score >= 0", "score > 0")]
    assert [g["holds"] for g in check_metric_gate(summary, conds)] == [True, False, False, True, False]


# --- the side-by-side boundary view -------------------------------------------------------------

def test_boundary_view_escapes_text_and_marks_cuts():
    text = "# Title <b>\n\nA & B <script>alert(1)</script>\n\nLast line."
    html_text = render_boundaries(text, [13, 50], [13, 15], "a<x>", "b")
    assert "<script>" not in html_text and "&lt;script&gt;" in html_text and "A &amp; B" in html_text
    assert "a&lt;x&gt;" in html_text
    assert html_text.count('class="cut same"') == 2  # the shared cut, once per column
    assert html_text.count('class="cut diff a"') == 1 and html_text.count('class="cut diff b"') == 1
    assert html_text.count('<td class="ln">') == 5  # short document: every line, numbered


def test_boundary_view_of_long_document_shows_windows_with_line_numbers():
    lines = [f"line {i} " + "word " * 10 for i in range(1, 301)]
    text = "\n".join(lines) + "\n"
    starts = np.cumsum([0] + [len(x) + 1 for x in lines])
    cut = int(starts[149])  # start of line 150, only in B
    html_text = render_boundaries(text, [int(starts[9])], [int(starts[9]), cut], "A", "B")
    assert 'class="changed"><td class="ln">150</td>' in html_text
    assert '<td class="ln">149</td>' in html_text and '<td class="ln">151</td>' in html_text
    assert '<td class="ln">148</td>' not in html_text and '<td class="ln">10</td>' not in html_text
    assert "lines 1–148 without differing cuts" in html_text and "lines 152–300" in html_text
    long_line = "x" * 5000 + "CUT" + "y" * 5000
    view = render_boundaries(long_line, [5000], [], "A", "B")
    assert len(view) < 3000 and view.count("…") >= 2 and "CUT" in view  # only a window of the line
