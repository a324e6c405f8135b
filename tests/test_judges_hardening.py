"""Agreement over the grades that occur, and PPI intervals that are never of zero width
(issue 35, items 5 and 10).

Oracles: scikit-learn's ``cohen_kappa_score`` and ``confusion_matrix``, statsmodels'
``cohens_kappa`` (weighted by grade values), the ``krippendorff`` package, and coverage
by simulation. Agreement's labels are generated on a small alphabet of grade positions and
mapped to grades by an increasing affine map (huge offsets and steps, up to 2**62), with
unused grades in between, negative grades (unjudged) and pairs judged on one side only:
kappa (unweighted, linear, quadratic) and alpha (nominal, ordinal, interval) are
invariant under such a map, so the references run on the small positions, where they are
exact, while ranklens reads the huge grades.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.stats import t as student_t

import ranklens
from ranklens.analysis.agreement import MAX_GRADES
from ranklens.analysis.ppi import ppi_interval
from ranklens.base.errors import InputError

krippendorff = pytest.importorskip("krippendorff", reason="krippendorff (test extra) is the oracle")
sklearn_metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn is the oracle")


def _same(x: float, y: float, tol: float = 1e-9) -> bool:
    return (math.isnan(x) and math.isnan(y)) or abs(x - y) <= tol * max(1.0, abs(y))


# ------------------------------------------------------------------------ agreement


@st.composite
def labelled(draw: Any) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, int]], Any]:
    """Two qrels over the same documents: positions 0-6 of a grade alphabet (some never
    used), mapped to grades ``offset + step * position``; some grades negative (not
    judged) and some documents judged on one side only. Also the positions of the common
    pairs, for the references."""
    offset = draw(st.sampled_from([0, 1, 7, 100_000, 10**12, 2**53 + 1, 2**62]))
    step = draw(st.sampled_from([1, 2, 3, 1000, 10**12]))
    grade_of = [offset + step * k for k in range(7)]
    assume(grade_of[-1] < 2**63)
    a: dict[str, dict[str, int]] = {}
    b: dict[str, dict[str, int]] = {}
    xs: list[int] = []
    ys: list[int] = []
    docs = draw(st.integers(1, 40))
    for d in range(docs):
        query = f"q{d % 3}"
        ka = draw(st.integers(-1, 6))  # -1: on this side, a negative grade (not judged)
        kb = draw(st.sampled_from([ka, ka, ka - 1, ka + 1, 0, 6, -1]))
        kb = min(kb, 6)
        where = draw(st.sampled_from(["both", "both", "both", "a", "b"]))
        if where != "b":
            a.setdefault(query, {})[f"d{d}"] = grade_of[ka] if ka >= 0 else -1 - d % 3
        if where != "a":
            b.setdefault(query, {})[f"d{d}"] = grade_of[kb] if kb >= 0 else -2
        if where == "both" and ka >= 0 and kb >= 0:
            xs.append(ka)
            ys.append(kb)
    a.setdefault("qa", {})["only"] = grade_of[1]  # queries judged on one side only
    b.setdefault("qb", {})["only"] = grade_of[2]
    return a, b, (np.array(xs, dtype=np.int64), np.array(ys, dtype=np.int64), grade_of)


def _kappa(x: Any, y: Any, weights: str | None) -> float:
    labels = np.arange(int(min(x.min(), y.min())), int(max(x.max(), y.max())) + 1)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return float(sklearn_metrics.cohen_kappa_score(x, y, labels=labels, weights=weights))


def _alpha(x: Any, y: Any, level: str) -> float:
    data = np.vstack([x, y]).astype(float)
    try:
        return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
    except ValueError:  # a single value in the domain: alpha is undefined
        return math.nan


@settings(max_examples=120, deadline=None)
@given(labelled())
def test_agreement_of_huge_sparse_grades_equals_the_references(case: Any) -> None:
    a, b, (x, y, grade_of) = case
    res = ranklens.agreement(a, b)
    assert res.pairs == x.size
    assert res.grades == tuple(sorted({grade_of[k] for k in (*x.tolist(), *y.tolist())}))

    def alone(one: dict[str, dict[str, int]], other: dict[str, dict[str, int]]) -> int:
        return sum(
            g >= 0 and other.get(q, {}).get(d, -1) < 0
            for q, docs in one.items()
            for d, g in docs.items()
        )

    assert (res.only_a, res.only_b) == (alone(a, b), alone(b, a))
    if x.size == 0:
        assert all(math.isnan(v) for v in res.numbers.values())
        return
    used = sorted(set(x.tolist()) | set(y.tolist()))
    with warnings.catch_warnings():  # one label only: a warning, and the right matrix
        warnings.simplefilter("ignore", UserWarning)
        expected = sklearn_metrics.confusion_matrix(x, y, labels=used)
    assert res.confusion.tolist() == expected.tolist()
    for weights, name in (
        (None, "kappa"),
        ("linear", "kappa_linear"),
        ("quadratic", "kappa_quadratic"),
    ):
        assert _same(res[name], _kappa(x, y, weights)), name
    for level in ("nominal", "ordinal", "interval"):
        assert _same(res[f"alpha_{level}"], _alpha(x, y, level)), level
    assert res["agreement"] == pytest.approx(float(np.mean(x == y)))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([0, 3, 17, 100_000, 10**9, 10**12, 2**52]),
            st.sampled_from([0, 3, 17, 100_000, 10**9, 10**12, 2**52]),
        ),
        min_size=2,
        max_size=30,
    )
)
def test_agreement_weights_are_distances_between_grade_values(pairs: list[Any]) -> None:
    """Grades that are no affine image of consecutive positions (0, 3, 17, 10^5 ...): the
    weighted kappas equal statsmodels' ``cohens_kappa`` weighted by the grade values, the
    alphas the ``krippendorff`` package on the values themselves (all below 2**53, exact as
    floats)."""
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    a = {"q": {f"d{i}": g for i, (g, _) in enumerate(pairs)}}
    b = {"q": {f"d{i}": h for i, (_, h) in enumerate(pairs)}}
    res = ranklens.agreement(a, b)
    x = np.array([g for g, _ in pairs])
    y = np.array([h for _, h in pairs])
    values = sorted(set(x.tolist()) | set(y.tolist()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        table = sklearn_metrics.confusion_matrix(x, y, labels=values)
    for wt, name in (("linear", "kappa_linear"), ("quadratic", "kappa_quadratic")):
        if len(values) < 2 or len(set(x.tolist())) == len(set(y.tolist())) == 1:
            continue
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            expected = inter_rater.cohens_kappa(
                table, weights=np.array(values, dtype=float), wt=wt, return_results=False
            )
        assert _same(res[name], float(expected)), name
    data = np.vstack([x, y]).astype(float)
    for level in ("nominal", "ordinal", "interval"):
        try:
            expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        except ValueError:
            expected = math.nan
        assert _same(res[f"alpha_{level}"], float(expected)), level


def test_a_grade_of_ten_to_the_twelve_costs_nothing() -> None:
    """Regression: a matrix over every integer from the lowest grade to the highest (10^12
    of them: a bare MemoryError; 100000: "out of memory")."""
    a = {"q": {"d1": 0, "d2": 100_000, "d3": 10**12, "d4": 1}}
    b = {"q": {"d1": 0, "d2": 100_000, "d3": 1, "d4": 10**12}}
    res = ranklens.agreement(a, b, per_query=True)
    assert res.grades == (0, 1, 100_000, 10**12)
    assert res.confusion.shape == (4, 4)
    assert res.per_query["q"].grades == res.grades
    positions = {0: 0, 1: 1, 100_000: 2, 10**12: 3}
    x = np.array([0, 2, 3, 1])
    y = np.array([0, 2, 1, 3])
    assert _same(res["kappa"], _kappa(x, y, None))
    assert _same(res["alpha_ordinal"], _alpha(x, y, "ordinal"))
    assert all(positions[g] == k for k, g in enumerate(res.grades))


def test_more_distinct_grades_than_the_limit_are_refused_in_one_line() -> None:
    grades = {f"d{i}": i * 1000 for i in range(MAX_GRADES + 1)}
    with pytest.raises(InputError, match=r"distinct grades.*rel=") as caught:
        ranklens.agreement({"q": grades}, {"q": grades})
    assert "\n" not in str(caught.value)
    res = ranklens.agreement({"q": grades}, {"q": grades}, rel=5000)  # binarised: fine
    assert res.grades == (0, 1) and res["kappa"] == 1.0


# ------------------------------------------------------------------------ PPI


def _ppi_qrels(
    y: list[float], f_labeled: list[float], f_alone: list[float]
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Qrels whose P@4 is ``y`` (human) and ``f`` (LLM) on the labeled queries and ``f``
    on the LLM-only ones (each value a multiple of 1/4)."""

    def judged(value: float) -> dict[str, int]:
        hits = round(value * 4)
        return {f"d{k}": int(k < hits) for k in range(4)}

    human, llm, run = {}, {}, {}
    for j, (yy, ff) in enumerate(zip(y, f_labeled, strict=True)):
        human[f"L{j}"] = judged(yy)
        llm[f"L{j}"] = judged(ff)
    for j, ff in enumerate(f_alone):
        llm[f"U{j}"] = judged(ff)
    for q in llm:
        run[q] = {f"d{k}": float(4 - k) for k in range(4)}
    return human, llm, run


def test_ppi_with_one_llm_only_query_is_refused() -> None:
    """Regression: its variance term was set to 0."""
    human, llm, run = _ppi_qrels([0.25, 0.5, 1.0], [0.5, 0.5, 0.75], [0.25])
    for tuned in (False, True):
        with pytest.raises(InputError, match=r"exactly one query \('U0'\) is judged by the LLM"):
            ranklens.ppi_mean(human, llm, run, "P@4", power_tuning=tuned)


@pytest.mark.parametrize(
    ("y", "f_labeled", "f_alone", "refused"),
    [
        ([0.5, 0.5, 0.5, 0.5], [0.5, 0.5, 0.5, 0.5], [], (True, True)),  # all human-judged
        ([1.0, 1.0, 1.0], [0.5, 0.5, 0.5], [0.5, 0.5], (True, True)),  # y - f equal, and f
        ([0.25, 0.25, 0.25], [0.25, 0.25, 0.25], [0.25, 0.25, 0.25], (True, True)),
        # y - f equal (a perfect LLM on the sample), but f varies over the queries: the
        # LLM's term has a variance, and the interval a width
        ([0.75, 0.5, 0.25], [0.75, 0.5, 0.25], [0.5, 0.5, 0.5], (False, False)),
        # f equal on the sample: PPI++ weighs the LLM by 0, leaving y, all equal
        ([1.0, 1.0, 1.0], [0.5, 0.5, 0.5], [0.25, 0.75], (False, True)),
    ],
)
def test_ppi_zero_width_intervals_are_refused(
    y: Any, f_labeled: Any, f_alone: Any, refused: tuple[bool, bool]
) -> None:
    """Regression: a "95%" interval of zero width, with and without power tuning."""
    human, llm, run = _ppi_qrels(y, f_labeled, f_alone)
    for tuned, refuse in zip((False, True), refused, strict=True):
        if refuse:
            with pytest.raises(InputError, match="variance") as caught:
                ranklens.ppi_mean(human, llm, run, "P@4", power_tuning=tuned)
            assert "\n" not in str(caught.value)
        else:
            est = ranklens.ppi_mean(human, llm, run, "P@4", power_tuning=tuned)
            assert est.low < est.estimate < est.high


def test_ppi_naive_intervals_without_a_variance_have_nan_ends() -> None:
    human, llm, run = _ppi_qrels([1.0, 1.0, 1.0], [0.5, 0.75, 0.25], [0.25, 0.5, 1.0])
    est = ranklens.ppi_mean(human, llm, run, "P@4")
    assert est.human_only[0] == 1.0 and math.isnan(est.human_only[1])
    assert math.isnan(est.human_only[2])
    assert est.low < est.estimate < est.high  # y - f varies: the PPI interval stands


values_01 = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 1.0])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(values_01, values_01), min_size=2, max_size=12),
    st.lists(values_01, max_size=12),
    st.booleans(),
)
def test_ppi_interval_is_refused_exactly_when_its_variance_is_zero(
    labeled: list[Any], alone: list[float], tuned: bool
) -> None:
    y = np.array([a for a, _ in labeled])
    f = np.array([b for _, b in labeled])
    u = np.array(alone)
    try:
        estimate, low, high, _ = ppi_interval(y, f, u, power_tuning=tuned)
    except InputError as exc:
        message = str(exc)
        if u.size == 1:
            assert "exactly one query" in message
        elif u.size == 0:
            assert np.ptp(y) == 0, message
        elif not tuned:
            assert np.ptp(y - f) == 0 and np.ptp(np.concatenate((f, u))) == 0, message
        else:
            assert "variance" in message
        return
    assert u.size != 1
    assert low < estimate < high  # never a zero-width interval
    if not tuned and u.size:
        every = np.concatenate((f, u))
        assert not (np.ptp(y - f) == 0 and np.ptp(every) == 0)
        assert estimate == pytest.approx(u.mean() + (y - f).mean(), abs=1e-12)
        human, llm = (y - f).var(ddof=1) / y.size, every.var(ddof=1) / u.size
        welch = (human + llm) ** 2 / (human**2 / (y.size - 1) + llm**2 / (every.size - 1))
        half = float(student_t.ppf(0.975, welch)) * math.sqrt(human + llm)
        assert (high - low) / 2 == pytest.approx(half, rel=1e-9)


@pytest.mark.parametrize(
    ("n", "big_n", "tuned"), [(40, 400, False), (40, 400, True), (30, 2, False), (60, 0, False)]
)
def test_ppi_coverage_by_simulation(n: int, big_n: int, tuned: bool) -> None:
    """A measure on a 0-1 scale in steps of 0.1 (as P@10), a biased and noisy LLM: the
    intervals cover the population mean at about their nominal 95%, also with two
    LLM-only queries (a normal quantile there covered 65%: Welch's t does not) and with
    none. 2,000 draws: a binomial(2000, 0.95) share lies in [0.935, 0.965] with
    probability 0.998; the t approximation at n = 30-60 may lose a point more, and the
    mean of two LLM-only values (not normal) makes that interval a little wider."""
    rng = np.random.default_rng(n * 1000 + big_n + tuned)
    truth = 0.5  # E[y] for y = Binomial(10, pi) / 10, pi ~ U(0, 1)
    covered = refused = 0
    reps = 2000
    for _ in range(reps):
        pi = rng.random(n + big_n)
        y_all = rng.binomial(10, pi) / 10.0
        f_all = np.clip(y_all + 0.2 + rng.normal(0, 0.15, y_all.size), 0, 1).round(1)
        try:
            _, low, high, _ = ppi_interval(y_all[:n], f_all[:n], f_all[n:], power_tuning=tuned)
        except InputError:
            refused += 1
            continue
        assert low < high
        covered += low <= truth <= high
    assert refused == 0  # these samples always vary
    assert 0.925 <= covered / reps <= 0.99  # with N = 2 a little conservative: 0.976


def test_ppi_small_samples_never_give_zero_width() -> None:
    """Five human-judged queries of a measure that is mostly 1: many samples are all 1;
    each is refused, and every interval given has a positive width."""
    rng = np.random.default_rng(5)
    refused = 0
    for _ in range(500):
        y = (rng.random(5) < 0.9).astype(float)
        f = y.copy()
        u = (rng.random(rng.integers(2, 5)) < 0.9).astype(float)
        try:
            _, low, high, _ = ppi_interval(y, f, u)
        except InputError:
            refused += 1
            assert np.ptp(y - f) == 0 and np.ptp(np.concatenate((f, u))) == 0
            continue
        assert high - low > 0
    assert refused > 50  # the degenerate samples do occur, and are refused
