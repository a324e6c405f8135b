"""The measures that need a judgement file, for :class:`ranklens.Evaluator`.

trec_eval's preference measures (``PrefsSimp``, ..., ``NumPrefsPoss``) and judgement-group
measures (``APAvgJG``, ``PAvgJG@k``, ``RprecMultAvgJG@x``), declared in
:mod:`ranklens.measures.catalog_prefs`, are computed by :mod:`ranklens.kernels.preferences` and
:mod:`ranklens.kernels.judgement_groups` from a judgement file rather than from the aligned qrels arrays.
:class:`JudgedMeasures` reads that file once (only when such a measure is asked for) and
fills the measures' columns of a results matrix for each run.

Which file, read how:

* ``judgments=PATH`` (or a file object): a 5-column file (``qid jg jsg docno rel_level``)
  is read as trec_eval's ``-R prefs`` for the preference measures; a 4-column one
  (``qid jg docno rel``) as ``-R qrels_prefs`` and ``-R qrels_jg``.
* otherwise the qrels, if they were given as a path: an ordinary qrels file read as
  ``-R qrels_prefs`` / ``-R qrels_jg`` (its second column is the judgement group), which is
  what trec_eval does with those options.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, cast

import numpy as np

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array, QueryPolicy
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.data.source import read_bytes
from ranklens.kernels.judgement_groups import QrelsJG, evaluate_jg, read_qrels_jg
from ranklens.kernels.preferences import Prefs, evaluate_prefs, read_prefs, read_qrels_prefs
from ranklens.measures.base import Measure
from ranklens.measures.catalog_prefs import value_name

JudgmentsLike = str | os.PathLike[str] | IO[bytes] | IO[str]
"""A judgement file: a path (``.gz``/``.bz2``/``.xz`` recognised), ``-`` or a file object."""

_FORMAT_OF = {"prefs": "preference judgments", "qrels_jg": "judgement-group qrels"}


def _first_field_count(data: bytes) -> int:
    """The number of fields on the first line that is neither blank nor a ``#`` comment."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        if end < 0:
            end = len(data)
        fields = data[start:end].split()
        if fields and not fields[0].startswith(b"#"):
            return len(fields)
        start = end + 1
    return 0


def _named(data: bytes, name: str) -> io.BytesIO:
    """``data`` as a file object that the readers report as ``name``."""
    stream = io.BytesIO(data)
    stream.name = name  # BytesIO takes attributes; describe() reads this one
    return stream


@dataclass(frozen=True)
class JudgedMeasures:
    """The measures of an evaluator that need a judgement file, with that file read.

    ``columns`` are ``(column, measure)`` pairs: where each measure goes in the results.
    """

    columns: tuple[tuple[int, Measure], ...]
    prefs: Prefs | None
    qrels_jg: QrelsJG | None

    @classmethod
    def of(
        cls,
        measures: Sequence[Measure],
        judgments: JudgmentsLike | None,
        qrels: object,
        *,
        qrels_read: bool,
    ) -> JudgedMeasures | None:
        """Read the judgement file for ``measures``; ``None`` if no measure needs one.

        ``qrels`` is what the evaluator was given: a path to it stands in for a missing
        ``judgments``, and so do ``-`` (stdin) and a file object if the evaluator has not
        read them as ordinary qrels (``qrels_read``).

        Raises
        ------
        MeasureError
            No judgement file is available (no ``judgments`` and the qrels are not a path),
            or a judgement-group measure is given a 5-column (prefs) file.
        InputError
            The file cannot be read or parsed (:class:`~ranklens.base.errors.ParseError` names the
            line).
        """
        columns = tuple((j, m) for j, m in enumerate(measures) if m.spec.judgments != "qrels")
        if not columns:
            return None
        kinds = {m.spec.judgments for _, m in columns}
        source = judgments
        if source is None:
            if isinstance(qrels, str | os.PathLike) and (not qrels_read or os.fspath(qrels) != "-"):
                source = qrels
            elif not qrels_read and hasattr(qrels, "read"):
                source = cast(JudgmentsLike, qrels)
            else:
                first = columns[0][1]
                raise MeasureError(
                    f"{first.name} needs {_FORMAT_OF[first.spec.judgments]}: pass "
                    "judgments=PATH (ranklens eval --judgments FILE), a trec_eval prefs file "
                    "(qid jg jsg docno rel_level) or a qrels file whose second column is the "
                    "judgement group (the qrels were not given as a file to read again)"
                )
        data, name = read_bytes(source)
        five = _first_field_count(data) == 5
        prefs = None
        if "prefs" in kinds:
            prefs = read_prefs(_named(data, name)) if five else read_qrels_prefs(_named(data, name))
        qrels_jg = None
        if "qrels_jg" in kinds:
            if five:
                first = next(m for _, m in columns if m.spec.judgments == "qrels_jg")
                raise MeasureError(
                    f"{first.name} needs judgement-group qrels (qid jg docno rel), but {name} "
                    "has 5 columns (a trec_eval prefs file)"
                )
            qrels_jg = read_qrels_jg(_named(data, name))
        return cls(columns, prefs, qrels_jg)

    def as_qrels(self) -> Qrels:
        """The judgement file as ordinary qrels, for the set of queries when no measure
        needs ordinary qrels: every judged document with its highest grade over the groups
        (a preference level counts as 1 if it is > 0, else 0)."""
        if self.qrels_jg is not None:
            source = self.qrels_jg.source or "<judgments>"
            records = [(q, d, r) for q, _, d, r in self.qrels_jg.records()]
        else:
            if self.prefs is None:
                raise RuntimeError("internal error: preference judgments were not read")
            source = self.prefs.source or "<judgments>"
            records = [(q, d, int(x > 0)) for q, _, _, d, x in self.prefs.records()]
        return Qrels.from_records(records, duplicates="max", source=source)

    def fill(
        self,
        values: Float64Array,
        qids: Sequence[str],
        run: Run,
        *,
        depth: int | None,
        queries: QueryPolicy,
    ) -> None:
        """Write the measures' per-query values into their columns of ``values`` (rows in
        ``qids`` order); a query the judgement file does not evaluate gets 0."""
        row = {qid: i for i, qid in enumerate(qids)}
        for j, _ in self.columns:
            values[:, j] = 0.0
        if self.prefs is not None:
            per_query = evaluate_prefs(self.prefs, run, depth=depth, queries=queries)
            for j, measure in self.columns:
                if measure.spec.judgments == "prefs":
                    _place(values, j, row, per_query, value_name(measure))
        if self.qrels_jg is not None:
            self._fill_jg(values, row, run, depth, queries)

    def _fill_jg(
        self,
        values: Float64Array,
        row: dict[str, int],
        run: Run,
        depth: int | None,
        queries: QueryPolicy,
    ) -> None:
        if self.qrels_jg is None:
            raise RuntimeError("internal error: judgement-group qrels were not read")
        by_params: dict[tuple[int, bool], list[tuple[int, Measure]]] = {}
        for j, measure in self.columns:
            if measure.spec.judgments == "qrels_jg":
                key = (int(measure["rel"]), bool(measure["judged_only"]))
                by_params.setdefault(key, []).append((j, measure))
        for (rel, judged_only), items in by_params.items():
            cutoffs = sorted({int(m["cutoff"]) for _, m in items if m.spec.name == "PAvgJG"})
            mults = [float(m["mult"]) for _, m in items if m.spec.name == "RprecMultAvgJG"]
            for batch in _distinct_names(mults):
                per_query = evaluate_jg(
                    self.qrels_jg,
                    run,
                    rel_level=rel,
                    depth=depth,
                    judged_only=judged_only,
                    p_cutoffs=cutoffs or (1,),
                    rprec_mults=batch,
                    queries=queries,
                )
                for j, measure in items:
                    if measure.spec.name == "RprecMultAvgJG" and measure["mult"] not in batch:
                        continue
                    _place(values, j, row, per_query, value_name(measure))


def _distinct_names(mults: list[float]) -> list[list[float]]:
    """The distinct multiples of R in batches whose ``%3.2f`` value names do not collide
    (usually one batch; ``[[1.0]]`` if there is none, as :func:`evaluate_jg` needs one)."""
    batches: list[list[float]] = []
    for x in sorted(set(mults)):
        for batch in batches:
            if all("%3.2f" % y != "%3.2f" % x for y in batch):  # noqa: UP031
                batch.append(x)
                break
        else:
            batches.append([x])
    return batches or [[1.0]]


def _place(
    values: Float64Array,
    column: int,
    row: dict[str, int],
    per_query: dict[str, dict[str, float]],
    name: str,
) -> None:
    rows = [row[q] for q in per_query if q in row]
    found = [per_query[q][name] for q in per_query if q in row]
    values[np.asarray(rows, dtype=np.int64), column] = np.asarray(found, dtype=np.float64)
