"""The tools of rankings and of judges on generated answers: compare (tests, corrections,
intervals) equals the statistics of the runs' evaluated Results; the leaderboards under two
judges' nugget assignments; prediction-powered inference from a human sample and an LLM's
assignments; agreement of two judges' assignments; discriminative power and topic-set size
from RAG Results; the example data."""

from __future__ import annotations

import math
import random
import warnings
from typing import Any

import numpy as np
import pytest
from scipy import stats as scipy_stats

import ranklens
from ranklens import InputWarning, OptionError
from ranklens.analysis.comparison import compare_results
from ranklens.data.rag.example import example_records

MEASURES = [
    "NuggetVitalStrict",
    "NuggetAll",
    "SupportPrecision",
    "EM",
    "F1",
    "ROUGE-L(stem=False)",
    "CitedSentences",
]


def _example() -> tuple[Any, dict[str, Any]]:
    records = example_records()
    judgments = ranklens.rag.judgments(
        gold=records["gold"],
        nuggets=records["nuggets"],
        assignments=records["assignments"],
        support=records["support"],
    )
    return judgments, records["runs"]


@pytest.mark.parametrize("test", ["t", "sign", "randomization", "bootstrap"])
def test_compare_equals_the_statistics_of_the_evaluated_runs(test: str) -> None:
    judgments, runs = _example()
    cmp = ranklens.compare(judgments, runs, MEASURES, test=test, permutations=500)
    evaluated = ranklens.evaluate(judgments, runs, MEASURES)
    direct = compare_results(list(evaluated), test=test, permutations=500)
    assert cmp.runs == ("baseline", "better", "terse") and cmp.measures == direct.measures
    assert cmp.means == direct.means
    for run in ("better", "terse"):
        for m in cmp.measures:
            assert cmp.vs_baseline[run][m] == direct.vs_baseline[run][m]
    assert cmp.results[1].per_query == evaluated["better"].per_query
    with pytest.raises(OptionError, match="not answers"):
        ranklens.compare(judgments, runs, MEASURES, bounds=True)


def _perturbed(records: list[dict[str, Any]], rate: float, seed: int) -> list[dict[str, Any]]:
    """Another judge: each assignment changed with probability ``rate``."""
    rnd = random.Random(seed)
    labels = ["support", "partial_support", "not_support"]
    return [
        {
            **r,
            "nuggets": [
                {**n, "assignment": rnd.choice(labels) if rnd.random() < rate else n["assignment"]}
                for n in r["nuggets"]
            ],
        }
        for r in records
    ]


def test_leaderboards_under_two_judges() -> None:
    records = example_records()
    human = records["assignments"]
    llm = _perturbed(human, 0.3, 1)
    measures = ["NuggetVitalStrict", "NuggetAll"]
    boards = ranklens.leaderboard_agreement(human, llm, records["runs"], measures)
    set_a = ranklens.evaluate(human, records["runs"], measures)
    set_b = ranklens.evaluate(llm, records["runs"], measures)
    direct = ranklens.leaderboard_agreement(set_a, set_b)
    for m in measures:
        assert boards[m].order_a == direct[m].order_a and boards[m].order_b == direct[m].order_b
        assert dict(boards[m]) == dict(direct[m])
        assert boards[m].scores_a == {r: set_a[r].aggregate[m] for r in set_a.runs}


def test_ppi_from_a_human_sample_and_llm_assignments() -> None:
    records = example_records()
    llm = [r for r in records["assignments"] if r["run_id"] == "better"]
    sample = sorted(random.Random(5).sample([r["qid"] for r in llm], 6))
    human = [r for r in _perturbed(llm, 0.4, 2) if r["qid"] in sample]
    run = records["runs"]["better"]
    est = ranklens.ppi_mean(human, llm, run, "NuggetAll")
    f = ranklens.evaluate(llm, run, ["NuggetAll"]).query_values("NuggetAll")
    y = ranklens.evaluate(human, run, ["NuggetAll"]).query_values("NuggetAll")
    assert sorted(y) == sample and est.n_labeled == 6 and est.n_unlabeled == 6
    # the estimate of the module's formula, from the per-topic values
    f_u = np.array([v for q, v in f.items() if q not in y])
    residual = np.array([y[q] - f[q] for q in sample])
    theta = f_u.mean() + residual.mean()
    # the LLM's variance over every query, a Welch t quantile (ranklens.analysis.ppi)
    f_all = np.array(list(f.values()))
    a, b = residual.var(ddof=1) / residual.size, f_all.var(ddof=1) / f_u.size
    welch = (a + b) ** 2 / (a**2 / (residual.size - 1) + b**2 / (f_all.size - 1))
    half = float(scipy_stats.t.ppf(0.975, welch)) * math.sqrt(a + b)
    assert est.estimate == pytest.approx(theta, abs=1e-12)
    assert est.high - est.low == pytest.approx(2 * half, rel=1e-9)


def test_agreement_of_two_judges_assignments() -> None:
    sklearn = pytest.importorskip("sklearn.metrics")
    human = example_records()["assignments"]
    llm = _perturbed(human, 0.3, 7)
    a = ranklens.rag.assignment_qrels(human)
    b = ranklens.rag.assignment_qrels(llm)
    agreement = ranklens.agreement(a, b)
    grade = {"support": 2, "partial_support": 1, "not_support": 0}
    x = [grade[n["assignment"]] for r in human for n in r["nuggets"]]
    z = [grade[n["assignment"]] for r in llm for n in r["nuggets"]]
    assert agreement.pairs == len(x) and agreement.only_a == agreement.only_b == 0
    assert agreement["kappa"] == pytest.approx(sklearn.cohen_kappa_score(x, z), abs=1e-12)
    assert a.qids[0].startswith("baseline/")
    one = ranklens.rag.assignment_qrels(human, run="terse")
    assert one.qids[0] == "q01"


def test_assignment_qrels_unknown_labels_and_repeated_texts() -> None:
    records = [
        {
            "qid": "q1",
            "nuggets": [
                {"text": "a", "importance": "vital", "assignment": "support"},
                {"text": "a", "importance": "okay", "assignment": "failed"},
                {"text": "b", "importance": "okay", "assignment": "partial_support"},
            ],
        }
    ]
    assert ranklens.rag.assignment_qrels(records).to_dict() == {"q1": {"a": 2, "a #2": 0, "b": 1}}
    assert ranklens.rag.assignment_qrels(records, unknown="ignore").to_dict() == {
        "q1": {"a": 2, "b": 1}
    }
    with pytest.raises(ranklens.InputError, match="the label 'failed'"):
        ranklens.rag.assignment_qrels(records, unknown="error")


def test_discriminative_power_and_topic_set_size_from_rag_results() -> None:
    judgments, runs = _example()
    results = list(ranklens.evaluate(judgments, runs, ["NuggetAll", "EM"]))
    power = ranklens.discriminative_power(results, resamples=200)
    assert set(power.measures) == {"NuggetAll", "EM"}
    variance = ranklens.variance_from(results, "NuggetAll")
    assert variance > 0
    assert ranklens.topic_set_size(0.1, variance) >= 2


def test_results_of_answers_save_and_load(tmp_path: Any) -> None:
    judgments, runs = _example()
    res = ranklens.evaluate(judgments, runs["terse"], ["NuggetVital", "EM", "ROUGE-L"])
    path = tmp_path / "r.jsonl"
    res.to_jsonl(path)
    back = ranklens.Results.from_jsonl(path)
    assert back.names == res.names and back.values.tolist() == res.values.tolist()


def test_the_example_is_what_the_docs_say() -> None:
    records = example_records()
    assert list(records["runs"]) == ["baseline", "better", "terse"]
    assert all(len(lines) == 12 for lines in records["runs"].values())
    judgments, runs = _example()
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputWarning)  # no label outside the sets
        means = ranklens.evaluate(judgments, runs, ["NuggetAll"]).aggregate
    assert means["better"]["NuggetAll"] > means["baseline"]["NuggetAll"]


EXPLAINED = [
    "NuggetWeighted",
    "NuggetVitalStrict(unknown='ignore')",
    "SupportPrecision",
    "SupportRecall",
    "EM",
    "F1",
    "ROUGE-L(stat='p')",
    "DanglingCitations",
    "CitedSentences",
]


def test_worked_computations_give_the_values_of_evaluate() -> None:
    from ranklens.presentation.explanation.answers import explain_topics

    judgments, runs = _example()
    for name, run in runs.items():
        res = ranklens.evaluate(judgments, run, EXPLAINED)
        worked = explain_topics(judgments, run, list(res.queries), EXPLAINED)
        for topic, explanations in worked.items():
            assert [ex.measure for ex in explanations] == res.names
            for ex in explanations:
                assert ex.value == res.per_query[topic][ex.measure], (name, topic, ex.measure)
                if ex.family == "nuggets":  # the table adds up to the value
                    earned = sum(ex.column("weight x credit"))
                    possible = sum(ex.column("weight"))
                    assert ex.value == (earned / possible if possible else 0.0)
                if ex.measure == "SupportPrecision":
                    judged = [
                        w for w, j in zip(ex.column("w"), ex.column("judged"), strict=True) if j
                    ]
                    assert ex.value == (sum(judged) / len(judged) if judged else 0.0)


def test_explain_takes_the_measures_of_answers() -> None:
    ex = ranklens.explain({"q1": ["Paris", "in Paris"]}, {"q1": "It is Paris."}, "q1", "F1")
    # tokens 'it is paris': against 'paris' P = 1/3, R = 1; against 'in paris' P = 1/3, R = 1/2
    assert ex.measure == "F1" and ex.family == "gold" and ex.value == 0.5
    worked = ranklens.explain(
        {"q1": ["Paris", "in Paris"]}, {"q1": "It is Paris."}, "q1", "TokenF1"
    )
    assert worked.value == 0.5 and worked.column("score") == [0.5, pytest.approx(0.4)]
    with pytest.raises(OptionError, match="topic 'q9' is not evaluated"):
        ranklens.explain({"q1": ["Paris"]}, {"q1": "Paris"}, "q9", "EM")
