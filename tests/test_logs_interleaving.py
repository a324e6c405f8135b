"""Interleaving: the lists (each method's invariants, seeded), the analysis against
scipy's binomial test and hand counts, and by simulation: a better ranker wins with the
stated power, two identical rankers give false positives at most at the test's level."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from ranklens.base.errors import InputError, OptionError
from ranklens.logs import (
    impressions_needed,
    interleave,
    interleaving,
    interleaving_power,
    multileaving,
    read_log,
)
from ranklens.logs.interleaving import EXACT_IMPRESSIONS, NotEstimableError

rankings_strategy = st.lists(
    st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=6, unique=True),
    min_size=2,
    max_size=4,
)


@settings(max_examples=60, deadline=None)
@given(
    rankings_strategy,
    st.sampled_from(["team_draft", "probabilistic", "balanced"]),
    st.integers(0, 10**6),
)
def test_lists_are_well_formed(lists: list[list[str]], method: str, seed: int) -> None:
    if method == "balanced":
        lists = lists[:2]
    rankings = {f"r{i}": docs for i, docs in enumerate(lists)}
    shown = interleave(rankings, method, seed=seed)
    pool = {d for docs in lists for d in docs}
    assert len(shown.docs) == len(set(shown.docs))
    if method != "balanced":  # balanced ends when either ranking runs out
        assert set(shown.docs) == pool
    assert shown == interleave(rankings, method, seed=seed)  # deterministic under a seed
    for doc, team in zip(shown.docs, shown.teams, strict=True):
        assert doc in rankings[team]
    if method == "team_draft":
        # each team's documents appear in the order of its own ranking
        for team, docs in rankings.items():
            mine = [d for d, t in zip(shown.docs, shown.teams, strict=True) if t == team]
            assert mine == sorted(mine, key=docs.index)
        # in every prefix, a team is at most one document ahead of a team that still has
        # documents of its own to give (each round, every such ranker adds one)
        for m in range(1, len(shown.docs) + 1):
            prefix = set(shown.docs[:m])
            counts = {t: shown.teams[:m].count(t) for t in rankings}
            active = [t for t, docs in rankings.items() if set(docs) - prefix]
            for t in rankings:
                for other in active:
                    assert counts[t] <= counts[other] + 1
    if method == "balanced":
        # every prefix of the list holds a top-k of one ranking and a top-k' of the other,
        # k and k' differing by at most one (Joachims 2003)
        a, b = lists
        for n in range(1, len(shown.docs) + 1):
            prefix = set(shown.docs[:n])
            ka = max(
                (i + 1 for i, d in enumerate(a) if d in prefix and set(a[: i + 1]) <= prefix),
                default=0,
            )
            kb = max(
                (i + 1 for i, d in enumerate(b) if d in prefix and set(b[: i + 1]) <= prefix),
                default=0,
            )
            assert prefix <= set(a[:ka]) | set(b[:kb]) or ka == len(a) or kb == len(b)


def test_length_and_refusals() -> None:
    shown = interleave({"A": list("abcd"), "B": list("dcba")}, length=2, seed=1)
    assert len(shown.docs) == 2
    with pytest.raises(OptionError, match="exactly two"):
        interleave({"A": ["a"], "B": ["b"], "C": ["c"]}, "balanced")
    with pytest.raises(OptionError, match="at least two"):
        interleave({"A": ["a"]})
    with pytest.raises(OptionError, match="twice"):
        interleave({"A": ["a", "a"], "B": ["b"]})
    with pytest.raises(OptionError, match="unknown interleaving method"):
        interleave({"A": ["a"], "B": ["b"]}, "optimized")


def test_balanced_credit_by_hand() -> None:
    shown = interleave({"A": ["a", "b", "c"], "B": ["b", "d", "c"]}, "balanced", seed=0)
    assert shown.docs in (("a", "b", "d"), ("b", "a", "d", "c"))
    # clicks on b and d: the lowest clicked is d, ranked 2 by B and not by A, so k = 2;
    # A's top 2 (a, b) holds one click, B's top 2 (b, d) two
    clicked = [shown.docs.index("b") + 1, shown.docs.index("d") + 1]
    assert shown.credit(clicked) == {"A": 1.0, "B": 2.0}
    assert shown.credit([]) == {"A": 0.0, "B": 0.0}


def test_a_repeated_click_counts_once() -> None:
    """Issue 45: credit([1, 1]) counted one click twice."""
    shown = interleave({"A": ["a", "b"], "B": ["b", "c"]}, "team_draft", seed=3)
    assert shown.credit([1, 1]) == shown.credit([1]) == {"A": 0.0, "B": 1.0}
    balanced = interleave({"A": ["a", "b"], "B": ["b", "c"]}, "balanced", seed=3)
    assert balanced.credit([2, 2, 2]) == balanced.credit([2])


# ---- balanced interleaving: the definitions, written from the papers ---------------------


def _joachims_list(a: list[str], b: list[str], a_first: bool) -> list[str]:
    """Joachims (2003), Table 1: ka = kb = 1; while ka <= |A| and kb <= |B|: if ka < kb
    or (ka = kb and A first), add A[ka] unless shown and ka += 1, else B[kb] likewise."""
    out: list[str] = []
    ka = kb = 1
    while ka <= len(a) and kb <= len(b):
        if ka < kb or (ka == kb and a_first):
            if a[ka - 1] not in out:
                out.append(a[ka - 1])
            ka += 1
        else:
            if b[kb - 1] not in out:
                out.append(b[kb - 1])
            kb += 1
    return out


def _chapelle_credit(
    a: list[str], b: list[str], shown: list[str], clicked: set[int]
) -> tuple[int, int]:
    """Chapelle et al. (2012), balanced interleaving: d_max the lowest clicked document of
    the interleaved list, k = min{j : a_j = d_max or b_j = d_max}; h_A = the clicked
    documents among a_1..a_k, h_B among b_1..b_k."""
    if not clicked:
        return 0, 0
    d_max = shown[max(clicked) - 1]
    k = min(
        j
        for j in range(1, max(len(a), len(b)) + 1)
        if (j <= len(a) and a[j - 1] == d_max) or (j <= len(b) and b[j - 1] == d_max)
    )
    docs = {shown[p - 1] for p in clicked}
    return len(docs & set(a[:k])), len(docs & set(b[:k]))


two_rankings = st.lists(
    st.lists(st.sampled_from("abcdefghij"), min_size=1, max_size=8, unique=True),
    min_size=2,
    max_size=2,
)


@settings(max_examples=150, deadline=None)
@given(two_rankings, st.integers(0, 10**6), st.lists(st.integers(1, 16), max_size=6))
def test_balanced_follows_joachims_and_chapelle(
    lists: list[list[str]], seed: int, clicks: list[int]
) -> None:
    a, b = lists
    shown = interleave({"A": a, "B": b}, "balanced", seed=seed)
    a_first = shown.teams[0] == "A"
    assert list(shown.docs) == _joachims_list(a, b, a_first)
    clicked = [p for p in clicks if p <= len(shown.docs)]  # repeats kept: counted once
    h_a, h_b = _chapelle_credit(a, b, list(shown.docs), set(clicked))
    assert shown.credit(clicked) == {"A": float(h_a), "B": float(h_b)}
    # on these lists, a document missing from one ranking taken at its length + 1 gives
    # the same k (the other convention of the literature)
    if clicked:
        d_max = shown.docs[max(clicked) - 1]
        ranks = [r.index(d_max) + 1 if d_max in r else len(r) + 1 for r in (a, b)]
        k = min(ranks)
        docs = {shown.docs[p - 1] for p in clicked}
        assert (len(docs & set(a[:k])), len(docs & set(b[:k]))) == (h_a, h_b)


@settings(max_examples=40, deadline=None)
@given(st.lists(two_rankings, min_size=1, max_size=3), st.integers(0, 10**6))
def test_interleaving_of_a_balanced_log_credits_by_the_balanced_rule(
    per_query: list[list[list[str]]], seed: int
) -> None:
    rng = np.random.default_rng(seed)
    cols: dict[str, list[object]] = {
        k: [] for k in ("session_id", "query_id", "doc_id", "position", "clicked", "team")
    }
    expected: list[tuple[int, int]] = []
    rankings: dict[str, dict[str, list[str]]] = {"A": {}, "B": {}}
    session = 0
    for q, (a, b) in enumerate(per_query):
        rankings["A"][f"q{q}"], rankings["B"][f"q{q}"] = a, b
        for _ in range(4):
            shown = interleave({"A": a, "B": b}, "balanced", seed=rng)
            flags = (rng.random(len(shown.docs)) < 0.4).tolist()
            clicked = {i + 1 for i, f in enumerate(flags) if f}
            expected.append(_chapelle_credit(a, b, list(shown.docs), clicked))
            session += 1
            for i, (doc, team) in enumerate(zip(shown.docs, shown.teams, strict=True)):
                row = (session, f"q{q}", doc, i + 1, flags[i], team)
                for key, value in zip(cols, row, strict=True):
                    cols[key].append(value)
    result = interleaving(read_log(cols), rankings=rankings, bootstrap=10)
    assert result.credit.tolist() == [[float(x), float(y)] for x, y in expected]
    wins = sum(x > y for x, y in expected)
    losses = sum(x < y for x, y in expected)
    assert (result.wins, result.losses) == (wins, losses)
    # the team column is not read: the same log without it gives the same result
    del cols["team"]
    bare = interleaving(read_log(cols), rankings=rankings, bootstrap=10)
    assert bare.credit.tolist() == result.credit.tolist()


def test_balanced_log_refusals() -> None:
    cols = {
        "session_id": [1, 1],
        "query_id": ["q", "q"],
        "doc_id": ["a", "z"],
        "position": [1, 2],
        "clicked": [True, False],
    }
    with pytest.raises(InputError, match="session '1' shows document 'z' at position 2"):
        interleaving(read_log(cols), rankings={"A": {"q": ["a"]}, "B": {"q": ["b"]}})
    with pytest.raises(OptionError, match="two rankings, not 3"):
        interleaving(read_log(cols), rankings={"A": {}, "B": {}, "C": {}})


def _log(outcomes: list[tuple[str, int, int]]) -> dict[str, list[object]]:
    """Impressions of two documents, one per team: (query, clicks on A's, on B's)."""
    cols: dict[str, list[object]] = {
        k: [] for k in ("session_id", "query_id", "doc_id", "position", "clicked", "team")
    }
    for i, (q, a, b) in enumerate(outcomes):
        for k, (doc, team, click) in enumerate((("x", "A", a), ("y", "B", b))):
            for key, value in zip(cols, (i, q, doc, k + 1, bool(click), team), strict=True):
                cols[key].append(value)
    return cols


def test_counts_pvalue_and_delta_by_hand() -> None:
    outcomes = [("q1", 1, 0)] * 7 + [("q1", 0, 1)] * 2 + [("q2", 1, 1)] * 3 + [("q2", 0, 0)] * 4
    result = interleaving(read_log(_log(outcomes)))
    assert (result.wins, result.losses, result.ties, result.no_clicks) == (7, 2, 7, 4)
    assert result["wins"] == 7 and result.rankers == ("A", "B")
    assert result.p_value == pytest.approx(binomtest(7, 9, 0.5).pvalue, rel=1e-12)
    # delta over the 12 impressions with clicks: (7 + 3 / 2) / 12 - 1 / 2
    assert result.delta == pytest.approx((7 + 1.5) / 12 - 0.5)
    assert result.per_query == {"q1": (7, 2, 0), "q2": (0, 0, 7)}
    low, high = result.interval
    assert low <= result.delta <= high
    assert result.credit.tolist()[:2] == [[1.0, 0.0], [1.0, 0.0]]
    swapped = {**_log(outcomes)}
    swapped["team"] = ["Z" if t == "A" else "A" for t in swapped["team"]]  # A's team is now 'Z'
    mirror = interleaving(read_log(swapped))
    assert mirror.rankers == ("A", "Z") and (mirror.wins, mirror.losses) == (2, 7)


def test_no_decisive_impressions_and_refusals() -> None:
    result = interleaving(read_log(_log([("q", 0, 0), ("q", 1, 1)])))
    assert (result.wins, result.losses, result.ties, result.p_value) == (0, 0, 2, 1.0)
    bare = read_log(
        {"session_id": [1], "query_id": ["q"], "doc_id": ["a"], "position": [1], "clicked": [True]}
    )
    with pytest.raises(InputError, match="no 'team' column"):
        interleaving(bare)
    three = _log([("q", 1, 0)])
    three["team"] = ["A", "C"]
    three2 = {k: v + v for k, v in three.items()}
    three2["session_id"] = [0, 0, 1, 1]
    three2["team"] = ["A", "B", "C", "A"]
    with pytest.raises(OptionError, match="has 3 teams"):
        interleaving(read_log(three2))
    pairs = multileaving(read_log(three2))
    assert sorted(pairs) == [("A", "B"), ("A", "C"), ("B", "C")]


def _simulated_experiment(
    relevance_a: list[float], relevance_b: list[float], impressions: int, rng: np.random.Generator
) -> dict[str, list[object]]:
    """Team-draft interleaving of two rankings of 6 documents; users examine position k with
    probability 1 / k and click an examined document with its attractiveness."""
    docs = [f"d{i}" for i in range(6)]
    attractiveness = dict(zip(docs, [0.7, 0.5, 0.35, 0.2, 0.1, 0.05], strict=True))
    order_a = sorted(docs, key=lambda d: -relevance_a[docs.index(d)])
    order_b = sorted(docs, key=lambda d: -relevance_b[docs.index(d)])
    cols: dict[str, list[object]] = {
        k: [] for k in ("session_id", "query_id", "doc_id", "position", "clicked", "team")
    }
    for i in range(impressions):
        shown = interleave({"A": order_a, "B": order_b}, "team_draft", seed=rng)
        for k, (doc, team) in enumerate(zip(shown.docs, shown.teams, strict=True)):
            click = rng.random() < attractiveness[doc] / (k + 1)
            for key, value in zip(cols, (i, "q", doc, k + 1, click, team), strict=True):
                cols[key].append(value)
    return cols


def test_false_positive_rate_within_alpha() -> None:
    """Two identical rankers: the binomial test rejects at most at its level (it is
    conservative, a discrete test)."""
    rng = np.random.default_rng(11)
    same = [6, 5, 4, 3, 2, 1]
    trials = 120
    rejected = 0
    for _ in range(trials):
        result = interleaving(read_log(_simulated_experiment(same, same, 120, rng)), bootstrap=10)
        rejected += result.p_value <= 0.05
    # at most alpha: allow for the simulation's own noise (3 standard errors)
    assert rejected / trials <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / trials)


def test_better_ranker_wins_with_the_stated_power() -> None:
    """Estimate the win and loss rates of a better ranker, ask how many impressions give
    80% power, run that many experiments: about 80% of them detect it."""
    rng = np.random.default_rng(5)
    better = [6, 5, 4, 3, 2, 1]
    worse = [5, 6, 3, 4, 1, 2]
    pilot = interleaving(read_log(_simulated_experiment(better, worse, 4000, rng)), bootstrap=10)
    assert pilot.wins > pilot.losses
    n = pilot.impressions_needed(power=0.8)
    assert n == impressions_needed(pilot.wins / 4000, pilot.losses / 4000, power=0.8)
    trials = 60
    detected = sum(
        interleaving(read_log(_simulated_experiment(better, worse, n, rng)), bootstrap=10).p_value
        <= 0.05
        for _ in range(trials)
    )
    assert abs(detected / trials - 0.8) < 3 * np.sqrt(0.8 * 0.2 / trials) + 0.05


def test_power_against_simulated_binomial_tests() -> None:
    rng = np.random.default_rng(2)
    for win, loss, n in ((0.3, 0.2, 300), (0.1, 0.05, 800), (0.25, 0.25, 200)):
        draws = rng.multinomial(n, [win, loss, 1 - win - loss], size=800)
        rejected = np.mean(
            [
                binomtest(int(w), int(w + lo), 0.5).pvalue <= 0.05 if w + lo else False
                for w, lo, _ in draws
            ]
        )
        assert interleaving_power(win, loss, n) == pytest.approx(rejected, abs=0.05)
    assert impressions_needed(0.3, 0.2) == min(
        n for n in range(300, 500) if interleaving_power(0.3, 0.2, n) >= 0.8
    )
    with pytest.raises(OptionError):
        impressions_needed(0.2, 0.2)
    with pytest.raises(OptionError):
        interleaving_power(0.7, 0.5, 10)


def test_numeric_teams_sort_as_numbers() -> None:
    """Teams 2 and 10: the first ranker is 2 (numeric order), not '10' (text order)."""
    cols = _log([("q", 1, 0), ("q", 1, 0), ("q", 0, 1)])
    cols["team"] = [10 if t == "A" else 2 for t in cols["team"]]
    result = interleaving(read_log(cols))
    assert result.rankers == ("2", "10")
    assert (result.wins, result.losses) == (1, 2)


# ---- power: bounded work, exact and approximate regimes agreeing ---------------------------


@pytest.mark.parametrize(
    ("win", "loss"), [(0.3, 0.29), (0.12, 0.1), (0.5, 0.495), (0.05, 0.045), (0.4, 0.2)]
)
def test_exact_and_normal_power_agree_where_both_run(win: float, loss: float) -> None:
    from ranklens.logs.interleaving import EXACT_IMPRESSIONS, _normal_power

    for n in (20_000, 50_000, EXACT_IMPRESSIONS):  # decisive impressions in the thousands
        exact = interleaving_power(win, loss, n)
        assert _normal_power(win, loss, n, 0.05) == pytest.approx(exact, abs=0.01)
    # across the switch the power is continuous
    below = interleaving_power(win, loss, EXACT_IMPRESSIONS)
    above = interleaving_power(win, loss, EXACT_IMPRESSIONS + 1)
    assert above == pytest.approx(below, abs=0.005)


@settings(max_examples=30, deadline=None)
@given(st.floats(0.01, 0.5), st.floats(0.001, 0.2), st.sampled_from([0.05, 0.01, 1e-6]))
def test_impressions_needed_is_the_first_reaching_the_power(
    win: float, gap: float, alpha: float
) -> None:
    loss = win - gap if win > gap else win + gap
    try:
        n = impressions_needed(win, loss, alpha=alpha)
    except NotEstimableError as exc:
        assert exc.more_than == 10_000_000
        assert interleaving_power(win, loss, 10_000_000, alpha) < 0.8
        return
    assert interleaving_power(win, loss, n, alpha) >= 0.8
    if n > EXACT_IMPRESSIONS + 1:  # the approximate regime is monotone: n is the first
        assert interleaving_power(win, loss, n - 1, alpha) < 0.8


def test_extreme_inputs_finish_quickly() -> None:
    """Issue 45: near-ties, alpha=1e-300 and 10**9 impressions ran for ever or ran out of
    memory."""
    import time

    start = time.perf_counter()
    with pytest.raises(NotEstimableError, match="more than 10,000,000") as caught:
        impressions_needed(0.3, 0.2999999)
    assert caught.value.more_than == 10_000_000
    with pytest.raises(NotEstimableError, match="more than"):
        impressions_needed(1000 / 2001, 1001 / 2001)
    n = impressions_needed(0.3, 0.25, alpha=1e-300)
    assert (
        interleaving_power(0.3, 0.25, n, 1e-300)
        >= 0.8
        > interleaving_power(0.3, 0.25, n - 1, 1e-300)
    )
    assert interleaving_power(0.3, 0.25, 10**9) == 1.0
    assert interleaving_power(0.3, 0.2999999, 10**12) < 0.1
    with pytest.raises(NotEstimableError, match="not estimable"):
        impressions_needed(0.2, 0.2)
    assert time.perf_counter() - start < 30


def test_near_tie_log_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 45: 2,001 impressions, 1,000 wins and 1,001 losses printed nothing in 10 min."""
    from ranklens.cli import main

    outcomes = [("q", 1, 0)] * 1000 + [("q", 0, 1)] * 1001
    path = tmp_path / "tie.jsonl"
    cols = _log(outcomes)
    with path.open("w") as out:
        for row in zip(*cols.values(), strict=True):
            out.write(json.dumps(dict(zip(cols, row, strict=True))) + "\n")
    assert main(["interleaving", str(path), "--bootstrap", "100"]) == 0
    text = capsys.readouterr().out
    assert "impressions for 80% power at these rates: more than 10,000,000" in text
    assert main(["interleaving", str(path), "--bootstrap", "100", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["impressions_needed"] is None
    assert data["impressions_needed_note"] == "more than 10,000,000"
