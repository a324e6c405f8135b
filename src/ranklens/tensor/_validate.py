"""Checks of a batch's labels, ``n_rel`` and ``ideal_labels`` (``validate=True``).

Every check turns input that would give a wrong number into a clear
:class:`~ranklens.base.errors.InputError`:

* labels follow the rule for grades in qrels files: whole numbers (``2.0`` is grade 2,
  ``1.5`` and NaN are refused), here in the real (unmasked) part of the batch;
* ``n_rel`` is a whole number >= 0 per query, and at least the number of relevant documents
  (grade >= 1) the batch itself holds for the query (else AP or recall exceed 1);
* ``ideal_labels`` are whole numbers, and hold at least the batch's grades: sorted
  descending, each query's ideal grades are at least its batch grades rank by rank (else
  nDCG exceeds 1 and ``R`` is too small).

Python lists (and tuples) given for an array are converted with numpy
(:func:`as_arrays`).
"""

from __future__ import annotations

from typing import Any

from ranklens.base.errors import InputError
from ranklens.base.optional import require
from ranklens.tensor._order import sort_rows

Array = Any

_FEW_GRADES = 8
"""Up to this top grade the ideal labels are checked by counting at each threshold; above
it by sorting."""


def as_arrays(*inputs: Any) -> tuple[Any, ...]:
    """Each input that is a Python list or tuple as an array of the other inputs' library
    and device (numpy when every input is a list); the others as they are.

    Raises
    ------
    InputError
        A ragged list (rows of different lengths: pad them), or one that is not numbers.
    """
    import numpy as np

    def is_list(x: Any) -> bool:
        return isinstance(x, list | tuple)

    reference = next((x for x in inputs if x is not None and not is_list(x)), None)
    out: list[Any] = []
    for x in inputs:
        if is_list(x):
            try:
                as_numpy = np.asarray(x)
            except ValueError as exc:
                raise InputError(
                    f"a list given for an array has rows of different lengths ({exc}); pad "
                    "the rows to one length (mask the padding, or label it -1)"
                ) from None
            if as_numpy.dtype == object or as_numpy.dtype.kind in "USV":
                raise InputError(
                    f"a list given for an array must hold numbers, got {as_numpy.dtype} values"
                )
            x = as_numpy
            if reference is not None and not isinstance(reference, np.ndarray):
                compat = _compat()
                xp = compat.array_namespace(reference)
                x = xp.asarray(as_numpy, device=compat.device(reference))
        out.append(x)
    return tuple(out)


def _shown(x: Array) -> int | float:
    """A 0-d array as a Python number (an int when whole), for messages."""
    value = float(x)
    return int(value) if value.is_integer() else value


def _first_row(xp: Any, bad: Array) -> int:
    """The first query (row) where a boolean ``(Q,)`` or ``(Q, N)`` array is true."""
    if len(bad.shape) == 2:
        bad = xp.any(bad, axis=1)
    return int(xp.argmax(xp.astype(bad, xp.int8)))


def _whole(xp: Any, x: Array) -> Array:
    """True where a float ``x`` is a finite whole number."""
    return xp.logical_and(xp.isfinite(x), x == xp.floor(x))


def check_labels(xp: Any, labels: Array, valid: Array | None) -> None:
    """Refuse labels that are not whole numbers (NaN, infinite, fractional), as grades in
    qrels files are refused; only the real entries (``valid``) are read when there is a
    mask, every entry without one (a NaN would otherwise pass for padding)."""
    if xp.isdtype(labels.dtype, "integral") or labels.dtype == xp.bool:
        return
    bad = xp.logical_not(_whole(xp, labels))
    if valid is not None:
        bad = xp.logical_and(bad, valid)
    if bool(xp.any(bad)):
        row = _first_row(xp, bad)
        column = int(xp.argmax(xp.astype(bad[row, ...], xp.int8)))
        raise InputError(
            f"labels[{row}, {column}] = {_shown(labels[row, column])!r} is not a whole "
            "number: grades are integers, as in qrels files (2.0 is grade 2; 1.5 and NaN "
            "are refused); mark padding with a negative label or a mask"
        )


def _relevant_in_batch(xp: Any, grades: Array, dtype: Any) -> Array:
    """(Q,) the batch's relevant documents (grade >= 1) per query (padding is negative)."""
    return xp.sum(xp.astype(grades >= 1, dtype), axis=1)


def check_n_rel(xp: Any, n_rel: Array, grades: Array, dtype: Any) -> None:
    """Refuse an ``n_rel`` that is not a whole number >= 0, or below the relevant
    documents of the query that the batch itself holds."""
    if xp.isdtype(n_rel.dtype, "integral"):
        bad = n_rel < 0
    else:
        bad = xp.logical_or(xp.logical_not(_whole(xp, n_rel)), n_rel < 0)
    if bool(xp.any(bad)):
        row = _first_row(xp, bad)
        raise InputError(
            f"n_rel[{row}] = {_shown(n_rel[row])!r}: n_rel counts the relevant documents of "
            "each query, a whole number >= 0"
        )
    found = _relevant_in_batch(xp, grades, dtype)
    short = xp.astype(n_rel, dtype) < found
    if bool(xp.any(short)):
        row = _first_row(xp, short)
        raise InputError(
            f"n_rel[{row}] = {_shown(n_rel[row])!r}, but the batch holds "
            f"{int(found[row])} relevant documents (grade >= 1) of query {row}: n_rel "
            "counts every relevant document of the query, those in the batch included"
        )


def check_ideal(xp: Any, ideal: Array, grades: Array, dtype: Any) -> None:
    """Refuse ``ideal_labels`` that are not whole numbers or that lack some of the batch's
    grades (rank by rank, both sorted descending). (Where ``n_rel`` is given too, the
    measures read ``ideal_labels``.)"""
    if not xp.isdtype(ideal.dtype, "integral"):
        bad = xp.logical_not(_whole(xp, ideal))
        if bool(xp.any(bad)):
            row = _first_row(xp, bad)
            raise InputError(
                f"ideal_labels of query {row} hold a value that is not a whole number "
                "(NaN, infinite or fractional): grades are integers (pad with -1)"
            )
    q, n = (int(d) for d in grades.shape)
    if not q or not n:
        return
    top = float(xp.max(grades))
    if top < 1:
        return  # nothing relevant in the batch: any ideal holds it
    if top <= _FEW_GRADES:
        # the same test as sorted rank by rank, for whole grades: at every threshold the
        # ideal holds at least as many grades as the batch (a few reductions, no sort)
        missing = xp.zeros(q, dtype=xp.bool, device=_device(ideal))
        for threshold in range(1, int(top) + 1):
            in_batch = xp.sum(xp.astype(grades >= threshold, xp.int64), axis=1)
            in_ideal = xp.sum(xp.astype(ideal >= threshold, xp.int64), axis=1)
            missing = xp.logical_or(missing, in_batch > in_ideal)
    else:
        m = int(ideal.shape[1])
        zero = xp.asarray(0, dtype=dtype, device=_device(ideal))
        have = xp.flip(sort_rows(xp, xp.maximum(xp.astype(grades, dtype), zero)), axis=1)
        best = xp.maximum(xp.astype(ideal, dtype), zero)
        if m < n:
            pad = xp.zeros((q, n - m), dtype=dtype, device=_device(ideal))
            best = xp.concat([best, pad], axis=1)
        best = xp.flip(sort_rows(xp, best), axis=1)[:, :n]
        missing = have > best
    if bool(xp.any(missing)):
        row = _first_row(xp, missing)
        raise InputError(
            f"ideal_labels of query {row} lack grades that its batch holds (the batch's "
            "grades, sorted, exceed the ideal ones): ideal_labels list every judged "
            "grade of the query, those in the batch included"
        )


def _compat() -> Any:
    return require("array_api_compat", "ranklens.tensor")


def _device(x: Array) -> Any:
    return _compat().device(x)


def ranking_dtype(xp: Any, scores: Array, dtype: Any) -> Any:
    """The dtype the scores are ranked in: the result ``dtype``, but float64 for integer
    scores. A float32 key ties 16777217 with 16777216; float64 keys rank every integer up
    to 2**53 exactly and larger ones as ``ranklens.evaluate`` does (it reads scores as
    doubles, as trec_eval does), so the two paths agree on every integer."""
    return xp.float64 if xp.isdtype(scores.dtype, "integral") else dtype
