"""ranx's API on ranklens: ``from ranklens.compat.ranx import Qrels, Run, evaluate, compare, fuse``.

The names, arguments and return shapes are ranx's (0.3): :class:`Qrels` and :class:`Run`
built from dicts, files and DataFrames, with ranx's ``run.run`` / ``qrels.qrels`` dicts,
``add_score``, ``sort``, ``make_comparable``, ``to_typed_list``, ``save`` and ``from_file``
in ranx's formats (JSON, TREC, gzipped TREC, LZ4, Parquet); :func:`evaluate` taking those,
dicts or ranx's arrays and typed lists, returning a float for one metric, a dict for
several, per-query arrays with ``return_mean=False``, and storing the scores in the run;
:func:`compare` returning a :class:`Report` with ranx's ``to_dict``, ``to_latex``,
``to_dataframe`` and table; :func:`fuse` and :func:`normalize` with ranx's methods and
normalisations; :func:`optimize_fusion` with ranx's grids, best parameters and report.
The submodules are ranx's: :mod:`~ranklens.compat.ranx.metrics` (the metric functions on
arrays), :mod:`~ranklens.compat.ranx.fusion` (one function per method, with the
trainers), :mod:`~ranklens.compat.ranx.fusion_optimization` (the optimisers),
:mod:`~ranklens.compat.ranx.normalization`, :mod:`~ranklens.compat.ranx.data_structures`,
:mod:`~ranklens.compat.ranx.meta`, :mod:`~ranklens.compat.ranx.statistical_tests` and
:mod:`~ranklens.compat.ranx.io`, so that every ``ranx`` import has a counterpart here.
ranx is never imported.

Metric names are ranx's (``ndcg@10``, ``map@100``, ``mrr``, ``precision@5``, ``hits@k``,
``hit_rate@k``, ``r-precision``, ``ndcg_burges@k``, ``rbp.95``, ``-lN`` relevance levels
...; :mod:`ranklens.measures.peer_names`); ranklens names are accepted too. The numbers are
ranklens' measures, equal to ranx's; where they are not (bpref with negative grades, the
last bits of ``rbp`` and of the p-values, ranx's own bugs) docs/coming-from.md says which
and why. Tied documents are in ranx's order by default (its numba sort reproduced,
:mod:`ranklens.compat.ranx._order`; fused runs included); ``ties="trec_eval"`` on
:func:`evaluate`, :func:`compare`, :func:`fuse`, :func:`normalize` and ``Run.to_dict`` is
ranklens' policy instead.

Errors raised through this module are ranklens errors and also the builtin class ranx
raises in the same place (``AssertionError``, ``ValueError``, ``NotImplementedError``;
:mod:`ranklens.compat.ranx._errors`), so ranx users' ``except`` clauses still catch them.

>>> from ranklens.compat.ranx import Qrels, Run, evaluate
>>> qrels = Qrels({"q_1": {"d_12": 5, "d_25": 3}, "q_2": {"d_11": 6, "d_22": 1}})
>>> run = Run({"q_1": {"d_12": 0.9, "d_23": 0.8, "d_25": 0.7},
...            "q_2": {"d_12": 0.9, "d_11": 0.8, "d_25": 0.7}}, name="bm25")
>>> round(evaluate(qrels, run, "ndcg@5"), 4)
0.757
>>> {m: round(v, 4) for m, v in evaluate(qrels, run, ["map@5", "mrr"]).items()}
{'map@5': 0.5417, 'mrr': 0.75}
>>> {q: round(v, 4) for q, v in run.scores["mrr"].items()}
{'q_1': 1.0, 'q_2': 0.5}
"""

from ranklens.compat.ranx._errors import (
    QueryMismatchError,
    RanxAssertionError,
    RanxInputError,
    UnsupportedTestError,
)
from ranklens.compat.ranx.data_structures import FrozensetDict, Qrels, Report, Run
from ranklens.compat.ranx.meta import compare, evaluate, fuse, normalize, optimize_fusion

__all__ = [
    "FrozensetDict",
    "Qrels",
    "QueryMismatchError",
    "RanxAssertionError",
    "RanxInputError",
    "Report",
    "Run",
    "UnsupportedTestError",
    "compare",
    "evaluate",
    "fuse",
    "normalize",
    "optimize_fusion",
]
