"""What a user measure may return, and how its failures read (issue 35, item 11).

A user measure (``ranklens.define_measure``) returns, per query, a finite real number
within its declared bounds; anything else, and any exception its code raises, is a
``UserMeasureError`` that names the measure and the query, in one line. The inputs it is
handed are read-only. The oracle is a plain-Python statement of that contract
(:func:`accepted`), checked on generated values and on generated rankings (ties, graded
and negative labels, unjudged documents, queries without relevant documents, empty
rankings, queries on one side only).
"""

from __future__ import annotations

import inspect
import math
import pickle
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from compat_data import generated
from ranklens.base.errors import MeasureError, RanklensError, UserMeasureError

pytestmark = pytest.mark.filterwarnings("ignore::ranklens.InputWarning")  # missing queries

QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"a": 2}, "q3": {"c": 1}}
RUN = {"q1": {"a": 1.0, "b": 0.5}, "q2": {"a": 0.3, "x": 0.9}, "q3": {"z": 1.0}}

# The value the measures below return: set by each test before it evaluates (the registry
# only grows, so each measure is defined once, here).
RETURNED: dict[str, Any] = {}


def _returns(relevance: np.ndarray, scores: np.ndarray) -> Any:
    """Whatever RETURNED["value"] holds."""
    return RETURNED["value"]


def _batch_returns(relevance: np.ndarray, scores: np.ndarray, offsets: np.ndarray) -> Any:
    return RETURNED["batch"](offsets.shape[0] - 1)


def _divides(relevance: np.ndarray, scores: np.ndarray) -> float:
    """One over the number of relevant documents retrieved."""
    return 1 / int(np.count_nonzero(relevance > 0))  # ZeroDivisionError without one


def _writes_relevance(relevance: np.ndarray, scores: np.ndarray) -> float:
    relevance[:] = 0
    return 0.0


def _writes_scores(relevance: np.ndarray, scores: np.ndarray) -> float:
    scores.sort()
    return 0.0


def _writes_offsets(relevance: np.ndarray, scores: np.ndarray, offsets: np.ndarray) -> Any:
    offsets[0] = 1
    return np.zeros(offsets.shape[0] - 1)


UNIT = ranklens.define_measure("UTUnit", _returns, bounds=(0, 1))
UNIT_BATCH = ranklens.define_measure("UTUnitBatch", _returns, batch=_batch_returns, bounds=(0, 1))
FREE = ranklens.define_measure("UTFree", _returns)
DIVIDES = ranklens.define_measure("UTDivides", _divides, bounds=(0, 1))
WRITERS = {
    "UTWritesRelevance": ranklens.define_measure("UTWritesRelevance", _writes_relevance),
    "UTWritesScores": ranklens.define_measure("UTWritesScores", _writes_scores),
    "UTWritesOffsets": ranklens.define_measure(
        "UTWritesOffsets", _writes_relevance, batch=_writes_offsets
    ),
}
TOLERANCE = 1e-12


def accepted(value: Any, low: float = 0.0, high: float = 1.0) -> float | None:
    """The contract: the value a measure's ``value`` becomes, or None where it is refused."""
    if isinstance(value, bool | np.bool_):
        number = float(value)
    elif isinstance(value, int | float | np.integer | np.floating | Fraction):
        try:
            number = float(value)
        except OverflowError:
            return None
    else:
        return None  # str, bytes, None, Decimal, complex, lists, arrays ...
    if not math.isfinite(number):
        return None
    if low - TOLERANCE * max(1.0, abs(low)) <= number <= high + TOLERANCE * max(1.0, abs(high)):
        return min(max(number, low), high)
    return None


# A mix of what a measure may and may not return: numbers in and out of [0, 1] (and next
# to its ends), integers far beyond a float64, NaN, infinities, numbers as text, numpy
# scalars, booleans, None and containers.
VALUES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(0, 1),
    st.sampled_from([1.0 + 1e-15, -1e-15, 1.0 + 1e-9, -1e-9, 0.0, 1.0]),
    st.integers(-(10**400), 10**400),
    st.integers(-2, 3),
    st.booleans(),
    st.floats(0, 1).map(str),
    st.floats(0, 1).map(np.float64),
    st.floats(0, 1, width=32).map(np.float32),
    st.integers(0, 1).map(np.int64),
    st.booleans().map(np.bool_),
    st.fractions(0, 2, max_denominator=7),
    st.just(None),
    st.just(Decimal("0.5")),
    st.just(complex(0.5, 0)),
    st.floats(0, 1).map(lambda x: [x]),
    st.text(max_size=3),
)


@settings(max_examples=150, deadline=None)
@given(VALUES)
def test_per_query_values_follow_the_contract(value: Any) -> None:
    RETURNED["value"] = value
    expected = accepted(value)
    if expected is None:
        with pytest.raises(UserMeasureError) as caught:
            ranklens.evaluate(QRELS, RUN, "UTUnit")
        error = caught.value
        assert (error.measure, error.query) == ("UTUnit", "q1")  # the first query it saw
        assert str(error).startswith("measure 'UTUnit' failed on query 'q1': per_query ")
        assert "\n" not in str(error)
    else:
        res = ranklens.evaluate(QRELS, RUN, "UTUnit")
        assert res.query_values("UTUnit") == dict.fromkeys(QRELS, expected)


@settings(max_examples=100, deadline=None)
@given(VALUES, st.integers(0, 2))
def test_batch_values_follow_the_contract(value: Any, bad_at: int) -> None:
    """The batch form returns one value per query: good ones but at ``bad_at``."""

    def values(n: int) -> list[Any]:
        return [value if j == bad_at else 0.25 for j in range(n)]

    RETURNED["batch"] = values
    expected = accepted(value)
    qids = sorted(QRELS)
    if expected is None:
        with pytest.raises(UserMeasureError) as caught:
            ranklens.evaluate(QRELS, RUN, "UTUnitBatch")
        assert (caught.value.measure, caught.value.query) == ("UTUnitBatch", qids[bad_at])
        assert str(caught.value).startswith(
            f"measure 'UTUnitBatch' failed on query '{qids[bad_at]}': its batch function "
        )
    else:
        res = ranklens.evaluate(QRELS, RUN, "UTUnitBatch")
        got = res.query_values("UTUnitBatch")
        assert got == {q: expected if j == bad_at else 0.25 for j, q in enumerate(qids)}


@pytest.mark.parametrize(
    ("array", "query"),
    [
        (np.array(["0.1", "0.5", "0.7"]), "q1"),
        (np.array([0.1, np.nan, 0.7]), "q2"),
        (np.array([0.1, 0.2, 2.0]), "q3"),
        (np.array([0.1, -np.inf, 0.7]), "q2"),
        (np.array([10**400, 0, 0], dtype=object), "q1"),
        (np.array([0.5, 0.5, 1 + 1e-15]), None),
        (np.array([True, False, True]), None),
        (np.array([0, 1, 1], dtype=np.uint64), None),
    ],
)
def test_a_batch_array_follows_the_contract(array: Any, query: str | None) -> None:
    RETURNED["batch"] = lambda n: array
    if query is None:
        got = ranklens.evaluate(QRELS, RUN, "UTUnitBatch").query_values("UTUnitBatch")
        assert list(got.values()) == [accepted(v) for v in array.tolist()]
        return
    with pytest.raises(UserMeasureError) as caught:
        ranklens.evaluate(QRELS, RUN, "UTUnitBatch")
    assert (caught.value.measure, caught.value.query) == ("UTUnitBatch", query)


@pytest.mark.parametrize(
    "returned",
    [lambda n: np.zeros(n + 1), lambda n: np.zeros((n, 1)), lambda n: 0.5, lambda n: iter([])],
)
def test_a_batch_of_the_wrong_shape_is_the_users(returned: Any) -> None:
    RETURNED["batch"] = returned
    with pytest.raises(UserMeasureError, match=r"^measure 'UTUnitBatch' failed: its batch"):
        ranklens.evaluate(QRELS, RUN, "UTUnitBatch")


def test_without_declared_bounds_any_finite_value_is_taken() -> None:
    assert FREE.bounds == (-math.inf, math.inf)
    for value in (-5.0, 1e300, 7, 2.5):
        RETURNED["value"] = value
        assert ranklens.evaluate(QRELS, RUN, "UTFree")["UTFree"] == float(value)
    RETURNED["value"] = math.inf
    with pytest.raises(UserMeasureError, match="finite"):
        ranklens.evaluate(QRELS, RUN, "UTFree")


@pytest.mark.parametrize("bounds", [(1, 0), (math.nan, 1), ("a", 1), (0,), (0, 1, 2), True])
def test_bounds_that_are_not_a_range_are_refused(bounds: Any) -> None:
    with pytest.raises(MeasureError, match="bounds must be"):
        ranklens.define_measure("UTBadBounds", _returns, bounds=bounds)


@pytest.mark.parametrize("seed", range(6))
def test_an_exception_names_the_measure_the_query_and_the_users_line(seed: int) -> None:
    """On generated rankings, the query named is the first one (in the Results' order)
    without a relevant document retrieved, where the user's code divides by zero."""
    qrels, run = generated(seed)
    order = ranklens.evaluate(qrels, run, "P@5").queries
    failing = [
        q
        for q in order
        if not any(qrels.get(q, {}).get(d, 0) > 0 for d in run.get(q, {}))
    ]
    if not failing:
        assert ranklens.evaluate(qrels, run, "UTDivides")["UTDivides"] > 0
        return
    with pytest.raises(UserMeasureError) as caught:
        ranklens.evaluate(qrels, run, "UTDivides")
    error = caught.value
    line = inspect.getsourcelines(_divides)[1] + 2  # the division, in this file
    assert (error.measure, error.query) == ("UTDivides", failing[0])
    assert str(error) == (
        f"measure 'UTDivides' failed on query '{failing[0]}': ZeroDivisionError: division by "
        f"zero ({__file__}, line {line})"
    )
    assert isinstance(error.__cause__, ZeroDivisionError)  # Python users keep the traceback


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_inputs_are_read_only_and_a_write_is_the_users(name: str) -> None:
    run = {q: dict(docs) for q, docs in RUN.items()}
    before = {q: dict(docs) for q, docs in run.items()}
    with pytest.raises(UserMeasureError, match=r"read-only.*copy one before changing it"):
        ranklens.evaluate(QRELS, run, name)
    assert run == before
    # the run's own arrays keep their flags and values: only the views handed out are locked
    read = ranklens.Evaluator(QRELS, ["P@5"])
    scores = np.array([0.5, 0.25, 1.0])
    table = ranklens.Run.from_dict({"q1": dict(zip("abc", scores.tolist(), strict=True))})
    flags = [a.flags.writeable for a in (table.scores, table.q_offsets)]
    with pytest.raises(UserMeasureError):
        ranklens.evaluate(QRELS, table, name)
    assert [a.flags.writeable for a in (table.scores, table.q_offsets)] == flags
    assert read.evaluate(table)["P@5"] == ranklens.evaluate(QRELS, table, "P@5")["P@5"]


def test_compare_reports_the_users_error() -> None:
    qrels, run_a = generated(2)
    _, run_b = generated(3)
    RETURNED["value"] = "0.5"
    with pytest.raises(UserMeasureError, match=r"^measure 'UTUnit' failed on query '"):
        ranklens.compare(qrels, {"a": run_a, "b": run_b}, ["P@5", "UTUnit"])


def test_the_error_survives_pickling() -> None:
    """Dask and Spark workers send errors back pickled."""
    error = UserMeasureError("measure 'X' failed on query 'q1': boom", measure="X", query="q1")
    again = pickle.loads(pickle.dumps(error))
    assert (str(again), again.measure, again.query) == (str(error), "X", "q1")
    assert isinstance(again, MeasureError) and isinstance(again, RanklensError)


PLUGIN = '''
import ranklens

def broken(relevance, scores):
    """Fails on a query without a relevant document retrieved."""
    return 1 / int((relevance > 0).sum())

def text(relevance, scores):
    return "0.5"

ranklens.define_measure("PluginBroken", broken)
ranklens.define_measure("PluginText", text)
'''


@pytest.mark.parametrize(
    ("measure", "expected"),
    [
        ("PluginBroken", r"measure 'PluginBroken' failed on query 'q3': ZeroDivisionError: "),
        ("PluginText", r"measure 'PluginText' failed on query 'q1': per_query returned '0.5'"),
    ],
)
def test_cli_prints_the_users_error_in_one_line(
    tmp_path: Path, measure: str, expected: str
) -> None:
    (tmp_path / "plug.py").write_text(PLUGIN)
    (tmp_path / "qrels.txt").write_text("q1 0 a 1\nq2 0 a 2\nq3 0 c 1\n")
    (tmp_path / "run.txt").write_text("q1 Q0 a 1 1.0 r\nq2 Q0 a 1 0.3 r\nq3 Q0 z 1 1.0 r\n")
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, ranklens.cli as c; sys.exit(c.main(sys.argv[1:]))",
            "--plugin",
            "plug",
            "eval",
            "qrels.txt",
            "run.txt",
            "-m",
            measure,
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "internal error" not in done.stderr, done.stderr
    assert lines[0].startswith("ranklens: error: ")
    assert __import__("re").search(expected, lines[0]), lines[0]
