"""Type aliases shared across ranklens."""

from __future__ import annotations

from typing import Literal, TypeAlias

import numpy as np
import numpy.typing as npt

Int64Array: TypeAlias = npt.NDArray[np.int64]
Float64Array: TypeAlias = npt.NDArray[np.float64]
UInt8Array: TypeAlias = npt.NDArray[np.uint8]
BoolArray: TypeAlias = npt.NDArray[np.bool_]

TiePolicy: TypeAlias = Literal["trec_eval", "input", "docid_asc", "rank"]
"""How documents with equal scores are ordered.

* ``"trec_eval"`` (default): by document id, descending, in byte order (trec_eval 9 and 10).
* ``"input"``: in the order the documents appear in the input.
* ``"docid_asc"``: by document id, ascending, in byte order.
* ``"rank"``: not by score at all: by the run's rank column, ascending, as NIST ndeval
  without ``-traditional``; a rank repeated within a query is an error (as in ndeval), and
  so is a run without a rank column (one built from a dict or records).
"""

QueryPolicy: TypeAlias = Literal["qrels", "both", "run"]
"""Which queries are evaluated and averaged.

* ``"qrels"`` (default, trec_eval 10 with ``-c``): every query of the qrels; one missing
  from the run has an empty ranking and scores 0. Run queries without judgments are left out.
* ``"both"`` (trec_eval 9 without ``-c``, ir_measures): only queries in both.
* ``"run"``: every query of the run; one without judgments has no relevant documents.
"""

DuplicatePolicy: TypeAlias = Literal["error", "first", "max"]
"""What to do with a (query, document) pair that occurs more than once.

* ``"error"`` (default): raise :class:`~ranklens.base.errors.DuplicateError` naming both lines.
* ``"first"``: keep the first occurrence in input order.
* ``"max"``: keep the occurrence with the highest value (score or relevance); the first on ties.
"""

TIE_POLICIES: tuple[TiePolicy, ...] = ("trec_eval", "input", "docid_asc", "rank")
QUERY_POLICIES: tuple[QueryPolicy, ...] = ("qrels", "both", "run")
DUPLICATE_POLICIES: tuple[DuplicatePolicy, ...] = ("error", "first", "max")
