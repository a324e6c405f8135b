"""NIST ndeval 4.5 (TREC Web track novelty and diversity evaluation) over the engine: the
same CSV, digit for digit (:func:`run_ndeval`)."""

from ranklens.frontends.ndeval.runner import NdevalOptions, run_ndeval

__all__ = ["NdevalOptions", "run_ndeval"]
