"""ranklens in MLflow, against a real tracking server this module starts itself (SQLite
backend, on localhost, stopped afterwards): what ``ranklens.mlflow.log_results`` and
``log_comparison`` log is read back through MLflow's client (the per-query table read back
equals the Results), the evaluator plugin computes through ``mlflow.models.evaluate`` what
``ranklens.evaluate`` computes, and MLflow's own nDCG is shown wrong where docs/mlflow.md
says it is."""

from __future__ import annotations

import importlib
import json
import math
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import warnings
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import InputError, MissingDependencyError, OptionError
from ranklens.data.ir_metadata import IrMetadata
from ranklens.evaluation.scores_files import read_scores

mlflow = pytest.importorskip("mlflow")
rm = importlib.import_module("ranklens.mlflow")

# MLflow's own modules warn of their deprecations (mlflow.metrics, SQLAlchemy features);
# ranklens' InputWarning stays an error
pytestmark = [
    pytest.mark.slow,  # the server's start (its database made): about a minute
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::PendingDeprecationWarning"),
    pytest.mark.filterwarnings("ignore:.*Any type hint is inferred:UserWarning"),
]
START_TIMEOUT = 300.0
"""Seconds the server may take to create its database and answer (a loaded machine)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A tracking server on a free local port, its store in a temporary folder; the
    client pointed at it for the module; stopped (its whole process group) afterwards."""
    folder = tmp_path_factory.mktemp("mlflow-server")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = (folder / "server.log").open("wb")
    process = subprocess.Popen(
        [
            sys.executable, "-m", "mlflow", "server",
            "--backend-store-uri", f"sqlite:///{folder / 'store.db'}",
            "--artifacts-destination", str(folder / "artifacts"),
            "--host", "127.0.0.1", "--port", str(port), "--workers", "1",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env={**os.environ, "MLFLOW_TRACKING_URI": ""},
    )  # fmt: skip
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(
                    f"the MLflow server stopped: {(folder / 'server.log').read_text()[-2000:]}"
                )
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("the MLflow server did not answer in time")
            time.sleep(0.5)
        previous = mlflow.get_tracking_uri()
        mlflow.set_tracking_uri(url)
        yield url
        mlflow.set_tracking_uri(previous)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        log.close()


@pytest.fixture
def experiment(server: str, request: pytest.FixtureRequest) -> Iterator[Any]:
    """MLflow's client, with a fresh experiment (its id: ``experiment_id``) as the current
    one; no run left active after the test."""
    created = mlflow.set_experiment(f"{request.node.name}-{time.time_ns()}")
    client = mlflow.tracking.MlflowClient()
    client.experiment_id = created.experiment_id  # for the tests, beside the client
    yield client
    while mlflow.active_run() is not None:
        mlflow.end_run()


def _artifact(client: Any, run_id: str, path: str, tmp_path: Path) -> Path:
    return Path(client.download_artifacts(run_id, path, str(tmp_path)))


@pytest.fixture
def results(trec_eval_data: Path) -> ranklens.ResultSet:
    return ranklens.evaluate(
        trec_eval_data / "qrels.test",
        {"full": trec_eval_data / "results.test", "trunc": trec_eval_data / "results.trunc"},
        ["AP", "nDCG@10", "P(rel=2)@5", "RBP(p=0.8)", "NumRelRet"],
    )


# ---------------------------------------------------------------- no server needed


def test_metric_keys() -> None:
    assert rm.metric_key("nDCG@10") == "nDCG_at_10"
    assert rm.metric_key("nDCG(dcg='exp-log2')@10") == "nDCG_dcg_exp-log2_at_10"
    assert rm.metric_key("IPrec@0.1") == "IPrec_at_0.1"
    parent = "." * 2 + "/x"  # a name that starts like a parent folder
    assert rm.metric_key(parent) == "_/x"
    validate = importlib.import_module("mlflow.utils.validation")
    for name in ["nDCG(gains={1:3.0,2:9.0},ideal='trec_eval')@10", "a b/c", "run #1", "é@5"]:
        key = rm.metric_key(name)
        validate._validate_metric_name(key)  # MLflow accepts it
    with pytest.raises(OptionError, match="gives no MLflow name"):
        rm.metric_key("()")


def test_colliding_names_are_refused(results: ranklens.ResultSet) -> None:
    from ranklens.presentation.mlflow_logging import _keys

    with pytest.raises(OptionError, match=r"'a\(b\)' and 'a_b' have the same MLflow name 'a_b'"):
        _keys(["a(b)", "a_b"], "runs")


def test_without_mlflow_an_install_hint(monkeypatch: pytest.MonkeyPatch, results) -> None:
    real = importlib.import_module

    def missing(name: str, *args: Any) -> Any:
        if name.split(".")[0] == "mlflow":
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", missing)
    with pytest.raises(MissingDependencyError, match=r"pip install 'ranklens\[mlflow\]'"):
        rm.log_results(results["full"], run_id="x")


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from("abcdefgh"), max_size=6, unique=True),
            st.dictionaries(st.sampled_from("abcdefgh"), st.integers(0, 3), max_size=5),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_retrieval_rows_evaluate_as_ranklens(rows: list) -> None:
    """MLflow-style rows (ids in rank order, graded targets) give ranklens.evaluate's
    values on the same qrels and run."""
    if not any(targets for _, targets in rows):
        with pytest.raises(InputError, match="no row has a relevant document"):
            rm.retrieval_results([r for r, _ in rows], [t for _, t in rows], ["AP"])
        return
    measures = ["AP", "nDCG@3", "P@3", "R@3", "RR"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ranklens.InputWarning)
        got = rm.retrieval_results([r for r, _ in rows], [t for _, t in rows], measures)
    qrels = {str(i): t for i, (_, t) in enumerate(rows) if t}
    run = {str(i): {d: float(len(r) - k) for k, d in enumerate(r)} for i, (r, _) in enumerate(rows)}
    run = {q: docs for q, docs in run.items() if docs}

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ranklens.InputWarning)
        if set(qrels) & set(run):
            want = ranklens.evaluate(qrels, run, measures)
        else:  # no row with targets retrieved anything: every value is that of nothing
            want = ranklens.Evaluator(qrels, measures).evaluate_part(ranklens.Run({}))
    assert got.queries == want.queries
    np.testing.assert_array_equal(got.values, want.values)


def test_retrieval_rows_refuse_what_they_cannot_read() -> None:
    with pytest.raises(ranklens.DuplicateError):
        rm.retrieval_results([["a", "a"]], [["a"]], ["AP"])
    first = rm.retrieval_results([["a", "a", "b"]], [["b"]], ["RR"], duplicates="first")
    assert first["RR"] == 0.5
    with pytest.raises(InputError, match="on rows 0 and 1"):
        rm.retrieval_results([["a"], ["b"]], [["a"], ["b"]], ["AP"], query_ids=["q", "q"])
    with pytest.raises(InputError, match="2 predictions for 1 targets"):
        rm.retrieval_results([["a"], ["b"]], [["a"]], ["AP"])
    with pytest.raises(InputError, match="must be an integer"):
        rm.retrieval_results([["a"]], [{"a": 0.5}], ["AP"])


def test_mlflow_ndcg_beside_ranklens() -> None:
    """The cases of docs/mlflow.md: MLflow's ndcg_at_k against ranklens' nDCG@k."""
    import pandas as pd

    def mlflow_ndcg(predictions: list, targets: list, k: int) -> list[float]:
        metric = mlflow.metrics.ndcg_at_k(k)
        value = metric.eval_fn(pd.Series(predictions), pd.Series(targets))
        return [float(s) for s in value.scores]

    # mlflow#24541: fewer retrieved than k shrinks the ideal ranking
    short = mlflow_ndcg([["1"]], [["1", "2", "3", "4", "5"]], 5)
    ours = rm.retrieval_results([["1"]], [["1", "2", "3", "4", "5"]], ["nDCG@5"])["nDCG@5"]
    ideal = sum(1 / math.log2(i + 2) for i in range(5))
    assert short == [1.0] and ours == pytest.approx(1 / ideal) and round(ours, 4) == 0.3392
    # duplicates (mlflow#25965): each occurrence of a relevant id is one more relevant
    # document, in the ranking and in the ideal ranking alike
    twice = mlflow_ndcg([["x", "a", "a"]], [["a", "b"]], 3)
    ours = rm.retrieval_results([["x", "a", "a"]], [["a", "b"]], ["nDCG@3"], duplicates="first")
    g = [1 / math.log2(i + 2) for i in range(3)]
    assert twice[0] == pytest.approx((g[1] + g[2]) / sum(g))
    assert ours["nDCG@3"] == pytest.approx(g[1] / (g[0] + g[1]))


# ---------------------------------------------------------------- against the server


def test_log_results_reads_back(experiment: Any, results, tmp_path: Path) -> None:
    yaml = "tag: full\nactor:\n  team: webis\nresearch goal:\n  venue: SIGIR\n"
    one = replace(results["full"], metadata=IrMetadata(yaml))
    conventions = {"ties": "trec_eval", "queries": "qrels", "depth": None}
    with mlflow.start_run() as run:
        returned = rm.log_results(one, conventions=conventions)
    assert returned == run.info.run_id
    data = experiment.get_run(run.info.run_id).data
    assert data.metrics == {rm.metric_key(k): v for k, v in one.aggregate.items()}
    assert data.metrics["nDCG_at_10"] == one["nDCG@10"] and "P_rel_2_at_5" in data.metrics
    assert data.params["ranklens.measures"] == ", ".join(one.names)
    assert data.params["ranklens.ties"] == "trec_eval" and data.params["ranklens.depth"] == "None"
    assert data.tags["ranklens.run"] == "full"
    assert data.tags["ranklens.version"] == ranklens.__version__
    if importlib.util.find_spec("yaml") is not None:
        assert data.tags["ir_metadata.actor.team"] == "webis"
        assert data.tags["ir_metadata.research goal.venue"] == "SIGIR"
    listed = {a.path for a in experiment.list_artifacts(run.info.run_id, "ranklens")}
    assert listed == {
        "ranklens/per_query.csv",
        "ranklens/measures.json",
        "ranklens/report.html",
        "ranklens/full.ir-metadata.yml",
    }
    table = _artifact(experiment, run.info.run_id, "ranklens/per_query.csv", tmp_path)
    back = read_scores(table)
    assert back.names == one.names and back.queries == one.queries  # type: ignore[union-attr]
    np.testing.assert_array_equal(back.values, one.values)  # type: ignore[union-attr]
    meta = _artifact(experiment, run.info.run_id, "ranklens/full.ir-metadata.yml", tmp_path)
    assert meta.read_text() == yaml
    info = json.loads(
        _artifact(experiment, run.info.run_id, "ranklens/measures.json", tmp_path).read_text()
    )
    assert info["nDCG_at_10"] == {
        "measure": "nDCG@10",
        "higher_is_better": True,
        "aggregate": "mean",
    }
    report = _artifact(experiment, run.info.run_id, "ranklens/report.html", tmp_path).read_text()
    assert report.startswith("<!DOCTYPE html>") and "Run metadata (ir_metadata)" in report


def test_log_a_result_set_to_a_given_run(experiment: Any, results, tmp_path: Path) -> None:
    run_id = experiment.create_run(experiment.experiment_id).info.run_id
    rm.log_results(results, run_id=run_id, report=False)
    assert mlflow.active_run() is None
    data = experiment.get_run(run_id).data
    want = {f"{r.run}/{rm.metric_key(k)}": v for r in results for k, v in r.aggregate.items()}
    assert data.metrics == want
    assert data.tags["ranklens.runs"] == "full, trunc"
    back = read_scores(_artifact(experiment, run_id, "ranklens/per_query.csv", tmp_path))
    for a, b in zip(results, back, strict=True):  # type: ignore[arg-type]
        np.testing.assert_array_equal(a.values, b.values)
    assert "ranklens/report.html" not in {
        a.path for a in experiment.list_artifacts(run_id, "ranklens")
    }


def test_log_comparison(experiment: Any, results, tmp_path: Path) -> None:
    cmp = ranklens.compare(None, results, ["AP", "nDCG@10"], baseline="full", queries="both")
    with mlflow.start_run() as run:
        rm.log_comparison(cmp)
    data = experiment.get_run(run.info.run_id).data
    st_ = cmp.vs_baseline["trunc"]["nDCG@10"]
    assert data.metrics["trunc/nDCG_at_10/delta"] == st_.delta
    assert data.metrics["trunc/nDCG_at_10/p_value"] == st_.p_value
    assert data.metrics["trunc/nDCG_at_10/p_value_corrected"] == st_.p_value_corrected
    assert data.metrics["trunc/nDCG_at_10/significant"] == float(st_.significant)
    assert data.metrics["full/AP"] == cmp.means["full"]["AP"]
    assert "full/AP/delta" not in data.metrics
    assert data.metrics["ranklens.queries_compared"] == len(cmp.queries)
    assert data.params["ranklens.test"] == "t" and data.params["ranklens.baseline"] == "full"
    csv_text = _artifact(
        experiment, run.info.run_id, "ranklens/comparison.csv", tmp_path
    ).read_text()
    assert csv_text == cmp.to_csv()


def test_evaluator_plugin_through_mlflow_evaluate(experiment: Any) -> None:
    import pandas as pd

    rm.register_evaluator()
    data = pd.DataFrame(
        {
            "question_id": ["q1", "q2", "q3"],
            "retrieved": [["a", "b", "c"], ["x"], ["m", "n"]],
            "relevant": [["b", "z"], ["x", "y", "w"], {"n": 2, "o": 1}],
        }
    )
    config = {"query_id": "question_id", "measures": ["nDCG@3", "P@3", "AP"]}
    with mlflow.start_run() as run:
        result = mlflow.models.evaluate(
            data=data,
            predictions="retrieved",
            targets="relevant",
            model_type="retriever",
            evaluators="ranklens",
            evaluator_config=config,
        )
    qrels = {"q1": {"b": 1, "z": 1}, "q2": {"x": 1, "y": 1, "w": 1}, "q3": {"n": 2, "o": 1}}
    run_dict = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 1.0}, "q3": {"m": 2.0, "n": 1.0}}
    want = ranklens.evaluate(qrels, run_dict, config["measures"])
    assert result.metrics == {rm.metric_key(k): v for k, v in want.aggregate.items()}
    logged = experiment.get_run(run.info.run_id).data
    assert {k: logged.metrics[k] for k in result.metrics} == result.metrics
    assert logged.params["ranklens.duplicates"] == "error"
    # a model (a function) instead of a predictions column
    with mlflow.start_run():
        modelled = mlflow.models.evaluate(
            model=lambda frame: [["b", "a"], ["x", "y"], ["n"]],
            data=data[["question_id", "relevant"]],
            targets="relevant",
            model_type="retriever",
            evaluators="ranklens",
            evaluator_config={"query_id": "question_id", "measures": ["AP"], "report": False},
        )
    ranked = {"q1": {"b": 2.0, "a": 1.0}, "q2": {"x": 2.0, "y": 1.0}, "q3": {"n": 1.0}}
    assert modelled.metrics == {"AP": ranklens.evaluate(qrels, ranked, ["AP"])["AP"]}
    with mlflow.start_run(), pytest.raises(OptionError, match="unknown k1"):
        mlflow.models.evaluate(
            data=data, predictions="retrieved", targets="relevant", model_type="retriever",
            evaluators="ranklens", evaluator_config={"k1": 1},
        )  # fmt: skip


def test_the_entry_point_target_is_an_evaluator() -> None:
    target = importlib.import_module("ranklens.mlflow").RanklensEvaluator
    assert target.can_evaluate(model_type="retriever", evaluator_config={})
    assert not target.can_evaluate(model_type="classifier", evaluator_config={})
    assert target().name == "ranklens"


def test_results_from_files_log_too(experiment: Any, trec_eval_data: Path) -> None:
    scores = read_scores(trec_eval_data / "out.test.aq")
    with mlflow.start_run() as run:
        rm.log_results(scores, report=False)
    data = experiment.get_run(run.info.run_id).data
    assert data.metrics["nDCG_at_10"] == scores["ndcg_cut_10"]
    assert data.metrics["RprecMult_at_0.2"] == scores["Rprec_mult_0.20"]
    assert data.tags["ranklens.run"] == "STANDARD"


def test_command_line_logs_what_it_computed(
    experiment: Any, trec_eval_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ranklens.cli import main

    qrels, run = str(trec_eval_data / "qrels.test"), str(trec_eval_data / "results.test")
    name = f"cli-{time.time_ns()}"
    args = ["eval", qrels, run, "-m", "AP nDCG@10", "--queries", "both", "--mlflow"]
    assert main([*args, "--mlflow-experiment", name, "--mlflow-run-name", "bm25"]) == 0
    err = capsys.readouterr().err
    run_id = err.split("logged to MLflow run ")[1].split()[0]
    logged = experiment.get_run(run_id)
    assert logged.info.run_name == "bm25"
    assert logged.info.experiment_id == experiment.get_experiment_by_name(name).experiment_id
    want = ranklens.evaluate(qrels, run, ["AP", "nDCG@10"], queries="both")
    assert logged.data.metrics == {rm.metric_key(k): v for k, v in want.aggregate.items()}
    assert logged.data.params["ranklens.queries"] == "both"
    assert mlflow.active_run() is None  # the run it started, ended
    # compare, of score files
    files = [str(trec_eval_data / "out.test.aq"), str(trec_eval_data / "out.test.aqc")]
    code = main(
        ["compare", "--scores", *files, "--name", "full", "--name", "trunc", "-m", "AP",
         "--mlflow", "--quiet"]
    )  # fmt: skip
    assert code == 0 and "logged to MLflow" not in capsys.readouterr().err
    runs = mlflow.search_runs(  # the experiment --mlflow-experiment chose before
        experiment_ids=[logged.info.experiment_id], output_format="list", max_results=5
    )
    found = [r for r in runs if "trunc/AP/delta" in r.data.metrics]
    assert len(found) == 1
    cmp = ranklens.compare(
        None, {"full": read_scores(files[0]), "trunc": read_scores(files[1])}, ["AP"]
    )
    assert found[0].data.metrics["trunc/AP/p_value"] == cmp.vs_baseline["trunc"]["AP"].p_value


# ------------------------------------------- MLflow's failures, and stdout kept clean


def test_command_line_stdout_holds_only_the_output(
    experiment: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """``eval --mlflow -f json``: stdout is the JSON alone (MLflow's "View run" lines go
    to stderr, and nowhere with --quiet)."""
    from ranklens.cli import main

    args = ["eval", "--example", "-m", "AP", "-f", "json", "--mlflow"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["measures"] == ["AP"] and out.count("\n") == 1
    assert "logged to MLflow run" in err
    assert main([*args, "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["measures"] == ["AP"] and out.count("\n") == 1
    assert err == ""


@pytest.fixture
def tracking_uri() -> Iterator[Any]:
    """Point MLflow at another tracking URI for one test (set by the test)."""
    previous = mlflow.get_tracking_uri()
    yield mlflow.set_tracking_uri
    mlflow.set_tracking_uri(previous)


def test_a_server_that_is_down_fails_at_once_in_one_line(
    tracking_uri: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from ranklens.cli import main

    dead = f"http://127.0.0.1:{_free_port()}"  # nothing listens there
    tracking_uri(dead)
    started = time.monotonic()
    code = main(["eval", "--example", "-m", "AP", "--mlflow", "--quiet"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""  # refused before the work
    assert time.monotonic() - started < 30
    assert err.startswith(f"ranklens: error: cannot reach the MLflow tracking server at {dead}")
    assert len(err.splitlines()) == 1 and "internal error" not in err


def test_a_store_mlflow_refuses_is_one_line(
    tracking_uri: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from ranklens.cli import main

    monkeypatch.delenv("MLFLOW_ALLOW_FILE_STORE", raising=False)
    store = (tmp_path / "mlruns").as_uri()
    tracking_uri(store)
    code = main(["compare", "--example", "-m", "AP", "--mlflow"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith(f"ranklens: error: MLflow could not log to {store}: ")
    assert "filesystem" in err and "MLFLOW_ALLOW_FILE_STORE" in err  # MLflow's own reason
    assert len(err.splitlines()) == 1 and "internal error" not in err


def test_mlflow_options_without_mlflow_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    from ranklens.cli import main

    for option in ("--mlflow-experiment", "--mlflow-run-name"):
        assert main(["eval", "--example", option, "x"]) == 2
        out, err = capsys.readouterr()
        assert out == "" and f"{option} names what --mlflow logs" in err and "--mlflow too" in err


def test_the_evaluator_names_a_query_id_column_the_data_lacks(experiment: Any) -> None:
    import pandas as pd

    rm.register_evaluator()
    data = pd.DataFrame({"qid": ["q1"], "retrieved": [["a", "b"]], "relevant": [["b"]]})
    with (
        mlflow.start_run(),
        pytest.raises(OptionError, match=r"no column 'question_id' \(its feature columns: qid"),
    ):
        mlflow.models.evaluate(
            data=data, predictions="retrieved", targets="relevant", model_type="retriever",
            evaluators="ranklens", evaluator_config={"query_id": "question_id"},
        )  # fmt: skip
