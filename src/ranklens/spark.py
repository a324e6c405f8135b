"""Evaluation on Spark (``pip install "ranklens[spark]"``): ``ranklens.spark.evaluate(qrels_df,
run_df, measures)`` on Spark DataFrames, or ``ranklens.spark.evaluate(qrels, "run/",
measures, spark=spark)`` on a Parquet run read by the Spark tasks themselves, with the
numbers of :func:`ranklens.evaluate`. See :mod:`ranklens.scale.spark_backend` and
docs/scale.md (the three ways it evaluates, and how its numbers relate to Spark's
``RankingMetrics``)."""

from ranklens.scale.spark_backend import evaluate

__all__ = ["evaluate"]
