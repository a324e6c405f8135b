"""ranx's ``paired_student_t_test`` (``ranx.statistical_tests.paired_student_t_test``)."""

from __future__ import annotations

from typing import Any

from ranklens.compat.ranx.meta.compare import significance, two_samples

__all__ = ["paired_student_t_test"]


def paired_student_t_test(control: Any, treatment: Any, max_p: float = 0.01) -> tuple[float, bool]:
    """The two-sided paired t-test: ``(p_value, p_value <= max_p)``."""
    result = significance(
        ["control", "treatment"], two_samples(control, treatment), "student", 0, max_p, 0, ["m"]
    )
    entry = result[frozenset(("control", "treatment"))]["m"]
    return entry["p_value"], entry["significant"]
