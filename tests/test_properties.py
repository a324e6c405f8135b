"""Properties of ranklens's measures and inputs, checked with hypothesis.

Every example is a full generated case (see ``strategies.py``: ties, graded and negative
labels, unjudged documents, missing queries on both sides, prefix / mixed-case ids), with
a relevance threshold in {0, 1, 2, 3} and judged_only False/True. Hypothesis runs
derandomized and without an example database, so the file is deterministic.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from strategies import (
    DOC_POOL,
    Case,
    byte_sorted,
    cases,
    input_ranking,
    judged_only_st,
    qrels_dicts,
    rel_st,
    run_dicts,
    trec_ids_st,
    trec_ranking,
)

PROPS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

CUTS = (1, 2, 3, 5, 10, 20, 25)
FRACTIONS = ("P", "R", "AP", "RR", "nDCG", "Success", "Rprec", "Bpref", "IPrec", "Judged", "GMAP")
COUNTS = ("NumRet", "NumRel", "NumRelRet", "NumQ")


def measures(rel: int, judged_only: bool) -> list[str]:
    """A wide set of measures at one threshold / judged_only setting."""
    p = f"(rel={rel},judged_only={judged_only})"
    names = []
    for k in CUTS:
        names += [f"P{p}@{k}", f"R{p}@{k}", f"AP{p}@{k}", f"RR{p}@{k}", f"Success{p}@{k}"]
        names += [f"nDCG(judged_only={judged_only})@{k}", f"Judged@{k}"]
    names += [f"AP{p}", f"RR{p}", f"Rprec{p}", f"Bpref(rel={rel})", f"GMAP{p}"]
    names += [f"nDCG(judged_only={judged_only})", f"P{p}", f"R{p}"]
    names += [f"IPrec{p}@{x / 10}" for x in range(11)]
    names += [f"NumRet(judged_only={judged_only})", f"NumRel(rel={rel})", f"NumRelRet{p}"]
    names += ["NumQ"]
    return names


def name_of(text: str) -> str:
    return ranklens.parse_measure(text).name


def is_relevant(label: int | None, rel: int) -> bool:
    return label is not None and label >= 0 and label >= rel


def ranked_labels(case: Case, q: str, judged_only: bool) -> list[int | None]:
    qrels_q = case.qrels.get(q, {})
    labels = [qrels_q.get(d) for d in trec_ranking(case.run.get(q, {}))]
    if judged_only:
        labels = [g for g in labels if g is not None and g >= 0]
    return labels


def values_by_query(res: Any) -> dict[str, dict[str, float]]:
    return res.per_query


# --- bounds ---------------------------------------------------------------------------


@given(
    case=cases(pytrec_safe=False),
    rel=rel_st,
    judged_only=judged_only_st,
    queries=st.sampled_from(["qrels", "both", "run"]),
)
@PROPS
def test_bounds(case: Case, rel: int, judged_only: bool, queries: str) -> None:
    res = ranklens.evaluate(case.qrels, case.run, measures(rel, judged_only), queries=queries)
    assert res.values.shape == (len(res.queries), len(res.names))
    assert not np.isnan(res.values).any()
    for j, m in enumerate(res.measures):
        column = res.values[:, j]
        family = m.spec.name
        if family in COUNTS:
            assert (column >= 0).all() and (column == np.round(column)).all(), m.name
            if family == "NumQ":
                assert (column == 1).all()
        else:
            assert family in FRACTIONS, family
            assert ((column >= 0) & (column <= 1)).all(), (m.name, column)
            agg = res.aggregate[m.name]
            assert 0 <= agg <= 1, (m.name, agg)


# --- invariances ----------------------------------------------------------------------


@given(case=cases(pytrec_safe=False), rel=rel_st, judged_only=judged_only_st, data=st.data())
@PROPS
def test_input_order_does_not_matter(case: Case, rel: int, judged_only: bool, data: Any) -> None:
    names = measures(rel, judged_only)
    base = ranklens.evaluate(case.qrels, case.run, names)

    def reorder(d: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        qs = data.draw(st.permutations(list(d)))
        out = {}
        for q in qs:
            docs = data.draw(st.permutations(list(d[q])))
            out[q] = {doc: d[q][doc] for doc in docs}
        return out

    shuffled = ranklens.evaluate(reorder(case.qrels), reorder(case.run), names)
    assert shuffled.queries == base.queries
    assert np.array_equal(shuffled.values, base.values)
    assert shuffled.aggregate == base.aggregate
    # Records interleaving the queries, in any order ("lines" of a file).
    run_records = [(q, d, s) for q, docs in case.run.items() for d, s in docs.items()]
    qrels_records = [(q, d, g) for q, docs in case.qrels.items() for d, g in docs.items()]
    run_records = data.draw(st.permutations(run_records))
    qrels_records = data.draw(st.permutations(qrels_records))
    from_records = ranklens.evaluate(
        ranklens.Qrels.from_records(qrels_records), ranklens.Run.from_records(run_records), names
    )
    assert from_records.queries == base.queries
    assert np.array_equal(from_records.values, base.values)
    assert from_records.aggregate == base.aggregate


@given(case=cases(pytrec_safe=False), rel=rel_st, judged_only=judged_only_st, data=st.data())
@PROPS
def test_renaming_queries(case: Case, rel: int, judged_only: bool, data: Any) -> None:
    names = measures(rel, judged_only)
    base = ranklens.evaluate(case.qrels, case.run, names)
    all_qids = set(case.qrels) | set(case.run)

    def renamed(mapping: dict[str, str]) -> Any:
        return ranklens.evaluate(
            {mapping[q]: v for q, v in case.qrels.items()},
            {mapping[q]: v for q, v in case.run.items()},
            names,
        )

    # A prefix keeps the byte order of the queries: everything is identical.
    prefix = {q: "topic-" + q for q in all_qids}
    res = renamed(prefix)
    assert res.queries == tuple(prefix[q] for q in base.queries)
    assert np.array_equal(res.values, base.values)
    assert res.aggregate == base.aggregate
    # Any bijection: the same value for each query; the sums may add in another order.
    targets = data.draw(
        st.lists(
            st.text("abzAZ09_é", min_size=1, max_size=4),
            min_size=len(all_qids),
            max_size=len(all_qids),
            unique=True,
        )
    )
    mapping = dict(zip(sorted(all_qids), targets, strict=True))
    res = renamed(mapping)
    assert list(res.queries) == byte_sorted(mapping[q] for q in base.queries)
    for q in base.queries:
        assert res.per_query[mapping[q]] == base.per_query[q]
    for m in base.measures:
        if m.spec.aggregate == "sum":
            assert res.aggregate[m.name] == base.aggregate[m.name]
        else:
            assert math.isclose(
                res.aggregate[m.name], base.aggregate[m.name], rel_tol=1e-12, abs_tol=1e-15
            )


# --- precision, recall, AP ------------------------------------------------------------


@given(case=cases(pytrec_safe=False), rel=rel_st, judged_only=judged_only_st)
@PROPS
def test_precision_counts_relevant_in_top_k(case: Case, rel: int, judged_only: bool) -> None:
    ks = range(1, 26)
    p = f"(rel={rel},judged_only={judged_only})"
    res = ranklens.evaluate(case.qrels, case.run, [f"P{p}@{k}" for k in ks])
    for q in res.queries:
        labels = ranked_labels(case, q, judged_only)
        for k in ks:
            hits = sum(is_relevant(g, rel) for g in labels[:k])
            value = res.per_query[q][name_of(f"P{p}@{k}")]
            assert value == hits / k, (q, k, value, hits)
            assert round(value * k) == hits and abs(value * k - hits) < 1e-9


@given(case=cases(pytrec_safe=False), rel=rel_st, judged_only=judged_only_st)
@PROPS
def test_recall_is_monotone_in_k(case: Case, rel: int, judged_only: bool) -> None:
    ks = range(1, 26)
    p = f"(rel={rel},judged_only={judged_only})"
    res = ranklens.evaluate(
        case.qrels, case.run, [f"R{p}@{k}" for k in ks] + [f"NumRelRet{p}", f"NumRel(rel={rel})"]
    )
    for q in res.queries:
        row = res.per_query[q]
        series = [row[name_of(f"R{p}@{k}")] for k in ks]
        assert all(a <= b for a, b in itertools.pairwise(series)), (q, series)
        num_rel = row[name_of(f"NumRel(rel={rel})")]
        full = row[name_of(f"NumRelRet{p}")] / num_rel if num_rel else 0.0
        assert series[-1] == full  # every ranking here is shorter than 25


@given(case=cases(pytrec_safe=False), rel=rel_st, judged_only=judged_only_st)
@PROPS
def test_ap_equals_ap_at_k_beyond_the_longest_ranking(
    case: Case, rel: int, judged_only: bool
) -> None:
    longest = max(len(docs) for docs in case.run.values())
    p = f"(rel={rel},judged_only={judged_only})"
    ks = [longest, longest + 1, 1000]
    res = ranklens.evaluate(case.qrels, case.run, [f"AP{p}"] + [f"AP{p}@{k}" for k in ks])
    for j in range(1, len(res.names)):
        assert np.array_equal(res.values[:, 0], res.values[:, j]), res.names[j]
    assert len({res.aggregate[n] for n in res.names}) == 1


# --- nDCG -----------------------------------------------------------------------------


@given(case=cases(pytrec_safe=False), judged_only=judged_only_st, tie_grades=st.booleans())
@PROPS
def test_ndcg_of_the_ideal_ranking_is_one(case: Case, judged_only: bool, tie_grades: bool) -> None:
    """Rank every judged document by grade (equal grades tied or not), negative and
    unjudged documents below: nDCG and nDCG@k are exactly 1 where a grade > 0 exists."""
    run: dict[str, dict[str, float]] = {}
    for q, judged in case.qrels.items():
        order = sorted(judged, key=lambda d: -judged[d])
        run[q] = {}
        for i, d in enumerate(order):
            grade = judged[d]
            if grade >= 0:
                run[q][d] = float(grade) if tie_grades else float(len(order) - i)
            else:
                run[q][d] = -10.0
        extra = [d for d in DOC_POOL if d not in judged][:2]
        run[q].update({d: -20.0 for d in extra})
    names = [f"nDCG(judged_only={judged_only})"]
    names += [f"nDCG(judged_only={judged_only})@{k}" for k in CUTS]
    res = ranklens.evaluate(case.qrels, run, names)
    for q in res.queries:
        positive = any(g > 0 for g in case.qrels[q].values())
        for value in res.per_query[q].values():
            assert value == (1.0 if positive else 0.0), (q, res.per_query[q])


@given(case=cases(pytrec_safe=False), rel=rel_st, judged_only=judged_only_st, data=st.data())
@PROPS
def test_unjudged_documents_at_the_bottom_change_nothing_above(
    case: Case, rel: int, judged_only: bool, data: Any
) -> None:
    p = f"(rel={rel},judged_only={judged_only})"
    kinds = data.draw(st.sampled_from(["absent", "negative"]))
    run = {q: dict(docs) for q, docs in case.run.items()}
    qrels = {q: dict(docs) for q, docs in case.qrels.items()}
    for q in run:
        floor = min(run[q].values())
        fresh = [d for d in DOC_POOL if d not in run[q] and d not in qrels.get(q, {})]
        extra = data.draw(st.lists(st.sampled_from(fresh), min_size=1, max_size=4, unique=True))
        for i, d in enumerate(extra):
            run[q][d] = floor - 1 - (i % 2)  # below everything, ties among themselves
            if kinds == "negative" and q in qrels:
                qrels[q][d] = data.draw(st.sampled_from([-1, -2]))  # pooled, unjudged
    shortest = min(len(docs) for docs in case.run.values())
    names = [f"AP{p}", f"RR{p}", f"nDCG(judged_only={judged_only})", f"Bpref(rel={rel})"]
    names += [f"AP{p}@{k}" for k in CUTS] + [f"nDCG(judged_only={judged_only})@{k}" for k in CUTS]
    names += [f"P{p}@{k}" for k in range(1, shortest + 1)]
    names += [f"R{p}@{k}" for k in range(1, shortest + 1)]
    names += [f"P{p}@{k}" for k in CUTS] + [f"IPrec{p}@{x / 10}" for x in range(11)]
    names += [f"Rprec{p}", f"NumRelRet{p}", f"NumRel(rel={rel})", f"Success{p}@5"]
    if judged_only:  # the added documents are removed before anything is measured
        names += ["NumRet(judged_only=True)"]
    before = ranklens.evaluate(case.qrels, case.run, names)
    after = ranklens.evaluate(qrels, run, names)
    assert after.queries == before.queries
    for j, n in enumerate(before.names):
        assert np.array_equal(after.values[:, j], before.values[:, j]), n


# --- judged fraction, thresholds, judged_only -----------------------------------------


@given(case=cases(pytrec_safe=False))
@PROPS
def test_judged_at_k(case: Case) -> None:
    res = ranklens.evaluate(case.qrels, case.run, [f"Judged@{k}" for k in CUTS])
    for q in res.queries:
        labels = ranked_labels(case, q, False)
        for k in CUTS:
            value = res.per_query[q][f"Judged@{k}"]
            assert 0.0 <= value <= 1.0
            top = labels[:k]
            judged = sum(1 for g in top if g is not None and g >= 0)
            assert value == (judged / len(top) if top else 0.0), (q, k, value)


@given(case=cases(pytrec_safe=False), judged_only=judged_only_st)
@PROPS
def test_thresholds_and_negative_labels(case: Case, judged_only: bool) -> None:
    """NumRel(rel=r) counts labels >= max(r, 0) (negative ones never); it and NumRelRet
    shrink as r grows; judged_only keeps exactly the retrieved documents with label >= 0."""
    names = [f"NumRel(rel={r})" for r in range(0, 6)]
    names += [f"NumRelRet(rel={r},judged_only={judged_only})" for r in range(0, 6)]
    names += [f"NumRet(judged_only={judged_only})", "NumRet"]
    res = ranklens.evaluate(case.qrels, case.run, names)
    for q in res.queries:
        row = res.per_query[q]
        labels = list(case.qrels.get(q, {}).values())
        ranked = ranked_labels(case, q, False)
        for r in range(0, 6):
            assert row[name_of(f"NumRel(rel={r})")] == sum(1 for g in labels if g >= r)
            assert row[name_of(f"NumRelRet(rel={r},judged_only={judged_only})")] == sum(
                is_relevant(g, r) for g in ranked
            )
        assert row["NumRet"] == len(ranked)
        kept = sum(1 for g in ranked if g is not None and g >= 0) if judged_only else len(ranked)
        assert row[name_of(f"NumRet(judged_only={judged_only})")] == kept


# --- ties -----------------------------------------------------------------------------


@given(
    run=run_dicts(
        ids=st.one_of(st.sampled_from(DOC_POOL), trec_ids_st),
        scores=st.sampled_from([0.0, -0.0, 0.5, 1.0, 5e-324, -5e-324]),
        max_docs=10,
    )
)
@PROPS
def test_tie_policies_order(run: dict[str, dict[str, float]]) -> None:
    obj = ranklens.Run.from_dict(run)
    bounds = obj.q_offsets.tolist()
    for ties, expected_of in (
        ("input", input_ranking),
        ("trec_eval", trec_ranking),
        ("docid_asc", lambda docs: sorted(docs, key=lambda d: (-docs[d], d.encode()))),
    ):
        perm = obj.ranking(ties)
        for j, q in enumerate(obj.qids):
            got = [obj.docid(i) for i in perm[bounds[j] : bounds[j + 1]].tolist()]
            assert got == expected_of(run[q]), (ties, q, got)


@given(case=cases(pytrec_safe=False), rel=st.sampled_from([1, 2]), data=st.data())
@PROPS
def test_ties_input_respects_input_order(case: Case, rel: int, data: Any) -> None:
    """With ties="input", measures see tied documents in the order they were given; the
    run's dicts are reordered so that order differs from the docid order."""
    run = {}
    for q, docs in case.run.items():
        order = data.draw(st.permutations(list(docs)))
        run[q] = {d: docs[d] for d in order}
    ks = (1, 2, 3, 5)
    p = f"(rel={rel})"
    names = [f"RR{p}", f"AP{p}"] + [f"P{p}@{k}" for k in ks] + [f"nDCG@{k}" for k in ks]
    res = ranklens.evaluate(case.qrels, run, names, ties="input", queries="both")
    for q in res.queries:
        qrels_q = case.qrels[q]
        labels = [qrels_q.get(d) for d in input_ranking(run[q])]
        rel_flags = [is_relevant(g, rel) for g in labels]
        first = next((i for i, f in enumerate(rel_flags) if f), None)
        assert res.per_query[q][name_of(f"RR{p}")] == (0.0 if first is None else 1 / (first + 1))
        for k in ks:
            assert res.per_query[q][name_of(f"P{p}@{k}")] == sum(rel_flags[:k]) / k
        # AP the trec_eval way, on the input-order ranking
        total, so_far = 0.0, 0
        for i, f in enumerate(rel_flags):
            if f:
                so_far += 1
                total += so_far / (i + 1)
        num_rel = sum(1 for g in qrels_q.values() if g >= rel)
        assert res.per_query[q][name_of(f"AP{p}")] == (total / num_rel if num_rel else 0.0)
    # An input already in trec_eval order gives the trec_eval numbers.
    ordered = {q: {d: docs[d] for d in trec_ranking(docs)} for q, docs in case.run.items()}
    a = ranklens.evaluate(case.qrels, ordered, names, ties="input")
    b = ranklens.evaluate(case.qrels, case.run, names)
    assert np.array_equal(a.values, b.values)


# --- query policies -------------------------------------------------------------------


@given(case=cases(pytrec_safe=False), rel=rel_st, judged_only=judged_only_st)
@PROPS
def test_query_policies(case: Case, rel: int, judged_only: bool) -> None:
    names = measures(rel, judged_only)
    expected_sets = {
        "qrels": byte_sorted(case.qrels),
        "both": byte_sorted(set(case.qrels) & set(case.run)),
        "run": byte_sorted(case.run),
    }
    results = {}
    for policy, qids in expected_sets.items():
        res = ranklens.evaluate(case.qrels, case.run, names, queries=policy)
        results[policy] = res
        assert list(res.queries) == qids, policy
        assert res.aggregate["NumQ"] == len(qids)
        assert res.values.shape[0] == len(qids)
    # A query in both has the same values under every policy.
    for q in expected_sets["both"]:
        assert results["qrels"].per_query[q] == results["both"].per_query[q]
        assert results["run"].per_query[q] == results["both"].per_query[q]
    # A run query without judgments ("run" policy) has no relevant document.
    for q in set(case.run) - set(case.qrels):
        row = results["run"].per_query[q]
        for m in results["run"].measures:
            if m.spec.name in ("NumRet", "NumQ", "Judged"):
                continue
            assert row[m.name] == 0.0, (q, m.name)
        assert row["NumQ"] == 1.0
        assert row[name_of(f"NumRet(judged_only={judged_only})")] == (
            0.0 if judged_only else len(case.run[q])
        )
    # A qrels query missing from the run ("qrels" policy) scores 0 but keeps its R.
    for q in set(case.qrels) - set(case.run):
        row = results["qrels"].per_query[q]
        for m in results["qrels"].measures:
            want = {
                "NumQ": 1.0,
                "NumRel": float(sum(1 for g in case.qrels[q].values() if g >= max(rel, 0))),
            }.get(m.spec.name, 0.0)
            assert row[m.name] == want, (q, m.name)


@given(case=cases(pytrec_safe=False), depth=st.integers(1, 8), judged_only=judged_only_st)
@PROPS
def test_depth_equals_truncating_the_run(case: Case, depth: int, judged_only: bool) -> None:
    names = measures(1, judged_only)
    cut = {q: {d: docs[d] for d in trec_ranking(docs)[:depth]} for q, docs in case.run.items()}
    a = ranklens.evaluate(case.qrels, case.run, names, depth=depth)
    b = ranklens.evaluate(case.qrels, cut, names)
    assert a.queries == b.queries
    assert np.array_equal(a.values, b.values)


# --- round trips ----------------------------------------------------------------------


def exact(d: dict[str, dict[str, float]]) -> dict[str, dict[str, str]]:
    """Floats by their repr, so -0.0 and 0.0 (and every last bit) are told apart."""
    return {q: {doc: repr(float(v)) for doc, v in docs.items()} for q, docs in d.items()}


@given(run=run_dicts())
@PROPS
def test_run_dict_round_trip(run: dict[str, dict[str, float]]) -> None:
    back = ranklens.Run.from_dict(run).to_dict()
    assert back == run
    assert exact(back) == exact(run)


@given(qrels=qrels_dicts())
@PROPS
def test_qrels_dict_round_trip(qrels: dict[str, dict[str, int]]) -> None:
    back = ranklens.Qrels.from_dict(qrels).to_dict()
    assert back == qrels
    assert all(type(v) is int for docs in back.values() for v in docs.values())


@given(
    run=run_dicts(), qrels=qrels_dicts(), ties=st.sampled_from(["trec_eval", "input", "docid_asc"])
)
@PROPS
def test_trec_file_round_trip(
    tmp_path_factory: pytest.TempPathFactory,
    run: dict[str, dict[str, float]],
    qrels: dict[str, dict[str, int]],
    ties: str,
) -> None:
    directory = tmp_path_factory.mktemp("roundtrip")
    run_obj = ranklens.Run.from_dict(run, name="sys-1")
    run_obj.write(directory / "a.run", ties=ties)
    back = ranklens.Run.from_file(directory / "a.run")
    assert exact(back.to_dict()) == exact(run)
    assert back.name == "sys-1"
    # the written ranks are 1..n in ranked order
    lines = (directory / "a.run").read_text().splitlines()
    for q in run:
        ranks = [int(line.split()[3]) for line in lines if line.split()[0] == q]
        assert ranks == list(range(1, len(run[q]) + 1))
    qrels_obj = ranklens.Qrels.from_dict(qrels)
    qrels_obj.write(directory / "a.qrels")
    assert ranklens.Qrels.from_file(directory / "a.qrels").to_dict() == qrels
    # a str path works the same
    assert exact(ranklens.Run.from_file(str(directory / "a.run")).to_dict()) == exact(run)


@given(
    case=cases(pytrec_safe=False),
    scores=st.lists(st.floats(-1e300, 1e300), min_size=1, max_size=200),
)
@PROPS
def test_written_run_evaluates_like_the_dict(
    tmp_path_factory: pytest.TempPathFactory, case: Case, scores: list[float]
) -> None:
    """Full float64 scores (not float32) survive Run.write / evaluate(path) bit for bit."""
    i = 0
    run: dict[str, dict[str, float]] = {}
    for q, docs in case.run.items():
        run[q] = {}
        for d in docs:
            run[q][d] = scores[i % len(scores)]
            i += 1
    directory = tmp_path_factory.mktemp("written")
    ranklens.Run.from_dict(run).write(directory / "r.txt")
    ranklens.Qrels.from_dict(case.qrels).write(directory / "q.txt")
    names = measures(1, False)
    a = ranklens.evaluate(directory / "q.txt", directory / "r.txt", names)
    b = ranklens.evaluate(case.qrels, run, names)
    assert a.queries == b.queries
    assert np.array_equal(a.values, b.values)


def test_scores_that_need_17_digits_round_trip(tmp_path: Path) -> None:
    tricky = [
        0.1,
        1 / 3,
        2.0**-1074,
        1.7976931348623157e308,
        -0.0,
        1e-320,
        123456789.12345679,
        0.30000000000000004,
        float(np.float32(0.1)),
        9007199254740993.0,
    ]
    run = {"q": {f"d{i}": v for i, v in enumerate(tricky)}}
    ranklens.Run.from_dict(run).write(tmp_path / "r")
    back = ranklens.Run.from_file(tmp_path / "r").to_dict()
    assert exact(back) == exact(run)
