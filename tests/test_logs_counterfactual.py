"""Counterfactual estimates: equal to obp's slate estimators on the same log (values stored
by tests/data/logs/generate_obp_reference.py), unbiased by simulation, by hand on a tiny
log; position bias recovered by the PBM and by intervention harvesting."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from ranklens.base.errors import InputError, OptionError
from ranklens.logs import counterfactual, position_bias, read_log

DATA = Path(__file__).parent / "data" / "logs"


def _obp_log() -> tuple[object, dict[str, np.ndarray]]:
    import csv

    with (DATA / "obp_log.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    columns = {k: [r[k] for r in rows] for k in rows[0]}
    for key in ("propensity", "step_propensity", "target_propensity", "target_step_propensity"):
        columns[key] = [float(v) for v in columns[key]]  # type: ignore[misc]
    columns["position"] = [int(v) for v in columns["position"]]  # type: ignore[misc]
    target = {
        "marginal": np.asarray(columns.pop("target_propensity"), dtype=float),
        "step": np.asarray(columns.pop("target_step_propensity"), dtype=float),
    }
    return read_log(columns), target


@pytest.mark.parametrize("estimator", ["sips", "iips", "rips"])
def test_equal_to_obp(estimator: str) -> None:
    reference = json.loads((DATA / "obp_reference.json").read_text())["estimators"][estimator]
    log, target = _obp_log()
    kwargs = (
        {"target_propensity": target["marginal"]}
        if estimator == "iips"
        else {"target_step_propensity": target["step"]}
    )
    result = counterfactual(log, None, estimator, **kwargs)
    assert result.value == pytest.approx(reference["value"], rel=1e-12)
    # both intervals are percentile bootstraps of 10,000 resamples, drawn differently:
    # they agree to within the resampling noise
    width = reference["interval"][1] - reference["interval"][0]
    assert result.interval[0] == pytest.approx(reference["interval"][0], abs=0.06 * width)
    assert result.interval[1] == pytest.approx(reference["interval"][1], abs=0.06 * width)
    ips = counterfactual(log, None, "ips", target_propensity=target["marginal"])
    if estimator == "iips":
        assert ips.value == result.value


def _uniform_log(
    n: int, seed: int
) -> tuple[dict[str, list[object]], dict[str, float], dict[int, float]]:
    """Slates of 4 documents in uniformly random order (step propensity 1/(5 - k), marginal
    1/4); clicks by a PBM."""
    rng = np.random.default_rng(seed)
    docs = ["a", "b", "c", "d"]
    attr = {"a": 0.7, "b": 0.4, "c": 0.2, "d": 0.05}
    theta = {1: 1.0, 2: 0.6, 3: 0.4, 4: 0.25}
    cols: dict[str, list[object]] = {
        k: []
        for k in (
            "session_id",
            "query_id",
            "doc_id",
            "position",
            "clicked",
            "propensity",
            "step_propensity",
        )
    }
    for i in range(n):
        order = rng.permutation(4)
        for k, j in enumerate(order.tolist()):
            d = docs[j]
            click = rng.random() < theta[k + 1] * attr[d]
            for key, value in zip(
                cols, (i, "q", d, k + 1, click, 0.25, 1.0 / (4 - k)), strict=True
            ):
                cols[key].append(value)
    return cols, attr, theta


def test_unbiased_by_simulation() -> None:
    """Every plain estimator is a mean of per-impression terms; their expectation is the
    target's true clicks per impression (here d, c, b, a: the reverse of the best)."""
    cols, attr, theta = _uniform_log(12_000, seed=1)
    log = read_log(cols)
    target = {"q": ["d", "c", "b", "a"]}
    truth = sum(theta[k + 1] * attr[d] for k, d in enumerate(target["q"]))
    truth_top2 = sum(theta[k + 1] * attr[d] for k, d in enumerate(target["q"][:2]))
    for estimator, kwargs in (
        ("sips", {}),
        ("iips", {}),
        ("rips", {}),
        ("ips", {}),
        ("ips", {"position_bias": theta}),
    ):
        result = counterfactual(log, target, estimator, interval="normal", **kwargs)  # type: ignore[arg-type]
        z = (result.value - truth) / result.standard_error
        assert abs(z) < 4, (estimator, kwargs, result.value, truth)
        low, high = result.interval
        assert low < result.value < high
        top2 = counterfactual(log, target, estimator, cutoff=2, interval="normal", **kwargs)  # type: ignore[arg-type]
        assert abs(top2.value - truth_top2) < 4 * top2.standard_error, (estimator, top2.value)
    for estimator in ("snsips", "sniips", "snrips", "snips"):
        result = counterfactual(log, target, estimator, bootstrap=500)
        assert abs(result.value - truth) < 4 * result.standard_error, (estimator, result.value)


def test_interval_coverage_by_simulation() -> None:
    """The normal interval of IIPS covers the truth in about 95% of simulated logs."""
    target = {"q": ["a", "b", "c", "d"]}
    cols, attr, theta = _uniform_log(6000, seed=3)
    truth = sum(theta[k + 1] * attr[d] for k, d in enumerate(target["q"]))
    log = read_log(cols)
    terms = counterfactual(log, target, "iips", interval="normal").terms.sum(axis=1)
    rng = np.random.default_rng(4)
    covered = 0
    trials = 400
    for _ in range(trials):
        sample = terms[rng.integers(0, terms.shape[0], size=300)]  # logs of 300 impressions
        mean = sample.mean()
        se = sample.std(ddof=1) / np.sqrt(sample.shape[0])
        covered += abs(mean - truth) <= 1.959964 * se
    assert 0.91 <= covered / trials <= 0.99


def _by_hand_columns() -> dict[str, list[object]]:
    return {
        "session_id": [1, 1, 2, 2],
        "query_id": ["q"] * 4,
        "doc_id": ["a", "b", "b", "a"],
        "position": [1, 2, 1, 2],
        "clicked": [True, False, False, True],
        "propensity": [0.5] * 4,
        "step_propensity": [0.5, 1.0, 0.5, 1.0],
    }


def test_by_hand() -> None:
    log = read_log(_by_hand_columns())
    target = {"q": {"a": 2.0, "b": 1.0}}  # scores: a then b
    # sips: impression 1 agrees with the target (weight 1 / 0.5 = 2, one click), impression
    # 2 does not (weight 0): (2 * 1 + 0) / 2 = 1
    assert counterfactual(log, target, "sips").value == 1.0
    # iips: a at 1 in impression 1 (weight 2, click) and a at 2 in impression 2 (weight 0)
    assert counterfactual(log, target, "iips").value == 1.0
    # pbm: impression 2's click on a at 2 moves to 1: 1 / 0.5; impression 1: 1 -> (1 + 2) / 2
    pbm = counterfactual(log, target, "ips", position_bias={1: 1.0, 2: 0.5})
    assert pbm.value == 1.5
    assert pbm.weights.tolist() == [[1.0, 1.0], [0.5, 2.0]]
    # self-normalised, position by position: slot 1 -> 2 / 2, slot 2 -> 0 / 0 (left out)
    assert counterfactual(log, target, "sniips", bootstrap=100).value == 1.0


def test_refusals() -> None:
    bare = read_log(
        {"session_id": [1], "query_id": ["q"], "doc_id": ["a"], "position": [1], "clicked": [True]}
    )
    with pytest.raises(InputError, match="'step_propensity' column"):
        counterfactual(bare, {"q": ["a"]}, "sips")
    with pytest.raises(InputError, match="'propensity' column"):
        counterfactual(bare, {"q": ["a"]}, "ips")
    with pytest.raises(OptionError, match="unknown estimator"):
        counterfactual(bare, {"q": ["a"]}, "dr")
    with pytest.raises(OptionError, match="position 1 has None"):
        counterfactual(bare, {"q": ["a"]}, "ips", position_bias={2: 0.5})
    with pytest.raises(OptionError, match="goes with estimator 'ips'"):
        counterfactual(bare, {"q": ["a"]}, "sips", position_bias={1: 1.0})
    with pytest.raises(OptionError, match="a ratio"):
        counterfactual(
            read_log(
                {
                    "session_id": [1],
                    "query_id": ["q"],
                    "doc_id": ["a"],
                    "position": [1],
                    "clicked": [True],
                    "propensity": [1.0],
                }
            ),
            {"q": ["a"]},
            "snips",
            interval="normal",
        )
    with pytest.raises(InputError, match="'ranker'"):
        position_bias(bare, "harvesting")


def _swap_log(seed: int, n: int = 20_000) -> tuple[dict[str, list[object]], dict[int, float]]:
    """Two rankers whose lists differ by swaps: documents shown at several positions."""
    rng = np.random.default_rng(seed)
    theta = {1: 1.0, 2: 0.7, 3: 0.5, 4: 0.3}
    queries = {
        f"q{i}": {f"d{j}": float(rng.uniform(0.1, 0.9)) for j in range(5)} for i in range(10)
    }
    rankers = {}
    for q, docs in queries.items():
        names = sorted(docs, key=docs.get, reverse=True)[:4]  # type: ignore[arg-type]
        # B swaps positions 1-2 and 3-4, C swaps 2-3: every position linked to every other
        rankers[q] = {
            "A": names,
            "B": [names[1], names[0], names[3], names[2]],
            "C": [names[0], names[2], names[1], names[3]],
        }
    cols: dict[str, list[object]] = {
        k: [] for k in ("session_id", "query_id", "doc_id", "position", "clicked", "ranker")
    }
    qs = sorted(queries)
    for i in range(n):
        q = qs[int(rng.integers(len(qs)))]
        name = "ABC"[int(rng.choice(3, p=[0.5, 0.3, 0.2]))]
        for k, d in enumerate(rankers[q][name]):
            click = rng.random() < theta[k + 1] * queries[q][d]
            for key, value in zip(cols, (i, q, d, k + 1, click, name), strict=True):
                cols[key].append(value)
    return cols, theta


def test_position_bias_recovered() -> None:
    cols, theta = _swap_log(2)
    log = read_log(cols)
    for method in ("pbm", "harvesting"):
        found = position_bias(log, method)
        for k, value in theta.items():
            assert found[k] == pytest.approx(value, abs=0.05), (method, found)


def test_sips_is_the_mean_over_slates_of_joint_weights() -> None:
    """SIPS on a deterministic target, checked against a loop over impressions."""
    cols, _, _ = _uniform_log(300, seed=9)
    log = read_log(cols)
    target = {"q": ["b", "a", "d", "c"]}
    expected = 0.0
    for i in range(log.num_impressions):
        a, b = log.offsets[i], log.offsets[i + 1]
        shown = [log.documents[d] for d in log.doc[a:b]]
        weight = float(np.prod(1.0 / log.step_propensity[a:b])) if shown == target["q"] else 0.0
        expected += weight * float(log.clicked[a:b].sum())
    assert counterfactual(log, target, "sips").value == pytest.approx(
        expected / log.num_impressions
    )
    assert list(itertools.islice(iter(target), 1)) == ["q"]


@pytest.mark.parametrize(
    "target",
    [{}, {"Q": ["a", "b"]}, {1: ["a", "b"]}],
    ids=["empty", "typo", "numbers-for-text"],
)
def test_a_target_sharing_no_query_is_an_error(target: dict[object, list[str]]) -> None:
    """Issue 45: such a target estimated 0 clicks per impression in [0, 0], without a word."""
    log = read_log(_by_hand_columns())
    for options in ({}, {"position_bias": {1: 1.0, 2: 0.5}}):
        with pytest.raises(InputError, match="the target ranks none of the log's 1 queries"):
            counterfactual(log, target, "ips", **options)


def test_a_target_missing_some_queries_warns_with_the_count() -> None:
    from ranklens.base.errors import InputWarning

    rows = {
        "session_id": [1, 1, 2, 2, 3, 3],
        "query_id": ["q", "q", "r", "r", "s", "s"],
        "doc_id": ["a", "b"] * 3,
        "position": [1, 2] * 3,
        "clicked": [True, False] * 3,
        "propensity": [0.5] * 6,
    }
    log = read_log(rows)
    with pytest.warns(
        InputWarning,
        match="ranks 1 of the log's 3 queries; the impressions "
        r"of the other 2 \('r', 's'\) count 0 clicks",
    ):
        partial = counterfactual(log, {"q": ["a", "b"]}, "iips", bootstrap=10)
    full = counterfactual(log, {q: ["a", "b"] for q in "qrs"}, "iips", bootstrap=10)
    # the missing queries' impressions count 0: a third of the full estimate
    assert partial.value == pytest.approx(full.value / 3)
