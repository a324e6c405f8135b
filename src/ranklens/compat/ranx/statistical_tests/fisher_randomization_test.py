"""ranx's ``fisher_randomization_test`` (``ranx.statistical_tests.fisher_randomization_test``)."""

from __future__ import annotations

from typing import Any

from ranklens.compat.ranx.meta.compare import significance, two_samples

__all__ = ["fisher_randomization_test"]


def fisher_randomization_test(
    control: Any,
    treatment: Any,
    n_permutations: int = 1000,
    max_p: float = 0.01,
    random_seed: int = 42,
) -> tuple[float, bool]:
    """The paired randomization test (``n_permutations`` random sign flips of the
    differences, seeded by ``random_seed``): ``(p_value, p_value <= max_p)``."""
    result = significance(
        ["control", "treatment"],
        two_samples(control, treatment),
        "fisher",
        n_permutations,
        max_p,
        random_seed,
        ["m"],
    )
    entry = result[frozenset(("control", "treatment"))]["m"]
    return entry["p_value"], entry["significant"]
