"""ranx's metric names and lower-case spellings resolve to the ranklens measure with ranx's
value (differential test against ranx on generated data without tied scores)."""

from __future__ import annotations

import numpy as np
import pytest

import ranklens
from ranklens.base.errors import MeasureError
from ranklens.measures import parse_measure

ranx = pytest.importorskip("ranx")
pytestmark = pytest.mark.filterwarnings("ignore:unsafe cast:Warning")  # numba, inside ranx

NAMES = [
    "ndcg@10",
    "ndcg@3",
    "map@100",
    "map",
    "mrr@10",
    "mrr",
    "recall@100",
    "recall@5",
    "precision@10",
    "precision@3",
    "hit_rate@10",
    "hit_rate@2",
    "hits@10",
    "hits@4",
    "f1@10",
    "f1@3",
    "r-precision",
    "dcg@10",
    "dcg_burges@5",
    "ndcg_burges@10",
    "rbp.8",
    "rbp.95",
    "map@10-l2",
    "precision@5-l2",
    "recall@10-l3",
]


def _data(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(40):
        docs = [f"d{i}" for i in rng.choice(200, 60, replace=False)]
        judged = docs[: int(rng.integers(1, 30))]
        qrels[f"q{q}"] = {d: int(rng.choice([0, 0, 1, 2, 3])) for d in judged}
        if q % 7 == 0:  # a query without relevant documents
            qrels[f"q{q}"] = {d: 0 for d in judged}
        retrieved = rng.permutation(docs)[: int(rng.integers(1, 50))]
        scores = rng.permutation(len(retrieved)) + rng.random()  # distinct: no ties
        run[f"q{q}"] = {str(d): float(s) for d, s in zip(retrieved, scores, strict=True)}
    return qrels, run


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ranx_names_give_ranx_values(seed: int) -> None:
    qrels, run = _data(seed)
    ours = ranklens.evaluate(qrels, run, NAMES)
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), NAMES, make_comparable=True)
    for name, measure in zip(NAMES, ours.measures, strict=True):
        assert ours[measure] == pytest.approx(theirs[name], abs=1e-9), (name, measure.name)


def test_bpref_is_trec_evals() -> None:
    # ranx's bpref disagrees with trec_eval's on graded qrels (it is not the measure of
    # Buckley & Voorhees); the name keeps trec_eval's measure, documented in conventions.md
    qrels, run = _data(0)
    assert parse_measure("bpref").name == "Bpref"
    assert ranklens.evaluate(qrels, run, ["bpref"]).aggregate == ranklens.evaluate(
        qrels, run, ["Bpref"]
    ).aggregate


def test_the_names_users_type() -> None:
    expected = {
        "ndcg@10": "nDCG@10",
        "map@100": "AP@100",
        "mrr@10": "RR@10",
        "recall@100": "R@100",
        "precision@10": "P@10",
        "hit_rate@10": "Success@10",
        "hits@10": "Hits@10",
        "f1@10": "F1@10",
        "r-precision": "Rprec",
        "bpref": "Bpref",
        "dcg@10": "DCG@10",
        "ndcg_burges@10": "nDCG(dcg='exp-log2')@10",
        "rbp.9": "RBP(gain='raw',p=0.9)",
        "NDCG@10": "nDCG@10",
        "Precision@5": "P@5",
    }
    assert {k: parse_measure(k).name for k in expected} == expected


def test_unknown_names_suggest_both_languages_without_repeats() -> None:
    with pytest.raises(MeasureError, match=r"did you mean 'ndcg_cut\.10' or 'nDCG@10'\?"):
        parse_measure("ndcg_cut10")
    with pytest.raises(MeasureError, match=r"did you mean 'P\.5' or 'P@5'\?"):
        parse_measure("P5")
    for wrong in ("ndcgg@10", "mapp", "recal@5", "precison@3"):
        with pytest.raises(MeasureError) as info:
            parse_measure(wrong)
        offered = info.value.args[0].split("did you mean ")[1].split("?")[0].split(" or ")
        assert len(offered) == len(set(offered)) > 0


def test_ranx_relevance_level_on_gains_is_refused_with_the_spelling_to_use() -> None:
    with pytest.raises(MeasureError, match="gains="):
        parse_measure("ndcg@10-l2")


def test_measures_command_says_what_a_peer_name_means(capsys) -> None:
    from ranklens.cli import main

    assert main(["measures", "hits@10"]) == 0
    out = capsys.readouterr().out
    assert "Hits" in out and "ranx" in out
