"""Curves (:mod:`ranklens.analysis.curves`), the ``AUC`` measure and ``ranklens curve``.

Hand-computed curves (ties, graded labels, unjudged, negatively judged and unretrieved
judged documents, queries without relevant or without non-relevant documents), the
interpolated curve against ``IPrec@x``, ``AUC`` against a brute-force pair count, the
trapezoid of the curve and scikit-learn, founding document 002's optimal cut-offs, and the
command line.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.analysis.curves import (
    STANDARD_LEVELS,
    TAIL,
    interpolated_pr,
    pr_curve,
    roc_curve,
    roc_optimal_cutoffs,
)
from ranklens.base.errors import OptionError
from ranklens.cli import main
from strategies import Case, cases, judged_only_st, rel_st, trec_ranking

PROPS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# q: a (1), c (2) and e (1, not retrieved) relevant; b, d, g (0; g not retrieved) judged
# non-relevant; f negatively judged (skipped); x unjudged. b and c tie at 0.5: trec_eval
# order (docid descending) puts c first. Ranking: a c b x d f.
QRELS = {
    "q": {"a": 1, "b": 0, "c": 2, "d": 0, "e": 1, "f": -1, "g": 0},
    "norel": {"a": 0, "b": 0},
    "nononrel": {"a": 1},
    "missing": {"a": 1, "b": 0},
}
RUN = {
    "q": {"a": 0.9, "b": 0.5, "c": 0.5, "x": 0.4, "d": 0.3, "f": 0.2},
    "norel": {"b": 2.0, "z": 1.0, "a": 0.5},
    "nononrel": {"z": 2.0, "a": 1.0},
}


def close(got: np.ndarray, want: list[float]) -> None:
    assert np.allclose(got, want, rtol=0, atol=1e-12), (got.tolist(), want)


# --- precision-recall ------------------------------------------------------------------


def test_pr_curve_by_hand_with_ties_unjudged_and_negative_judgments() -> None:
    c = pr_curve(QRELS, RUN, query="q")
    assert c.rank.tolist() == [1, 2, 3, 4, 5, 6]
    close(c.recall, [1 / 3, 2 / 3, 2 / 3, 2 / 3, 2 / 3, 2 / 3])
    close(c.precision, [1, 1, 2 / 3, 1 / 2, 2 / 5, 1 / 3])


def test_pr_curve_graded_judged_only_and_ties() -> None:
    c = pr_curve(QRELS, RUN, query="q", rel=2)  # only c (rank 2) is relevant
    close(c.recall, [0, 1, 1, 1, 1, 1])
    close(c.precision, [0, 1 / 2, 1 / 3, 1 / 4, 1 / 5, 1 / 6])
    c = pr_curve(QRELS, RUN, query="q", judged_only=True)  # x and f dropped: a c b d
    assert c.rank.tolist() == [1, 2, 3, 4]
    close(c.precision, [1, 1, 2 / 3, 1 / 2])
    c = pr_curve(QRELS, RUN, query="q", rel=2, ties="docid_asc")  # b before c
    close(c.precision, [0, 0, 1 / 3, 1 / 4, 1 / 5, 1 / 6])


def test_pr_curve_of_every_query() -> None:
    curves = pr_curve(QRELS, RUN)
    assert list(curves) == ["missing", "nononrel", "norel", "q"]
    assert curves["missing"].rank.tolist() == []
    close(curves["norel"].recall, [0, 0, 0])  # R = 0: recall 0
    close(curves["norel"].precision, [0, 0, 0])
    close(curves["nononrel"].precision, [0, 1 / 2])
    for qid, curve in curves.items():
        single = pr_curve(QRELS, RUN, query=qid)
        assert single.rank.tolist() == curve.rank.tolist()
        assert single.precision.tolist() == curve.precision.tolist()


def test_pr_curve_matches_p_and_r_at_every_rank() -> None:
    curves = pr_curve(QRELS, RUN)
    for k in range(1, 7):
        res = ranklens.evaluate(QRELS, RUN, [f"P@{k}", f"R@{k}"]).per_query
        for qid, c in curves.items():
            if k <= c.rank.shape[0]:
                assert res[qid][f"P@{k}"] == pytest.approx(c.precision[k - 1])
                assert res[qid][f"R@{k}"] == pytest.approx(c.recall[k - 1])


# --- interpolated precision-recall -------------------------------------------------------


def test_interpolated_pr_by_hand() -> None:
    ip = interpolated_pr(QRELS, RUN)
    assert ip.levels.tolist() == list(STANDARD_LEVELS)
    q = ip.per_query()["q"]  # R = 3, relevant at ranks 1, 2; e never retrieved
    close(q, [1.0] * 9 + [0.0, 0.0])  # c = round(x * 3) <= 2 up to x = 0.8
    close(ip.mean, ip.precision.mean(axis=0).tolist())


@given(
    case=cases(pytrec_safe=False),
    rel=rel_st,
    judged_only=judged_only_st,
    queries=st.sampled_from(["qrels", "both", "run"]),
    rounding=st.sampled_from(["round", "trec9"]),
)
@PROPS
def test_interpolated_pr_equals_iprec(
    case: Case, rel: int, judged_only: bool, queries: str, rounding: str
) -> None:
    ip = interpolated_pr(
        case.qrels,
        case.run,
        rel=rel,
        judged_only=judged_only,
        rounding=rounding,
        queries=queries,
    )
    names = [
        f"IPrec(rel={rel},judged_only={judged_only},rounding={rounding!r})@{x}"
        for x in STANDARD_LEVELS
    ]
    res = ranklens.evaluate(case.qrels, case.run, names, queries=queries)
    assert ip.qids == res.queries
    assert np.array_equal(ip.precision, res.values)
    want = [res.aggregate[ranklens.parse_measure(n).name] for n in names]
    assert np.allclose(ip.mean, want, rtol=0, atol=1e-15)


def test_interpolated_pr_rejects_bad_levels() -> None:
    with pytest.raises(OptionError):
        interpolated_pr(QRELS, RUN, levels=[0.5, 1.5])
    with pytest.raises(OptionError):
        interpolated_pr(QRELS, RUN, rounding="floor")
    close(interpolated_pr(QRELS, RUN, levels=[0.5]).per_query()["q"], [1.0])


# --- ROC ---------------------------------------------------------------------------------


def test_roc_curve_by_hand() -> None:
    c = roc_curve(QRELS, RUN, query="q")  # judged: a c b . d (f skipped), then e, g appended
    assert c.cutoff.tolist() == [0, 1, 2, 3, 5, TAIL]
    close(c.fpr, [0, 0, 0, 1 / 3, 2 / 3, 1])
    close(c.tpr, [0, 1 / 3, 2 / 3, 2 / 3, 2 / 3, 1])
    assert (c.num_rel, c.num_nonrel) == (3, 3)
    # 13/18: a and c above all 3 non-relevant, e vs g a tied half-pair: (3 + 3 + 1/2) / 9
    assert c.auc == pytest.approx(13 / 18)


def test_roc_curve_graded_and_ties() -> None:
    c = roc_curve(QRELS, RUN, query="q", rel=2)  # c relevant; a, b, d, e, g non-relevant
    assert c.cutoff.tolist() == [0, 1, 2, 3, 5, TAIL]
    close(c.fpr, [0, 1 / 5, 1 / 5, 2 / 5, 3 / 5, 1])
    close(c.tpr, [0, 0, 1, 1, 1, 1])
    assert c.auc == pytest.approx(4 / 5)
    # equal scores are not grouped: docid ascending puts b (non-relevant) before c
    d = roc_curve(QRELS, RUN, query="q", rel=2, ties="docid_asc")
    close(d.tpr, [0, 0, 0, 1, 1, 1])
    assert d.auc == pytest.approx(3 / 5)


def test_roc_curve_degenerate_queries() -> None:
    curves = roc_curve(QRELS, RUN)
    norel = curves["norel"]  # R = 0: TPR 0 everywhere, no tail (everything judged retrieved)
    assert norel.cutoff.tolist() == [0, 1, 3]
    close(norel.fpr, [0, 1 / 2, 1])
    close(norel.tpr, [0, 0, 0])
    assert norel.auc == 0.0
    nononrel = curves["nononrel"]  # N = 0: FPR 0 everywhere
    assert nononrel.cutoff.tolist() == [0, 2]
    close(nononrel.fpr, [0, 0])
    close(nononrel.tpr, [0, 1])
    assert nononrel.auc == 0.0
    missing = curves["missing"]  # empty ranking: the diagonal, straight to (1, 1)
    assert missing.cutoff.tolist() == [0, TAIL]
    close(missing.fpr, [0, 1])
    close(missing.tpr, [0, 1])
    assert missing.auc == 0.5


def test_auc_measure_by_hand() -> None:
    res = ranklens.evaluate(QRELS, RUN, ["AUC", "AUC(rel=2)"]).per_query
    assert res["q"]["AUC"] == pytest.approx(13 / 18)
    assert res["q"]["AUC(rel=2)"] == pytest.approx(4 / 5)
    assert res["norel"]["AUC"] == 0.0  # no relevant document: 0 by convention
    assert res["nononrel"]["AUC"] == 0.0  # no judged non-relevant document: 0
    assert res["missing"]["AUC"] == 0.5
    assert ranklens.parse_measure("AUC(rel=1)").name == "AUC"


def brute_auc(qrels: dict[str, int], run: dict[str, float], rel: int) -> float:
    """The fraction of (relevant, judged non-relevant) pairs in the right order, 1/2 for
    two unretrieved documents; 0 without pairs."""
    place = {d: i for i, d in enumerate(trec_ranking(run))}
    pos = [place.get(d, math.inf) for d, g in qrels.items() if g >= rel and g >= 0]
    neg = [place.get(d, math.inf) for d, g in qrels.items() if 0 <= g < rel]
    if not pos or not neg:
        return 0.0
    right = sum(1.0 if p < n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    return right / (len(pos) * len(neg))


@given(case=cases(pytrec_safe=False), rel=rel_st)
@PROPS
def test_auc_is_the_pair_count_and_the_trapezoid(case: Case, rel: int) -> None:
    res = ranklens.evaluate(case.qrels, case.run, [f"AUC(rel={rel})"])
    curves = roc_curve(case.qrels, case.run, rel=rel)
    assert list(curves) == list(res.queries)
    for j, qid in enumerate(res.queries):
        got = res.values[j, 0]
        assert got == pytest.approx(brute_auc(case.qrels[qid], case.run.get(qid, {}), rel))
        assert curves[qid].auc == pytest.approx(got)
        c = curves[qid]
        assert c.cutoff[0] == 0 and c.fpr[0] == 0 and c.tpr[0] == 0
        assert (np.diff(c.fpr) >= 0).all() and (np.diff(c.tpr) >= 0).all()
        if c.num_rel and c.num_nonrel:
            assert (c.fpr[-1], c.tpr[-1]) == (1.0, 1.0)


def test_auc_matches_sklearn_on_dense_cases() -> None:
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(7)
    for trial in range(40):
        n = int(rng.integers(2, 30))
        grades = rng.integers(0, 3, size=n)
        if len(set((grades >= 1).tolist())) < 2:
            continue
        scores = rng.permutation(n).astype(float)
        docs = [f"d{i}" for i in range(n)]
        qrels = {"q": {d: int(g) for d, g in zip(docs, grades, strict=True)}}
        run = {"q": dict(zip(docs, scores.tolist(), strict=True))}
        run["q"].update({f"u{i}": float(rng.uniform(-1, n)) for i in range(3)})  # unjudged
        got = ranklens.evaluate(qrels, run, ["AUC"]).aggregate["AUC"]
        want = sklearn_metrics.roc_auc_score(grades >= 1, scores)
        assert got == pytest.approx(want), trial
        # leave some judged documents out of the run: sklearn's tie group at the bottom
        dropped = rng.random(n) < 0.3
        kept = {d: s for d, s, x in zip(docs, scores.tolist(), dropped, strict=True) if not x}
        got = ranklens.evaluate(qrels, {"q": kept}, ["AUC"]).aggregate["AUC"]
        tied = np.where(dropped, -1.0, scores)
        assert got == pytest.approx(sklearn_metrics.roc_auc_score(grades >= 1, tied)), trial


# --- optimal cut-offs (founding document 002) ----------------------------------------------


def test_seed_002_optimal_cutoffs() -> None:
    """002_*.txt, "Choosing the ideal values of precision and recall from the ROC curve":
    the point closest to (0, 1), the maximum of sensitivity * specificity and the maximum of
    Youden's J. The document gives no numbers; on labels 1 0 1 0 0 1 1 (R = 4, N = 3) the
    points are k=1 (0, 1/4), k=3 (1/3, 1/2), ...: J is highest at k=1 (1/4 against 1/6),
    the distance lowest at k=3 (sqrt(1/9 + 1/4) = 0.601 against 3/4), the product highest
    at k=3 (1/2 * 2/3 = 1/3 against 1/4)."""
    labels = [1, 0, 1, 0, 0, 1, 1]
    qrels = {"q": {f"d{i}": g for i, g in enumerate(labels)}}
    run = {"q": {f"d{i}": float(10 - i) for i in range(len(labels))}}
    best = roc_optimal_cutoffs(qrels, run, query="q")
    assert (best.youden.cutoff, best.closest.cutoff, best.product.cutoff) == (1, 3, 3)
    assert best.youden.value == pytest.approx(1 / 4)
    assert (best.youden.fpr, best.youden.tpr) == (0.0, 0.25)
    assert best.closest.value == pytest.approx(math.sqrt(1 / 9 + 1 / 4))
    assert best.product.value == pytest.approx(1 / 3)
    assert [b.criterion for b in best.as_tuple()] == ["youden", "closest", "product"]


def test_optimal_cutoffs_skip_the_unretrieved_group_and_prefer_small_cutoffs() -> None:
    every = roc_optimal_cutoffs(QRELS, RUN)
    assert list(every) == ["missing", "nononrel", "norel", "q"]
    assert every["missing"].youden.cutoff == 0  # only (0, 0) is reachable
    q = every["q"]  # (0, 2/3) at k=2 beats every other point by all three criteria
    assert (q.youden.cutoff, q.closest.cutoff, q.product.cutoff) == (2, 2, 2)
    assert every["nononrel"].youden.cutoff == 2  # the unjudged z at rank 1 is passed
    assert every["norel"].youden.cutoff == 0  # J = 0 at k=0 and never higher: smallest
    assert roc_optimal_cutoffs(QRELS, RUN, query="q") == q


def test_unknown_query_and_option() -> None:
    with pytest.raises(OptionError, match="not among the evaluated"):
        roc_curve(QRELS, RUN, query="nope")
    with pytest.raises(OptionError, match="unknown option"):
        pr_curve(QRELS, RUN, measures=["AP"])


# --- command line ----------------------------------------------------------------------------


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items())
    )
    run.write_text(
        "".join(
            f"{q} Q0 {d} {i + 1} {s} sys\n"
            for q, docs in RUN.items()
            for i, (d, s) in enumerate(docs.items())
        )
    )
    return str(qrels), str(run)


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_pr_json(files: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["curve", *files, "--kind", "pr", "-f", "json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["kind"] == "pr" and data["rel"] == 1
    assert set(data["queries"]) == set(QRELS)
    assert data["queries"]["q"]["rank"] == [1, 2, 3, 4, 5, 6]
    assert data["queries"]["q"]["precision"][2] == pytest.approx(2 / 3)


def test_cli_ipr_json(files: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["curve", *files, "--kind", "ipr", "-f", "json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["levels"] == list(STANDARD_LEVELS)
    assert len(data["mean"]) == 11 and set(data["queries"]) == set(QRELS)
    code, out, _ = run_cli(["curve", *files, "--kind", "ipr", "-f", "json", "--query", "q"], capsys)
    data = json.loads(out)
    assert list(data["queries"]) == ["q"] and "mean" not in data


def test_cli_roc_json(files: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        ["curve", *files, "--kind", "roc", "-f", "json", "--query", "q", "--rel", "2"], capsys
    )
    assert code == 0
    q = json.loads(out)["queries"]["q"]
    assert q["cutoff"] == [0, 1, 2, 3, 5, -1]
    assert q["auc"] == pytest.approx(4 / 5)
    assert (q["num_rel"], q["num_nonrel"]) == (1, 5)
    assert set(q["optimal"]) == {"youden", "closest", "product"}
    assert q["optimal"]["youden"] == {"cutoff": 2, "fpr": 0.2, "tpr": 1.0, "value": 0.8}


def test_cli_csv_and_table(files: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["curve", *files, "--kind", "roc", "-f", "csv"], capsys)
    assert code == 0
    points, cutoffs = out.split("\n\n")
    assert points.splitlines()[0] == "query,cutoff,fpr,tpr"
    assert "q,unretrieved,1.0,1.0" in points.splitlines()
    assert cutoffs.splitlines()[0] == "query,criterion,cutoff,fpr,tpr,value"
    assert "q,youden,2,0.0,0.6666666666666666,0.6666666666666666" in cutoffs.splitlines()
    code, out, _ = run_cli(["curve", *files, "--kind", "pr", "-f", "csv"], capsys)
    assert out.splitlines()[0] == "query,rank,recall,precision"
    code, out, _ = run_cli(["curve", *files, "--kind", "roc"], capsys)
    assert code == 0 and "optimal cut-offs" in out and "youden" in out


def test_cli_errors_are_one_line(
    files: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(["curve", *files, "--kind", "roc", "--query", "zz"], capsys)
    assert code == 2
    assert err == "ranklens: error: query 'zz' is not among the evaluated queries\n"
    code, _, err = run_cli(["curve", *files, "--kind", "auc"], capsys)
    assert code == 2 and len(err.splitlines()) == 1
    code, _, err = run_cli(["curve", *files], capsys)  # --kind is required
    assert code == 2 and len(err.splitlines()) == 1
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 0 d1\n")
    code, _, err = run_cli(["curve", str(bad), files[1], "--kind", "pr"], capsys)
    assert code == 2 and len(err.splitlines()) == 1 and err.startswith("ranklens: error:")
    code, _, err = run_cli(["curve", "-", "-", "--kind", "pr"], capsys)
    assert code == 2 and "stdin" in err
