"""The tie notice (how many queries tied scores can decide) found in the join's own pass.

``ranklens.ranking.align.align`` asks the native join (``_core.align(..., scores=,
depth=)``) for the rank where each query's first group of equal scores holding different
gains begins; :func:`ranklens.ranking.ties.tie_affected_queries` counts from that. These
tests hold it to a plain-Python reading of the definition (each ranking walked document
by document), to the vectorised count on the aligned arrays, and the C join to the numpy
fallback at every thread count, on generated runs with ties, graded, negative and
unjudged documents, queries missing from either side and depth limits.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ranklens.data import native_fallback
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.ranking.align import PreparedQrels, align
from ranklens.ranking.ties import tie_affected_queries

try:
    _c: Any = importlib.import_module("ranklens.data._core")
except ImportError:  # pragma: no cover - an install without a compiler
    _c = None

SETTINGS = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
QIDS = ["q1", "q2", "q3", "q10", "q4"]
DOCS = [f"d{i}" for i in range(12)]
SCORES = [0.0, -0.0, 0.5, 1.0, 1.0, 2.0, -1.5]  # few values: many ties (and signed zeros)
GRADES = [-2, -1, 0, 0, 1, 1, 2, 3]


@st.composite
def cases(draw: st.DrawFn) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Qrels and a run over a few queries (some only on one side), with many ties."""
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for qid in QIDS:
        side = draw(st.sampled_from(["both", "both", "both", "qrels", "run"]))
        if side != "run":
            judged = draw(st.lists(st.sampled_from(DOCS), max_size=8, unique=True))
            qrels[qid] = {d: draw(st.sampled_from(GRADES)) for d in judged}
        if side != "qrels":
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=0, max_size=10, unique=True))
            run[qid] = {d: draw(st.sampled_from(SCORES)) for d in docs}
    if not any(qrels.values()):  # qrels need one judgment somewhere
        qrels["q1"] = {"d0": 1}
    return qrels, run


def _gain(qrels: dict[str, dict[str, int]], qid: str, doc: str) -> int:
    return max(qrels.get(qid, {}).get(doc, 0), 0)


def _reference(
    qrels: dict[str, dict[str, int]],
    run: Run,
    ties: str,
    queries: str,
    depth: int | None,
    cutoff: int | None,
) -> int:
    """The definition, one ranking at a time: a query counts when a group of consecutive
    equal scores in its ranking holds two different gains and begins at a 0-based rank
    below ``cutoff`` and below ``depth`` (a group that the depth cuts counts whole: which
    of its documents stay is the tie-breaking's choice)."""
    perm = run.ranking(ties)  # type: ignore[arg-type]
    evaluated = set(qrels) if queries == "qrels" else set(run.qids)
    if queries == "both":
        evaluated &= set(qrels)
    count = 0
    for j, qid in enumerate(run.qids):
        if qid not in evaluated:
            continue
        entries = perm[int(run.q_offsets[j]) : int(run.q_offsets[j + 1])].tolist()
        ranked = [(float(run.scores[e]), _gain(qrels, qid, run.docid(e))) for e in entries]
        start = 0
        for i in range(1, len(ranked) + 1):
            if i == len(ranked) or ranked[i][0] != ranked[start][0]:
                gains = {g for _, g in ranked[start:i]}
                within = (cutoff is None or start < cutoff) and (depth is None or start < depth)
                if len(gains) > 1 and within:
                    count += 1
                    break
                start = i
    return count


@SETTINGS
@given(
    cases(),
    st.sampled_from(["trec_eval", "input", "docid_asc"]),
    st.sampled_from(["qrels", "run", "both"]),
    st.sampled_from([None, 0, 1, 2, 4]),
)
def test_tie_notice_matches_the_definition(
    case: tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]],
    ties: str,
    queries: str,
    depth: int | None,
) -> None:
    qrels_dict, run_dict = case
    run = Run.from_dict(run_dict)
    aligned = align(
        PreparedQrels.of(Qrels.from_dict(qrels_dict)),
        run,
        ties,  # type: ignore[arg-type]
        queries,  # type: ignore[arg-type]
        depth,
    )
    assert aligned.base.tie_starts is not None  # found by the join
    on_arrays = dataclasses.replace(aligned.base, tie_starts=None)  # the vectorised count
    for cutoff in (None, 1, 2, 3, 10):
        expected = _reference(qrels_dict, run, ties, queries, depth, cutoff)
        assert tie_affected_queries(aligned.base, cutoff) == expected
        if depth is None:  # the arrays hold only the ranks within the depth
            assert tie_affected_queries(on_arrays, cutoff) == expected


def test_tie_notice_by_hand() -> None:
    qrels = Qrels.from_dict({"a": {"x": 1, "y": 0}, "b": {"x": 2, "y": 1}, "c": {"x": 1}})
    run = Run.from_dict(
        {
            "a": {"x": 0.5, "y": 0.5, "z": 0.1},  # relevant tied with non-relevant at rank 0
            "b": {"w": 0.9, "x": 0.5, "y": 0.5},  # grades 2 and 1 tied from rank 1
            "c": {"u": 0.5, "v": 0.5, "x": 0.1},  # tied, but both unjudged: same gain 0
        }
    )
    base = align(PreparedQrels.of(qrels), run).base
    assert base.tie_starts is not None
    assert base.tie_starts.tolist() == [0, 1, -1]
    assert tie_affected_queries(base) == 2
    assert tie_affected_queries(base, 1) == 1  # b's group begins at rank 1, below cutoff 1
    # depth 1: a's group is cut to one document, and which one stays (x, relevant, or y)
    # is the tie-breaking's choice; b's group begins below the depth
    cut = align(PreparedQrels.of(qrels), run, depth=1).base
    assert cut.tie_starts is not None
    assert cut.tie_starts.tolist() == [0, -1, -1]


def test_no_tie_notice_under_ties_rank(tmp_path: Any) -> None:
    path = tmp_path / "run.txt"
    path.write_text("a Q0 x 2 0.5 t\na Q0 y 1 0.5 t\n")
    run = Run.from_file(path)
    prepared = PreparedQrels.of(Qrels.from_dict({"a": {"x": 1}}))
    assert align(prepared, run, "rank").base.tie_starts is None  # ranked by the rank column
    assert align(prepared, run).base.tie_starts is not None


def _join_args(
    qrels_dict: dict[str, dict[str, int]], run_dict: dict[str, dict[str, float]], ties: str
) -> tuple[tuple[Any, ...], Run]:
    qrels = Qrels.from_dict(qrels_dict)
    run = Run.from_dict(run_dict)
    index = qrels.query_index()
    r2q = np.array([index.get(q, -1) for q in run.qids], dtype=np.int64)
    args = (
        run.q_offsets,
        run.doc_data,
        run.doc_offsets,
        run.ranking(ties),  # type: ignore[arg-type]
        r2q,
        qrels.q_offsets,
        qrels.doc_data,
        qrels.doc_offsets,
        qrels.rels,
    )
    return args, run


@pytest.mark.skipif(_c is None, reason="the C module ranklens.data._core is not built")
@SETTINGS
@given(cases(), st.sampled_from(["trec_eval", "input"]), st.sampled_from([-1, 0, 1, 3]))
def test_native_join_tie_notice_equals_fallback(
    case: tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]],
    ties: str,
    depth: int,
) -> None:
    args, run = _join_args(*case, ties)
    rel_f, ties_f = native_fallback.align(*args, scores=run.scores, depth=depth)
    assert native_fallback.align(*args).tolist() == rel_f.tolist()
    for threads in (0, 1, 2, 3, 8):
        rel_c, ties_c = _c.align(*args, threads, scores=run.scores, depth=depth)
        assert rel_c.dtype == ties_c.dtype == np.int64
        assert rel_c.tolist() == rel_f.tolist()
        assert ties_c.tolist() == ties_f.tolist()
        assert _c.align(*args, threads).tolist() == rel_f.tolist()


@pytest.mark.parametrize("module", ["c", "fallback"])
def test_join_tie_notice_argument_errors(module: str) -> None:
    if module == "c" and _c is None:
        pytest.skip("the C module ranklens.data._core is not built")
    core: Any = _c if module == "c" else native_fallback
    args, run = _join_args({"a": {"x": 1}}, {"a": {"x": 0.5, "y": 0.5}}, "trec_eval")
    with pytest.raises(ValueError, match=r"^scores has 1 elements for 2 run documents$"):
        core.align(*args, scores=run.scores[:1])
    with pytest.raises(ValueError, match=r"^depth must be -1 \(no limit\) or >= 0$"):
        core.align(*args, scores=run.scores, depth=-2)
