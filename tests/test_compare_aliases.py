"""Every measure-keyed accessor of a comparison answers to every spelling of its measures
that ``Results`` answers to (issue 35, item 12): ``stats``, ``significant``, ``beats``,
``vs_baseline``, ``pairs``, ``means``, ``higher_is_better``, ``tukey``, ``flips`` and
``DiscriminativePower``'s ``power`` and ``required_difference``.

The spellings are checked first against ``Results`` (the reference: what it accepts, the
comparison must too), on generated runs with ties, graded and negative labels, unjudged
documents, queries without relevant documents and queries missing from one side.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from compat_data import generated as one_block
from ranklens.base.errors import OptionError

pytestmark = pytest.mark.filterwarnings("ignore::ranklens.InputWarning")  # missing queries

MEASURES = ["RR", "nDCG@10", "AP", "P@5", "R@5"]
SPELLINGS = {
    "RR": ["RR", "MRR", "mrr", "recip_rank", "RR(rel=1)"],
    "nDCG@10": ["nDCG@10", "NDCG@10", "ndcg_cut.10", "ndcg_cut_10"],
    "AP": ["AP", "MAP", "map"],
    "P@5": ["P@5", "P.5", "P_5"],
    "R@5": ["R@5", "Recall@5", "recall.5"],
}


def generated(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, Any]]]:
    """Four blocks of compat_data's awkward data, as one qrels and one run."""
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, Any]] = {}
    for block in range(4):
        q, r = one_block(1000 * seed + block)
        qrels.update({f"b{block}{k}": v for k, v in q.items()})
        run.update({f"b{block}{k}": v for k, v in r.items()})
    return qrels, run


def _comparison(seed: int, **options: Any) -> tuple[Any, dict[str, Any]]:
    qrels, run_a = generated(seed)
    _, run_b = generated(seed + 100)  # the same query ids, other rankings
    _, run_c = generated(seed + 200)
    runs = {"a": run_a, "b": run_b, "c": run_c}
    cmp = ranklens.compare(
        qrels, runs, MEASURES, all_pairs=True, permutations=200, seed=seed, **options
    )
    return cmp, runs


@pytest.fixture(scope="module")
def compared() -> Any:
    return _comparison(7)[0]


def test_the_spellings_are_those_results_accepts(compared: Any) -> None:
    res = compared.results[0]
    for canonical, spellings in SPELLINGS.items():
        for spelled in spellings:
            assert res[spelled] == res[canonical], spelled


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(MEASURES).flatmap(
        lambda m: st.tuples(st.just(m), st.sampled_from(SPELLINGS[m]))
    )
)
def test_every_accessor_answers_to_every_spelling(compared: Any, case: tuple[str, str]) -> None:
    canonical, spelled = case
    cmp = compared
    assert cmp.stats("b", spelled) == cmp.stats("b", canonical)
    assert cmp.stats("c", spelled, against="b") == cmp.stats("c", canonical, against="b")
    assert cmp.stats("a", spelled, against="c") == cmp.stats("a", canonical, against="c")
    assert cmp.significant("c", spelled) == cmp.significant("c", canonical)
    assert cmp.beats("b", spelled) == cmp.beats("b", canonical)
    assert cmp.vs_baseline["b"][spelled] == cmp.vs_baseline["b"][canonical]
    assert cmp.pairs[("b", "c")][spelled] == cmp.pairs[("b", "c")][canonical]
    assert cmp.means["a"][spelled] == cmp.means["a"][canonical]
    assert spelled in cmp.means["c"] and cmp.means["c"].get(spelled) == cmp.means["c"][canonical]
    assert cmp.higher_is_better[spelled] is cmp.higher_is_better[canonical]
    assert cmp.tukey[spelled] is cmp.tukey[canonical]
    measure = ranklens.parse_measure(spelled)  # a Measure works as well as its name
    assert cmp.stats("b", measure) == cmp.stats("b", canonical)


def test_the_mappings_are_still_the_plain_dicts_they_were(compared: Any) -> None:
    cmp = compared
    assert list(cmp.means["a"]) == MEASURES  # keys stay canonical, in order
    assert cmp.means["a"] == {m: cmp.means["a"][m] for m in MEASURES}
    assert "P@10" not in cmp.means["a"] and cmp.means["a"].get("P@10") is None
    with pytest.raises(KeyError):
        cmp.vs_baseline["b"]["P@10"]
    with pytest.raises(OptionError, match=r"measure 'P@10' was not compared"):
        cmp.stats("b", "P@10")
    with pytest.raises(OptionError, match=r"was not compared"):
        cmp.stats("b", "not a measure at all")
    assert cmp.to_json()  # the JSON writer reads them as before


def test_flips_answer_to_every_spelling() -> None:
    """Regression: ``.flips[...]["MRR"]`` refused what ``Results["MRR"]`` accepts."""
    qrels = {f"q{i}": {"r": 1, "n": 0} for i in range(4)}
    run_a = {q: {"x": 3.0, "n": 2.0, "r": 1.0} for q in qrels}
    run_b = {q: {"r": 3.0, "n": 2.0, "x": 1.0} for q in qrels}
    cmp = ranklens.compare(qrels, {"a": run_a, "b": run_b}, ["P@1", "RR"], bounds=True)
    assert cmp.flips is not None
    flips = cmp.flips[("a", "b")]
    for canonical, spellings in (("RR", SPELLINGS["RR"]), ("P@1", ["P.1", "P_1", "P@1"])):
        for spelled in spellings:
            assert flips[spelled] is flips[canonical]
    assert cmp.stats("b", "MRR") == cmp.stats("b", "RR")  # the reported case


def test_discriminative_power_answers_to_every_spelling() -> None:
    _, runs = _comparison(11)
    qrels, _ = generated(11)
    results = [ranklens.evaluate(qrels, run, MEASURES, name=n) for n, run in runs.items()]
    dp = ranklens.discriminative_power(results, resamples=100, seed=1)
    for canonical, spellings in SPELLINGS.items():
        for spelled in spellings:
            assert dp.power(spelled) == dp.power(canonical)
            assert dp.power(spelled, "tukey") == dp.power(canonical, "tukey")
            assert dp.required_difference(spelled) == dp.required_difference(canonical)
    with pytest.raises(OptionError, match="no measure 'P@10'"):
        dp.power("P@10")


TREC_VALUE_NAMES = {
    "RelP@10": "relative_P_10",
    "Unjudged@5": "unj_5",
    "RprecMult@0.2": "Rprec_mult_0.20",
}


def test_trec_eval_value_names_are_spellings_too() -> None:
    """trec_eval's printed value names (``relative_P_10``), which ``Results`` answers to,
    are answered by the comparison's mappings and ``stats`` as well."""
    qrels, run_a = generated(5)
    _, run_b = generated(105)
    cmp = ranklens.compare(qrels, {"a": run_a, "b": run_b}, list(TREC_VALUE_NAMES), test="sign")
    res = cmp.results[0]
    for canonical, spelled in TREC_VALUE_NAMES.items():
        assert res[spelled] == res[canonical], spelled  # the reference accepts it
        assert cmp.means["a"][spelled] == cmp.means["a"][canonical]
        assert spelled in cmp.higher_is_better
        assert cmp.vs_baseline["b"][spelled] is cmp.vs_baseline["b"][canonical]
        assert cmp.stats("b", spelled) is cmp.stats("b", canonical)
