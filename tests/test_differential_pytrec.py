"""ranklens against pytrec_eval (trec_eval 9.0.8) and a small pure-Python trec_eval 10.

What is compared, per query and exactly (``==``; NaN only equals NaN):

* every measure pytrec_eval has (P@k, R@k, AP, AP@k, RR, nDCG, nDCG@k, Rprec, Bpref,
  Success@k, NumRet, NumRel, NumRelRet, IPrec@x) with ``rel`` in {1, 2} and
  ``judged_only`` False/True, on ``queries="both"`` (pytrec_eval's query set);
* RR@k, Judged@k and IPrec@x (trec_eval 10's ``lround`` rule) against :func:`reference`,
  a direct transcription of trec_eval's C loops, itself checked against pytrec_eval on
  every case where the two trec_eval versions agree;
* ``queries="qrels"``: missing queries score 0 (NumRel = their R), means are the sum over
  the qrels' queries (in byte order, as trec_eval adds them) divided by their number;
* GMAP's aggregate: exp(mean(log(max(AP_q, 1e-5)))).
* file input (TREC text, shuffled lines, comments, gzip) gives the same numbers as dicts.

Known, deliberate differences with pytrec_eval that the tests allow (and nothing else):

* IPrec@x: trec_eval 9.0.8 reaches the recall level at the c-th relevant document with
  ``c = (long)(x * R + 0.9)``, trec_eval 10 with ``c = lround(x * R)``; compared with
  pytrec_eval only where the two c agree, always compared with :func:`reference`.
* IPrec on an empty ranking (possible here with judged_only): trec_eval computes 0/0 (NaN)
  for levels with c = 0, ranklens gives 0.
* pytrec_eval cannot take ``relevance_level=0`` ("should be positive") and crashes
  (segfault in bpref) on a query whose judgments are all negative: those are compared
  with :func:`reference` only.
"""

from __future__ import annotations

import gzip
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings

import ranklens
from strategies import (
    CUTOFFS,
    RECALL_LEVELS,
    Case,
    byte_sorted,
    cases,
    lround,
    random_cases,
    trec_ranking,
)

N_BLOCKS = 10
CASES_PER_BLOCK = 55  # 550 seeded cases, each at rel 1 and 2, judged_only False and True
BASE_SEED = 20240611

HYPOTHESIS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --- measure tables ----------------------------------------------------------------------

_REL_AND_J = {"P", "R", "AP", "RR", "Rprec", "Success", "NumRelRet", "IPrec"}
_REL_ONLY = {"Bpref", "NumRel"}
_J_ONLY = {"nDCG", "NumRet"}


def short_names() -> list[str]:
    """Measure families with their ``@`` part, without parameters."""
    names = []
    for k in CUTOFFS:
        names += [f"P@{k}", f"R@{k}", f"AP@{k}", f"nDCG@{k}", f"Success@{k}"]
        names += [f"RR@{k}", f"Judged@{k}"]
    names += ["AP", "RR", "nDCG", "Rprec", "Bpref", "NumRet", "NumRel", "NumRelRet"]
    names += [f"IPrec@{x}" for x in RECALL_LEVELS]
    return names


def ranklens_name(short: str, rel: int, judged_only: bool) -> str:
    """``P@5`` -> ``P(rel=2,judged_only=True)@5`` (only the parameters the family has)."""
    family, at, value = short.partition("@")
    if family in _REL_AND_J:
        params = f"(rel={rel},judged_only={judged_only})"
    elif family in _REL_ONLY:
        params = f"(rel={rel})"
    elif family in _J_ONLY:
        params = f"(judged_only={judged_only})"
    else:
        params = ""
    return family + params + at + value


def pytrec_key(short: str) -> str | None:
    """pytrec_eval's value name for ``short``, or None where it has no such measure."""
    family, _, value = short.partition("@")
    cut = {"P": "P_", "R": "recall_", "AP": "map_cut_", "nDCG": "ndcg_cut_", "Success": "success_"}
    if value and family in cut:
        return cut[family] + value
    if family == "IPrec":
        return f"iprec_at_recall_{float(value):.2f}"
    plain = {
        "AP": "map",
        "RR": "recip_rank",
        "nDCG": "ndcg",
        "Rprec": "Rprec",
        "Bpref": "bpref",
        "NumRet": "num_ret",
        "NumRel": "num_rel",
        "NumRelRet": "num_rel_ret",
    }
    return plain.get(family) if not value else None


SHORT = short_names()
_CUTS = ",".join(str(k) for k in CUTOFFS)
PYTREC_MEASURES = {
    f"P.{_CUTS}",
    f"recall.{_CUTS}",
    f"map_cut.{_CUTS}",
    f"ndcg_cut.{_CUTS}",
    f"success.{_CUTS}",
    "map",
    "recip_rank",
    "ndcg",
    "Rprec",
    "bpref",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "iprec_at_recall",  # default levels 0.0, 0.1, ..., 1.0
}
COUNT_FAMILIES = {"NumRet", "NumRel", "NumRelRet", "NumQ"}


def canonical(names: list[str]) -> dict[str, str]:
    """Input name -> ranklens canonical name (the key of ``per_query``)."""
    return {n: ranklens.parse_measure(n).name for n in names}


# --- a pure-Python trec_eval ---------------------------------------------------------------


def reference(
    qrels_q: Mapping[str, int] | None,
    run_q: Mapping[str, float] | None,
    rel: int,
    judged_only: bool,
    iprec_rule: str = "v10",
) -> dict[str, float]:
    """One query's values for :data:`SHORT`, transcribing trec_eval's C loops.

    A document is relevant iff judged with a grade >= max(rel, 0); negative judgments are
    never relevant and are removed, with documents absent from the qrels, by judged_only.
    ``iprec_rule`` "v9" is trec_eval 9.0.8's ``(long)(x*R + 0.9)``, "v10" its ``lround``.
    """
    qrels_q = qrels_q or {}
    ranked = trec_ranking(run_q) if run_q else []
    labels: list[int | None] = [qrels_q.get(d) for d in ranked]
    all_labels = labels
    if judged_only:
        labels = [g for g in labels if g is not None and g >= 0]
    n = len(labels)
    relevant = [g is not None and g >= 0 and g >= rel for g in labels]
    num_rel = sum(1 for g in qrels_q.values() if g >= 0 and g >= rel)
    num_nonrel = sum(1 for g in qrels_q.values() if 0 <= g < rel)
    hits_at = [0]
    for r in relevant:
        hits_at.append(hits_at[-1] + r)
    out: dict[str, float] = {}

    def ap(limit: int) -> float:
        total, so_far = 0.0, 0
        for i in range(min(limit, n)):
            if relevant[i]:
                so_far += 1
                total += so_far / (i + 1)
        return total / num_rel if num_rel else 0.0

    def rr(limit: int) -> float:
        for i in range(min(limit, n)):
            if relevant[i]:
                return 1.0 / (i + 1)
        return 0.0

    def dcg(gains: list[int], limit: int | None) -> float:
        total = 0.0
        for i, g in enumerate(gains[:limit]):
            if g is not None and g > 0:
                total += g / math.log2(i + 2)
        return total

    ideal = sorted((g for g in qrels_q.values() if g > 0), reverse=True)

    def ndcg(limit: int | None) -> float:
        best = dcg(ideal, limit)  # type: ignore[arg-type]
        return dcg(labels, limit) / best if best > 0 else 0.0  # type: ignore[arg-type]

    for k in CUTOFFS:
        hits = hits_at[min(k, n)]
        out[f"P@{k}"] = hits / k
        out[f"R@{k}"] = hits / num_rel if num_rel else 0.0
        out[f"AP@{k}"] = ap(k)
        out[f"nDCG@{k}"] = ndcg(k)
        out[f"Success@{k}"] = 1.0 if hits > 0 else 0.0
        out[f"RR@{k}"] = rr(k)
        # Judged@k has no judged_only: it reads the whole ranking.
        top = min(k, len(all_labels))
        judged = sum(1 for g in all_labels[:top] if g is not None and g >= 0)
        out[f"Judged@{k}"] = judged / top if top else 0.0
    everything = n + 1
    out["AP"] = ap(everything)
    out["RR"] = rr(everything)
    out["nDCG"] = ndcg(None)  # the ideal ranking is not cut at the run's length
    out["Rprec"] = hits_at[min(num_rel, n)] / num_rel if num_rel else 0.0
    # bpref (m_bpref.c): unjudged skipped; judged below rel is non-relevant.
    bpref, nonrel_so_far = 0.0, 0
    for g in labels:
        if g is None or g < 0:
            continue
        if g < rel:
            nonrel_so_far += 1
        elif nonrel_so_far > 0:
            bpref += 1.0 - min(nonrel_so_far, num_rel) / min(num_nonrel, num_rel)
        else:
            bpref += 1.0
    out["Bpref"] = bpref / num_rel if num_rel else 0.0
    out["NumRet"] = float(n)
    out["NumRel"] = float(num_rel)
    out["NumRelRet"] = float(hits_at[n])
    num_rel_ret = hits_at[n]
    for x in RECALL_LEVELS:
        out[f"IPrec@{x}"] = iprec(relevant, num_rel, num_rel_ret, x, iprec_rule)
    return out


def iprec_cut(x: float, num_rel: int, rule: str) -> int:
    """The number of relevant documents at which recall level ``x`` is reached."""
    if rule == "v9":
        return int(x * num_rel + 0.9)
    return lround(x * num_rel)


def iprec(relevant: list[bool], num_rel: int, num_rel_ret: int, x: float, rule: str) -> float:
    """m_iprec_at_recall.c: walk backwards keeping the max precision; the level's value is
    that max when the c-th relevant document is reached (c = 0: after the first one); 0 if
    fewer than c relevant documents are retrieved. Empty ranking: 0 (trec_eval: 0/0)."""
    n = len(relevant)
    cut = iprec_cut(x, num_rel, rule)
    if cut > num_rel_ret or n == 0:
        return 0.0
    int_precis = num_rel_ret / n
    rel_so_far = num_rel_ret
    i = n
    while i > 0 and rel_so_far > 0:
        int_precis = max(int_precis, rel_so_far / i)
        if relevant[i - 1]:
            if rel_so_far == cut:
                return int_precis
            rel_so_far -= 1
        i -= 1
    return int_precis  # cut == 0


# --- comparison helpers -------------------------------------------------------------------


def same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def pytrec(case: Case, rel: int, judged_only: bool) -> dict[str, dict[str, float]]:
    evaluator = pytrec_eval.RelevanceEvaluator(
        case.qrels, PYTREC_MEASURES, relevance_level=rel, judged_docs_only_flag=judged_only
    )
    return evaluator.evaluate(case.run)


def evaluate(case: Case, rel: int, judged_only: bool, queries: str) -> tuple[Any, dict[str, str]]:
    names = [ranklens_name(s, rel, judged_only) for s in SHORT]
    res = ranklens.evaluate(case.qrels, case.run, names, queries=queries)
    return res, {s: ranklens.parse_measure(ranklens_name(s, rel, judged_only)).name for s in SHORT}


def compare_with_pytrec(case: Case, rel: int, judged_only: bool) -> list[str]:
    """Every disagreement, as readable lines (empty when all agree)."""
    problems: list[str] = []
    where = f"rel={rel} judged_only={judged_only}"
    expected = pytrec(case, rel, judged_only)
    res, name = evaluate(case, rel, judged_only, "both")
    if list(res.queries) != byte_sorted(expected):
        problems.append(f"{where}: queries {res.queries} != pytrec_eval's {byte_sorted(expected)}")
        return problems
    per_query = res.per_query
    for q in res.queries:
        ref = reference(case.qrels.get(q), case.run.get(q), rel, judged_only, "v10")
        ref9 = reference(case.qrels.get(q), case.run.get(q), rel, judged_only, "v9")
        num_rel = int(ref["NumRel"])
        for s in SHORT:
            got = per_query[q][name[s]]
            key = pytrec_key(s)
            if key is not None:
                want = expected[q][key]
                if not same(ref9[s], want) and not (math.isnan(want) and ref9["NumRet"] == 0):
                    problems.append(
                        f"TEST BUG reference!=pytrec q={q} {where} {s}: {ref9[s]!r} vs {want!r}"
                    )
                comparable = True
                if s.startswith("IPrec@"):
                    x = float(s.partition("@")[2])
                    comparable = iprec_cut(x, num_rel, "v9") == iprec_cut(x, num_rel, "v10")
                    if math.isnan(want) and ref["NumRet"] == 0:
                        comparable = False  # trec_eval's 0/0 on an empty ranking
                if comparable and not same(got, want):
                    problems.append(
                        f"q={q} {where} {name[s]}: ranklens {got!r} != pytrec_eval {want!r}"
                    )
            if not same(got, ref[s]):
                problems.append(
                    f"q={q} {where} {name[s]}: ranklens {got!r} != reference {ref[s]!r}"
                )
    return problems


def report(problems: list[str], case: Case) -> str:
    head = "\n".join(problems[:12])
    return f"{len(problems)} disagreements, e.g.\n{head}\non {case!r}"


# --- the seeded differential loop ---------------------------------------------------------


@pytest.mark.parametrize("block", range(N_BLOCKS))
def test_per_query_equals_pytrec_eval(block: int) -> None:
    """550 generated cases x rel {1, 2} x judged_only {False, True}: all per-query values."""
    for case in random_cases(BASE_SEED + block, CASES_PER_BLOCK):
        problems: list[str] = []
        for rel in (1, 2):
            for judged_only in (False, True):
                problems += compare_with_pytrec(case, rel, judged_only)
        assert not problems, report(problems, case)


@pytest.mark.parametrize("block", range(3))
def test_rel_3_equals_pytrec_eval(block: int) -> None:
    """rel=3 (above most grades: R is often 0) on fewer cases."""
    for case in random_cases(BASE_SEED + 100 + block, 25):
        problems: list[str] = []
        for judged_only in (False, True):
            problems += compare_with_pytrec(case, 3, judged_only)
        assert not problems, report(problems, case)


@given(case=cases())
@HYPOTHESIS
def test_per_query_equals_pytrec_eval_hypothesis(case: Case) -> None:
    problems: list[str] = []
    for rel in (1, 2):
        for judged_only in (False, True):
            problems += compare_with_pytrec(case, rel, judged_only)
    assert not problems, report(problems, case)


@pytest.mark.parametrize("block", range(4))
def test_reference_for_inputs_pytrec_cannot_take(block: int) -> None:
    """rel=0 (pytrec_eval refuses it) and all-negative qrels queries (it crashes on them),
    on every qrels query (``queries="qrels"``), against the reference (which the tests
    above check against pytrec_eval)."""
    for case in random_cases(BASE_SEED + 200 + block, 30, pytrec_safe=False):
        problems: list[str] = []
        for rel in (0, 1, 3):
            for judged_only in (False, True):
                res, name = evaluate(case, rel, judged_only, "qrels")
                assert list(res.queries) == byte_sorted(case.qrels)
                for q in res.queries:
                    ref = reference(case.qrels[q], case.run.get(q), rel, judged_only)
                    for s in SHORT:
                        got = res.per_query[q][name[s]]
                        if not same(got, ref[s]):
                            problems.append(
                                f"q={q} rel={rel} judged_only={judged_only} {name[s]}: "
                                f"ranklens {got!r} != reference {ref[s]!r}"
                            )
        assert not problems, report(problems, case)


# --- queries="qrels": missing queries and means ------------------------------------------


def left_to_right_sum(values: list[float]) -> float:
    total = 0.0
    for v in values:
        total += v
    return total


@pytest.mark.parametrize("block", range(3))
def test_qrels_policy_pads_missing_queries_with_zero(block: int) -> None:
    for case in random_cases(BASE_SEED + 300 + block, 30):
        for rel in (1, 2):
            for judged_only in (False, True):
                expected = pytrec(case, rel, judged_only)
                res, name = evaluate(case, rel, judged_only, "qrels")
                qids = byte_sorted(case.qrels)
                assert list(res.queries) == qids, case
                both, _ = evaluate(case, rel, judged_only, "both")
                for q in qids:
                    row = res.per_query[q]
                    if q in case.run:
                        assert row == both.per_query[q], (q, case)
                        continue
                    assert q not in expected  # pytrec_eval skips it
                    num_rel = sum(1 for g in case.qrels[q].values() if g >= max(rel, 0))
                    for s in SHORT:
                        want = float(num_rel) if s == "NumRel" else 0.0
                        assert row[name[s]] == want, (q, s, row[name[s]], case)
                # Aggregates: trec_eval -c adds the per-query values in query order and
                # divides by the number of qrels queries; counts are summed.
                for s in SHORT:
                    column = [res.per_query[q][name[s]] for q in qids]
                    total = left_to_right_sum(column)
                    family = s.partition("@")[0]
                    want = total if family in COUNT_FAMILIES else total / len(qids)
                    assert res.aggregate[name[s]] == want, (s, res.aggregate[name[s]], want)
                    # and the same from pytrec_eval's numbers, zeros for missing queries
                    key = pytrec_key(s)
                    if key is None or s.startswith("IPrec@"):
                        continue
                    from_pytrec = [
                        expected[q][key] if q in expected else (column[i] if s == "NumRel" else 0.0)
                        for i, q in enumerate(qids)
                    ]
                    total = left_to_right_sum(from_pytrec)
                    want = total if family in COUNT_FAMILIES else total / len(qids)
                    assert res.aggregate[name[s]] == want, (s, res.aggregate[name[s]], want)
                numq = ranklens.evaluate(case.qrels, case.run, ["NumQ"], queries="qrels")
                assert numq.aggregate["NumQ"] == len(qids)


def test_pytrec_eval_query_handling() -> None:
    """What pytrec_eval does with odd queries (the premise of the comparisons above):
    a qrels query judged all 0 is evaluated (R = 0, everything 0), a run query without
    qrels is skipped, a qrels query absent from the run is absent from the output."""
    qrels = {"1": {"a": 0, "b": 0}, "10": {"a": 1, "c": -1}, "9": {"x": 2}}
    run = {"1": {"a": 1.0, "b": 0.5}, "10": {"a": 1.0, "c": 2.0}, "2": {"a": 1.0}}
    got = pytrec_eval.RelevanceEvaluator(qrels, {"map", "num_rel", "num_ret"}).evaluate(run)
    assert set(got) == {"1", "10"}
    assert got["1"] == {"map": 0.0, "num_rel": 0.0, "num_ret": 2.0}
    res = ranklens.evaluate(qrels, run, ["AP", "NumRel", "NumRet"], queries="both")
    assert res.queries == ("1", "10")
    assert res.per_query["1"] == {"AP": 0.0, "NumRel": 0.0, "NumRet": 2.0}
    assert res.per_query["10"] == {"AP": got["10"]["map"], "NumRel": 1.0, "NumRet": 2.0}


# --- GMAP ---------------------------------------------------------------------------------


@pytest.mark.parametrize("judged_only", [False, True])
def test_gmap_aggregate_equals_geometric_mean_of_pytrec_map(judged_only: bool) -> None:
    for case in random_cases(BASE_SEED + 400, 40):
        for rel in (1, 2):
            expected = pytrec(case, rel, judged_only)
            for queries in ("both", "qrels"):
                res = ranklens.evaluate(
                    case.qrels,
                    case.run,
                    [f"GMAP(rel={rel},judged_only={judged_only})"],
                    queries=queries,
                )
                qids = list(res.queries)
                aps = [expected[q]["map"] if q in expected else 0.0 for q in qids]
                logs = left_to_right_sum([math.log(max(v, 1e-5)) for v in aps])
                want = math.exp(logs / len(qids))
                got = next(iter(res.aggregate.values()))
                # exp/log from C's libm, summed in query order, as trec_eval
                assert got == want, (got, want, case)
                # per query, GMAP is AP
                assert list(res.values[:, 0]) == aps


# --- trec_eval names ----------------------------------------------------------------------

TREC_NAMES = {
    "map": "AP",
    "P_5": "P@5",
    "recall_10": "R@10",
    "ndcg_cut.10": "nDCG@10",
    "ndcg": "nDCG",
    "recip_rank": "RR",
    "Rprec": "Rprec",
    "bpref": "Bpref",
    "num_ret": "NumRet",
    "num_rel": "NumRel",
    "num_rel_ret": "NumRelRet",
    "success_5": "Success@5",
    "map_cut_10": "AP@10",
    "iprec_at_recall_0.50": "IPrec@0.5",
}


def test_trec_eval_names_mean_the_ir_measures_names() -> None:
    for case in random_cases(BASE_SEED + 500, 10):
        a = ranklens.evaluate(case.qrels, case.run, list(TREC_NAMES))
        b = ranklens.evaluate(case.qrels, case.run, list(TREC_NAMES.values()))
        assert a.names == b.names
        assert np.array_equal(a.values, b.values)


def test_trec_eval_dotted_parameter_lists() -> None:
    """``P.5,10`` (whose base is also an ir_measures name) and friends, as trec_eval -m."""
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0}}
    expect = {
        "P.5,10": ["P@5", "P@10"],
        "P.5": ["P@5"],
        "recall.5,10": ["R@5", "R@10"],
        "map_cut.5,10": ["AP@5", "AP@10"],
        "ndcg_cut.10": ["nDCG@10"],
        "success.1,5": ["Success@1", "Success@5"],
        "iprec_at_recall.0.5": ["IPrec@0.5"],
        "gm_map": ["GMAP"],
    }
    for name, names in expect.items():
        assert ranklens.evaluate(qrels, run, [name]).names == names, name


# --- file input == dict input -------------------------------------------------------------


def write_trec(
    case: Case, directory: Path, rng: np.random.Generator, tag: str
) -> tuple[Path, Path]:
    """The case as TREC qrels and run files: lines shuffled across queries, mixed blanks,
    comment and blank lines, the run's rank column deliberately wrong."""
    qrels_lines = [f"{q} 0 {d} {g}" for q, docs in case.qrels.items() for d, g in docs.items()]
    run_lines = [
        f"{q}\tQ0  {d} {rng.integers(1, 1000)} {s!r} {tag}"
        for q, docs in case.run.items()
        for d, s in docs.items()
    ]
    rng.shuffle(qrels_lines)
    rng.shuffle(run_lines)
    qrels_path = directory / f"{tag}.qrels"
    run_path = directory / f"{tag}.run"
    qrels_path.write_text("# judgments\n" + "\n".join(qrels_lines) + "\n\n")
    run_path.write_text("\n".join(run_lines) + "\n")
    return qrels_path, run_path


def test_file_input_equals_dict_input(tmp_path: Path) -> None:
    rng = np.random.default_rng(BASE_SEED + 600)
    names = [ranklens_name(s, 2, j) for s in SHORT for j in (False, True)]
    for i, case in enumerate(random_cases(BASE_SEED + 600, 40)):
        qrels_path, run_path = write_trec(case, tmp_path, rng, f"c{i}")
        for queries in ("qrels", "both", "run"):
            from_dict = ranklens.evaluate(case.qrels, case.run, names, queries=queries)
            from_file = ranklens.evaluate(qrels_path, run_path, names, queries=queries)
            assert from_file.queries == from_dict.queries
            assert from_file.names == from_dict.names
            assert np.array_equal(from_file.values, from_dict.values), case
            assert from_file.aggregate == from_dict.aggregate
        # str paths, gzip, and the Qrels/Run objects read from files
        gz = tmp_path / f"c{i}.run.gz"
        gz.write_bytes(gzip.compress(run_path.read_bytes()))
        via_objects = ranklens.evaluate(
            ranklens.Qrels.from_file(str(qrels_path)), ranklens.Run.from_file(gz), names
        )
        assert np.array_equal(
            via_objects.values, ranklens.evaluate(case.qrels, case.run, names).values
        )
        # and pytrec_eval reading the same files agrees with the dicts (sanity of the files)
        with open(qrels_path) as handle:
            parsed_qrels = pytrec_eval.parse_qrel(
                line for line in handle if line.strip() and not line.startswith("#")
            )
        assert parsed_qrels == case.qrels
