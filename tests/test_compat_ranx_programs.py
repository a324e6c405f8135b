"""ranx programs run twice, on ranx and with only the import changed to
``ranklens.compat.ranx``: fuse with every method ranx has (the trainable ones trained by
their ``*_train`` functions), then ``evaluate``, ``compare`` and the report (its dict, its
printed table, its LaTeX). On generated data with tied input scores and fused ties (rrf,
bordafuse, sum...), every number must be ranx's: the fused runs' documents in ranx's order,
every per-query value and mean, the win/tie/loss counts, the tables character for
character, bit for bit (``rbp`` summed as ranx sums it; the t-test's and Tukey's p-values by
the scipy calls ranx makes), but for one documented difference: two runs equal on every
query get a t-test p-value of 1, where scipy (and so ranx) gives NaN.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ranx = pytest.importorskip("ranx")
import ranx.fusion as ranx_fusion  # noqa: E402
from numba import njit  # noqa: E402
from ranx.normalization import borda_norm as ranx_borda_norm  # noqa: E402

import ranklens.compat.ranx as compat  # noqa: E402
import ranklens.compat.ranx.fusion as compat_fusion  # noqa: E402
from ranklens.compat.ranx._order import quicksort_argsort  # noqa: E402
from ranklens.compat.ranx.normalization import borda_norm as compat_borda_norm  # noqa: E402

# numba warns about casts inside ranx; pytest turns warnings into errors
pytestmark = pytest.mark.filterwarnings("ignore")

METRICS = [
    "ndcg@5",
    "ndcg@10",
    "map@10",
    "mrr",
    "precision@5",
    "recall@10",
    "hits@10",
    "r-precision",
    "f1@10",
    "rbp.8",
    "hit_rate@5",
]

TRAINERS = {
    "posfuse": ("posfuse_train", {}),
    "probfuse": ("probfuse_train", {"n_segments": 5}),
    "segfuse": ("segfuse_train", {}),
    "slidefuse": ("slidefuse_train", {}),
    "bayesfuse": ("bayesfuse_train", {}),
    "mapfuse": ("mapfuse_train", {}),
}
PLAIN = {
    "wsum": {"weights": [0.5, 0.3, 0.2]},
    "rrf": {"k": 60},
    "sum": {},
    "mnz": {},
    "max": {},
    "min": {},
    "med": {},
    "anz": {},
    "gmnz": {"gamma": 0.5},
    "isr": {},
    "log_isr": {},
    "logn_isr": {"sigma": 0.01},
    "bordafuse": {},
    "w_bordafuse": {"weights": [0.5, 0.3, 0.2]},
    "condorcet": {},
    "w_condorcet": {"weights": [0.5, 0.3, 0.2]},
    "mixed": {"weights": [0.5, 0.3, 0.2]},
    "wmnz": {"weights": [0.5, 0.3, 0.2]},
    "rbc": {"phi": 0.8},
}


def make_data(seed: int):
    """Qrels (graded; some queries without relevant documents) and three runs with tied
    scores (one decimal), 10-40 documents per query, every run on every query."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    runs: list[dict[str, dict[str, float]]] = [{}, {}, {}]
    for q in range(12):
        qid = f"q_{q}"
        pool = [f"d_{rng.randint(0, 60)}" for _ in range(70)]
        judged = rng.sample(sorted(set(pool)), 12)
        qrels[qid] = {d: (rng.choice([0, 1, 2, 3]) if q % 5 else 0) for d in judged}
        for run in runs:
            docs = list(dict.fromkeys(rng.sample(pool, rng.randint(10, 40))))
            run[qid] = {d: round(rng.random(), 1) for d in docs}
    return qrels, runs


def fused_pairs(qrels, runs, norm):
    """(method, ranx's fused run, the compat module's) for every method ranx has."""
    rx_runs = [ranx.Run(r, name=f"r{i}") for i, r in enumerate(runs)]
    cp_runs = [compat.Run(r, name=f"r{i}") for i, r in enumerate(runs)]
    rx_qrels, cp_qrels = ranx.Qrels(qrels), compat.Qrels(qrels)
    out = []
    for method, params in PLAIN.items():
        out.append(
            (
                method,
                ranx.fuse(rx_runs, norm, method, dict(params)),
                compat.fuse(cp_runs, norm, method, dict(params)),
            )
        )
    if norm == "borda":
        rx_norm = ranx_borda_norm(rx_runs)
        cp_norm = compat_borda_norm(cp_runs)
    else:
        rx_norm = [ranx.normalize(r, norm) for r in rx_runs] if norm else rx_runs
        cp_norm = [compat.normalize(r, norm) for r in cp_runs] if norm else cp_runs
    for method, (trainer, options) in TRAINERS.items():
        rx_params = getattr(ranx_fusion, trainer)(rx_qrels, rx_norm, **options)
        cp_params = getattr(compat_fusion, trainer)(cp_qrels, cp_norm, **options)
        assert len(cp_params) == len(rx_params)
        for a, b in zip(rx_params, cp_params, strict=True):
            np.testing.assert_allclose(
                np.hstack([b]).astype(float), np.hstack([a]).astype(float), rtol=1e-12, atol=0
            )
        key = {
            "posfuse": "probs",
            "probfuse": "probs",
            "segfuse": "probs",
            "slidefuse": "probs",
            "bayesfuse": "log_odds",
            "mapfuse": "map_scores",
        }[method]
        extra = {"w": 3} if method == "slidefuse" else {}
        out.append(
            (
                method,
                ranx.fuse(rx_runs, norm, method, {key: rx_params, **extra}),
                compat.fuse(cp_runs, norm, method, {key: rx_params, **extra}),
            )
        )
    return rx_qrels, cp_qrels, out


def check_fused(method, rx_run, cp_run):
    rx_dict, cp_dict = rx_run.to_dict(), cp_run.to_dict()
    assert list(cp_dict) == list(rx_dict), method
    for qid, docs in rx_dict.items():
        assert list(cp_dict[qid]) == list(docs), (method, qid)
        np.testing.assert_allclose(
            list(cp_dict[qid].values()), list(docs.values()), rtol=1e-9, atol=1e-12
        )


@pytest.mark.parametrize(("seed", "norm"), [(1, "min-max"), (2, None), (3, "borda")])
def test_programs_give_ranx_numbers(seed, norm):
    qrels, runs = make_data(seed)
    rx_qrels, cp_qrels, fused = fused_pairs(qrels, runs, norm)
    tied = 0
    for method, rx_run, cp_run in fused:
        check_fused(method, rx_run, cp_run)
        tied += sum(len(set(d.values())) < len(d) for d in rx_run.to_dict().values())
        rx_values = ranx.evaluate(rx_qrels, rx_run, METRICS, return_mean=False)
        cp_values = compat.evaluate(cp_qrels, cp_run, METRICS, return_mean=False)
        for m in METRICS:
            np.testing.assert_array_equal(cp_values[m], rx_values[m], err_msg=f"{method} {m}")
        assert compat.evaluate(cp_qrels, cp_run, METRICS) == ranx.evaluate(
            rx_qrels, rx_run, METRICS
        )
    assert tied > 0  # the fused runs do hold ties
    chosen = [f for f in fused if f[0] in ("rrf", "bordafuse", "sum", "wsum", "isr", "probfuse")]
    for test in ("student", "tukey"):
        rx_report = ranx.compare(rx_qrels, [f[1] for f in chosen], METRICS[:4], stat_test=test)
        cp_report = compat.compare(cp_qrels, [f[2] for f in chosen], METRICS[:4], stat_test=test)
        assert str(cp_report) == str(rx_report)
        assert cp_report.to_latex() == rx_report.to_latex()
        rx_d, cp_d = rx_report.to_dict(), cp_report.to_dict()
        for model, entry in rx_d.items():
            if model in ("stat_test", "metrics", "model_names"):
                assert cp_d[model] == entry
                continue
            assert cp_d[model]["win_tie_loss"] == entry["win_tie_loss"]
            for m in METRICS[:4]:
                assert cp_d[model]["scores"][m] == entry["scores"][m]
                for other, p in entry["comparisons"].items():
                    ours = cp_d[model]["comparisons"][other][m]
                    if np.isnan(p[m]):
                        # documented: two runs with equal values on every query, the
                        # t-test's p-value is 1 (scipy, and so ranx, give NaN)
                        assert test == "student" and ours == 1.0
                    else:
                        assert ours == p[m]


def test_plain_dicts_and_tied_runs_as_ranx_sorts_them():
    qrels, runs = make_data(4)
    rx = ranx.evaluate(qrels, runs[0], ["ndcg@10", "mrr", "map@10"], return_mean=False)
    cp = compat.evaluate(qrels, runs[0], ["ndcg@10", "mrr", "map@10"], return_mean=False)
    for m in rx:
        np.testing.assert_array_equal(cp[m], rx[m])
    rx_run, cp_run = ranx.Run(runs[1]), compat.Run(runs[1])
    assert cp_run.to_dict() == rx_run.to_dict()
    assert all(list(cp_run.to_dict()[q]) == list(d) for q, d in rx_run.to_dict().items())
    rx_run.sort()
    cp_run.sort()
    assert all(list(cp_run.to_dict()[q]) == list(d) for q, d in rx_run.to_dict().items())
    # ranklens' own policy stays available
    by_id = compat.Run(runs[1]).to_dict(ties="trec_eval")
    for docs in by_id.values():
        ranked = sorted(docs.items(), key=lambda item: (item[1], item[0]), reverse=True)
        assert list(docs) == [d for d, _ in ranked]


@njit(cache=False)
def numba_argsort(keys):
    return np.argsort(keys)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=120), st.integers(1, 4))
def test_quicksort_argsort_is_numbas(values, spread):
    keys = [float(v // spread) for v in values]
    order = quicksort_argsort(keys)
    assert sorted(order) == list(range(len(keys)))
    assert [keys[i] for i in order] == sorted(keys)
    assert order == numba_argsort(np.array(keys, dtype=np.float64)).tolist()
