"""The user-log commands give what the Python API gives, and bad input is one line with
exit status 2."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

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
        (["click-qrels", "{clicks}"], "give either thresholds"),
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
