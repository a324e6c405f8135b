"""Backends for data that does not fit one evaluation in memory.

* :mod:`ranklens.scale.streaming`: a run file read in chunks cut at query boundaries, in
  bounded memory, with the same :class:`~ranklens.Results` as the in-memory evaluation.
* :mod:`ranklens.scale.dask_backend`: Dask DataFrames (or Parquet) as Arrow,
  hash-partitioned by query (not shuffled when already partitioned by query), the
  ordinary evaluation per partition (:mod:`ranklens.scale.arrow_parts`).
* :mod:`ranklens.scale.spark_backend`: Spark DataFrames hash-partitioned by query as
  Arrow batches (``mapInArrow``), the native readers and the ordinary evaluation per
  partition.

Every backend computes each query's values with the ordinary evaluation of that query's
whole ranking and qrels, gathers only per-query values and combines them in query byte
order (:func:`ranklens.scale.combine.combine`), so every per-query value and every
aggregate is ``==`` to :func:`ranklens.evaluate`'s.
"""
