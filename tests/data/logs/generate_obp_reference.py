"""Make the obp reference values that ``tests/test_logs_counterfactual.py`` compares with.

obp (Open Bandit Pipeline, ``pip install obp``) is an oracle here, never a dependency: this
script runs its slate estimators (``SlateStandardIPS``, ``SlateIndependentIPS``,
``SlateRewardInteractionIPS``) on a logged slate log it simulates and stores their
estimates, so that the tests run from a plain clone without obp.

Run it from the repository root with obp importable, e.g. (obp installed in a folder of its
own, over the test environment)::

    pip install --no-deps --target /tmp/obp_target obp
    PYTHONPATH=/tmp/obp_target python tests/data/logs/generate_obp_reference.py

It writes ``tests/data/logs/obp_log.csv``: one row per (impression, position) with the
columns ``read_log`` reads (``session_id``, ``query_id``, ``doc_id``, ``position``,
``clicked``, the logging policy's ``propensity`` and ``step_propensity``) and the target
policy's ``target_propensity`` and ``target_step_propensity``; and
``tests/data/logs/obp_reference.json``: each estimator's value and its bootstrap interval.

Both policies are Plackett-Luce rankings of 5 documents into 3 slots, with their own
scores per query; the marginal probability of a document at a slot is exact (summed over
the 60 slates). Clicks follow a position-based model.
"""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SEED = 20261127
QUERIES = 4
DOCS = 5
SLOTS = 3
IMPRESSIONS = 3000


def slate_probability(weights: np.ndarray, slate: tuple[int, ...]) -> list[float]:
    """The step probabilities of a Plackett-Luce slate."""
    left = list(range(len(weights)))
    steps = []
    for d in slate:
        steps.append(float(weights[d] / weights[left].sum()))
        left.remove(d)
    return steps


def main() -> None:
    from obp.ope import SlateIndependentIPS, SlateRewardInteractionIPS, SlateStandardIPS

    rng = np.random.default_rng(SEED)
    behaviour = rng.uniform(0.2, 2.0, size=(QUERIES, DOCS))
    target = rng.uniform(0.2, 2.0, size=(QUERIES, DOCS))
    attractiveness = rng.uniform(0.05, 0.8, size=(QUERIES, DOCS))
    examination = np.array([1.0, 0.6, 0.35])
    slates = list(itertools.permutations(range(DOCS), SLOTS))

    def table(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        joint = np.array([np.prod(slate_probability(weights, s)) for s in slates])
        marginal = np.zeros((DOCS, SLOTS))
        for p, s in zip(joint, slates, strict=True):
            for k, d in enumerate(s):
                marginal[d, k] += p
        return joint, marginal

    rows: list[dict[str, object]] = []
    for i in range(IMPRESSIONS):
        q = int(rng.integers(QUERIES))
        joint_b, marginal_b = table(behaviour[q])
        _, marginal_e = table(target[q])
        slate = slates[int(rng.choice(len(slates), p=joint_b))]
        steps_b = slate_probability(behaviour[q], slate)
        steps_e = slate_probability(target[q], slate)
        for k, d in enumerate(slate):
            click = rng.random() < examination[k] * attractiveness[q, d]
            rows.append(
                {
                    "session_id": i,
                    "query_id": f"q{q}",
                    "doc_id": f"d{d}",
                    "position": k + 1,
                    "clicked": int(click),
                    "propensity": repr(float(marginal_b[d, k])),
                    "step_propensity": repr(steps_b[k]),
                    "target_propensity": repr(float(marginal_e[d, k])),
                    "target_step_propensity": repr(steps_e[k]),
                }
            )
    with (HERE / "obp_log.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)

    slate_id = np.array([int(r["session_id"]) for r in rows])
    reward = np.array([float(r["clicked"]) for r in rows])
    position = np.array([int(r["position"]) - 1 for r in rows])
    step_b = np.array([float(r["step_propensity"]) for r in rows])
    step_e = np.array([float(r["target_step_propensity"]) for r in rows])
    marg_b = np.array([float(r["propensity"]) for r in rows])
    marg_e = np.array([float(r["target_propensity"]) for r in rows])
    joint_b = np.zeros_like(step_b)
    joint_e = np.zeros_like(step_e)
    cascade_b = np.zeros_like(step_b)
    cascade_e = np.zeros_like(step_e)
    for s in np.unique(slate_id):
        at = np.flatnonzero(slate_id == s)
        joint_b[at] = np.prod(step_b[at])
        joint_e[at] = np.prod(step_e[at])
        cascade_b[at] = np.cumprod(step_b[at])
        cascade_e[at] = np.cumprod(step_e[at])
    common = {"slate_id": slate_id, "reward": reward, "position": position}
    reference: dict[str, object] = {}
    for name, estimator, extra in (
        (
            "sips",
            SlateStandardIPS(len_list=SLOTS),
            {"pscore": joint_b, "evaluation_policy_pscore": joint_e},
        ),
        (
            "iips",
            SlateIndependentIPS(len_list=SLOTS),
            {"pscore_item_position": marg_b, "evaluation_policy_pscore_item_position": marg_e},
        ),
        (
            "rips",
            SlateRewardInteractionIPS(len_list=SLOTS),
            {"pscore_cascade": cascade_b, "evaluation_policy_pscore_cascade": cascade_e},
        ),
    ):
        value = estimator.estimate_policy_value(**common, **extra)
        interval = estimator.estimate_interval(
            **common, **extra, alpha=0.05, n_bootstrap_samples=10000, random_state=12345
        )
        reference[name] = {
            "value": float(value),
            "interval": [
                float(interval["95.0% CI (lower)"]),
                float(interval["95.0% CI (upper)"]),
            ],
        }
    meta = {"generator": "tests/data/logs/generate_obp_reference.py", "obp": "0.4.1"}
    (HERE / "obp_reference.json").write_text(
        json.dumps({"meta": meta, "estimators": reference}, indent=1, sort_keys=True) + "\n"
    )


if __name__ == "__main__":
    main()
