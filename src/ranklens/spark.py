"""Evaluation on Spark (``pip install "ranklens[spark]"``): ``ranklens.spark.evaluate(qrels_df,
run_df, measures)`` on Spark DataFrames, with the numbers of :func:`ranklens.evaluate`.
See :mod:`ranklens.scale.spark_backend` and docs/scale.md (how its numbers relate to
Spark's ``RankingMetrics``)."""

from ranklens.scale.spark_backend import evaluate

__all__ = ["evaluate"]
