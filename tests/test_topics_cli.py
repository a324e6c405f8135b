"""``ranklens topics`` and ``ranklens discriminate``: numbers equal the API's, every
input form, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ranklens
from ranklens.analysis.stats.power import topic_set_size
from ranklens.cli import main
from ranklens.cli._options import DEFAULT_MEASURES
from ranklens.data.examples import example_paths


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def example_results():
    qrels, runs = example_paths()
    return [ranklens.evaluate(qrels, r, list(DEFAULT_MEASURES)) for r in runs]


def test_topics_from_runs_equals_the_api(example_results, capsys) -> None:
    qrels, runs = example_paths()
    code, out, err = run_cli(
        ["topics", "--min-diff", "0.05", "--from", *map(str, runs), str(qrels), "-f", "json"],
        capsys,
    )
    assert code == 0 and err == ""
    payload = json.loads(out)
    assert payload["systems"] == 2 and payload["power"] == 0.8
    for row in payload["measures"]:
        m = row["measure"]
        sigma_t2 = ranklens.variance_from(example_results, m)
        sigma2 = ranklens.variance_from(example_results, m, test="anova")
        assert row["sigma_t2"] == pytest.approx(sigma_t2) and row["sigma2"] == pytest.approx(sigma2)
        assert row["paired-t"] == topic_set_size(0.05, sigma_t2)
        assert row["anova"] == topic_set_size(0.05, sigma2, test="anova", systems=2)
        assert row["ci"] == topic_set_size(0.05, sigma2, test="ci")


def test_topics_input_forms_agree(capsys) -> None:
    qrels, runs = example_paths()
    forms = [
        ["--from", *map(str, runs), str(qrels)],
        [str(qrels), "--from", *map(str, runs)],
        ["--example"],
    ]
    outputs = []
    for form in forms:
        code, out, _ = run_cli(["topics", "--min-diff", "0.1", "-m", "AP", *form], capsys)
        assert code == 0
        outputs.append(out)
    assert outputs[0] == outputs[1] == outputs[2]
    assert "topics needed" in outputs[0] and "ANOVA (2 systems)" in outputs[0]


def test_topics_from_a_variance(capsys) -> None:
    code, out, _ = run_cli(["topics", "--min-diff", "0.05", "--variance", "0.02"], capsys)
    assert code == 0 and out == f"{topic_set_size(0.05, 0.02)}\n"
    args = ["topics", "--min-diff", "0.1", "--variance", "0.05", "--test", "anova"]
    code, out, _ = run_cli([*args, "--systems", "5", "-f", "json"], capsys)
    assert json.loads(out)["topics"] == topic_set_size(0.1, 0.05, test="anova", systems=5)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--min-diff", "0.05"], "give --variance, or runs"),
        (["--min-diff", "0.05", "--from", "a.run", "b.run"], "at least 2 runs and then the qrels"),
        (["--min-diff", "0.05", "--variance", "0.1", "--example"], "either --variance or runs"),
        (["--min-diff", "-1", "--variance", "0.1"], "min_difference must be"),
        (["--min-diff", "0.1", "--variance", "0.1", "--test", "anova"], "needs systems"),
        (["--min-diff", "0.1", "--variance", "0.1", "--power", "1.2"], "power must be"),
    ],
)
def test_topics_errors_are_one_line(args, message, capsys) -> None:
    code, out, err = run_cli(["topics", *args], capsys)
    assert code == 2 and out == ""
    assert err.startswith("ranklens: error: ") and message in err and err.count("\n") == 1


def test_discriminate_json_equals_the_api(example_results, capsys, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    plot = tmp_path / "asl.png"
    swap = tmp_path / "swap.svg"
    code, out, _ = run_cli(
        [
            "discriminate",
            "--example",
            "--resamples",
            "300",
            "-f",
            "json",
            "--swap-rate",
            "--trials",
            "20",
            "--plot",
            str(plot),
            "--swap-plot",
            str(swap),
        ],
        capsys,
    )
    assert code == 0
    payload = json.loads(out)
    expected = ranklens.discriminative_power(example_results, resamples=300).to_dict()
    swaps = [
        row
        for m in DEFAULT_MEASURES
        for row in ranklens.swap_rate(example_results, m, trials=20).to_records()
    ]
    assert payload == json.loads(json.dumps({**expected, "swap_rates": swaps}))
    assert plot.stat().st_size > 0 and swap.read_text().startswith("<?xml")


def test_discriminate_table_and_csv(capsys) -> None:
    code, out, _ = run_cli(["discriminate", "--example", "--resamples", "200"], capsys)
    assert code == 0 and "discriminative power" in out and "B = 200" in out
    code, out, _ = run_cli(["discriminate", "--example", "--resamples", "200", "-f", "csv"], capsys)
    lines = out.splitlines()
    assert lines[0] == "measure,run,against,delta,bootstrap_asl,tukey_asl,required_difference"
    assert len(lines) == 1 + len(DEFAULT_MEASURES)  # one pair, each default measure


def test_discriminate_errors(capsys) -> None:
    code, _, err = run_cli(["discriminate", "--example", "--resamples", "0"], capsys)
    assert code == 2 and "resamples must be a positive whole number" in err
