"""The popularity and novelty measures of a recommender on training logs as click and play
logs are: a (user, item) pair repeated, few training users, tied scores. Each measure is
computed here from its published formula, in plain Python, and compared with ranklens;
every value must lie within the measure's declared bounds (or be refused in one line).

What each published definition counts (docs/recommender.md, "What popularity counts"):

- ``EPC``, ``EFD`` (Vargas and Castells, RecSys 2011): p(seen|i) = |{u : u rated i}| / |U|
  and p(i|seen) = |{u : u rated i}| / |{(u, j) : u rated j}|: distinct users and distinct
  (user, item) pairs;
- ``PSP``, ``PSnDCG``, ``PSR`` (Jain, Prabhu and Varma, KDD 2016): N_l, the training points
  (users) labelled with item l; N the training points; at least 3 (C < 0 below e);
- ``ARP``, ``APLT``, ``ACLT`` (Abdollahpouri, Burke and Mobasher, FLAIRS 2019) and the short
  head of ``PopREO``/``PopRSP`` (Zhu, Wang and Caverlee): the ratings of an item, one per
  user; ``count='interactions'`` counts the log's rows instead (RecBole);
- ``Coverage``, ``Gini``, ``Entropy``: the lists' exposure, which no training count enters.

Then one regression test per refusal of issue 35 (items 2, 3, 6 and 12): each failed on
the code before it (a negative or NaN value, or an OverflowError with a traceback).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import MeasureError
from ranklens.cli import main
from ranklens.measures.language import parse_measure
from strategies import DOC_POOL, QIDS, Case, cases, trec_ranking

pd = pytest.importorskip("pandas")
pytestmark = pytest.mark.filterwarnings("ignore::ranklens.base.errors.InputWarning")
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --- the training log --------------------------------------------------------------------


@dataclass(frozen=True)
class Log:
    """Training interactions, one (user, item) row per interaction, repeats included."""

    rows: tuple[tuple[str, str], ...]

    @property
    def users(self) -> set[str]:
        return {u for u, _ in self.rows}

    def distinct_users(self) -> dict[str, int]:
        """phi(i): the users who interacted with i (each once)."""
        return dict(Counter(i for _, i in set(self.rows)))

    def interactions(self) -> dict[str, int]:
        """The rows of each item (a repeated pair counts each time)."""
        return dict(Counter(i for _, i in self.rows))

    def items_of(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for u, i in self.rows:
            out.setdefault(u, set()).add(i)
        return out

    def frame(self):  # type: ignore[no-untyped-def]
        return pd.DataFrame(list(self.rows), columns=["user_id", "item_id"])

    def as_dict(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for u, i in self.rows:
            out.setdefault(u, []).append(i)
        return out


TRAIN_USERS = (*QIDS[:4], "t1", "t2")  # some evaluated users, some training-only users
TRAIN_ITEMS = DOC_POOL[:14]


@st.composite
def logs(draw) -> Log:  # type: ignore[no-untyped-def]
    """1 to 6 training users (fewer than 3 in about a third of the logs), each with 1 to 4
    items, repeated pairs in most logs."""
    size = draw(st.sampled_from((1, 2, 3, 3, 4, 4, 5, 6)))
    users = draw(st.permutations(TRAIN_USERS))[:size]
    pairs = [
        (user, item)
        for user in users
        for item in draw(st.lists(st.sampled_from(TRAIN_ITEMS), min_size=1, max_size=4))
    ]
    repeats = draw(st.lists(st.integers(0, len(pairs) - 1), max_size=8))
    rows = pairs + [pairs[k] for k in repeats]
    order = draw(st.permutations(range(len(rows))))
    return Log(tuple(rows[k] for k in order))


# --- the published formulas --------------------------------------------------------------


def top_lists(case: Case, k: int) -> dict[str, list[str]]:
    """Each evaluated user's top-k list (trec_eval's order: score, then id descending)."""
    return {u: trec_ranking(case.run.get(u, {}))[:k] for u in case.qrels}


def relevant(case: Case, u: str) -> set[str]:
    return {d for d, g in case.qrels[u].items() if g >= 1}


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def discount(j: int) -> float:
    """1/log2(j + 1) at the 1-based position j."""
    return 1.0 / math.log2(j + 1)


def short_head(phi: Mapping[str, int], share: float) -> set[str]:
    """The most popular items (ties by id in byte order) holding ``share`` of the total: the
    shortest such prefix; an item with no interaction is never in it."""
    ranked = sorted(phi, key=lambda i: (-phi[i], i.encode()))
    total = sum(phi.values())
    head: list[str] = []
    for item in ranked:
        if total == 0 or sum(phi[i] for i in head) >= share * total:
            break
        head.append(item)
    return {i for i in head if phi[i] > 0}


def arp(lists: Mapping[str, list[str]], phi: Mapping[str, int]) -> float:
    return mean([sum(phi.get(i, 0) for i in L) / len(L) if L else 0.0 for L in lists.values()])


def aplt(lists: Mapping[str, list[str]], head: set[str]) -> float:
    return mean([sum(i not in head for i in L) / len(L) if L else 0.0 for L in lists.values()])


def aclt(lists: Mapping[str, list[str]], head: set[str]) -> float:
    return mean([float(sum(i not in head for i in L)) for L in lists.values()])


def epc_efd(case: Case, lists: Mapping[str, list[str]], log: Log) -> tuple[float, float]:
    """Vargas and Castells: mean_u sum_j disc(j) rel_j nov(i_j) / sum_j disc(j), EPC's
    nov = 1 - p(seen|i), EFD's -log2 p(i|seen); an item nobody trained on takes the
    largest EFD novelty of an item someone did (Elliot's convention)."""
    users_of = log.distinct_users()
    n_users, pairs = len(log.users), len(set(log.rows))
    largest = -math.log2(min(users_of.values()) / pairs)
    epc, efd = [], []
    for u, ranked in lists.items():
        norm = sum(discount(j) for j in range(1, len(ranked) + 1))
        a = b = 0.0
        for j, item in enumerate(ranked, 1):
            if item in relevant(case, u):
                seen = users_of.get(item, 0)
                a += discount(j) * (1 - seen / n_users)
                b += discount(j) * (-math.log2(seen / pairs) if seen else largest)
        epc.append(a / norm if norm else 0.0)
        efd.append(b / norm if norm else 0.0)
    return mean(epc), mean(efd)


def propensity_scored(
    case: Case, lists: Mapping[str, list[str]], log: Log, k: int, a: float, b: float
) -> dict[str, float]:
    """Jain et al.: w_l = 1 + C (N_l + B)^-A, C = (ln N - 1)(B + 1)^A, N_l the training
    users of l; each measure a ratio of sums over users against the best lists (pyxclib)."""
    users_of, n = log.distinct_users(), len(log.users)
    c = (math.log(n) - 1) * (b + 1) ** a

    def w(item: str) -> float:
        return 1 + c * (users_of.get(item, 0) + b) ** -a

    sums = {kind: [0.0, 0.0] for kind in ("PSP", "PSnDCG", "PSR")}
    for u, ranked in lists.items():
        rel = relevant(case, u)
        got = [w(i) if i in rel else 0.0 for i in ranked]
        best = sorted((w(i) for i in rel), reverse=True)[:k]
        z = sum(discount(j) for j in range(1, min(len(rel), k) + 1))
        for side, gains in ((0, got), (1, best)):
            dcg = sum(g * discount(j) for j, g in enumerate(gains, 1))
            sums["PSP"][side] += sum(gains) / k
            sums["PSnDCG"][side] += dcg / z if z else 0.0
            sums["PSR"][side] += sum(gains) / max(len(rel), 1)
    return {kind: top / bottom if bottom > 0 else 0.0 for kind, (top, bottom) in sums.items()}


def disparity(rates: Sequence[tuple[float, float]]) -> float:
    """std / mean (population) of the groups' rates sum(hits) / sum(totals): |a-b|/(a+b)."""
    hits_h, total_h = rates[0]
    hits_t, total_t = rates[1]
    if total_h == 0 or total_t == 0:
        return math.nan
    p_h, p_t = hits_h / total_h, hits_t / total_t
    return abs(p_h - p_t) / (p_h + p_t) if p_h + p_t > 0 else math.nan


def pop_reo(case: Case, lists: Mapping[str, list[str]], head: set[str]) -> float:
    """Zhu et al.: the true positive rates of the short head and the long tail (every
    other item, unlisted ones included)."""
    hits, totals = [0, 0], [0, 0]
    for u, ranked in lists.items():
        rel = relevant(case, u)
        for item in rel:
            totals[item not in head] += 1
            hits[item not in head] += item in ranked
    return disparity([(hits[0], totals[0]), (hits[1], totals[1])])


def pop_rsp(lists: Mapping[str, list[str]], log: Log, head: set[str], catalogue: int) -> float:
    """Zhu et al.: the rates at which each group's items a user did not train on are
    recommended to it; the tail is the rest of the catalogue."""
    trained = log.items_of()
    hits, totals = [0, 0], [0, 0]
    for u, ranked in lists.items():
        mine = trained.get(u, set())
        head_left = len(head - mine)
        totals[0] += head_left
        totals[1] += (catalogue - len(head)) - len(mine - head)
        for item in ranked:
            if item not in mine:
                hits[item not in head] += 1
    return disparity([(hits[0], totals[0]), (hits[1], totals[1])])


def exposure(lists: Mapping[str, list[str]]) -> Counter[str]:
    return Counter(i for L in lists.values() for i in L)


def gini(counts: Counter[str], n: int) -> float:
    x = sorted([0] * (n - len(counts)) + list(counts.values()))
    total = sum(x)
    return sum((2 * j - n - 1) * x[j - 1] for j in range(1, n + 1)) / (n * total) if total else 0.0


def entropy(counts: Counter[str]) -> float:
    total = sum(counts.values())
    return -sum(c / total * math.log(c / total) for c in counts.values()) if total else 0.0


def in_bounds(name: str, value: float) -> bool:
    low, high = parse_measure(name).spec.bounds
    return low <= value <= high


# --- the property ------------------------------------------------------------------------


@SETTINGS
@given(
    cases(max_docs=8),
    logs(),
    st.sampled_from((1, 2, 3, 5)),
    st.sampled_from((0.2, 0.5)),
    st.sampled_from(((0.55, 1.5), (0.6, 2.6), (0.5, 0.4))),
    st.sampled_from(("table", "train")),
)
def test_popularity_measures_equal_their_published_formulas_on_logs_with_repeats(
    case: Case, log: Log, k: int, share: float, ab: tuple[float, float], source: str
) -> None:
    lists = top_lists(case, k)
    users_of, rows = log.distinct_users(), log.interactions()
    shown = {i for L in lists.values() for i in L}
    catalogue = len(shown | set(users_of) | set(DOC_POOL)) + 2
    # the log as a table of interactions (popularity=) or as each user's items (train=)
    side = {"train": log.as_dict(), "num_items": catalogue}
    if source == "table":
        side["popularity"] = log.frame()
    a, b = ab
    head_users, head_rows = short_head(users_of, share), short_head(rows, share)
    epc, efd = epc_efd(case, lists, log)
    expected = {
        f"ARP@{k}": arp(lists, users_of),
        f"ARP(count='interactions')@{k}": arp(lists, rows),
        f"APLT(head_share={share})@{k}": aplt(lists, head_users),
        f"APLT(count='interactions',head_share={share})@{k}": aplt(lists, head_rows),
        f"ACLT(head_share={share})@{k}": aclt(lists, head_users),
        f"ACLT(count='interactions',head_share={share})@{k}": aclt(lists, head_rows),
        f"EPC@{k}": epc,
        f"EFD@{k}": efd,
        f"PopREO(head_share={share})@{k}": pop_reo(case, lists, head_users),
        f"PopREO(count='interactions',head_share={share})@{k}": pop_reo(case, lists, head_rows),
        f"PopRSP(head_share={share})@{k}": pop_rsp(lists, log, head_users, catalogue),
        f"PopRSP(count='interactions',head_share={share})@{k}": pop_rsp(
            lists, log, head_rows, catalogue
        ),
        f"Coverage@{k}": len(shown) / catalogue,
        f"Gini@{k}": gini(exposure(lists), catalogue),
        f"Entropy@{k}": entropy(exposure(lists)),
    }
    res = ranklens.evaluate(case.qrels, case.run, list(expected), **side)
    for name, value in expected.items():
        got = res[name]
        if math.isnan(value):
            assert math.isnan(got) and name.startswith("Pop"), name  # 0/0: documented NaN
            continue
        assert got == pytest.approx(value, rel=1e-12, abs=1e-12), name
        assert in_bounds(name, got), (name, got)
    # propensity-scored: Jain et al.'s model needs N >= 3 training users
    names = {kind: f"{kind}(A={a},B={b})@{k}" for kind in ("PSP", "PSnDCG", "PSR")}
    if len(log.users) < 3:
        for name in names.values():
            with pytest.raises(MeasureError, match="at least 3 training users"):
                ranklens.evaluate(case.qrels, case.run, name, **side)
        return
    scored = propensity_scored(case, lists, log, k, a, b)
    res = ranklens.evaluate(case.qrels, case.run, list(names.values()), **side)
    for kind, name in names.items():
        assert res[name] == pytest.approx(scored[kind], rel=1e-9, abs=1e-12), name
        assert in_bounds(name, res[name]), (name, res[name])


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(TRAIN_ITEMS), st.integers(0, 12), min_size=1, max_size=8
    ).filter(lambda pop: any(pop.values())),
    st.integers(1, 12),
    cases(max_docs=6),
)
def test_counts_given_are_used_as_given_within_their_range(
    pop: dict[str, int], n: int, case: Case
) -> None:
    """``{item: count}`` is read as it is; a count above the N training users (a count of
    interactions) is refused by the measures that read it as a share of the users, and
    every value computed stays within its bounds."""
    names = ["EPC@3", "PSP@3", "PSnDCG@3", "PSR@3", "EFD@3", "ARP@3", "APLT@3"]
    for name in names:
        try:
            value = ranklens.evaluate(case.qrels, case.run, name, popularity=pop, num_users=n)[name]
        except MeasureError as error:
            assert name.startswith(("EPC", "PS")), (name, error)
            assert "\n" not in str(error)
            too_few = name.startswith("PS") and n < 3
            assert too_few or max(pop.values()) > n, (name, error)
            continue
        assert not (name.startswith(("EPC", "PS")) and max(pop.values()) > n), name
        assert in_bounds(name, value), (name, value)


# --- the readers count distinct users ---------------------------------------------------


def test_a_repeated_pair_counts_once_in_a_table_a_train_dict_and_a_parquet_file(
    tmp_path,
) -> None:
    """The 5-row log of issue 35: x plays a three times, y plays b, z plays a. EPC@1 of a
    user shown a (relevant) was -1/3 (a's 4 plays over 3 users); a has 2 users of 3, so
    1 - 2/3 = 1/3."""
    rows = [("x", "a"), ("x", "a"), ("x", "a"), ("y", "b"), ("z", "a")]
    table = pd.DataFrame(rows, columns=["user_id", "item_id"])
    parquet = tmp_path / "train.parquet"
    pytest.importorskip("pyarrow")
    table.to_parquet(parquet)
    qrels, run = {"u": {"a": 1}}, {"u": {"a": 1.0}}
    names = ["EPC@1", "EFD@1", "ARP@1", "ARP(count='interactions')@1"]
    for side in ({"popularity": table}, {"popularity": parquet}, {"train": table}):
        res = ranklens.evaluate(qrels, run, names, **side)
        assert res["EPC@1"] == pytest.approx(1 - 2 / 3)
        # p(a|seen) = 2 users / 3 distinct (user, item) pairs
        assert res["EFD@1"] == pytest.approx(-math.log2(2 / 3))
        assert res["ARP@1"] == 2.0
        assert res["ARP(count='interactions')@1"] == 4.0


def test_epc_stays_in_its_range_on_a_play_log() -> None:
    """A realistic play log (each user plays a few items many times): EPC@10 was -2.99."""
    users = [f"u{j}" for j in range(30)]
    rows = [
        (u, f"i{(j * 7 + r) % 12}")
        for j, u in enumerate(users)
        for r in range(3)
        for _ in range(1 + (j * 13 + r) % 9)  # 1 to 9 plays of each of 3 items
    ]
    train = pd.DataFrame(rows, columns=["user_id", "item_id"])
    qrels = {u: {f"i{(j * 5) % 12}": 1, f"i{(j * 3) % 12}": 1} for j, u in enumerate(users)}
    run = {u: {f"i{m}": float(12 - m) for m in range(12)} for u in users}
    res = ranklens.evaluate(qrels, run, ["EPC@10", "EFD@10"], popularity=train)
    assert 0.0 <= res["EPC@10"] <= 1.0
    log = Log(tuple(rows))
    case = Case(qrels, run)
    epc, efd = epc_efd(case, top_lists(case, 10), log)
    assert res["EPC@10"] == pytest.approx(epc, rel=1e-12)
    assert res["EFD@10"] == pytest.approx(efd, rel=1e-12)


# --- the propensity model's domain (issue 35, items 2, 3, 12) ---------------------------

DOC_TRAIN = pd.DataFrame(
    {
        "user_id": ["u1", "u1", "u2", "u2", "u3", "u3", "u4", "u4"],
        "item_id": ["i1", "i2", "i1", "i3", "i1", "i2", "i1", "i4"],
    }
)
DOC_TEST = {"u1": {"i3": 1}, "u2": {"i2": 1}, "u3": {"i5": 1}, "u4": {"i2": 1}}
DOC_RECS = {
    "u1": {"i1": 0.9, "i3": 0.8},
    "u2": {"i1": 0.9, "i2": 0.7},
    "u3": {"i1": 0.6, "i4": 0.5},
    "u4": {"i1": 0.9, "i2": 0.8},
}


@pytest.mark.parametrize("users", [1, 2])
@pytest.mark.parametrize("name", ["PSP@1", "PSP@2", "PSnDCG@2", "PSR@2"])
def test_fewer_than_three_training_users_are_refused(name: str, users: int) -> None:
    """docs/recommender.md's example with num_users=1 gave PSP@2 = 25.03, and a negative
    C can give any sign: refused, naming the minimum."""
    with pytest.raises(MeasureError, match=f"at least 3 training users, not N = {users}"):
        ranklens.evaluate(DOC_TEST, DOC_RECS, name, popularity=DOC_TRAIN, num_users=users)
    one_user = DOC_TRAIN[DOC_TRAIN["user_id"] == "u1"]  # N from the table: 1
    with pytest.raises(MeasureError, match="not N = 1"):
        ranklens.evaluate(DOC_TEST, DOC_RECS, name, popularity=one_user)


def test_three_training_users_give_propensities_of_the_model() -> None:
    """At N = 3, C > 0: each inverse propensity is above 1 and PSP within [0, 1]."""
    counts = {"i1": 3, "i2": 2, "i3": 1}
    res = ranklens.evaluate(DOC_TEST, DOC_RECS, "PSP@2", popularity=counts, num_users=3)
    c = (math.log(3) - 1) * 2.5**0.55
    w = {i: 1 + c * (counts.get(i, 0) + 1.5) ** -0.55 for i in ("i1", "i2", "i3", "i4", "i5")}
    assert min(w.values()) > 1
    found = w["i3"] + w["i2"] + w["i2"]  # u1 i3, u2 i2, u4 i2 (u3's i5 is not shown)
    best = w["i3"] + w["i2"] + w["i5"] + w["i2"]
    assert res["PSP@2"] == pytest.approx(found / best, rel=1e-12)


@pytest.mark.parametrize("text", ["PSP(B=0)@1", "PSnDCG(B=0.0)@3", "PSR(B=-1)@2"])
def test_b_must_be_above_zero(text: str) -> None:
    """B = 0 gave an unseen relevant item an infinite weight: 0.0 for an imperfect run,
    NaN for a perfect one."""
    with pytest.raises(MeasureError, match="B must be greater than 0"):
        ranklens.evaluate(
            {"u": {"a": 1}}, {"u": {"a": 1.0}}, text, popularity={"b": 1}, num_users=5
        )


@pytest.mark.parametrize("a", ["1e308", "2000", "1e5"])
def test_a_huge_a_is_a_one_line_error_not_an_overflow(a: str, capsys, tmp_path) -> None:
    """PSP(A=1e308) raised OverflowError with a traceback; an unseen item's weight
    ((B + 1) / B)^A is beyond a double."""
    name = f"PSP(A={a})@1"
    with pytest.raises(MeasureError, match="too large for a double"):
        ranklens.evaluate(
            {"u": {"a": 1}}, {"u": {"a": 1.0}}, name, popularity={"b": 1}, num_users=5
        )
    qrels, run, pop = tmp_path / "qrels", tmp_path / "run", tmp_path / "pop"
    qrels.write_text("u 0 a 1\n")
    run.write_text("u Q0 a 1 1.0 r\n")
    pop.write_text("b 1\n")
    code = main(
        [
            "eval",
            str(qrels),
            str(run),
            "-m",
            name,
            "--popularity",
            str(pop),
            "--num-users",
            "5",
            "--quiet",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "too large for a double" in err


def test_a_large_finite_a_keeps_its_meaning() -> None:
    """A seen item's weight tends to 1 as A grows (no overflow on the way), an unseen
    one's is finite as long as the double holds it."""
    qrels = {"u": {"a": 1, "b": 1}}
    run = {"u": {"a": 2.0, "b": 1.0}}
    res = ranklens.evaluate(qrels, run, "PSP(A=1e308)@1", popularity={"a": 1, "b": 4}, num_users=5)
    assert res["PSP(A=1e+308)@1"] == 1.0  # a: w = 1 + (ln 5 - 1)(2.5/2.5)^A, b: w -> 1
    value = ranklens.evaluate(
        qrels, {"u": {"b": 2.0, "a": 1.0}}, "PSP(A=50)@1", popularity={"a": 0, "b": 4}, num_users=5
    )["PSP(A=50)@1"]
    c = (math.log(5) - 1) * 2.5**50
    assert value == pytest.approx((1 + c * 5.5**-50) / (1 + c * 1.5**-50), rel=1e-9)
