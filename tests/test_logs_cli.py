"""The user-log commands give what the Python API gives, and bad input is one line with
exit status 2."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest

import ranklens
from ranklens.cli import main
from ranklens.logs import click_measures, fit_click_model, interleaving, read_log
from ranklens.logs.examples import example_log


def _run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    import pandas as pd

    folder = tmp_path_factory.mktemp("logs")
    clicks = pd.DataFrame(example_log("clicks", seed=3))
    clicks = clicks[clicks.query_id.isin(sorted(set(clicks.query_id))[:8])]
    teams = pd.DataFrame(example_log("interleaving", seed=4))
    paths = {"clicks": folder / "clicks.parquet", "teams": folder / "teams.csv"}
    clicks.to_parquet(paths["clicks"])
    teams.to_csv(paths["teams"], index=False)
    return paths


def test_click_measures_equal_the_api(files: dict[str, Path]) -> None:
    code, out, _ = _run(
        ["click-measures", str(files["clicks"]), "-f", "json", "-q", "-m", "CTR,Clicks@3"]
    )
    assert code == 0
    run = json.loads(out)["runs"][0]
    api = click_measures(files["clicks"], ["CTR", "Clicks@3"])
    assert run["aggregate"] == pytest.approx(dict(api.aggregate))
    assert run["per_query"].keys() == api.per_query.keys()
    for q, values in api.per_query.items():
        assert run["per_query"][q] == pytest.approx(dict(values))


def test_click_qrels_equal_the_api(files: dict[str, Path], tmp_path: Path) -> None:
    target = tmp_path / "clicks.qrels"
    code, _, err = _run(
        [
            "click-qrels",
            str(files["clicks"]),
            "--model",
            "SDBN",
            "--thresholds",
            "0.1,0.3",
            "-o",
            str(target),
        ]
    )
    assert code == 0 and "judgments" in err
    written = ranklens.Qrels.from_file(target).to_dict()
    assert written == fit_click_model(files["clicks"], "SDBN").to_qrels([0.1, 0.3]).to_dict()
    code, _, err = _run(["click-qrels", str(files["clicks"]), "--scale", "100", "-o", str(target)])
    assert code == 2 and "exists" in err and len(err.strip().splitlines()) == 1


def test_interleaving_equals_the_api(files: dict[str, Path]) -> None:
    code, out, _ = _run(["interleaving", str(files["teams"]), "-f", "json", "--bootstrap", "200"])
    assert code == 0
    data = json.loads(out)
    api = interleaving(files["teams"], bootstrap=200)
    assert (data["wins"], data["losses"], data["ties"]) == (api.wins, api.losses, api.ties)
    assert data["p_value"] == api.p_value and data["interval"] == list(api.interval)
    code, out, _ = _run(["interleaving", str(files["teams"]), "--bootstrap", "200", "--quiet"])
    assert code == 0 and out.startswith("bm25 against rerank: ")


def test_click_models_and_counterfactual_run(files: dict[str, Path]) -> None:
    code, out, _ = _run(["click-models", str(files["clicks"]), "--model", "PBM", "--model", "DBN"])
    assert code == 0
    assert out.splitlines()[2].startswith("PBM") and out.splitlines()[3].startswith("DBN")
    from ranklens.data.examples import example_paths

    _, runs = example_paths()
    code, out, _ = _run(
        [
            "counterfactual",
            str(files["clicks"]),
            "--target",
            str(runs[1]),
            "--position-bias",
            "pbm",
            "-f",
            "json",
            "--bootstrap",
            "100",
        ]
    )
    assert code == 0
    data = json.loads(out)
    assert (
        data["estimator"] == "ips" and data["interval"][0] <= data["value"] <= data["interval"][1]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["click-measures"], "give a click log (LOG), or --example"),
        (["interleaving", "{clicks}"], "no 'team' column"),
        (["click-qrels", "{clicks}"], "give either --thresholds (graded) or --scale"),
        (["click-models", "{clicks}", "--holdout", "1.5"], "--holdout must be a share in (0, 1)"),
        (["counterfactual", "{clicks}", "--estimator", "sips", "--target", "{clicks}"], ""),
        (["click-models", "{bad}"], "position gap"),
    ],
)
def test_errors_are_one_line(
    files: dict[str, Path], tmp_path: Path, args: list[str], message: str
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"session_id": 1, "query_id": "q", "doc_id": "a", "position": 1, "clicked": 1}\n'
        '{"session_id": 1, "query_id": "q", "doc_id": "b", "position": 3, "clicked": 0}\n'
    )
    filled = [a.format(clicks=files["clicks"], bad=bad) for a in args]
    code, _, err = _run(filled)
    assert code == 2
    assert err.startswith("ranklens: error: ") and len(err.strip().splitlines()) == 1
    assert message in err
    if "{bad}" in args:
        assert f"{bad}:2: " in err


def test_example_log_is_read_and_seeded() -> None:
    a = read_log(example_log("clicks", seed=1))
    b = read_log(example_log("clicks", seed=1))
    assert a.clicked.tolist() == b.clicked.tolist() and a.rankers == ("bm25", "rerank")


def _jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _rows(sessions: int, length: int = 2) -> list[dict[str, object]]:
    return [
        {"session_id": s, "query_id": "q", "doc_id": f"d{p}", "position": p, "clicked": p == 1}
        for s in range(1, sessions + 1)
        for p in range(1, length + 1)
    ]


@pytest.mark.parametrize("sessions", [1, 2, 3])
def test_click_models_on_too_few_sessions_is_one_line(tmp_path: Path, sessions: int) -> None:
    """Issue 45: fewer than 4 sessions held out none and printed a table of nan, exit 0."""
    log = _jsonl(tmp_path / "few.jsonl", _rows(sessions))
    code, out, err = _run(["click-models", str(log), "--holdout", "0.25"])
    train, test = read_log(log).split(0.25)
    if test.num_impressions and train.num_impressions:
        assert code == 0 and "nan" not in out
    else:
        assert code == 2 and out == ""
        assert err.startswith("ranklens: error: --holdout 0.25 of the log's ")
        assert len(err.strip().splitlines()) == 1


def test_interleaving_errors_name_the_options(tmp_path: Path) -> None:
    """Issue 45: the command line named Python parameters (rankers=(A, B), test_fraction)."""
    rows = [
        {
            "session_id": 1,
            "query_id": "q",
            "doc_id": d,
            "position": i + 1,
            "clicked": True,
            "team": t,
        }
        for i, (d, t) in enumerate([("a", "A"), ("b", "B"), ("c", "C")])
    ]
    log = _jsonl(tmp_path / "three.jsonl", rows)
    code, _, err = _run(["interleaving", str(log)])
    assert code == 2 and "--rankers A B" in err and "rankers=" not in err
    code, _, err = _run(["click-models", str(log), "--holdout", "0"])
    assert code == 2 and "--holdout" in err and "test_fraction" not in err
    for options, name in (
        (["--confidence", "95"], "--confidence must be in (0, 1)"),
        (["--bootstrap", "0"], "--resamples must be a positive integer"),
        (["--cutoff", "0"], "--cutoff must be a positive integer"),
    ):
        command = "counterfactual" if "--cutoff" in options else "interleaving"
        code, _, err = _run([command, str(log), *options])
        assert code == 2 and name in err, err
    code, out, _ = _run(["interleaving", "--help"])
    assert code == 0 and "80% power" in " ".join(out.split()) and "%%" not in out


def test_balanced_log_on_the_command_line(tmp_path: Path) -> None:
    """--balanced RUN_A RUN_B: the balanced rule with the runs' rankings, as the API."""
    from ranklens.data.run import Run
    from ranklens.logs import interleave

    lists = {"A": ["a", "b", "c", "d"], "B": ["c", "a", "e", "b"]}
    runs = []
    for name, docs in lists.items():
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"q Q0 {d} {i + 1} {10 - i} {name}\n" for i, d in enumerate(docs)))
        runs.append(path)
    rng = np.random.default_rng(5)
    rows = []
    for s in range(40):
        shown = interleave(lists, "balanced", seed=rng)
        for i, doc in enumerate(shown.docs):
            rows.append(
                {
                    "session_id": s,
                    "query_id": "q",
                    "doc_id": doc,
                    "position": i + 1,
                    "clicked": bool(rng.random() < 0.3),
                }
            )
    log = _jsonl(tmp_path / "balanced.jsonl", rows)
    code, out, _ = _run(
        [
            "interleaving",
            str(log),
            "--balanced",
            str(runs[0]),
            str(runs[1]),
            "-f",
            "json",
            "--bootstrap",
            "50",
        ]
    )
    assert code == 0
    data = json.loads(out)
    rankings = {run.name: run for run in (Run.from_file(p) for p in runs)}
    api = interleaving(read_log(log), rankings=rankings, bootstrap=50)
    assert (data["wins"], data["losses"], data["ties"]) == (api.wins, api.losses, api.ties)
    assert data["rankers"] == ["A", "B"]


def test_counterfactual_target_without_the_log_queries(tmp_path: Path) -> None:
    """Issue 45: a target sharing no query with the log gave 0 clicks in [0, 0], exit 0."""
    log = _jsonl(tmp_path / "log.jsonl", _rows(6))
    target = tmp_path / "other.run"
    target.write_text("Q1 Q0 d1 1 2 t\nQ1 Q0 d2 2 1 t\n")
    code, out, err = _run(
        ["counterfactual", str(log), "--target", str(target), "--position-bias", "pbm"]
    )
    assert code == 2 and out == ""
    assert "the target ranks none of the log's 1 queries" in err
    assert len(err.strip().splitlines()) == 1


def test_jsonl_logs_list_clicks_and_byte_order_marks(tmp_path: Path) -> None:
    """Issue 45: a list 'clicked' was an internal error (TypeError); a BOM was refused."""
    rows = _rows(4)
    rows[3]["clicked"] = [1, 0]
    code, out, err = _run(["click-measures", str(_jsonl(tmp_path / "list.jsonl", rows))])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert f"{tmp_path / 'list.jsonl'}:4: 'clicked' must be true or false" in err
    plain = _jsonl(tmp_path / "plain.jsonl", _rows(4))
    marked = tmp_path / "marked.jsonl"
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    assert _run(["click-measures", str(marked)])[:2] == _run(["click-measures", str(plain)])[:2]


def test_ubm_refuses_a_very_long_session_naming_it(tmp_path: Path) -> None:
    """Issue 45: one 30,000-position session needed 6.7 GiB (a bare MemoryError)."""
    rows = _rows(6, 3) + [
        {
            "session_id": "long",
            "query_id": "q",
            "doc_id": f"x{p}",
            "position": p,
            "clicked": p % 7 == 0,
        }
        for p in range(1, 30_001)
    ]
    log = _jsonl(tmp_path / "long.jsonl", rows)
    code, out, err = _run(["click-models", str(log), "--model", "UBM"])
    assert code == 2 and out == ""
    assert "session 'long' shows 30,000 documents" in err and "top 1,000 positions" in err
    assert len(err.strip().splitlines()) == 1
    code, out, _ = _run(["click-models", str(log), "--model", "PBM"])
    assert code == 0
    code, out, err = _run(["click-qrels", str(log), "--model", "UBM", "--scale", "100"])
    assert code == 2 and f"{log}: session 'long' shows 30,000 documents" in err
