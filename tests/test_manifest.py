"""``ranklens run MANIFEST`` and ``ranklens diff A B``: a manifest (YAML or TOML) run twice
writes the same bytes, wherever the experiment's folder is; its numbers are those of
``evaluate`` and ``compare``; bad manifests are one line and exit 2; ``diff`` names the
numbers that changed and why."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path

import pytest

import ranklens
from ranklens.data.examples import example_paths
from ranklens.workflow.experiment import write_experiment
from ranklens.workflow.store import load_results
from workflow_support import run_cli

MEASURES = ["nDCG@10", "AP", "P@10"]
MANIFEST = """\
qrels: data/qrels.txt
runs: {bm25: data/bm25.run, rerank: data/rerank.run}
measures: [nDCG@10, AP, P@10]
compare: {baseline: bm25, test: randomization, permutations: 2000}
groups: {odd: [QUERIES], from_file: data/group.txt}
output: results/first.json
"""


@pytest.fixture
def experiment(tmp_path: Path) -> Path:
    """A folder with the bundled qrels and runs as plain files, a group file and a
    manifest; returns the manifest."""
    data = tmp_path / "exp" / "data"
    data.mkdir(parents=True)
    qrels, (bm25, rerank) = example_paths()
    for source, name in ((qrels, "qrels.txt"), (bm25, "bm25.run"), (rerank, "rerank.run")):
        (data / name).write_bytes(gzip.decompress(source.read_bytes()))
    queries = sorted({line.split()[0] for line in (data / "qrels.txt").read_text().splitlines()})
    (data / "group.txt").write_text("".join(f"{q}\n" for q in queries[:10]) + "unknown-q\n")
    text = MANIFEST.replace("QUERIES", ", ".join(f'"{q}"' for q in queries[::2]))
    manifest = tmp_path / "exp" / "experiment.yaml"
    manifest.write_text(text)
    return manifest


def test_a_manifest_run_twice_writes_the_same_bytes(experiment: Path) -> None:
    code, out, err = run_cli(["run", str(experiment)])
    assert code == 0, err
    results = experiment.parent / "results" / "first.json"
    first = results.read_bytes()
    meta = json.loads((experiment.parent / "results" / "first.json.meta.json").read_text())
    assert {"started", "seconds", "python", "platform"} <= set(meta)
    assert b"started" not in first and str(experiment.parent).encode() not in first
    assert out.splitlines()[1].split() == ["run", *MEASURES]
    assert run_cli(["run", str(experiment), "--quiet"])[0] == 0
    assert results.read_bytes() == first
    # the same experiment in another folder, run from another current folder
    moved = experiment.parent.parent / "elsewhere"
    shutil.copytree(experiment.parent / "data", moved / "data")
    shutil.copy(experiment, moved / "experiment.yaml")
    cwd = os.getcwd()
    try:
        os.chdir(moved / "data")
        # the manifest named by a path through the parent folder (os.pardir: inside tmp_path)
        manifest = os.path.join(os.pardir, "experiment.yaml")
        assert run_cli(["run", manifest, "--quiet"])[0] == 0
    finally:
        os.chdir(cwd)
    assert (moved / "results" / "first.json").read_bytes() == first


def test_the_results_hold_hashes_version_options_and_the_numbers(experiment: Path) -> None:
    document = write_experiment(experiment)
    folder = experiment.parent
    assert list(document)[:3] == ["format", "name", "ranklens"]
    assert document["ranklens"] == ranklens.__version__
    assert document["manifest"] == {
        "path": f"{os.pardir}/experiment.yaml",  # relative to the results' folder
        "sha256": __import__("hashlib").sha256(experiment.read_bytes()).hexdigest(),
    }
    import hashlib

    for role, path in (
        ("qrels", "qrels.txt"),
        ("run:bm25", "bm25.run"),
        ("group:from_file", "group.txt"),
    ):
        entry = document["inputs"][role]
        assert entry == {
            "path": f"data/{path}",
            "sha256": hashlib.sha256((folder / "data" / path).read_bytes()).hexdigest(),
        }
    assert document["options"]["compare"]["test"] == "randomization"
    assert document["options"]["conventions"] == {
        "ties": "trec_eval",
        "queries": "qrels",
        "depth": None,
        "duplicates": "error",
    }
    qrels, runs = (
        folder / "data" / "qrels.txt",
        {n: folder / "data" / f"{n}.run" for n in ("bm25", "rerank")},
    )
    for name, path in runs.items():
        expected = ranklens.evaluate(str(qrels), str(path), MEASURES)
        assert document["runs"][name]["aggregate"] == dict(expected.aggregate)
        assert document["runs"][name]["per_query"] == {
            q: dict(v) for q, v in expected.per_query.items()
        }
    compared = ranklens.compare(
        str(qrels),
        {n: str(p) for n, p in runs.items()},
        MEASURES,
        test="randomization",
        permutations=2000,
    )
    assert document["comparison"] == json.loads(json.dumps(compared.to_dict()))
    # the groups' means are the means over their queries
    per_query = ranklens.evaluate(str(qrels), str(runs["rerank"]), MEASURES).per_query
    group = (folder / "data" / "group.txt").read_text().split()[:-1]
    mean = sum(per_query[q]["AP"] for q in group) / len(group)
    assert document["groups"]["from_file"]["runs"]["rerank"]["AP"] == pytest.approx(mean, abs=1e-15)
    assert document["groups"]["from_file"]["queries"] == 10
    assert document["groups"]["from_file"]["missing"] == 1


def test_toml_gives_the_numbers_of_yaml(experiment: Path) -> None:
    toml = experiment.with_suffix(".toml")
    toml.write_text(
        'qrels = "data/qrels.txt"\nmeasures = ["nDCG@10", "AP", "P@10"]\noutput = "t.json"\n'
        '[runs]\nbm25 = "data/bm25.run"\nrerank = "data/rerank.run"\n'
        '[compare]\nbaseline = "bm25"\ntest = "randomization"\npermutations = 2000\n'
    )
    from_toml = write_experiment(toml)
    from_yaml = write_experiment(experiment)
    assert from_toml["runs"] == from_yaml["runs"]
    assert from_toml["comparison"] == from_yaml["comparison"]


@pytest.mark.parametrize(
    "change, expected",
    [
        (("data/bm25.run", "data/missing.run"), "run bm25 file 'data/missing.run' does not exist"),
        (("data/qrels.txt", "nope.txt"), "qrels file 'nope.txt' does not exist"),
        (("P@10", "NoSuchMeasure"), "measures: unknown measure 'NoSuchMeasure'"),
        (("output:", "outputs:"), "unknown key 'outputs'"),
        (("test: randomization", "tset: randomization"), "compare: unknown key 'tset'"),
        (("baseline: bm25", "baseline: bm26"), "compare: baseline 'bm26' is not one of the runs"),
        (("runs: {", "runs: [{"), "is not valid YAML"),
        (("test: randomization", "test: magic"), "compare: test must be one of"),
        (("output:", "conventions: {ties: sideways}\noutput:"), "conventions: ties must be one of"),
    ],
)
def test_a_bad_manifest_is_one_line_and_exit_2(
    experiment: Path, change: tuple[str, str], expected: str
) -> None:
    experiment.write_text(experiment.read_text().replace(*change))
    code, out, err = run_cli(["run", str(experiment)])
    assert code == 2 and out == ""
    assert err.startswith(f"ranklens: error: {experiment}") and expected in err, err
    assert len(err.strip().splitlines()) == 1
    assert not (experiment.parent / "results").exists()


def test_a_manifest_of_another_kind_or_missing(tmp_path: Path) -> None:
    code, _, err = run_cli(["run", str(tmp_path / "exp.json")])
    assert code == 2 and "a manifest is a YAML (.yaml, .yml) or TOML (.toml) file" in err
    code, _, err = run_cli(["run", str(tmp_path / "exp.yaml")])
    assert code == 2 and "no such manifest" in err


def test_report_and_mlflow_targets(
    experiment: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("mlflow")
    # a SQLite store keeps its artifacts in ./mlruns of the current folder (MLflow's default)
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "mlflow.db"
    text = experiment.read_text().replace("permutations: 2000", "permutations: 500")
    text += f'report: {{path: results/report.html, plots: false}}\nmlflow: {{experiment: e1, tracking_uri: "sqlite:///{store}"}}\n'
    experiment.write_text(text)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write_experiment(experiment)
        import mlflow

        meta = json.loads((experiment.parent / "results" / "first.json.meta.json").read_text())
        client = mlflow.MlflowClient(tracking_uri=f"sqlite:///{store}")
        logged = client.get_run(meta["mlflow_run"]).data
    report = (experiment.parent / "results" / "report.html").read_text()
    assert report.startswith("<!DOCTYPE html>") and "rerank" in report
    document = load_results(experiment.parent / "results" / "first.json")
    assert logged.metrics["rerank/AP"] == document["comparison"]["runs"][1]["mean"]["AP"]
    assert logged.tags["ranklens.input.run:bm25.sha256"] == document["inputs"]["run:bm25"]["sha256"]


def test_output_option_and_json_on_stdout(experiment: Path, tmp_path: Path) -> None:
    target = tmp_path / "mine.json"
    code, out, _ = run_cli(["run", str(experiment), "-o", str(target), "-f", "json", "--quiet"])
    assert code == 0 and json.loads(out) == load_results(target)
    assert not (experiment.parent / "results").exists()
    code, _, err = run_cli(["run", str(experiment), "-o", str(target)])
    assert code == 2 and "--force" in err
    code, _, err = run_cli(
        ["run", str(experiment), "-o", str(experiment.parent / "data" / "bm25.run"), "--force"]
    )
    assert code == 2 and "is one of the input files" in err


def test_a_report_is_never_written_over_an_input(experiment: Path) -> None:
    run_file = experiment.parent / "data" / "rerank.run"
    before = run_file.read_bytes()
    experiment.write_text(experiment.read_text() + "report: {path: data/rerank.run}\n")
    code, _, err = run_cli(["run", str(experiment)])
    assert code == 2 and "report:" in err and "is one of the input files" in err
    assert run_file.read_bytes() == before


def test_run_example() -> None:
    code, out, err = run_cli(["run", "--example", "--quiet"])
    assert code == 0 and err == ""
    assert out.splitlines()[1].split() == ["run", "nDCG@10", "AP"]
    assert out.splitlines()[3].startswith("rerank") and "▲" in out


# ------------------------------------------------------------------------------------ diff


def _ran(experiment: Path, name: str) -> Path:
    assert run_cli(["run", str(experiment), "-o", str(experiment.parent / name), "--quiet"])[0] == 0
    return experiment.parent / name


def test_diff_of_the_same_results_is_empty_and_exit_0(experiment: Path) -> None:
    a, b = _ran(experiment, "a.json"), _ran(experiment, "b.json")
    assert run_cli(["diff", str(a), str(b)]) == (0, "", "ranklens: the same\n")
    code, out, _ = run_cli(["diff", str(a), str(b), "-f", "json", "--quiet"])
    assert code == 0 and json.loads(out) == {"same": True, "causes": [], "numbers": []}


def test_diff_names_a_changed_input_and_the_numbers(experiment: Path) -> None:
    a = _ran(experiment, "a.json")
    run = experiment.parent / "data" / "bm25.run"
    lines = run.read_text().splitlines()
    first_query = lines[0].split()[0]
    # the first query's top document moves to the bottom: its scores change
    changed = [
        line.replace(line.split()[4], "-99", 1) if i == 0 else line for i, line in enumerate(lines)
    ]
    run.write_text("\n".join(changed) + "\n")
    b = _ran(experiment, "b.json")
    code, out, _ = run_cli(["diff", str(a), str(b), "--quiet"])
    assert code == 1
    shown = out.splitlines()
    old, new = (
        load_results(a)["inputs"]["run:bm25"]["sha256"],
        load_results(b)["inputs"]["run:bm25"]["sha256"],
    )
    assert shown[0] == f"input run:bm25 changed: data/bm25.run (sha256 {old[:12]} → {new[:12]})"
    document_a, document_b = load_results(a), load_results(b)
    for measure in MEASURES:
        va = document_a["runs"]["bm25"]["per_query"][first_query][measure]
        vb = document_b["runs"]["bm25"]["per_query"][first_query][measure]
        line = next((s for s in shown if s.startswith(f"bm25 {measure}:")), None)
        assert (line is not None) == (va != vb), (measure, shown)
        if line is not None:
            assert line.endswith(", 1 of 43 queries changed")
    assert not any(s.startswith(f"rerank {m}:") for m in MEASURES for s in shown)
    data = json.loads(run_cli(["diff", str(a), str(b), "-f", "json", "--quiet"])[1])
    assert data["same"] is False and data["causes"] == [shown[0]]


def test_diff_names_changed_options_and_version(experiment: Path) -> None:
    a = _ran(experiment, "a.json")
    experiment.write_text(
        experiment.read_text().replace("permutations: 2000", "permutations: 3000")
    )
    b = _ran(experiment, "b.json")
    document = load_results(b)
    document["ranklens"] = "0.0.1"
    b.write_text(json.dumps(document))
    code, out, _ = run_cli(["diff", str(a), str(b), "--quiet"])
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"ranklens version changed: {ranklens.__version__} → 0.0.1"
    assert "option compare.permutations changed: 2000 → 3000" in lines
    assert lines[1].startswith("manifest changed: experiment.yaml (sha256 ")
    assert any(line.startswith("rerank vs bm25 AP p_value") for line in lines)
    assert not any(line.startswith("bm25 AP") for line in lines)  # the means did not move


def test_diff_errors_exit_2(experiment: Path, tmp_path: Path) -> None:
    a = _ran(experiment, "a.json")
    code, _, err = run_cli(["diff", str(a), str(tmp_path / "none.json")])
    assert code == 2 and "no such results file" in err
    other = tmp_path / "other.json"
    other.write_text('{"x": 1}')
    code, _, err = run_cli(["diff", str(a), str(other)])
    assert code == 2 and "is not a ranklens results file" in err and len(err.splitlines()) == 1


def test_diff_example_differs() -> None:
    code, out, _ = run_cli(["diff", "--example", "--quiet"])
    assert code == 1
    assert out.splitlines()[1].startswith("input run:rerank removed")
    assert "input run:dense added" in out
