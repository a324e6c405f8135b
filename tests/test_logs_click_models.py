"""Click models: known parameters recovered from logs simulated here (a plain per-session
simulator of each model, written from the model's definition and independent of
ranklens.logs.simulate_log); the likelihood and its maximum checked against brute-force
enumeration of the hidden variables; closed forms against hand counts; streamed Parquet
equal to the in-memory fit; qrels read by ranklens.evaluate."""

from __future__ import annotations

import itertools
import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ranklens
from ranklens.base.errors import OptionError
from ranklens.logs import MODELS, fit_click_model, read_log, simulate_log

# ---- a plain simulator, one session at a time ---------------------------------------------


def _session(
    model: str, docs: list[str], q: str, p: dict[str, Any], rnd: random.Random
) -> list[bool]:
    a = [p["attr"][q][d] for d in docs]
    clicks: list[bool] = []
    if model == "PBM":
        return [rnd.random() < p["exam"][r + 1] and rnd.random() < a[r] for r in range(len(docs))]
    if model == "UBM":
        prev = 0
        for r in range(len(docs)):
            c = rnd.random() < p["exam"][(r + 1, prev)] and rnd.random() < a[r]
            clicks.append(c)
            prev = r + 1 if c else prev
        return clicks
    examining = True
    for r, d in enumerate(docs):
        c = examining and rnd.random() < a[r]
        clicks.append(c)
        if not examining:
            continue
        if model == "Cascade":
            examining = not c
        elif model == "DCM":
            examining = (not c) or rnd.random() < p["lam"][r + 1]
        else:
            gamma = 1.0 if model == "SDBN" else p["gamma"]
            satisfied = c and rnd.random() < p["sat"][q][d]
            examining = (not satisfied) and rnd.random() < gamma
    return clicks


def _log(
    model: str, p: dict[str, Any], rankings: dict[str, list[list[str]]], n: int, seed: int
) -> dict[str, list[Any]]:
    rnd = random.Random(seed)
    cols: dict[str, list[Any]] = {
        k: [] for k in ("session_id", "query_id", "doc_id", "position", "clicked")
    }
    queries = sorted(rankings)
    for i in range(n):
        q = rnd.choice(queries)
        docs = rnd.choice(rankings[q])
        for r, (d, c) in enumerate(zip(docs, _session(model, docs, q, p, rnd), strict=True)):
            for key, value in zip(cols, (i, q, d, r + 1, c), strict=True):
                cols[key].append(value)
    return cols


def _truth(
    seed: int, queries: int = 12, docs: int = 6, rankings: int = 3
) -> tuple[dict[str, Any], dict[str, list[list[str]]]]:
    rng = np.random.default_rng(seed)
    names = {f"q{i}": [f"d{j}" for j in range(docs)] for i in range(queries)}
    lists = {q: [list(rng.permutation(ds)) for _ in range(rankings)] for q, ds in names.items()}
    p: dict[str, Any] = {
        "attr": {q: {d: float(rng.uniform(0.1, 0.9)) for d in ds} for q, ds in names.items()},
        "sat": {q: {d: float(rng.uniform(0.2, 0.9)) for d in ds} for q, ds in names.items()},
        "exam": {r: 1.0 / r**0.8 for r in range(1, docs + 1)},
        "gamma": 0.75,
        "lam": {r: 0.7 - 0.05 * r for r in range(1, docs + 1)},
    }
    ubm = {}
    for r in range(1, docs + 1):
        for prev in range(r):
            ubm[(r, prev)] = (1.0 if prev == 0 else 0.95) * 0.85 ** (r - prev - 1)
    p["ubm"] = ubm
    return p, lists


def _weighted_error(
    fit: Any, truth: dict[str, dict[str, float]], values: dict[str, dict[str, float]]
) -> tuple[float, float]:
    """Mean absolute error weighted by impressions, and the largest error among pairs with
    at least 300 impressions."""
    shown = {
        (fit.queries[q], fit.documents[d]): n
        for q, d, n in zip(
            fit.pair_query.tolist(), fit.pair_doc.tolist(), fit.impressions.tolist(), strict=True
        )
    }
    errors = [(abs(values[q][d] - truth[q][d]), shown[(q, d)]) for q in truth for d in truth[q]]
    total = sum(n for _, n in errors)
    mean = sum(e * n for e, n in errors) / total
    worst = max((e for e, n in errors if n >= 300), default=0.0)
    return mean, worst


@pytest.mark.parametrize("model", MODELS)
def test_parameters_are_recovered(model: str) -> None:
    p, rankings = _truth(7)
    if model == "UBM":
        p = {**p, "exam": p["ubm"]}
    log = read_log(_log(model, p, rankings, 24_000, seed=11))
    fit = fit_click_model(log, model)
    assert fit.converged
    mean, worst = _weighted_error(fit, p["attr"], fit.attractiveness)
    # the cascade examines only down to the first click: fewer observations per pair
    assert mean < 0.03 and worst < (0.15 if model == "Cascade" else 0.1), (mean, worst)
    if model == "PBM":
        assert fit.examination is not None
        for r, value in p["exam"].items():
            assert abs(fit.examination[r] - value) < 0.04
    if model == "UBM":
        assert fit.examination is not None
        assert max(abs(fit.examination[k] - v) for k, v in p["ubm"].items() if k[0] <= 3) < 0.05
    if model in ("DBN", "SDBN"):
        assert fit.satisfaction is not None
        mean_s, _ = _weighted_error(fit, p["sat"], fit.satisfaction)
        assert mean_s < 0.06, mean_s
    if model == "DBN":
        assert abs(float(fit.continuation) - p["gamma"]) < 0.02  # type: ignore[arg-type]
    if model == "DCM":
        assert isinstance(fit.continuation, dict)
        for r in range(1, 5):
            assert abs(fit.continuation[r] - p["lam"][r]) < 0.05


def test_simulate_log_draws_what_the_plain_simulator_draws() -> None:
    """ranklens.logs.simulate_log and the plain simulator give the same click rates."""
    p, rankings = _truth(3, queries=3, docs=5, rankings=1)
    fixed = {q: r[0] for q, r in rankings.items()}
    cases = {
        "PBM": {"examination": p["exam"]},
        "UBM": {"examination": p["ubm"]},
        "Cascade": {},
        "DCM": {"continuation": p["lam"]},
        "SDBN": {"satisfaction": p["sat"]},
        "DBN": {"satisfaction": p["sat"], "continuation": p["gamma"]},
    }
    for model, options in cases.items():
        q = {**p, "exam": p["ubm"]} if model == "UBM" else p
        ours = read_log(simulate_log(model, fixed, p["attr"], impressions=8000, seed=5, **options))
        plain = read_log(_log(model, q, {k: [v] for k, v in fixed.items()}, 8000, seed=6))
        for log_a, log_b in ((ours, plain),):
            rate_a = np.bincount(log_a.positions - 1, weights=log_a.clicked) / np.bincount(
                log_a.positions - 1
            )
            rate_b = np.bincount(log_b.positions - 1, weights=log_b.clicked) / np.bincount(
                log_b.positions - 1
            )
            assert np.max(np.abs(rate_a - rate_b)) < 0.035, (model, rate_a, rate_b)


# ---- brute force: the likelihood by enumerating the hidden variables --------------------


def _brute_probability(
    model: str, a: list[float], s: list[float], gamma: Any, clicks: tuple[bool, ...]
) -> float:
    """P(clicks) by summing over every value of the hidden variables."""
    n = len(a)
    total = 0.0
    if model in ("PBM", "UBM"):
        for exam in itertools.product([0, 1], repeat=n):
            for attr in itertools.product([0, 1], repeat=n):
                prob, prev = 1.0, 0
                for r in range(n):
                    e = gamma[r] if model == "PBM" else gamma[(r + 1, prev)]
                    prob *= (e if exam[r] else 1 - e) * (a[r] if attr[r] else 1 - a[r])
                    c = bool(exam[r] and attr[r])
                    if c != clicks[r]:
                        prob = 0.0
                        break
                    prev = r + 1 if c else prev
                total += prob
        return total
    for attr in itertools.product([0, 1], repeat=n):
        for sat in itertools.product([0, 1], repeat=n):
            for go in itertools.product([0, 1], repeat=n):
                prob = 1.0
                examining = True
                for r in range(n):
                    prob *= a[r] if attr[r] else 1 - a[r]
                    prob *= s[r] if sat[r] else 1 - s[r]
                    g = 1.0 if model in ("SDBN", "DCM") else gamma
                    prob *= g if go[r] else 1 - g
                    c = examining and bool(attr[r])
                    if c != clicks[r]:
                        prob = 0.0
                        break
                    if examining:
                        examining = not (c and sat[r]) and bool(go[r])
                total += prob
    return total


def _tiny_log(seed: int) -> Any:
    rnd = random.Random(seed)
    rows: dict[str, list[Any]] = {
        k: [] for k in ("session_id", "query_id", "doc_id", "position", "clicked")
    }
    orders = [["a", "b", "c"], ["b", "c", "a"], ["c", "a"]]
    for i in range(60):
        docs = orders[i % 3]
        for r, d in enumerate(docs):
            for key, value in zip(
                rows, (i, "q", d, r + 1, rnd.random() < (0.6 if r == 0 else 0.35)), strict=True
            ):
                rows[key].append(value)
    return read_log(rows)


def _sessions(log: Any) -> list[tuple[list[str], tuple[bool, ...]]]:
    out = []
    for i in range(log.num_impressions):
        a, b = log.offsets[i], log.offsets[i + 1]
        out.append(
            ([log.documents[d] for d in log.doc[a:b]], tuple(bool(c) for c in log.clicked[a:b]))
        )
    return out


def _brute_log_likelihood(model: str, fit: Any, log: Any) -> float:
    attr = fit.attractiveness["q"]
    sat = fit.satisfaction["q"] if fit.satisfaction else None
    total = 0.0
    for docs, clicks in _sessions(log):
        a = [attr[d] for d in docs]
        if model == "DCM":
            s = [1 - fit.continuation[r + 1] for r in range(len(docs))]
            gamma: Any = 1.0
        elif model in ("DBN", "SDBN"):
            s = [sat[d] for d in docs]
            gamma = fit.continuation if model == "DBN" else 1.0
        else:
            s = [0.0] * len(docs)
            gamma = (
                fit.examination if model == "UBM" else [fit.examination[r + 1] for r in range(3)]
            )
        total += math.log(_brute_probability(model, a, s, gamma, clicks))
    return total


@pytest.mark.parametrize("model", ["PBM", "UBM", "DCM", "SDBN", "DBN"])
def test_likelihood_equals_brute_force(model: str) -> None:
    log = _tiny_log(1)
    fit = fit_click_model(log, model, prior=(1, 2), max_iter=30)
    assert fit.evaluate(log).log_likelihood == pytest.approx(
        _brute_log_likelihood(model, fit, log), rel=1e-9
    )
    assert fit.train_log_likelihood == pytest.approx(fit.evaluate(log).log_likelihood, rel=1e-12)


@pytest.mark.parametrize("model", ["PBM", "UBM", "DCM", "SDBN", "DBN"])
def test_em_climbs_to_the_maximum_likelihood(model: str) -> None:
    """Each EM iteration raises the likelihood, and the converged point is a maximum: no
    small move of any parameter raises the brute-force likelihood."""
    log = _tiny_log(2)
    trace = [
        fit_click_model(log, model, prior=None, max_iter=k, tol=0.0).train_log_likelihood
        for k in (1, 2, 5, 20, 100)
    ]
    assert all(b >= a - 1e-9 for a, b in itertools.pairwise(trace)), trace
    fit = fit_click_model(log, model, prior=None, tol=1e-10, max_iter=20_000, normalize=False)
    best = _brute_log_likelihood(model, fit, log)
    for name in ("alpha", "sigma", "gamma"):
        values = getattr(fit, name)
        if values is None:
            continue
        for k in range(values.size):
            for step in (-1e-4, 1e-4):
                moved = values.copy()
                flat = moved.reshape(-1)
                if not 1e-3 < flat[k] < 1 - 1e-3:
                    continue
                flat[k] += step
                other = _replace(fit, name, moved)
                assert _brute_log_likelihood(model, other, log) <= best + 1e-7, (name, k, step)


def _replace(fit: Any, name: str, values: np.ndarray) -> Any:
    from dataclasses import replace

    return replace(fit, **{name: values})


# ---- closed forms by hand -----------------------------------------------------------------


def _hand_log() -> Any:
    return read_log(
        {
            "session_id": [1, 1, 1, 2, 2, 2, 3, 3, 3],
            "query_id": ["q"] * 9,
            "doc_id": ["a", "b", "c"] * 3,
            "position": [1, 2, 3] * 3,
            "clicked": [True, False, True, False, True, False, False, False, False],
        }
    )


def test_closed_forms_by_hand() -> None:
    log = _hand_log()
    # Cascade: ranks down to the first click. a: 1 click in 3 views; b: 1 in 2; c: 0 in 1
    cascade = fit_click_model(log, "Cascade", prior=None)
    assert cascade.attractiveness == {"q": {"a": 1 / 3, "b": 0.5, "c": 0.0}}
    # DCM/SDBN: ranks down to the last click (all without a click):
    # a: s1, s2, s3 -> 1/3; b: s1, s2, s3 -> 1/3; c: s1, s3 -> 1/2
    dcm = fit_click_model(log, "DCM", prior=None, method="closed")
    assert dcm.attractiveness == {"q": {"a": 1 / 3, "b": 1 / 3, "c": 0.5}}
    # lambda_1: one click at rank 1, not the last -> 1; lambda_2: one click, the last -> 0
    assert dcm.continuation == {1: 1.0, 2: 0.0, 3: 0.0}
    sdbn = fit_click_model(log, "SDBN", prior=None, method="closed")
    assert sdbn.satisfaction == {"q": {"a": 0.0, "b": 1.0, "c": 1.0}}
    # the prior: one click in two views added to every count
    smoothed = fit_click_model(log, "Cascade")
    assert smoothed.attractiveness["q"]["a"] == pytest.approx(2 / 5)


def test_options_are_checked() -> None:
    log = _hand_log()
    with pytest.raises(OptionError, match="unknown click model"):
        fit_click_model(log, "XYZ")
    with pytest.raises(OptionError, match="no closed form"):
        fit_click_model(log, "PBM", method="closed")
    with pytest.raises(OptionError, match="prior"):
        fit_click_model(log, "PBM", prior=(3, 2))
    with pytest.raises(OptionError, match="max_iter"):
        fit_click_model(log, "DBN", max_iter=0)
    fit = fit_click_model(log, "dbn")
    with pytest.raises(OptionError, match="either thresholds"):
        fit.to_qrels()
    with pytest.raises(OptionError, match="increasing"):
        fit.to_qrels([0.5, 0.2])
    with pytest.raises(OptionError, match="satisfaction"):
        fit_click_model(log, "PBM").to_qrels([0.5], of="satisfaction")


# ---- qrels for the rest of ranklens ---------------------------------------------------------


def test_qrels_feed_evaluate() -> None:
    p, rankings = _truth(5, queries=4, docs=5, rankings=2)
    log = read_log(_log("DBN", p, rankings, 6000, seed=3))
    fit = fit_click_model(log, "DBN")
    relevance = fit.relevance
    cuts = [0.2, 0.4]
    qrels = fit.to_qrels(cuts)
    for q, docs in relevance.items():
        for d, value in docs.items():
            assert qrels.to_dict()[q][d] == (value >= 0.2) + (value >= 0.4)
    scaled = fit.to_qrels(scale=1000).to_dict()
    assert all(
        scaled[q][d] == round(1000 * v) for q, docs in relevance.items() for d, v in docs.items()
    )
    run = {q: {d: float(i) for i, d in enumerate(reversed(rankings[q][0]))} for q in rankings}
    result = ranklens.evaluate(scaled, run, ["nDCG@5"])
    # nDCG with linear gains on qrels scaled by 1000 is nDCG with the probabilities as gains
    for q in relevance:
        ranked = rankings[q][0]
        gains = [relevance[q][d] for d in ranked]
        ideal = sorted(relevance[q].values(), reverse=True)[:5]
        dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains[:5]))
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        assert result.per_query[q]["nDCG@5"] == pytest.approx(dcg / idcg, abs=2e-3)
    from ranklens.base.errors import EmptyInputError

    with pytest.raises(EmptyInputError, match="no judgments"):
        fit.to_qrels(scale=10, min_impressions=10**9)


# ---- held-out evaluation ------------------------------------------------------------------


def test_heldout_perplexity_and_unseen_pairs() -> None:
    p, rankings = _truth(9, queries=5, docs=4, rankings=2)
    log = read_log(_log("PBM", p, rankings, 4000, seed=8))
    train, test = log.split(0.25, seed=2)
    fit = fit_click_model(train, "PBM")
    ev = fit.evaluate(test)
    assert ev.sessions == test.num_impressions and ev.unseen == 0
    _, full = fit.probabilities(test)
    for r in range(1, 5):
        at = test.positions == r
        observed = np.where(test.clicked[at], full[at], 1 - full[at])
        assert ev.perplexity_at[r] == pytest.approx(2 ** (-np.mean(np.log2(observed))))
    assert ev.perplexity == pytest.approx(np.mean(list(ev.perplexity_at.values())))
    assert 1.0 < ev.perplexity < 2.0
    other = read_log(
        {
            "session_id": [1],
            "query_id": ["new"],
            "doc_id": ["z"],
            "position": [1],
            "clicked": [True],
        }
    )
    unseen = fit.evaluate(other)
    assert unseen.unseen == 1
    assert unseen.log_likelihood == pytest.approx(math.log(0.5 * fit.examination[1]))


# ---- streaming ------------------------------------------------------------------------------


def test_streamed_parquet_equals_in_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ranklens.logs import stream

    p, rankings = _truth(4, queries=6, docs=5, rankings=2)
    columns = _log("DBN", p, rankings, 3000, seed=4)
    path = tmp_path / "log.parquet"
    pq.write_table(pa.table(columns), path, row_group_size=1000)
    monkeypatch.setattr(stream, "BATCH_ROWS", 777)  # sessions cut between batches
    monkeypatch.setattr(stream, "MERGE_ROWS", 500)
    for model in MODELS:
        streamed = fit_click_model(path, model)
        memory = fit_click_model(read_log(columns), model)
        assert _close(streamed.attractiveness, memory.attractiveness), model
        assert np.allclose(streamed.gamma, memory.gamma, atol=1e-12)


def _close(x: dict[str, dict[str, float]], y: dict[str, dict[str, float]]) -> bool:
    return x.keys() == y.keys() and all(
        x[q].keys() == y[q].keys() and all(abs(x[q][d] - y[q][d]) < 1e-12 for d in x[q]) for q in x
    )


def test_streamed_parquet_errors(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ranklens.base.errors import InputError

    path = tmp_path / "split.parquet"
    pq.write_table(
        pa.table(
            {
                "session_id": ["s1", "s2", "s1"],
                "query_id": ["q", "q", "q"],
                "doc_id": ["a", "a", "b"],
                "position": [1, 1, 2],
                "clicked": [True, False, False],
            }
        ),
        path,
    )
    with pytest.raises(InputError, match=r"row 3: session 's1' appears again"):
        fit_click_model(path, "PBM")
    gap = tmp_path / "gap.parquet"
    pq.write_table(
        pa.table(
            {
                "session_id": ["s1", "s1"],
                "query_id": ["q", "q"],
                "doc_id": ["a", "b"],
                "position": [1, 3],
                "clicked": [True, False],
            }
        ),
        gap,
    )
    with pytest.raises(InputError, match=r"gap.parquet: row 2: session 's1' has a position gap"):
        fit_click_model(gap, "DBN")


def test_estimates_do_not_depend_on_the_slicing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The estimates run over slices of the distinct sessions: any slice size gives the
    same parameters."""
    from ranklens.logs import patterns

    p, rankings = _truth(6, queries=5, docs=4, rankings=2)
    log = read_log(_log("DBN", p, rankings, 2000, seed=6))
    whole = {m: fit_click_model(log, m) for m in MODELS}
    monkeypatch.setattr(patterns, "CHUNK_PATTERNS", 7)
    for model, fit in whole.items():
        sliced = fit_click_model(log, model)
        assert np.allclose(sliced.alpha, fit.alpha, rtol=1e-12, atol=1e-15), model
        assert np.allclose(sliced.gamma, fit.gamma, rtol=1e-12, atol=1e-15), model
        assert sliced.train_log_likelihood == pytest.approx(fit.train_log_likelihood, rel=1e-12)
        assert sliced.iterations == fit.iterations


def test_numeric_ids_answer_as_numbers() -> None:
    """Ids read as text answer to the numbers they were given as."""
    log = read_log(
        {
            "session_id": [1, 1, 2, 2],
            "query_id": [5, 5, 5, 5],
            "doc_id": [10, 11, 11, 10],
            "position": [1, 2, 1, 2],
            "clicked": [True, False, True, True],
        }
    )
    fit = fit_click_model(log, "SDBN", prior=None, method="closed")
    assert fit.attractiveness[5][10] == fit.attractiveness["5"]["10"] == 1.0
    assert (
        5 in fit.attractiveness and 11 in fit.attractiveness[5] and 12 not in fit.attractiveness[5]
    )
    # 11 is read once (session 2, clicked); session 1 ends at its last click, rank 1
    assert fit.attractiveness == {"5": {"10": 1.0, "11": 1.0}}
    with pytest.raises(KeyError):
        fit.attractiveness[6]


def test_streamed_parquet_rows_in_any_order_and_a_document_twice(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ranklens.base.errors import InputError

    columns = {
        "session_id": ["s1", "s1", "s1", "s2", "s2"],
        "query_id": ["q", "q", "q", "q", "q"],
        "doc_id": ["c", "a", "b", "a", "b"],
        "position": [3, 1, 2, 2, 1],
        "clicked": [False, True, True, False, True],
    }
    path = tmp_path / "unordered.parquet"
    pq.write_table(pa.table(columns), path)
    for model in MODELS:
        streamed = fit_click_model(path, model)
        assert _close(
            streamed.attractiveness, fit_click_model(read_log(columns), model).attractiveness
        )
    twice = tmp_path / "twice.parquet"
    pq.write_table(pa.table({**columns, "doc_id": ["c", "a", "a", "a", "b"]}), twice)
    with pytest.raises(
        InputError,
        match=r"twice.parquet: row 3: session 's1' shows document 'a' twice \(positions 1 and 2\)",
    ):
        fit_click_model(twice, "PBM")


def test_ubm_click_probabilities_equal_enumeration() -> None:
    """P(C_r = 1) of UBM (the perplexity's), computed in O(n^2) per session, against the
    definition: the sum over every click vector of prod_r (a_r g[r, r'])^c_r
    (1 - a_r g[r, r'])^(1 - c_r), r' the last click above r (0: none)."""
    rng = np.random.default_rng(11)
    rows: dict[str, list[object]] = {
        k: [] for k in ("session_id", "query_id", "doc_id", "position", "clicked")
    }
    for s in range(60):
        length = int(rng.integers(1, 6))
        for p in range(length):
            row = (s, f"q{s % 3}", f"d{(p + s) % 6}", p + 1, bool(rng.random() < 0.35))
            for key, value in zip(rows, row, strict=True):
                rows[key].append(value)
    log = read_log(rows)
    fit = fit_click_model(log, "UBM", max_iter=50)
    _, full = fit.probabilities(log)
    gamma = fit._gamma_at(log.max_length)
    alpha = fit.attractiveness
    start = 0
    for i in range(log.num_impressions):
        n = int(log.lengths[i])
        q = log.queries[int(log.query[i])]
        a = [alpha[q][log.documents[int(d)]] for d in log.doc[start : start + n].tolist()]
        expected = np.zeros(n)
        for clicks in itertools.product((0, 1), repeat=n):
            prob, prev = 1.0, 0
            for r, c in enumerate(clicks):
                p = a[r] * gamma[r, prev]
                prob *= p if c else 1.0 - p
                prev = r + 1 if c else prev
            expected += prob * np.asarray(clicks)
        assert full[start : start + n] == pytest.approx(expected, rel=1e-12, abs=1e-15)
        start += n


def test_ubm_refuses_sessions_past_its_bound() -> None:
    """Issue 45: UBM's table is (longest session)^2; past UBM_MAX_POSITIONS it is refused
    before anything is allocated, naming the session where the log is known."""
    from ranklens.base.errors import InputError
    from ranklens.logs.click_models import UBM_MAX_POSITIONS, fit_patterns
    from ranklens.logs.patterns import patterns_of

    n = UBM_MAX_POSITIONS + 1
    log = read_log(
        {
            "session_id": ["short"] * 2 + ["long"] * n,
            "query_id": ["q"] * (n + 2),
            "doc_id": ["a", "b"] + [f"x{p}" for p in range(n)],
            "position": [1, 2, *range(1, n + 1)],
            "clicked": [True] + [False] * (n + 1),
        }
    )
    with pytest.raises(InputError, match=f"session 'long' shows {n:,} documents"):
        fit_click_model(log, "UBM")
    with pytest.raises(InputError, match=f"a session shows {n:,} documents"):
        fit_patterns(patterns_of(log), "UBM")
    pbm = fit_click_model(log, "PBM", max_iter=5)
    assert pbm.examination is not None and len(pbm.examination) == n
    short = fit_click_model(log.subset(np.asarray([0])), "UBM")
    with pytest.raises(InputError, match="session 'long'"):
        short.evaluate(log)


def test_closed_forms_are_biased_as_documented() -> None:
    """docs/logs.md: where users read on after their last click, the closed forms (the last
    click taken as satisfying) put DCM's continuation too low and SDBN's satisfaction and
    attractiveness too high; EM has no such bias (issue 45: the docs said 'low' for
    both)."""
    rng = np.random.default_rng(0)
    queries = {f"q{i}": [f"d{j}" for j in rng.permutation(10)] for i in range(20)}
    attr = {q: {d: float(rng.uniform(0.1, 0.8)) for d in docs} for q, docs in queries.items()}
    sat = {q: {d: float(rng.uniform(0.1, 0.8)) for d in docs} for q, docs in queries.items()}
    lam = {r: float(rng.uniform(0.3, 0.9)) for r in range(1, 11)}

    def bias(fitted: dict[str, dict[str, float]], truth: dict[str, dict[str, float]]) -> float:
        return float(np.mean([fitted[q][d] - truth[q][d] for q in truth for d in truth[q]]))

    sdbn = read_log(simulate_log("SDBN", queries, attr, satisfaction=sat, impressions=20_000))
    closed = fit_click_model(sdbn, "SDBN", prior=None, method="closed")
    em = fit_click_model(sdbn, "SDBN", prior=None)
    assert closed.satisfaction is not None and em.satisfaction is not None
    assert bias(closed.satisfaction, sat) > 0.05 > abs(bias(em.satisfaction, sat))
    assert bias(closed.attractiveness, attr) > 0.05 > abs(bias(em.attractiveness, attr))
    dcm = read_log(simulate_log("DCM", queries, attr, continuation=lam, impressions=20_000))
    closed_dcm = fit_click_model(dcm, "DCM", prior=None, method="closed").continuation
    em_dcm = fit_click_model(dcm, "DCM", prior=None).continuation
    assert isinstance(closed_dcm, dict) and isinstance(em_dcm, dict)
    assert np.mean([closed_dcm[r] - lam[r] for r in range(1, 10)]) < -0.03
    assert abs(np.mean([em_dcm[r] - lam[r] for r in range(1, 10)])) < 0.03
