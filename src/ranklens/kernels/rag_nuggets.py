r"""Nugget scores of generated answers (the AutoNuggetizer of TREC RAG 2024 and 2025;
castorini/nuggetizer's ``metrics.py``), vectorised over all topics.

Each topic has nuggets with an importance (code 0 ``vital``, 1 ``okay``, 2 any other
label) and an assignment to the answer (0 ``support``, 1 ``partial_support``, 2
``not_support``, 3 any other label). A nugget earns :math:`c = 1` when supported,
:math:`c = 1/2` when partially supported (0 for the strict scores) and 0 otherwise. Over
a topic's vital nuggets :math:`V`, okay nuggets :math:`O` and all nuggets :math:`A`:

.. math::

    \mathrm{vital} = \frac{\sum_{n \in V} c_n}{|V|}, \qquad
    \mathrm{weighted} = \frac{\sum_{n \in V} c_n + \tfrac12 \sum_{n \in O} c_n}
                             {|V| + \tfrac12 |O|}, \qquad
    \mathrm{all} = \frac{\sum_{n \in A} c_n}{|A|},

each 0 when its denominator is 0. Labels outside the defined sets follow ``unknown``:

* ``"nuggetizer"`` (and ``"error"``, which the evaluator refuses before any is scored):
  nuggetizer's scorer as it is. A nugget of any importance is in :math:`A`; only the exact
  labels ``vital`` and ``okay`` put it in :math:`V` or :math:`O`; an assignment other than
  ``support`` and ``partial_support`` earns 0.
* ``"ignore"``: a nugget with an unknown importance or an unknown assignment is left out
  of every sum and count.

Every credit is a multiple of 1/4, so each sum is exact and each score one rounded
division: the values equal nuggetizer's to the last bit.

>>> import numpy as np
>>> imp = np.array([0, 0, 1, 2], dtype=np.int8)
>>> asg = np.array([0, 1, 1, 0], dtype=np.int8)
>>> off = np.array([0, 4])
>>> nugget_score(imp, asg, off, "vital", False, "nuggetizer").tolist()
[0.75]
>>> nugget_score(imp, asg, off, "all", True, "nuggetizer").tolist()
[0.5]
>>> nugget_score(imp, asg, off, "all", True, "ignore").tolist()
[0.3333333333333333]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array, Int64Array
from ranklens.kernels._util import safe_divide
from ranklens.kernels.options import NUGGET_SETS, NUGGET_UNKNOWN_POLICIES

UNKNOWN_POLICIES = NUGGET_UNKNOWN_POLICIES
"""What a label outside the defined sets does (module docstring)."""

VITAL, OKAY, OTHER_IMPORTANCE = 0, 1, 2
SUPPORT, PARTIAL, NOT_SUPPORT, OTHER_ASSIGNMENT = 0, 1, 2, 3


def credits(assignment: npt.NDArray[np.int8], strict: bool) -> Float64Array:
    """Each nugget's credit: 1 supported, 1/2 partially (0 when ``strict``), else 0."""
    out = np.where(assignment == SUPPORT, 1.0, 0.0)
    if not strict:
        out = np.where(assignment == PARTIAL, 0.5, out)
    return out


def kept(
    importance: npt.NDArray[np.int8], assignment: npt.NDArray[np.int8], unknown: str
) -> npt.NDArray[np.bool_]:
    """The nuggets a score counts: all of them, or (``unknown="ignore"``) those whose
    importance and assignment are both defined labels."""
    if unknown == "ignore":
        keep: npt.NDArray[np.bool_] = (importance != OTHER_IMPORTANCE) & (
            assignment != OTHER_ASSIGNMENT
        )
        return keep
    if unknown not in UNKNOWN_POLICIES:
        raise MeasureError(f"unknown must be one of {list(UNKNOWN_POLICIES)}, not {unknown!r}")
    return np.ones(importance.shape, dtype=np.bool_)


def weights(importance: npt.NDArray[np.int8], nuggets: str) -> Float64Array:
    """Each nugget's weight in a score over ``nuggets`` (:data:`NUGGET_SETS`)."""
    if nuggets == "vital":
        return np.where(importance == VITAL, 1.0, 0.0)
    if nuggets == "weighted":
        return np.where(importance == VITAL, 1.0, np.where(importance == OKAY, 0.5, 0.0))
    if nuggets == "all":
        return np.ones(importance.shape, dtype=np.float64)
    raise MeasureError(f"nuggets must be one of {list(NUGGET_SETS)}, not {nuggets!r}")


def nugget_score(
    importance: npt.NDArray[np.int8],
    assignment: npt.NDArray[np.int8],
    offsets: Int64Array,
    nuggets: str,
    strict: bool,
    unknown: str,
) -> Float64Array:
    """Per topic, the score over ``nuggets`` (``"vital"``, ``"weighted"`` or ``"all"``),
    strict or with partial credit, under the ``unknown`` policy; topic ``t``'s nuggets are
    ``offsets[t]:offsets[t + 1]``."""
    nq = offsets.shape[0] - 1
    topic = np.repeat(np.arange(nq, dtype=np.int64), np.diff(offsets))
    w = weights(importance, nuggets) * kept(importance, assignment, unknown)
    earned = np.bincount(topic, weights=w * credits(assignment, strict), minlength=nq)
    possible = np.bincount(topic, weights=w, minlength=nq)
    return safe_divide(earned, possible)


def nugget_coverage(
    importance: npt.NDArray[np.int8],
    rank: Int64Array,
    partial_rank: Int64Array,
    offsets: Int64Array,
    nuggets: str,
    strict: bool,
    unknown: str,
    cutoff: int | None,
) -> Float64Array:
    r"""Per topic, the share of the nuggets (weighted as ``nuggets`` says) that the top
    ``cutoff`` references support: a nugget earns 1 if the first reference supporting it
    is at rank ``rank <= cutoff``, else 1/2 if one supports it partially there
    (``partial_rank <= cutoff``; 0 when ``strict``). ``unknown="ignore"`` leaves out the
    nuggets of an unknown importance.

    >>> imp = np.array([0, 0, 1], dtype=np.int8)
    >>> first = np.array([1, 9, 2]); partial = np.array([1, 3, 2])
    >>> nugget_coverage(imp, first, partial, np.array([0, 3]), "weighted", False,
    ...                 "nuggetizer", 3).tolist()
    [0.8]
    """
    nq = offsets.shape[0] - 1
    depth = np.iinfo(np.int64).max - 1 if cutoff is None else cutoff
    earned = np.where(rank <= depth, 1.0, 0.0)
    if not strict:
        earned = np.where((earned == 0) & (partial_rank <= depth), 0.5, earned)
    known = np.full(importance.shape, SUPPORT, dtype=np.int8)  # assignments: ranks above
    w = weights(importance, nuggets) * kept(importance, known, unknown)
    topic = np.repeat(np.arange(nq, dtype=np.int64), np.diff(offsets))
    return safe_divide(
        np.bincount(topic, weights=w * earned, minlength=nq),
        np.bincount(topic, weights=w, minlength=nq),
    )
