"""Click models against PyClick's estimates on the same log.

PyClick was run as an oracle by tests/data/logs/generate_pyclick_reference.py (its
docstring says how); the log and PyClick's values are stored in tests/data/logs/. With
PyClick's settings (prior of one click in two views, the examination left unscaled, 50 EM
iterations) the estimates are PyClick's to rounding:

- Cascade, DCM and SDBN by their closed forms (``method="closed"``);
- PBM and UBM by EM (UBM fitted, as PyClick was, to the full-length sessions);
- held-out log-likelihood (PBM, UBM, DCM, SDBN) and perplexity (every model but DBN).

DBN is the exception: PyClick's E-step approximates the posterior (the examination below
the last click is not conditioned on the clicks above, and a session without clicks gives
no evidence on attractiveness), so its estimates differ; ranklens' exact EM reaches a
higher likelihood on the same sessions, which is what is checked.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ranklens.logs import fit_click_model, read_log

DATA = Path(__file__).parent / "data" / "logs"
REFERENCE = json.loads((DATA / "pyclick_reference.json").read_text())["models"]
PYCLICK = {"prior": (1, 2), "normalize": False, "max_iter": 50, "tol": 0.0}


@pytest.fixture(scope="module")
def log() -> Any:
    return read_log(DATA / "pyclick_log.csv")


@pytest.fixture(scope="module")
def heldout() -> Any:
    full = read_log(DATA / "pyclick_heldout.csv")
    return full.subset(full.lengths == 10)


def _pairs(values: dict[str, dict[str, float]]) -> dict[str, float]:
    return {f"{q}\t{d}": v for q, docs in values.items() for d, v in docs.items()}


def _fit(log: Any, model: str) -> Any:
    if model == "UBM":
        log = log.subset(log.lengths == 10)
    method = "closed" if model in ("Cascade", "DCM", "SDBN") else None
    return fit_click_model(log, model, method=method, **PYCLICK)


@pytest.mark.parametrize("model", ["Cascade", "DCM", "SDBN", "PBM", "UBM"])
def test_parameters_equal_pyclick(log: Any, model: str) -> None:
    reference = REFERENCE[model]
    fit = _fit(log, model)
    ours = _pairs(fit.attractiveness)
    assert ours.keys() <= reference["attractiveness"].keys()
    for key, value in ours.items():
        assert value == pytest.approx(reference["attractiveness"][key], rel=1e-9, abs=1e-12), key
    if model == "SDBN":
        sat = _pairs(fit.satisfaction)
        for key, value in sat.items():
            assert value == pytest.approx(reference["satisfaction"][key], rel=1e-9), key
    if model == "PBM":
        assert [fit.examination[r + 1] for r in range(10)] == pytest.approx(
            reference["examination"], rel=1e-9
        )
    if model == "UBM":
        table = reference["examination"]  # [rank][previous click rank], M - 1 for none
        for (rank, previous), value in fit.examination.items():
            expected = table[rank - 1][previous - 1 if previous else 9]
            assert value == pytest.approx(expected, rel=1e-9), (rank, previous)
    if model == "DCM":
        assert [fit.continuation[r + 1] for r in range(10)] == pytest.approx(
            reference["continuation"], rel=1e-12
        )


@pytest.mark.parametrize("model", ["Cascade", "DCM", "SDBN", "PBM", "UBM"])
def test_heldout_figures_equal_pyclick(log: Any, heldout: Any, model: str) -> None:
    reference = REFERENCE[model]
    evaluation = _fit(log, model).evaluate(heldout)
    assert evaluation.perplexity == pytest.approx(reference["heldout_perplexity"], rel=1e-9)
    assert [evaluation.perplexity_at[r + 1] for r in range(10)] == pytest.approx(
        reference["heldout_perplexity_at"], rel=1e-9
    )
    if model != "Cascade":  # PyClick gives a skip after the first click probability 1e-6
        assert evaluation.log_likelihood_per_rank == pytest.approx(
            reference["heldout_log_likelihood"], rel=1e-9
        )


def test_dbn_exact_em_beats_pyclicks_approximation(log: Any) -> None:
    """On the sessions PyClick's DBN was fitted to, ranklens' maximum likelihood estimate
    has a higher likelihood than PyClick's parameters (both read by the same likelihood,
    checked against brute-force enumeration in tests/test_logs_click_models.py)."""
    from dataclasses import replace

    meta = json.loads((DATA / "pyclick_reference.json").read_text())["meta"]
    sessions = meta["dbn_sessions"]
    part = log.subset(np.arange(sessions))
    ours = fit_click_model(part, "DBN", prior=None, tol=1e-9)
    reference = REFERENCE["DBN"]
    keys = [
        f"{ours.queries[q]}\t{ours.documents[d]}"
        for q, d in zip(ours.pair_query.tolist(), ours.pair_doc.tolist(), strict=True)
    ]
    theirs = replace(
        ours,
        alpha=np.array([reference["attractiveness"][k] for k in keys]),
        sigma=np.array([reference["satisfaction"][k] for k in keys]),
        gamma=np.array([reference["continuation"]]),
    )
    assert ours.evaluate(part).log_likelihood > theirs.evaluate(part).log_likelihood
