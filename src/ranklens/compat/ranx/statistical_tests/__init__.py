"""ranx's statistical tests (``ranx.statistical_tests``), by ranklens' implementations.

``paired_student_t_test`` gives scipy's ``ttest_rel`` p-value (1 where the two samples are
equal, where scipy gives NaN); ``fisher_randomization_test`` is ranklens' paired
randomization test (random sign flips, ``(count + 1) / (n_permutations + 1)``), whose
p-values differ from ranx's by sampling; ``tukey_hsd_test`` is Tukey's HSD as
:func:`scipy.stats.tukey_hsd`.

>>> import numpy as np
>>> from ranklens.compat.ranx.statistical_tests import paired_student_t_test
>>> p, significant = paired_student_t_test(np.array([0.2, 0.5, 0.9]), np.array([0.1, 0.3, 0.6]))
>>> round(p, 4), significant
(0.0742, False)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ranklens.compat.ranx.data_structures.frozenset_dict import FrozensetDict
from ranklens.compat.ranx.meta.compare import check_stat_test, significance
from ranklens.compat.ranx.statistical_tests.fisher_randomization_test import (
    fisher_randomization_test,
)
from ranklens.compat.ranx.statistical_tests.paired_student_t_test import paired_student_t_test
from ranklens.compat.ranx.statistical_tests.tukey_hsd_test import tukey_hsd_test

__all__ = [
    "compute_statistical_significance",
    "fisher_randomization_test",
    "paired_student_t_test",
    "tukey_hsd_test",
]


def compute_statistical_significance(
    model_names: Sequence[str],
    metric_scores: Mapping[str, Mapping[str, Any]],
    stat_test: str = "fisher",
    n_permutations: int = 1000,
    max_p: float = 0.01,
    random_seed: int = 42,
) -> FrozensetDict:
    """Every pair of models compared on every metric: ``comparisons[a, b][metric]`` is
    ``{"p_value", "significant"}`` (``metric_scores[model][metric]``: per-query values)."""
    check_stat_test(stat_test)
    names = list(model_names)
    metrics = list(metric_scores[names[0]]) if names else []
    values = {
        name: np.column_stack(
            [np.asarray(metric_scores[name][m], dtype=np.float64) for m in metrics]
        )
        for name in names
    }
    return FrozensetDict(
        significance(names, values, stat_test, n_permutations, max_p, random_seed, metrics)
    )
