"""NIST sample_eval.pl (inferred AP and nDCG from stratified sampled judgments): the same
output, byte for byte (:func:`run_sample_eval`)."""

from ranklens.frontends.sample_eval.runner import (
    SampleEvalResult,
    run_sample_eval,
    sample_eval_values,
)

__all__ = ["SampleEvalResult", "run_sample_eval", "sample_eval_values"]
