"""The beyond-accuracy recommender measures (``Coverage``, ``Gini``, ``Entropy``, ``ARP``,
``APLT``, ``ACLT``) against straightforward implementations of their published formulas on
generated awkward data (tied scores, users without relevant items, users only in the run
or only in the qrels, items missing from the popularity data), the run-level aggregation
(no per-query values, the bootstrap over users of ``compare``), popularity input, and the
errors."""

from __future__ import annotations

import io
import math
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.analysis.comparison import compare_results
from ranklens.analysis.stats._draws import resample_counts
from ranklens.base.errors import InputError, MeasureError, OptionError, ParseError
from ranklens.cli import main
from strategies import DOC_POOL, Case, cases, random_cases, trec_ranking

# generated users often retrieve no test item: the warning about it is not what is tested
pytestmark = pytest.mark.filterwarnings("ignore::ranklens.base.errors.InputWarning")
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RUN_LEVEL = ("Coverage", "Gini", "Entropy")

# --- the published formulas, written out plainly ---------------------------------------


def top_lists(case: Case, k: int | None, users: Sequence[str]) -> dict[str, list[str]]:
    """Each evaluated user's top-k list (trec_eval's order: score, then id descending)."""
    return {u: trec_ranking(case.run.get(u, {}))[:k] for u in users}


def exposure(lists: Mapping[str, list[str]], weights: Mapping[str, int] | None = None) -> Counter:
    counts: Counter = Counter()
    for u, items in lists.items():
        for i in items:
            counts[i] += 1 if weights is None else weights[u]
    return +counts  # drop zeros


def coverage(lists: Mapping[str, list[str]], n: int) -> float:
    return len({i for items in lists.values() for i in items}) / n


def gini(counts: Counter, n: int) -> float:
    x = sorted([0] * (n - len(counts)) + list(counts.values()))
    total = sum(x)
    if total == 0:
        return 0.0
    return sum((2 * j - n - 1) * x[j - 1] for j in range(1, n + 1)) / (n * total)


def entropy(counts: Counter, base: float = math.e) -> float:
    total = sum(counts.values())
    return -sum(c / total * math.log(c / total, base) for c in counts.values())


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def arp(lists: Mapping[str, list[str]], pop: Mapping[str, float]) -> float:
    return mean([sum(pop.get(i, 0) for i in L) / len(L) if L else 0.0 for L in lists.values()])


def short_head(pop: Mapping[str, float], share: float) -> set[str]:
    ranked = sorted(pop, key=lambda i: (-pop[i], i.encode()))
    total = sum(pop.values())
    head: set[str] = set()
    held = 0.0
    for i in ranked:
        if total == 0 or held >= share * total:
            break
        head.add(i)
        held += pop[i]
    return {i for i in head if pop[i] > 0}


def aplt(lists: Mapping[str, list[str]], pop: Mapping[str, float], share: float) -> float:
    head = short_head(pop, share)
    return mean([sum(i not in head for i in L) / len(L) if L else 0.0 for L in lists.values()])


def aclt(lists: Mapping[str, list[str]], pop: Mapping[str, float], share: float) -> float:
    head = short_head(pop, share)
    return mean([float(sum(i not in head for i in L)) for L in lists.values()])


# --- generated data ---------------------------------------------------------------------

popularity_st = st.dictionaries(
    st.sampled_from(DOC_POOL), st.sampled_from((0, 1, 1, 2, 3, 3, 5, 8, 20)), min_size=1
)


def evaluated_users(case: Case) -> list[str]:
    return list(case.qrels)  # queries="qrels": the users of the test interactions


@SETTINGS
@given(
    cases(),
    popularity_st,
    st.sampled_from((None, 1, 2, 3, 5, 10)),
    st.sampled_from((None, 0, 3, 40)),
    st.sampled_from((0.2, 0.5, 0.8, 1.0)),
)
def test_measures_equal_their_published_formulas(case, pop, k, extra, share) -> None:
    users = evaluated_users(case)
    lists = top_lists(case, k, users)
    counts = exposure(lists)
    shown = {i for L in lists.values() for i in L}
    num_items = None if extra is None else len(shown | set(pop)) + extra
    n = num_items if num_items is not None else len(pop)
    at = f"@{k}" if k else ""
    names = [
        f"Coverage{at}",
        f"Gini{at}",
        f"Gini(scope='shown'){at}",
        f"Gini(form='elliot'){at}",
        f"Entropy{at}",
        f"Entropy(log='log2'){at}",
        f"ARP{at}",
        f"APLT(head_share={share}){at}",
        f"ACLT(head_share={share}){at}",
        f"nDCG{at}",
    ]
    if len(shown) > n:  # more items shown than the catalogue holds
        with pytest.raises(MeasureError, match="num_items"):
            ranklens.evaluate(case.qrels, case.run, names[0], popularity=pop, num_items=num_items)
        names = names[4:]
    res = ranklens.evaluate(case.qrels, case.run, names, popularity=pop, num_items=num_items)
    got = res.aggregate
    expected = {
        f"Entropy{at}": entropy(counts) if counts else 0.0,
        f"Entropy(log='log2'){at}": entropy(counts, 2) if counts else 0.0,
        f"ARP{at}": arp(lists, pop),
        f"APLT(head_share={share}){at}": aplt(lists, pop, share),
        f"ACLT(head_share={share}){at}": aclt(lists, pop, share),
    }
    if len(shown) <= n:
        g = gini(counts, n)
        expected[f"Coverage{at}"] = coverage(lists, n)
        expected[f"Gini{at}"] = g
        expected[f"Gini(form='elliot'){at}"] = 1 - g * n / (n - 1) if n > 1 else 1.0
        expected[f"Gini(scope='shown'){at}"] = gini(counts, len(counts)) if counts else 0.0
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, rel=1e-12, abs=1e-12), name
    # the accuracy measure beside them is the one evaluated alone
    alone = ranklens.evaluate(case.qrels, case.run, f"nDCG{at}")
    assert got[f"nDCG{at}"] == alone[f"nDCG{at}"]
    assert all(not name.startswith(RUN_LEVEL) for row in res.per_query.values() for name in row)


def test_users_policy_decides_whose_lists_count() -> None:
    """queries='run' counts the run's users (also those without test interactions),
    'both' only the users in both."""
    qrels = {"u1": {"a": 1}, "u3": {"e": 1}}
    run = {"u1": {"a": 0.9, "b": 0.5}, "u2": {"c": 0.9, "d": 0.1}}
    pop = {"a": 4, "b": 3, "c": 2, "d": 1, "e": 1}
    for policy, users in (("qrels", ["u1", "u3"]), ("run", ["u1", "u2"]), ("both", ["u1"])):
        lists = {u: trec_ranking(run.get(u, {}))[:2] for u in users}
        res = ranklens.evaluate(qrels, run, ["Coverage@2", "ARP@2"], popularity=pop, queries=policy)
        assert res["Coverage@2"] == pytest.approx(coverage(lists, 5))
        assert res["ARP@2"] == pytest.approx(arp(lists, pop))


# --- the run-level aggregation --------------------------------------------------------


def _duplicated(case: Case, weights: Mapping[str, int]) -> Case:
    """The case with each user repeated ``weights[u]`` times under new ids."""
    qrels, run = {}, {}
    for u, w in weights.items():
        for copy in range(w):
            if u in case.qrels:
                qrels[f"{u}#{copy}"] = case.qrels[u]
            if u in case.run:
                run[f"{u}#{copy}"] = case.run[u]
    return Case(qrels, run)


@SETTINGS
@given(cases(), popularity_st, st.data())
def test_weights_count_a_user_that_many_times(case, pop, data) -> None:
    """The statistic's value with user weights is the value on the run with each user
    repeated that many times (what the bootstrap over users resamples)."""
    users = evaluated_users(case)
    weights = {u: data.draw(st.integers(0, 3)) for u in users}
    if not any(weights[u] for u in users):
        weights[users[0]] = 1
    names = ["Coverage@3", "Gini@3", "Entropy@3"]
    res = ranklens.evaluate(case.qrels, case.run, names, popularity=pop, num_items=60)
    repeated = _duplicated(case, weights)
    again = ranklens.evaluate(repeated.qrels, repeated.run, names, popularity=pop, num_items=60)
    w = np.array([weights[q] for q in res.queries], dtype=np.float64)
    for name in names:
        assert res.run_statistics[name].value(w) == pytest.approx(again[name], abs=1e-12)


def test_per_query_requests_are_refused_or_leave_run_level_measures_out() -> None:
    case = next(iter(random_cases(7, 1)))
    res = ranklens.evaluate(case.qrels, case.run, ["Coverage@5", "P@5"], num_items=50)
    with pytest.raises(MeasureError, match="whole run"):
        res.query_values("Coverage@5")
    assert all(list(row) == ["P@5"] for row in res.per_query.values())
    assert list(res.to_pandas().columns) == ["P@5"]
    assert res.to_dict()["aggregate"]["Coverage@5"] == res["Coverage@5"]


def test_streaming_gives_run_level_measures_but_not_their_bootstrap() -> None:
    """A streamed run gives the in-memory value (tests/test_run_level_parts.py has the
    differential tests); its exposure counts do not resample users."""
    case = next(iter(random_cases(8, 1)))
    text = "".join(
        f"{q} Q0 {d} 1 {s} r\n" for q in sorted(case.run) for d, s in case.run[q].items()
    )
    ev = ranklens.Evaluator(case.qrels, ["Coverage@5"], num_items=50)
    streamed = ev.evaluate(io.BytesIO(text.encode()), stream=True)
    assert streamed["Coverage@5"] == ev.evaluate(io.BytesIO(text.encode()), stream=False)[
        "Coverage@5"
    ]
    with pytest.raises(MeasureError, match="in memory"):
        streamed.run_statistics["Coverage@5"].value(np.ones(len(streamed.queries)))


# --- compare: the paired bootstrap over users -----------------------------------------


def test_compare_bootstraps_run_level_measures_over_users() -> None:
    rng = np.random.default_rng(3)
    users = [f"u{i}" for i in range(12)]
    qrels = {u: {f"i{j}": 1 for j in rng.choice(30, 2, replace=False)} for u in users}
    run_a = {
        u: {f"i{j}": float(rng.integers(0, 4)) for j in rng.choice(30, 6, replace=False)}
        for u in users
    }
    run_b = {
        u: {f"i{j}": float(rng.integers(0, 4)) for j in rng.choice(12, 6, replace=False)}
        for u in users
    }
    pop = {f"i{j}": int(30 - j) for j in range(30)}
    ev = ranklens.Evaluator(qrels, ["Coverage@3", "Gini@3", "nDCG@3"], popularity=pop)
    a, b = ev.evaluate(run_a, "a"), ev.evaluate(run_b, "b")
    resamples, seed, confidence = 300, 11, 0.9
    cmp = compare_results(
        [a, b], test="bootstrap", permutations=resamples, seed=seed, confidence=confidence
    )
    order = list(a.queries)
    lists = {
        "a": top_lists(Case(qrels, run_a), 3, order),
        "b": top_lists(Case(qrels, run_b), 3, order),
    }
    value = {
        "Coverage@3": lambda lists_, w: len({i for u in lists_ for i in lists_[u] if w[u]}) / 30,
        "Gini@3": lambda lists_, w: gini(exposure(lists_, w), 30),
    }
    draws = np.concatenate(list(resample_counts(len(order), resamples, seed)))
    for name, f in value.items():
        ones = dict.fromkeys(order, 1)
        observed = f(lists["b"], ones) - f(lists["a"], ones)
        deltas = []
        for row in draws:
            w = {u: int(c) for u, c in zip(order, row, strict=True)}
            deltas.append(f(lists["b"], w) - f(lists["a"], w))
        d = np.array(deltas)
        stats = cmp.stats("b", name)
        assert stats.delta == pytest.approx(observed)
        low, high = np.quantile(d, [0.05, 0.95])
        assert (stats.ci_low, stats.ci_high) == pytest.approx((low, high))
        extreme = np.count_nonzero(np.abs(d - observed) >= abs(observed) * (1 - 1e-9))
        expected_p = 1.0 if observed == 0 else (extreme + 1) / (resamples + 1)
        assert stats.p_value == pytest.approx(expected_p)
        assert cmp.means["a"][name] == a[name] and cmp.means["b"][name] == b[name]
        assert math.isnan(stats.effect_size) and (stats.wins, stats.losses) == (0, 0)
    # the per-query measure beside them is compared exactly as without them
    alone = compare_results(
        [
            ranklens.evaluate(qrels, run_a, "nDCG@3", name="a"),
            ranklens.evaluate(qrels, run_b, "nDCG@3", name="b"),
        ],
        test="bootstrap",
        permutations=resamples,
        seed=seed,
        confidence=confidence,
    )
    assert cmp.stats("b", "nDCG@3") == alone.stats("b", "nDCG@3")
    with pytest.raises(OptionError, match="all_pairs"):
        compare_results([a, b], all_pairs=True)


# --- popularity input ------------------------------------------------------------------


def test_popularity_from_a_file_a_frame_and_interactions(tmp_path) -> None:
    pd = pytest.importorskip("pandas")
    qrels = {"u1": {"a": 1}, "u2": {"b": 1}}
    run = {"u1": {"a": 0.9, "b": 0.5}, "u2": {"c": 0.9, "a": 0.1}}
    counts = {"a": 3, "b": 1, "c": 2}
    expected = ranklens.evaluate(qrels, run, ["ARP@2", "Coverage@2"], popularity=counts)
    path = tmp_path / "pop.txt"
    path.write_text("# item count\na 3\nb 1\n\nc 2\n")
    interactions = pd.DataFrame(
        {"user_id": ["x", "y", "z", "x", "y", "z"], "item_id": ["a", "a", "a", "b", "c", "c"]}
    )
    table = pd.DataFrame({"item": ["a", "b", "c"], "count": [3, 1, 2]})
    parquet = tmp_path / "pop.parquet"
    interactions.to_parquet(parquet)
    for given_pop in (path, str(path), interactions, table, parquet):
        got = ranklens.evaluate(qrels, run, ["ARP@2", "Coverage@2"], popularity=given_pop)
        assert got.aggregate == expected.aggregate


@pytest.mark.parametrize(
    ("text", "error", "match"),
    [
        ("a 3\nb\n", ParseError, "2 fields"),
        ("a 3\nb x\n", ParseError, "not a number"),
        ("a -1\n", InputError, ">= 0"),
        ("a 1\na 2\n", InputError, "twice"),
    ],
)
def test_bad_popularity_files(tmp_path, text, error, match) -> None:
    path = tmp_path / "pop.txt"
    path.write_text(text)
    with pytest.raises(error, match=match) as info:
        ranklens.Evaluator({"u": {"a": 1}}, "ARP@2", popularity=path)
    assert str(path) in str(info.value)


def test_missing_side_data_is_a_clear_error() -> None:
    qrels, run = {"u": {"a": 1}}, {"u": {"a": 1.0}}
    for name in ("ARP@5", "APLT@5", "ACLT@5"):
        with pytest.raises(MeasureError, match="popularity"):
            ranklens.evaluate(qrels, run, name)
    for name in ("Coverage@5", "Gini@5"):
        with pytest.raises(MeasureError, match="num_items"):
            ranklens.evaluate(qrels, run, name)
    assert ranklens.evaluate(qrels, run, "Entropy@5")["Entropy@5"] == 0.0
    for bad in (0, -3, 2.5, True):
        with pytest.raises(InputError, match="num_items"):
            ranklens.evaluate(qrels, run, "Coverage@5", num_items=bad)


def test_default_numbers_do_not_change_with_item_data() -> None:
    measures = ["nDCG@10", "AP", "P@5", "RR", "R@10", "NumRet", "GMAP"]
    for case in random_cases(2027, 8):
        plain = ranklens.evaluate(case.qrels, case.run, measures)
        with_items = ranklens.evaluate(
            case.qrels,
            case.run,
            [*measures, "Coverage@5", "ARP@5"],
            popularity={"d1": 3, "a": 1},
            num_items=100,
        )
        assert plain.per_query == {
            q: {m: row[m] for m in plain.per_query[q]} for q, row in with_items.per_query.items()
        }
        assert plain.aggregate == {m: with_items[m] for m in plain.aggregate}


# --- the command line --------------------------------------------------------------------


def test_cli_popularity_num_items_and_per_query_refusal(tmp_path, capsys) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("u1 0 a 1\nu2 0 b 1\nu3 0 e 1\n")
    run = tmp_path / "run"
    run.write_text("u1 Q0 a 1 0.9 r\nu1 Q0 c 2 0.5 r\nu2 Q0 d 1 0.8 r\nu2 Q0 a 2 0.8 r\n")
    pop = tmp_path / "pop"
    pop.write_text("a 10\nb 5\nc 3\nd 1\ne 1\n")
    assert (
        main(
            [
                "eval",
                str(qrels),
                str(run),
                "-m",
                "Coverage@2",
                "-m",
                "ARP@2",
                "--popularity",
                str(pop),
                "-f",
                "json",
                "--quiet",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    import json

    assert json.loads(out)["runs"][0]["aggregate"] == {"Coverage@2": 0.6, "ARP@2": 4.0}
    assert (
        main(["eval", str(qrels), str(run), "-m", "Coverage@2", "--num-items", "3", "--quiet"]) == 0
    )
    assert "1.0000" in capsys.readouterr().out
    for argv, match in (
        (["-m", "Coverage@2", "-q", "--popularity", str(pop)], "per-query"),
        (["-m", "ARP@2"], "popularity"),
        (["-m", "Coverage@2", "--num-items", "0"], "--num-items"),
    ):
        code = main(["eval", str(qrels), str(run), *argv, "--quiet"])
        err = capsys.readouterr().err
        assert code != 0 and match in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1


def test_report_shows_run_level_measures_in_the_summary_only() -> None:
    pytest.importorskip("matplotlib")
    from ranklens.presentation.reporting import build_report

    qrels = {"u1": {"a": 1}, "u2": {"b": 1}, "u3": {"c": 1}}
    runs = {
        "x": {"u1": {"a": 0.9, "b": 0.5}, "u2": {"c": 0.9, "b": 0.1}, "u3": {"d": 1.0}},
        "y": {"u1": {"a": 0.9, "b": 0.5}, "u2": {"a": 0.9, "b": 0.1}, "u3": {"a": 1.0}},
    }
    html = build_report(qrels, runs, ["Coverage@2", "P@2"], num_items=4, plots=False)
    assert "<th>Coverage@2</th>" in html and "x · P@2" in html
    assert "x · Coverage@2" not in html  # no per-query column
    assert "<strong>1.0000</strong>" in html  # x shows a, b, c, d: all 4 items


# --- propensity-scored measures: pyxclib's formulas on dense matrices ------------------


def pyxclib_like(case: Case, pop: Mapping[str, float], n: int, k: int, a: float, b: float):
    """PSP@k, PSnDCG@k, PSR@k as pyxclib's psprecision / psndcg / psrecall compute them:
    means over users of the propensity-weighted flags, over the same for the best lists."""
    users = evaluated_users(case)
    items = sorted(
        {d for u in users for d in case.qrels[u]} | {d for r in case.run.values() for d in r}
    )
    col = {d: j for j, d in enumerate(items)}
    y = np.zeros((len(users), len(items)))
    for i, u in enumerate(users):
        for d, g in case.qrels[u].items():
            y[i, col[d]] = 1.0 if g >= 1 else 0.0
    c = (math.log(n) - 1) * (b + 1) ** a
    w = np.array([1 + c * (pop.get(d, 0) + b) ** -a for d in items])
    flags = np.zeros((len(users), k))
    for i, u in enumerate(users):
        for j, d in enumerate(trec_ranking(case.run.get(u, {}))[:k]):
            flags[i, j] = y[i, col[d]] * w[col[d]]
    best = -np.sort(-(y * w), axis=1)[:, :k]
    best = np.pad(best, ((0, 0), (0, k - best.shape[1])))
    relevant = y.sum(axis=1)
    disc = 1 / np.log2(np.arange(k) + 2)
    z = np.array([sum(1 / math.log2(j + 2) for j in range(int(min(r, k)))) for r in relevant])

    def ratio(top: float, bottom: float) -> float:
        return top / bottom if bottom > 0 else 0.0

    return {
        "PSP": ratio(np.mean(flags.sum(1) / k), np.mean(best.sum(1) / k)),
        "PSnDCG": ratio(
            np.mean(np.where(z > 0, (flags * disc).sum(1) / np.where(z > 0, z, 1), 0)),
            np.mean(np.where(z > 0, (best * disc).sum(1) / np.where(z > 0, z, 1), 0)),
        ),
        "PSR": ratio(
            np.mean(flags.sum(1) / np.maximum(relevant, 1)),
            np.mean(best.sum(1) / np.maximum(relevant, 1)),
        ),
    }


@SETTINGS
@given(
    cases(),
    popularity_st,
    st.sampled_from((3, 20, 1000)),
    st.sampled_from((1, 2, 5)),
    st.sampled_from(((0.55, 1.5), (0.6, 2.6), (0.5, 0.4))),
)
def test_propensity_scored_measures_equal_pyxclibs_formulas(case, pop, n, k, ab) -> None:
    a, b = ab
    expected = pyxclib_like(case, pop, n, k, a, b)
    names = {kind: f"{kind}(A={a},B={b})@{k}" for kind in expected}
    if max(pop.values()) > n:  # N_l counts training users: at most N (pyxclib's are)
        with pytest.raises(MeasureError, match=f"more than the N = {n} training users"):
            ranklens.evaluate(case.qrels, case.run, names["PSP"], popularity=pop, num_users=n)
        return
    res = ranklens.evaluate(case.qrels, case.run, list(names.values()), popularity=pop, num_users=n)
    for kind, name in names.items():
        assert res[name] == pytest.approx(expected[kind], rel=1e-9, abs=1e-12), name


def test_propensity_measures_need_the_training_users() -> None:
    qrels, run = {"u": {"a": 1}}, {"u": {"a": 1.0}}
    with pytest.raises(MeasureError, match="num_users"):
        ranklens.evaluate(qrels, run, "PSP@5", popularity={"a": 2})
    with pytest.raises(MeasureError, match="popularity"):
        ranklens.evaluate(qrels, run, "PSP@5", num_users=10)
    with pytest.raises(MeasureError, match="@"):
        ranklens.evaluate(qrels, run, "PSP", popularity={"a": 2}, num_users=10)
    pd = pytest.importorskip("pandas")
    train = pd.DataFrame({"user_id": ["x", "y", "y", "z"], "item_id": ["a", "a", "b", "b"]})
    by_table = ranklens.evaluate(qrels, run, "PSP@5", popularity=train)
    given_n = ranklens.evaluate(qrels, run, "PSP@5", popularity={"a": 2, "b": 2}, num_users=3)
    assert by_table["PSP@5"] == given_n["PSP@5"]


# --- novelty: Vargas and Castells' EPC and EFD, as Elliot computes them per user ------------


def novelty_reference(case: Case, pop: Mapping[str, float], n: int, k: int | None):
    users = evaluated_users(case)
    total = sum(pop.values())
    seen = [v for v in pop.values() if v > 0]
    largest = -math.log2(min(seen) / total) if seen else math.nan
    epc, efd = [], []
    for u in users:
        ranked = trec_ranking(case.run.get(u, {}))[:k]
        norm = sum(1 / math.log2(j + 2) for j in range(len(ranked)))
        a = b = 0.0
        for j, item in enumerate(ranked):
            if case.qrels[u].get(item, 0) >= 1:
                phi = pop.get(item, 0)
                a += (1 - phi / n) / math.log2(j + 2)
                b += (-math.log2(phi / total) if phi > 0 else largest) / math.log2(j + 2)
        epc.append(a / norm if norm else 0.0)
        efd.append(b / norm if norm else 0.0)
    return mean(epc), mean(efd)


@SETTINGS
@given(cases(), popularity_st, st.sampled_from((5, 50)), st.sampled_from((None, 1, 3, 10)))
def test_epc_and_efd_equal_their_published_formulas(case, pop, n, k) -> None:
    at = f"@{k}" if k else ""
    epc, efd = novelty_reference(case, pop, n, k)
    if not any(v > 0 for v in pop.values()):  # no item with an interaction
        with pytest.raises(MeasureError, match="no interaction"):
            ranklens.evaluate(case.qrels, case.run, f"EFD{at}", popularity=pop, num_users=n)
        return
    res = ranklens.evaluate(case.qrels, case.run, f"EFD{at}", popularity=pop, num_users=n)
    assert res[f"EFD{at}"] == pytest.approx(efd, rel=1e-12, abs=1e-12)
    if max(pop.values()) > n:  # phi(i) counts training users: at most N
        with pytest.raises(MeasureError, match=f"more than the N = {n} training users"):
            ranklens.evaluate(case.qrels, case.run, f"EPC{at}", popularity=pop, num_users=n)
        return
    res = ranklens.evaluate(case.qrels, case.run, f"EPC{at}", popularity=pop, num_users=n)
    assert res[f"EPC{at}"] == pytest.approx(epc, rel=1e-12, abs=1e-12)


# --- PopREO (Zhu et al. 2021), as Elliot's loops compute it -------------------------------


def pop_reo_reference(case, pop, k, share, unlisted):
    users = evaluated_users(case)
    head = short_head(pop, share)
    tail = {i for i in pop if i not in head}
    num, den = np.zeros(2), np.zeros(2)
    for u in users:
        relevant = {d for d, g in case.qrels[u].items() if g >= 1}
        extra = relevant - set(pop) if unlisted == "tail" else set()
        found = {i for i in trec_ranking(case.run.get(u, {}))[:k] if i in relevant}
        num += [len(found & head), len(found & (tail | extra))]
        den += [len(relevant & head), len(relevant & (tail | extra))]
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = num / den
        return float(np.std(rate) / np.mean(rate))


@SETTINGS
@given(
    cases(),
    popularity_st,
    st.sampled_from((1, 3, 10)),
    st.sampled_from((0.2, 0.5)),
    st.sampled_from(("tail", "ignore")),
)
def test_pop_reo_equals_its_published_formula(case, pop, k, share, unlisted) -> None:
    expected = pop_reo_reference(case, pop, k, share, unlisted)
    name = f"PopREO(head_share={share},unlisted={unlisted!r})@{k}"
    got = ranklens.evaluate(case.qrels, case.run, name, popularity=pop)[name]
    if math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_bootstrap_interval_of_a_run_level_measure_covers_the_true_difference() -> None:
    """Coverage by simulation: with every item equally popular, PSP@1 is the share of users
    whose top item is relevant, so the true difference of two runs hitting with
    probabilities 0.55 and 0.4 is 0.15. The 90% bootstrap interval over users must hold
    it in about 90% of the simulated experiments (binomial tolerance for 200 of them)."""
    rng = np.random.default_rng(2026)
    users = [f"u{i}" for i in range(120)]
    qrels = {u: {"rel": 1} for u in users}
    pop = {"rel": 5, "other": 5}
    ev = ranklens.Evaluator(qrels, ["PSP@1"], popularity=pop, num_users=1000)

    def run(hits: np.ndarray) -> dict[str, dict[str, float]]:
        return {
            u: {"rel": 2.0, "other": 1.0} if hit else {"rel": 1.0, "other": 2.0}
            for u, hit in zip(users, hits, strict=True)
        }

    experiments, covered = 200, 0
    for seed in range(experiments):
        a = ev.evaluate(run(rng.random(len(users)) < 0.4), "a")
        b = ev.evaluate(run(rng.random(len(users)) < 0.55), "b")
        stats = compare_results(
            [a, b], test="bootstrap", permutations=400, seed=seed, confidence=0.9
        ).stats("b", "PSP@1")
        assert stats.delta == pytest.approx(b.aggregate["PSP@1"] - a.aggregate["PSP@1"])
        covered += stats.ci_low <= 0.15 <= stats.ci_high
    assert 0.84 <= covered / experiments <= 0.96
