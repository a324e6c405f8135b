"""Measures of your own (``ranklens.define_measure``) in every place a measure is used.

The measures are checked against plain-Python references computed from the dicts
(trec_eval's order: score descending, then document id descending; unjudged and negative
grades as 0), on generated data with ties, graded and negative labels, unjudged documents,
queries without relevant documents, empty rankings and queries on one side only. The
registry is process-wide and only grows, so every name here is defined once, at import.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ranklens
from compat_data import generated as one_block
from ranklens.base.errors import MeasureError
from ranklens.measures.user_registry import USER_MEASURES

pytestmark = pytest.mark.filterwarnings("ignore::ranklens.InputWarning")  # missing queries


def generated(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, Any]]]:
    """Four blocks of test_compat_pytrec_eval's awkward data, as one qrels and one run."""
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, Any]] = {}
    for block in range(4):
        q, r = one_block(1000 * seed + block)
        qrels.update({f"b{block}{k}": v for k, v in q.items()})
        run.update({f"b{block}{k}": v for k, v in r.items()})
    return qrels, run


def hits(relevance: np.ndarray, scores: np.ndarray, rel: int = 1) -> float:
    """Relevant documents retrieved (grade >= rel)."""
    return float(np.count_nonzero(relevance >= rel))


def hits_batch(relevance: np.ndarray, scores: np.ndarray, offsets: np.ndarray, rel: int = 1) -> Any:
    counts = np.concatenate(([0], np.cumsum(relevance >= rel)))
    return counts[offsets[1:]] - counts[offsets[:-1]]


def linear_dcg(relevance: np.ndarray, scores: np.ndarray, base: float = 2.0) -> float:
    """Linear-gain DCG with log-``base`` discounts."""
    ranks = np.arange(relevance.shape[0]) + 2.0
    return float(np.sum(relevance / (np.log(ranks) / np.log(base))))


def top_score(relevance: np.ndarray, scores: np.ndarray) -> float:
    """The highest score (0 for an empty ranking)."""
    return float(scores[0]) if scores.shape[0] else 0.0


HITS = ranklens.define_measure("UTHits", hits, params={"rel": 1}, cutoff=True, bounds=(0, math.inf))
HITS_BATCH = ranklens.define_measure(
    "UTHitsBatch", hits, params={"rel": 1}, batch=hits_batch, cutoff=True, bounds=(0, math.inf)
)
LDCG = ranklens.define_measure("UTLinDCG", linear_dcg, params={"base": 2.0}, cutoff=True)
TOP = ranklens.define_measure("UTTopScore", top_score, higher_is_better=False)


def reference(
    qrels: dict[str, dict[str, int]],
    run: dict[str, dict[str, Any]],
    function: Any,
    k: int | None = None,
    judged_only: bool = False,
    **params: Any,
) -> dict[str, float]:
    out = {}
    for qid, judged in qrels.items():
        docs = run.get(qid, {})
        if judged_only:
            docs = {d: s for d, s in docs.items() if judged.get(d, -1) >= 0}  # as trec_eval -J
        order = sorted(docs, key=lambda d: (float(docs[d]), d), reverse=True)[:k]
        grades = np.array([max(judged.get(d, 0), 0) for d in order], dtype=np.int64)
        scores = np.array([float(docs[d]) for d in order], dtype=np.float64)
        out[qid] = function(grades, scores, **params)
    return out


CASES = [
    ("UTHits@3", hits, 3, False, {}),
    ("UTHits(rel=2)", hits, None, False, {"rel": 2}),
    ("UTHits(judged_only=True)@5", hits, 5, True, {}),
    ("UTHitsBatch(rel=2)@4", hits, 4, False, {"rel": 2}),
    ("UTLinDCG@10", linear_dcg, 10, False, {}),
    ("UTLinDCG(base=10.0)", linear_dcg, None, False, {"base": 10.0}),
    ("UTTopScore", top_score, None, False, {}),
]


@pytest.mark.parametrize("seed", range(15))
def test_values_equal_a_plain_python_reference(seed: int) -> None:
    qrels, run = generated(seed)
    qrels = {q: d for q, d in qrels.items()}
    names = [c[0] for c in CASES]
    res = ranklens.evaluate(qrels, run, names)
    for name, function, k, judged_only, params in CASES:
        expected = reference(qrels, run, function, k, judged_only, **params)
        got = {q: v[name] for q, v in res.per_query.items()}
        assert got.keys() == expected.keys()
        for qid, value in expected.items():
            assert got[qid] == pytest.approx(value, rel=1e-12, abs=1e-12), (name, qid)
        assert res[name] == pytest.approx(float(np.mean(list(expected.values()))), rel=1e-12)


def test_batch_form_equals_per_query_form() -> None:
    qrels, run = generated(3)
    res = ranklens.evaluate(qrels, run, ["UTHits@3", "UTHitsBatch@3", "UTHits@1000"])
    ev = ranklens.Evaluator(qrels, ["UTHitsBatch@3", "UTHits@1000"])
    again = ev.evaluate(run)
    for qid, values in res.per_query.items():
        assert (
            values["UTHits@3"] == values["UTHitsBatch@3"] == again.per_query[qid]["UTHitsBatch@3"]
        )
        assert again.per_query[qid]["UTHits@1000"] == values["UTHits@1000"]


def test_measure_language() -> None:
    m = ranklens.parse_measure("UTLinDCG(base=3)@5")
    assert (str(m), m["base"], m["cutoff"], m.spec is LDCG) == (
        "UTLinDCG(base=3.0)@5",
        3.0,
        5,
        True,
    )
    assert str(ranklens.parse_measure("UTLinDCG(base=2.0)")) == "UTLinDCG"
    with pytest.raises(MeasureError, match="no parameter 'alpha'"):
        ranklens.parse_measure("UTLinDCG(alpha=1)")
    with pytest.raises(MeasureError, match="parameter base must be float"):
        ranklens.parse_measure("UTLinDCG(base='x')")
    with pytest.raises(MeasureError, match="takes no '@'"):
        ranklens.parse_measure("UTTopScore@5")
    with pytest.raises(MeasureError, match="at least 1"):
        ranklens.parse_measure("UTHits@0")


@pytest.mark.parametrize(
    "name", ["P", "ndcg", "NDCG", "map", "MAP", "recip_rank", "ndcg_cut", "uthits", "UTHits"]
)
def test_never_confused_with_a_builtin_or_redefined(name: str) -> None:
    with pytest.raises(MeasureError, match=r"confused with the built-in|already defined"):
        ranklens.define_measure(name, hits)
    assert ranklens.parse_measure("P@5").spec.name == "P"


@pytest.mark.parametrize("name", ["", "P.5", "my measure", "1abc", "a@b"])
def test_bad_names_are_refused(name: str) -> None:
    with pytest.raises(MeasureError, match="letters, digits"):
        ranklens.define_measure(name, hits)


def test_reserved_and_unsupported_parameters_are_refused() -> None:
    with pytest.raises(MeasureError, match="reserved"):
        ranklens.define_measure("UTReserved", hits, params={"judged_only": True})
    with pytest.raises(MeasureError, match="default must be"):
        ranklens.define_measure("UTBadDefault", hits, params={"weights": [1, 2]})
    assert USER_MEASURES.get("UTReserved") is None and USER_MEASURES.get("UTBadDefault") is None


def test_a_non_number_from_per_query_is_a_clear_error() -> None:
    ranklens.define_measure("UTReturnsText", lambda relevance, scores: "high")
    with pytest.raises(MeasureError, match=r"'UTReturnsText' failed on query 'q'.*returned 'high'"):
        ranklens.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "UTReturnsText")


def test_threads_define_concurrently() -> None:
    errors: list[str] = []

    def define(name: str) -> None:
        try:
            ranklens.define_measure(name, hits)
        except MeasureError as exc:
            errors.append(str(exc))

    threads = [threading.Thread(target=define, args=(f"UTThread{i % 10}",)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(errors) == 30
    assert all(USER_MEASURES.get(f"UTThread{i}") is not None for i in range(10))


def test_compare_and_its_statistics() -> None:
    qrels, run_a = generated(11)
    _, run_b = generated(12)
    runs = {"a": run_a, "b": {q: d for q, d in run_b.items() if q in qrels}}
    cmp = ranklens.compare(qrels, runs, ["UTLinDCG@5", "UTTopScore"], permutations=200)
    for name, function, k in (("UTLinDCG@5", linear_dcg, 5), ("UTTopScore", top_score, None)):
        a = reference(qrels, runs["a"], function, k)
        b = reference(qrels, runs["b"], function, k)
        stats = cmp.stats("b", name)
        expected_delta = float(np.mean([b[q] - a[q] for q in a]))
        assert stats.delta == pytest.approx(expected_delta, rel=1e-12, abs=1e-12)
        better = sum((b[q] > a[q]) if name != "UTTopScore" else (b[q] < a[q]) for q in a)
        assert stats.wins == better
    assert "UTLinDCG@5" in cmp.to_markdown()


PLUGIN = '''
import numpy as np
import ranklens

def graded_hits(relevance, scores, rel=1):
    """Relevant documents retrieved."""
    return float(np.count_nonzero(relevance >= rel))

ranklens.define_measure("PluginHits", graded_hits, params={"rel": 1}, cutoff=True, bounds=(0, 1e9))
'''


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, ranklens.cli as c; sys.exit(c.main(sys.argv[1:]))",
            *args,
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )


def _write_trec(tmp_path: Path, qrels: dict[str, dict[str, int]], runs: dict[str, Any]) -> None:
    (tmp_path / "qrels.txt").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    for name, run in runs.items():
        lines = []
        for q, docs in run.items():
            for rank, d in enumerate(sorted(docs, key=lambda d: -float(docs[d]))):
                lines.append(f"{q} Q0 {d} {rank + 1} {float(docs[d])!r} {name}\n")
        (tmp_path / f"{name}.run").write_text("".join(lines))


def test_cli_plugin_in_eval_and_compare(tmp_path: Path) -> None:
    (tmp_path / "myplugin.py").write_text(PLUGIN)
    qrels, run_a = generated(21)
    _, run_b = generated(22)
    runs = {"a": {q: d for q, d in run_a.items() if d}, "b": {q: d for q, d in run_b.items() if d}}
    _write_trec(tmp_path, qrels, runs)
    done = _cli(
        tmp_path, "--plugin", "myplugin", "eval", "qrels.txt", "a.run", "-m", "PluginHits(rel=2)@5",
        "-f", "json", "--quiet",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    expected = reference(qrels, runs["a"], hits, 5, rel=2)
    mean = float(np.mean(list(expected.values())))
    assert json.dumps(mean) in done.stdout or repr(round(mean, 4)) in done.stdout
    done = _cli(
        tmp_path, "--plugin", "myplugin", "compare", "qrels.txt", "a.run", "b.run",
        "-m", "PluginHits@10",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "PluginHits@10" in done.stdout


def test_cli_without_the_plugin_or_with_a_missing_one(tmp_path: Path) -> None:
    qrels, run = generated(21)
    _write_trec(tmp_path, qrels, {"a": {q: d for q, d in run.items() if d}})
    done = _cli(tmp_path, "eval", "qrels.txt", "a.run", "-m", "PluginHitsNowhere@5")
    assert done.returncode == 2
    assert (
        done.stderr.startswith("ranklens: error: unknown measure")
        and "Traceback" not in done.stderr
    )
    done = _cli(tmp_path, "--plugin", "no_such_plugin_mod", "eval", "qrels.txt", "a.run")
    assert done.returncode == 2
    assert done.stderr.startswith("ranklens: error: --plugin no_such_plugin_mod: cannot import")


def test_cli_plugin_in_a_report_with_plots(tmp_path: Path) -> None:
    (tmp_path / "myplugin.py").write_text(PLUGIN)
    qrels, run_a = generated(31)
    _, run_b = generated(32)
    runs = {"a": {q: d for q, d in run_a.items() if d}, "b": {q: d for q, d in run_b.items() if d}}
    _write_trec(tmp_path, qrels, runs)
    done = _cli(
        tmp_path, "--plugin", "myplugin", "report", "qrels.txt", "a.run", "b.run",
        "-m", "PluginHits(rel=2)@5", "-o", "report.html",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "report.html").read_text()
    assert "PluginHits(rel=2)@5" in page
    assert "<svg" in page or "data:image/png" in page


def test_python_plots_of_a_user_measure() -> None:
    pytest.importorskip("matplotlib")
    qrels, run = generated(5)
    res = ranklens.evaluate(qrels, run, ["UTLinDCG@5"])
    figure = res.plot_dist("UTLinDCG@5")
    assert figure.axes


def test_cli_measures_lists_and_describes_a_plugin_measure(tmp_path: Path) -> None:
    (tmp_path / "myplugin.py").write_text(PLUGIN)
    done = _cli(tmp_path, "--plugin", "myplugin", "measures", "PluginHits")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("PluginHits: Relevant documents retrieved. (a user measure")
    assert "rel (int, default 1)" in done.stdout
    done = _cli(tmp_path, "--plugin", "myplugin", "measures", "PluginHits", "-f", "json")
    record = json.loads(done.stdout)
    assert record["user_measure"] is True and record["parameters"]["rel"] == 1
    listing = _cli(tmp_path, "--plugin", "myplugin", "measures")
    assert "PluginHits(rel=1" in listing.stdout
    assert "PluginHits" not in _cli(tmp_path, "measures").stdout  # only with the plugin
