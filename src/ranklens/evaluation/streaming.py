"""Evaluating a run file larger than memory, in chunks cut at query boundaries.

A TREC run is grouped by query: all lines of a query are together. Such a file is read a
block at a time (plain, or gzip, bzip2 and xz decompressed as a stream); each block is cut
just before the lines of its last query (which may go on in the next block), and the part
before the cut, whole queries only, is parsed and evaluated by the ordinary evaluation
(:class:`~ranklens.Evaluator`, the qrels prepared once). Only the per-query values are
kept, and :func:`ranklens.scale.combine.combine` puts them in query byte order, so the
:class:`~ranklens.Results` is ``==`` to the in-memory one, per query and aggregate. Memory
is bounded by a few blocks and the per-query values.

A query whose lines are not together (a query id that reappears after another query) is
caught: if its lines fall in two chunks, :class:`~ranklens.base.errors.InputError` says so
and how to sort the file; if they fall in the same chunk, the chunk is evaluated as the
in-memory evaluation would (the parser groups a chunk's lines by query). Nothing is
silently wrong.

What depends on the whole run is kept: the run's name is the tag of the last line (as
trec_eval's ``runid``), the query counts are the sums over the chunks, and queries of the
qrels missing from the run are scored at the end as the ``queries=`` policy says.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING, cast

from ranklens.base.errors import OptionError
from ranklens.base.progress import Progress
from ranklens.data.chunks import DEFAULT_CHUNK_BYTES, grouped_runs
from ranklens.data.run import Run
from ranklens.evaluation.parts import (
    Part,
    RunLevelStates,
    combine,
    evaluate_run_part,
    missing_part,
    pinned,
    set_dependent,
)
from ranklens.evaluation.results import Results

if TYPE_CHECKING:
    from ranklens.evaluation.evaluator import Evaluator


def evaluate_stream(
    evaluator: Evaluator,
    source: object,
    name: str | None = None,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    *,
    progress: Progress | None = None,
) -> Results:
    """Evaluate a run file (grouped by query) in chunks: the same :class:`Results` as
    ``evaluator.evaluate(source)``, in memory bounded by a few chunks.

    Parameters
    ----------
    evaluator
        The qrels, measures and options (prepared once).
    source
        A path (plain, ``.gz``, ``.bz2``, ``.xz``) or a binary file object; or a Parquet
        run (a ``.parquet``/``.pq`` file, a directory of them, possibly hive-partitioned,
        or a glob), read by record batches in chunks of about 524,288 rows
        (:func:`ranklens.data.parquet_stream.parquet_runs`). A JSON lines file (by its
        suffix) is read and evaluated in memory.
    name
        The run's name; by default the tag of the last line, as in memory.
    chunk_bytes
        Bytes of text read per block.
    progress
        Called as ``progress(bytes read, file size)`` after each block (compressed bytes
        for a compressed file; not for a pipe), or ``progress(rows read, rows)`` for a
        Parquet run. See :mod:`ranklens.base.progress`.

    Raises
    ------
    InputError
        A query's lines are not together (with how to sort the file), or what the
        in-memory evaluation raises, with the file's name and line.

    Examples
    --------
    >>> import io
    >>> from ranklens import Evaluator
    >>> ev = Evaluator({"q1": {"a": 1}, "q2": {"b": 1}}, ["P@1"])
    >>> text = b"q2 Q0 b 1 0.9 t\\nq1 Q0 c 1 0.8 t\\nq1 Q0 a 2 0.5 t\\n"
    >>> evaluate_stream(ev, io.BytesIO(text), chunk_bytes=8).per_query
    {'q1': {'P@1': 0.0}, 'q2': {'P@1': 1.0}}
    """
    from ranklens.data.chunks import is_text_source
    from ranklens.data.parquet_stream import is_parquet_source, parquet_runs

    if is_parquet_source(source):
        where = cast("str | os.PathLike[str]", source)
        runs = parquet_runs(
            where, name, evaluator.duplicates, progress=progress, ranks=evaluator.ties == "rank"
        )
        return evaluate_runs(evaluator, runs, name)
    if not is_text_source(source):  # JSON lines (by suffix): not TREC text
        return evaluator.evaluate_part(source, name)
    # a chunk's rank column is read only where the tie policy reads it
    read_chunk = partial(
        Run.from_file, duplicates=evaluator.duplicates, ranks=evaluator.ties == "rank"
    )
    return evaluate_runs(evaluator, grouped_runs(source, chunk_bytes, read_chunk, progress), name)


def evaluate_runs(evaluator: Evaluator, runs: Iterable[Run], name: str | None = None) -> Results:
    """Evaluate the chunks of a run, each holding whole queries that no other chunk holds
    (as :func:`~ranklens.data.chunks.grouped_runs` and
    :func:`~ranklens.data.parquet_stream.parquet_runs` make them): the :class:`Results` of
    the whole run, named ``name`` or as its last chunk. Only the per-query values of each
    chunk are kept.

    Raises
    ------
    OptionError
        ERR without ``max_rel`` under ``queries="both"`` or ``"run"`` (its default depends
        on every query of the run).
    """
    measures = list(evaluator.measures)
    if set_dependent(measures):
        if evaluator.queries != "qrels":
            names = ", ".join(m.name for m in set_dependent(measures))
            raise OptionError(
                f"{names}: its default max_rel is the highest grade of the evaluated queries, "
                f"which with queries={evaluator.queries!r} depends on every query of the run; "
                "give it (ERR(max_rel=3)@20), use queries='qrels', or evaluate in memory "
                "(stream=False, --no-stream)"
            )
        measures = pinned(measures, max(int(evaluator.qrels.rels.max(initial=0)), 0))
    parts: list[Part] = []
    states = RunLevelStates()  # the run-level measures' states, merged as the parts come
    tag = ""
    for run in runs:
        tag = run.name
        parts.append(states.add(evaluate_run_part(evaluator, run, measures)))
    present = {q for part in parts for q in part.queries}
    absent = missing_part(evaluator, present, measures)
    if absent is not None:
        parts.append(states.add(absent))
    return combine(
        name or tag,
        evaluator.measures,
        evaluator.queries,
        parts,
        len(evaluator.qrels.qids),
        states,
    )
