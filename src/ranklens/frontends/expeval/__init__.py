"""github.com/diazf/expeval (expected exposure, Diaz et al. CIKM 2020): the same options and
output, its quirks by default, the corrected behaviour with ``fixed`` (:func:`run_expeval`)."""

from ranklens.frontends.expeval.runner import (
    ExpevalOptions,
    expeval_values,
    parse_options,
    read_expeval_qrels,
    read_expeval_run,
    run_expeval,
)

__all__ = [
    "ExpevalOptions",
    "expeval_values",
    "parse_options",
    "read_expeval_qrels",
    "read_expeval_run",
    "run_expeval",
]
