"""``adachunk.evaluate``: measures, budget, RRF, statistics and the gate, on hand-computed cases."""

from __future__ import annotations

import math

import pytest

from adachunk.evaluate import (Budget, check_measure_gate, evaluate_chunks, paired_delta, parse_budget,
                               parse_measure_condition, prob_best, questions_needed, rrf, selection, tokenize)
from adachunk.retrieval.measures import covered_chars, question_measures, take
from adachunk.evaluate.qa import QASet, Question
from adachunk.datatypes import Chunk

from .conftest import EXAMPLES

# Chunk table: c0 [0,10) 10 tokens, c1 [10,20) 10, c2 [20,40) 20 in document 0; c3 [0,10) in document 1.
DOC = [0, 0, 0, 1]
STARTS, ENDS, TOKENS = [0, 10, 20, 0], [10, 20, 40, 10], [10, 10, 20, 10]


def measures(evidence, ranking, ks=(1, 2, 3), budget=None):
    return question_measures(evidence, 0, ranking, DOC, STARTS, ENDS, TOKENS, ks, budget)


def test_recall_mrr_and_coverage_single_span():
    row = measures([((12, 18),)], [3, 0, 1, 2])  # c3 is another document: never evidence
    assert [row["recall@1"], row["recall@2"], row["recall@3"]] == [0, 0, 1]
    assert row["mrr"] == pytest.approx(1 / 3) and row["rank"] == 3
    assert row["coverage@3"] == 1.0 and row["coverage@2"] == 0.0
    assert [row["tokens@1"], row["tokens@2"], row["tokens@3"]] == [10, 20, 30]


def test_coverage_and_span_recall_of_two_spans():
    row = measures([((5, 10), (15, 25))], [2, 0], ks=(1, 2))  # 15 evidence characters
    assert row["recall@1"] == 1 and row["span_recall@1"] == 0.5
    assert row["coverage@1"] == pytest.approx(5 / 15)  # c2 holds 20..25
    assert row["coverage@2"] == pytest.approx(10 / 15) and row["span_recall@2"] == 1.0  # + c0 holds 5..10
    assert row["mrr"] == 1.0


def test_alternatives_take_the_best_occurrence():
    row = measures([((0, 4),), ((30, 34),)], [2], ks=(1,))  # answer found twice; c2 holds the second
    assert row["recall@1"] == 1 and row["coverage@1"] == 1.0


def test_no_hit_gives_zero_mrr_and_none_rank():
    row = measures([((12, 18),)], [0, 2], ks=(1, 2))
    assert row["mrr"] == 0.0 and row["rank"] is None and row["recall@2"] == 0


def test_budget_truncates_the_chunk_that_does_not_fit_and_drops_the_rest():
    # ranking c2 (20 tokens), c0 (10), c1 (10) under 25 tokens: c2 whole, c0 cut to 5 of its 10 tokens
    # -> its first 10 * 5 // 10 = 5 characters [0, 5); c1 is dropped.
    assert take([2, 0, 1], STARTS, ENDS, TOKENS, 3, 25) == [(2, 20, 40, 20), (0, 0, 5, 5)]
    assert take([2, 0, 1], STARTS, ENDS, TOKENS, 3, None) == [(2, 20, 40, 20), (0, 0, 10, 10), (1, 10, 20, 10)]
    # a first chunk larger than the whole budget is cut to it: 20 * 8 // 20 = 8 characters
    assert take([2], STARTS, ENDS, TOKENS, 1, 8) == [(2, 20, 28, 8)]
    row = measures([((5, 10),)], [2, 0, 1], ks=(3,), budget=Budget(25))
    assert row["recall@3"] == 0 and row["coverage@3"] == 0.0 and row["tokens@3"] == 25
    row = measures([((2, 4),)], [2, 0, 1], ks=(3,), budget=Budget(25))
    assert row["recall@3"] == 1 and row["rank"] == 2


def test_budget_per_k_and_parsing():
    assert parse_budget("512*k") == Budget(512, True) and parse_budget("512k") == Budget(512, True)
    assert parse_budget("2048") == Budget(2048) and parse_budget(100) == Budget(100) and parse_budget(None) is None
    assert Budget(512, True).at(3) == 1536 and Budget(512).at(3) == 512
    for bad in ("0", "-5", "lots", "5*j"):
        with pytest.raises(ValueError):
            parse_budget(bad)
    # 10 tokens at k=1, 30 at k=3: c0, c1 and the first 10 of c2's 20 characters [20, 30)
    row = measures([((20, 40),)], [0, 1, 2], ks=(1, 3), budget=Budget(10, per_k=True))
    assert row["tokens@1"] == 10 and row["tokens@3"] == 30 and row["coverage@3"] == pytest.approx(0.5)


def test_covered_chars_counts_overlapping_chunks_once():
    assert covered_chars([(0, 10)], [(0, 6), (4, 8), (20, 30)]) == 8


def test_rrf_order_hand_computed():
    # k=60: d0 1/61+1/62, d2 1/63+1/61, d1 1/62+1/63 -> 0, 2, 1 (k=1 gives the same order)
    assert rrf([[0, 1, 2], [2, 0, 1]], k=60).tolist() == [0, 2, 1]
    assert rrf([[0, 1, 2], [2, 0, 1]], k=1).tolist() == [0, 2, 1]
    assert rrf([[0, 1], [1, 0]]).tolist() == [0, 1]  # a tie breaks by number
    assert rrf([[1], [0]]).tolist() == [0, 1] and rrf([[3, 1], [1]], top=1).tolist() == [1]


def test_paired_bootstrap_is_deterministic_with_a_seed():
    a = [0, 1, 0, 1, 1, 0, 0, 1, 0, 0]
    b = [1, 1, 0, 1, 1, 1, 0, 1, 1, 0]
    r1, r2 = paired_delta(a, b, 1000, seed=7), paired_delta(a, b, 1000, seed=7)
    assert r1 == r2 and r1["delta"] == pytest.approx(0.3) and r1["n"] == 10
    assert r1["ci95"][0] <= 0.3 <= r1["ci95"][1]
    assert paired_delta([0] * 5, [1] * 5)["ci95"] == [1.0, 1.0]
    with pytest.raises(ValueError):
        paired_delta([0, 1], [1])


def test_questions_needed_formula():
    # n >= (1.96 sd / d)^2: (1.959964 * 0.5 / 0.1)^2 = 96.04 -> 97
    assert questions_needed(0.1, 0.5) == 97
    assert 1.959964 * 0.5 / math.sqrt(97) < 0.1 < 1.959964 * 0.5 / math.sqrt(96)
    assert questions_needed(-0.1, 0.5) == 97 and questions_needed(0.0, 0.5) is None and questions_needed(0.2, 0) == 1


def test_probability_of_best_and_selection_on_a_clear_case():
    assert prob_best([[1] * 20, [0] * 20]) == [1.0, 0.0]
    assert prob_best([[1, 0] * 5, [1, 0] * 5]) == [0.5, 0.5]  # ties share
    mixed = [1, 0] * 10
    sel = selection(["a", "b", "c"], [[1] * 20, [0] * 20, mixed], n_boot=500, seed=1)
    opts = {o["label"]: o for o in sel["options"]}
    assert sel["leader"] == "a" and opts["a"]["p_best"] == 1.0 and not opts["a"]["ruled_out"]
    assert opts["b"]["ruled_out"] and opts["b"]["delta_vs_leader"] == -1.0 and opts["b"]["more_questions"] == 0
    assert opts["c"]["ruled_out"] and opts["c"]["ci95"][1] < 0
    assert sel == selection(["a", "b", "c"], [[1] * 20, [0] * 20, mixed], n_boot=500, seed=1)


def test_selection_estimates_more_questions_for_an_unsettled_delta():
    a = [1, 0, 1, 1, 0, 1, 0, 1, 1, 0]
    b = [1, 0, 1, 0, 0, 1, 0, 1, 1, 0]  # one question lost: delta -0.1, sd of the differences sqrt(0.1)
    opt = selection(["a", "b"], [a, b], n_boot=500)["options"][1]
    assert not opt["ruled_out"] and 0.1 < opt["p_best"] < 0.3  # no resample has b ahead; ties share
    # (1.959964 * 0.316228 / 0.1)^2 = 38.4 -> 39 questions, 29 more than the 10 observed
    assert opt["questions_needed"] == questions_needed(-0.1, math.sqrt(0.1)) == 39 and opt["more_questions"] == 29


def test_gate_conditions():
    c = parse_measure_condition("recall@5 < 0.8")
    assert (c.measure, c.op, c.threshold, c.delta, c.retriever) == ("recall@5", "<", 0.8, False, None)
    d = parse_measure_condition(" delta hybrid/coverage@3 >= -0.05 ")
    assert d.delta and d.retriever == "hybrid" and str(d) == "delta hybrid/coverage@3 >= -0.05"
    for bad in ("recall < 1", "bi < 0", "recall@5 = 1", "delta mrr <"):
        with pytest.raises(ValueError):
            parse_measure_condition(bad)
    report = {"chunkings": [{"label": "A"}, {"label": "B"}],
              "results": {"bm25": {"A": {"recall@5": 0.7, "mrr": 0.5}, "B": {"recall@5": 0.9, "mrr": 0.4}}},
              "comparisons": {"bm25": {"deltas": {"B": {"recall@5": {"delta": 0.2}, "mrr": {"delta": -0.1}}}}}}
    got = check_measure_gate(report, [c, parse_measure_condition("delta mrr < 0"), parse_measure_condition("delta recall@5 < 0")])
    assert [g["holds"] for g in got] == [True, True, False]
    with pytest.raises(ValueError):
        check_measure_gate(report, [parse_measure_condition("recall@3 < 1")])
    with pytest.raises(ValueError):
        check_measure_gate(report, [parse_measure_condition("dense/mrr < 1")])


def test_tokenize_keeps_figures_and_drops_stop_words():
    assert tokenize("What was the Revenue of €412,860 (9.7%)?") == ["revenue", "412,860", "9.7"]


def _chunks(doc_id: str, text: str, cuts: list[int]) -> list[Chunk]:
    bounds = [0] + cuts + [len(text)]
    return [Chunk(i, s, e, text[s:e], e - s, len(text[s:e].split()), id=f"{doc_id}{i}")
            for i, (s, e) in enumerate(zip(bounds, bounds[1:]))]


def test_evaluate_chunks_bm25_scopes_and_rows():
    t1 = "Apples are red fruit. Bananas are yellow fruit. Cherries grow on trees in summer."
    t2 = "Cars have wheels. Bicycles have pedals and chains."
    chunks = {"d1": _chunks("d1", t1, [22, 48]), "d2": _chunks("d2", t2, [18])}
    q = [Question("q1", "yellow bananas", "d1", (((t1.index("Bananas"), t1.index("Bananas") + 22),),)),
         Question("q2", "pedals chains", "d2", (((t2.index("Bicycles"), len(t2)),),)),
         Question("q3", "summer trees", "d1", (((t1.index("Cherries"), len(t1)),),))]
    qa = QASet(q)
    res = evaluate_chunks(chunks, qa, "bm25", ks=(1, 2))
    assert res.summary["recall@1"] == 1.0 and res.summary["mrr"] == 1.0 and res.summary["questions"] == 3
    assert [r["id"] for r in res.per_question] == ["q1", "q2", "q3"] and res.summary["chunks"] == 5
    doc = evaluate_chunks(chunks, qa, "bm25", ks=(1,), scope="doc")
    assert doc.summary["recall@1"] == 1.0 and doc.settings["scope"] == "doc"
    missing = evaluate_chunks({"d1": chunks["d1"]}, qa, "bm25", ks=(1,))  # d2 unchunked: its question misses
    assert missing.per_question[1]["recall@1"] == 0 and missing.summary["recall@1"] == pytest.approx(2 / 3)
    dense = evaluate_chunks(chunks, qa, "dense", ks=(1, 2), embedder={"type": "hash.v1"})
    hybrid = evaluate_chunks(chunks, qa, "hybrid", ks=(1, 2), embedder={"type": "hash.v1"}, rrf_k=10)
    assert dense.summary["recall@2"] == 1.0 and hybrid.summary["recall@2"] == 1.0
    with pytest.raises(ValueError):
        evaluate_chunks(chunks, qa, "tfidf")
    with pytest.raises(ValueError):
        evaluate_chunks(chunks, qa, "bm25", ks=(0,))


def test_span_tokens_equal_tokenising_each_span():
    import random

    from adachunk.retrieval.retrievers import span_tokens

    text = "".join(p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.glob("*.md")))
    text += " Straße 412,860.5 a_b ab12 x.12 9.7% «ﬁn» "
    rng = random.Random(0)
    spans = [tuple(sorted(rng.sample(range(len(text) + 1), 2))) for _ in range(400)]
    spans += [(0, len(text)), (5, 5), (len(text) - 40, len(text))]
    assert span_tokens(text, spans) == [tokenize(text[s:e]) for s, e in spans]


def test_index_text_with_heading_path():
    t = "Cars have wheels and seats. Bicycles have pedals and chains."
    c0 = Chunk(0, 0, 28, t[:28], 5, 5, heading_path=("Zeppelins",))
    c1 = Chunk(1, 28, len(t), t[28:], 5, 5, heading_path=("Bicycles",))
    qa = QASet([Question("q", "zeppelins", "d", (((0, 10),),))])
    plain = evaluate_chunks({"d": [c1, c0]}, qa, ks=(1,))
    headed = evaluate_chunks({"d": [c1, c0]}, qa, ks=(1,), index_text="heading_path+text")
    assert plain.summary["recall@1"] == 0.0 and headed.summary["recall@1"] == 1.0


def test_cluster_bootstrap_resamples_whole_documents():
    """Hand-checkable: with two documents, every resample's mean is one of the means of
    {A,A}, {A,B}, {B,B}; questions resampled alone give many more distinct means."""
    import numpy as np

    from adachunk.evaluate.stats import paired_delta, resampled_means

    d = np.array([[1.0, 1.0, 1.0, 0.0]])  # document A: three questions at 1; document B: one at 0
    groups = ["A", "A", "A", "B"]
    means = resampled_means(d, 500, 0, groups)[0]
    assert set(np.round(means, 6)) <= {1.0, 0.75, 0.0}  # AA: 6/6, AB: 3/4, BB: 0/2
    assert len(set(np.round(resampled_means(d, 500, 0)[0], 6))) > 3
    # all questions of a document agree → the cluster CI is wider than the question CI
    a, b = [0.0] * 12, [1.0] * 6 + [0.0] * 6
    docs = ["x"] * 6 + ["y"] * 6
    per_q = paired_delta(a, b, 2000, 0)
    per_doc = paired_delta(a, b, 2000, 0, groups=docs)
    assert per_q["delta"] == per_doc["delta"] == 0.5
    assert per_doc["ci95"][1] - per_doc["ci95"][0] > per_q["ci95"][1] - per_q["ci95"][0]
