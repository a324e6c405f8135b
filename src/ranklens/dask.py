"""Evaluation on Dask (``pip install "ranklens[dask]"``): ``ranklens.dask.evaluate(qrels,
run, measures)`` on Dask DataFrames or Parquet, with the numbers of
:func:`ranklens.evaluate`. See :mod:`ranklens.scale.dask_backend` and docs/scale.md."""

from ranklens.scale.dask_backend import evaluate

__all__ = ["evaluate"]
