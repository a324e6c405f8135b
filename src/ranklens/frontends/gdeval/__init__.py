"""NIST gdeval.pl 1.3 (TREC Web track ad hoc evaluation: nDCG@k and ERR@k): the same CSV,
byte for byte (:func:`run_gdeval`)."""

from ranklens.frontends.gdeval.runner import GdevalOptions, gdeval_values, run_gdeval

__all__ = ["GdevalOptions", "gdeval_values", "run_gdeval"]
