"""ranklens: exact, fast evaluation of rankings.

>>> import ranklens
>>> res = ranklens.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 0.3, "d2": 0.7}}, ["P@2", "RR"])
>>> res.aggregate
{'P@2': 0.5, 'RR': 0.5}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "Comparison",
    "DuplicateError",
    "EmptyInputError",
    "Evaluator",
    "InputError",
    "Measure",
    "MeasureError",
    "MissingDependencyError",
    "OptionError",
    "ParseError",
    "Qrels",
    "RanklensError",
    "Results",
    "Run",
    "__version__",
    "compare",
    "evaluate",
    "explain",
    "fuse",
    "fuse_optimize",
    "parse_measure",
    "parse_measures",
]

if TYPE_CHECKING:
    from ranklens.comparison import Comparison, compare
    from ranklens.errors import (
        DuplicateError,
        EmptyInputError,
        InputError,
        MeasureError,
        MissingDependencyError,
        OptionError,
        ParseError,
        RanklensError,
    )
    from ranklens.evaluator import Evaluator, evaluate
    from ranklens.explanation import explain
    from ranklens.fusion import fuse, fuse_optimize
    from ranklens.measures import Measure, parse_measure, parse_measures
    from ranklens.qrels import Qrels
    from ranklens.results import Results
    from ranklens.run import Run

_HOME = {
    "compare": "ranklens.comparison",
    "Comparison": "ranklens.comparison",
    "Evaluator": "ranklens.evaluator",
    "evaluate": "ranklens.evaluator",
    "explain": "ranklens.explanation",
    "fuse": "ranklens.fusion",
    "fuse_optimize": "ranklens.fusion",
    "Measure": "ranklens.measures",
    "parse_measure": "ranklens.measures",
    "parse_measures": "ranklens.measures",
    "Qrels": "ranklens.qrels",
    "Run": "ranklens.run",
    "Results": "ranklens.results",
}


def __getattr__(name: str) -> Any:
    """Import the public API lazily, so ``import ranklens`` (and the CLI) start fast."""
    import importlib

    if name in _HOME:
        return getattr(importlib.import_module(_HOME[name]), name)
    if name in __all__:
        return getattr(importlib.import_module("ranklens.errors"), name)
    raise AttributeError(f"module 'ranklens' has no attribute {name!r}")
