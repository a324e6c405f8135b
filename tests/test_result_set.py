"""Many runs, one call (issue #12, point 5): ResultSet, default run names, Comparison as
DataFrames, per-query rows in the notebook view, ``dir(ranklens)``."""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import pytest

import ranklens
from ranklens.base.errors import OptionError
from ranklens.cli import main
from ranklens.data.examples import example_paths
from ranklens.evaluation.result_set import ResultSet

pytrec_eval = pytest.importorskip("pytrec_eval")

MEASURES = ["AP", "nDCG@10", "P@10"]
PYTREC = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10"}


def _lines(path: Path) -> list[str]:
    with gzip.open(path, "rt") as f:
        return f.readlines()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The example qrels, and the two example runs saved as bm25.run and new.run, both
    with the tag 'Anserini' (as two runs of one toolkit often are), plus an untagged copy."""
    root = tmp_path_factory.mktemp("many")
    qrels, runs = example_paths()
    out = {"qrels": str(root / "qrels.txt")}
    (root / "qrels.txt").write_text("".join(_lines(qrels)))
    for name, path in zip(("bm25", "new"), runs, strict=True):
        lines = [" ".join([*line.split()[:5], "Anserini"]) + "\n" for line in _lines(path)]
        (root / f"{name}.run").write_text("".join(lines))
        out[name] = str(root / f"{name}.run")
    untagged = [  # JSON lines without a run name
        f'{{"query_id": "{q}", "doc_id": "{d}", "score": {s}}}\n'
        for q, _, d, _, s, _ in (line.split() for line in _lines(runs[0]))
    ]
    (root / "plain.jsonl").write_text("".join(untagged))
    out["plain"] = str(root / "plain.jsonl")
    return out


def _pytrec(qrels_path: str, run_path: str) -> dict[str, dict[str, float]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in Path(qrels_path).read_text().splitlines():
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
    run: dict[str, dict[str, float]] = {}
    for line in Path(run_path).read_text().splitlines():
        q, _, d, _, s = line.split()[:5]
        run.setdefault(q, {})[d] = float(s)
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC.values()))
    return ev.evaluate(run)  # type: ignore[no-any-return]


def test_list_of_runs_gives_one_result_set_equal_to_pytrec_eval(files: dict[str, str]) -> None:
    rs = ranklens.evaluate(files["qrels"], [files["bm25"], files["new"]], MEASURES)
    assert isinstance(rs, ResultSet)
    # shared tag 'Anserini': each run is named by its file's stem
    assert rs.runs == ("bm25", "new") and len(rs) == 2
    long = rs.to_pandas()
    assert list(long.columns) == ["run", "query_id", "measure", "value"]
    for run in ("bm25", "new"):
        ref = _pytrec(files["qrels"], files[run])
        mine = long[long["run"] == run]
        # every query of the run that pytrec_eval scores, value for value
        for m, key in PYTREC.items():
            got = dict(
                zip(mine[mine.measure == m].query_id, mine[mine.measure == m].value, strict=True)
            )
            for q, values in ref.items():
                assert got[q] == pytest.approx(values[key], abs=1e-12)
    assert len(long) == sum(len(r.queries) for r in rs) * len(MEASURES)
    wide = rs.to_pandas("wide")
    assert list(wide.columns) == ["run", "query_id", *MEASURES]
    assert len(wide) == sum(len(r.queries) for r in rs)
    # the long and the wide frames hold the same numbers
    melted = wide.melt(id_vars=["run", "query_id"], var_name="measure", value_name="value")
    key = ["run", "query_id", "measure"]
    assert (
        melted.sort_values(key)
        .reset_index(drop=True)
        .equals(long.sort_values(key).reset_index(drop=True))
    )
    pl_long = rs.to_polars()
    assert pl_long.columns == ["run", "query_id", "measure", "value"]
    assert pl_long.height == len(long)
    assert rs.to_polars("wide").shape == wide.shape
    with pytest.raises(OptionError, match="layout"):
        rs.to_pandas("tall")  # type: ignore[arg-type]


def test_mapping_of_runs_and_single_run_unchanged(files: dict[str, str]) -> None:
    rs = ranklens.evaluate(files["qrels"], {"b": files["bm25"], "n": files["new"]}, "AP")
    assert isinstance(rs, ResultSet) and rs.runs == ("b", "n")
    single = ranklens.evaluate(files["qrels"], files["bm25"], "AP")
    assert isinstance(single, ranklens.Results) and single.run == "Anserini"
    assert rs["b"].aggregate == single.aggregate and rs[0] is rs["b"]
    assert rs.aggregate == {"b": rs["b"].aggregate, "n": rs["n"].aggregate}
    # in-memory runs: a dict of dicts is one run, a mapping of them several
    qrels = {"q1": {"a": 1}}
    one = ranklens.evaluate(qrels, {"q1": {"a": 1.0}}, "P@1")
    assert isinstance(one, ranklens.Results)
    many = ranklens.evaluate(
        qrels, [{"q1": {"a": 1.0}}, {"q1": {"b": 1.0}}], "P@1", name=["x", "y"]
    )
    assert isinstance(many, ResultSet) and many.aggregate == {"x": {"P@1": 1.0}, "y": {"P@1": 0.0}}
    # records stay one run
    rec = ranklens.evaluate(qrels, [("q1", "a", 1.0), ("q1", "b", 0.5)], "P@1")
    assert isinstance(rec, ranklens.Results)
    # in-memory runs of one name are numbered by position
    numbered = ranklens.evaluate(qrels, [{"q1": {"a": 1.0}}, {"q1": {"b": 1.0}}], "P@1")
    assert numbered.runs == ("run1", "run2")  # type: ignore[union-attr]
    with pytest.raises(OptionError, match="both named 'x'"):
        ranklens.evaluate(qrels, [{"q1": {"a": 1.0}}] * 2, "P@1", name=["x", "x"])
    with pytest.raises(OptionError, match="list of names"):
        ranklens.evaluate(qrels, [{"q1": {"a": 1.0}}, {"q1": {"b": 1.0}}], "P@1", name="x")


def test_default_names(files: dict[str, str]) -> None:
    qrels, runs = example_paths()
    # distinct tags are kept
    assert ranklens.evaluate(qrels, list(runs), "AP").runs == ("bm25", "rerank")
    # a file without a run name is named by its stem; an explicit name wins
    rs = ranklens.evaluate(files["qrels"], [files["plain"], files["new"]], "AP")
    assert rs.runs == ("plain", "Anserini")
    rs = ranklens.evaluate(files["qrels"], [files["bm25"], files["new"]], "AP", name=["x", "y"])
    assert rs.runs == ("x", "y")
    # the same file twice: stems coincide too, so the tags stay and it is refused
    with pytest.raises(OptionError, match="both named 'Anserini'"):
        ranklens.evaluate(files["qrels"], [files["bm25"], files["bm25"]], "AP")


def test_readme_compare_example_works_as_written(files: dict[str, str]) -> None:
    cmp = ranklens.compare(
        files["qrels"],
        [files["bm25"], files["new"]],
        ["nDCG@10", "AP"],
        test="randomization",
        permutations=200,
    )
    st = cmp.vs_baseline["new"]["AP"]
    assert st.delta == pytest.approx(cmp.means["new"]["AP"] - cmp.means["bm25"]["AP"], abs=1e-12)


def test_comparison_frames(files: dict[str, str]) -> None:
    qrels, runs = example_paths()
    cmp = ranklens.compare(qrels, list(runs), ["nDCG@10", "AP"])
    frame = cmp.to_pandas()
    assert list(frame.columns[:4]) == ["run", "measure", "mean", "baseline"]
    assert len(frame) == 2 * 2
    row = frame[(frame.run == "rerank") & (frame.measure == "AP")].iloc[0]
    st = cmp.vs_baseline["rerank"]["AP"]
    assert (row["delta"], row["p_value"], row["wins"]) == (st.delta, st.p_value, st.wins)
    base = frame[frame.run == "bm25"]
    assert base["delta"].isna().all() and (base["baseline"] == "bm25").all()
    pl = cmp.to_polars()
    assert pl.shape == frame.shape and pl.columns == list(frame.columns)
    assert pl.filter(pl["run"] == "bm25")["delta"].null_count() == 2
    pairs = cmp.to_pandas(pairs=True)
    assert list(pairs.columns[:5]) == ["run", "against", "measure", "mean", "against_mean"]
    assert len(pairs) == 2 and set(pairs.against) == {"bm25"}
    three = ranklens.compare(
        qrels, {"a": runs[0], "b": runs[1], "c": runs[0]}, ["AP"], all_pairs=True
    )
    assert len(three.to_polars(pairs=True)) == 3


def test_results_html_shows_per_query_rows_on_demand() -> None:
    qrels, runs = example_paths()
    res = ranklens.evaluate(qrels, runs[0], ["AP", "nDCG@10"])
    html = res._repr_html_()
    assert "<details>" in html and "<summary>" in html
    assert all(f"<td>{q}</td>" in html for q in res.queries)
    assert html.count("<tr>") == 1 + 1 + 1 + len(res.queries)  # 2 heads, means, queries
    rs = ranklens.evaluate(qrels, list(runs), "AP")
    assert rs._repr_html_().count("<details>") == 2
    evil = ranklens.evaluate({"<b>": {"d": 1}}, {"<b>": {"d": 1.0}}, "AP")
    assert "<td>&lt;b&gt;</td>" in evil._repr_html_()


def test_dir_lists_the_public_api() -> None:
    listed = dir(ranklens)
    assert listed == sorted(ranklens.__all__)
    for name in (
        "evaluate",
        "compare",
        "Evaluator",
        "Results",
        "ResultSet",
        "Qrels",
        "Run",
        "parse_measure",
        "InputError",
        "__version__",
    ):
        assert name in listed
    for name in ranklens.__all__:
        assert getattr(ranklens, name) is not None
    assert "TYPE_CHECKING" not in listed and "annotations" not in listed


def test_cli_eval_names(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["eval", files["qrels"], files["bm25"], files["new"], "-m", "AP", "-f", "tsv", "--quiet"]
    )
    out = capsys.readouterr().out
    assert code == 0 and {line.split("\t")[0] for line in out.splitlines()[1:]} == {"bm25", "new"}
    code = main(
        [
            "eval",
            files["qrels"],
            files["bm25"],
            files["new"],
            "-m",
            "AP",
            "-f",
            "tsv",
            "--quiet",
            "--name",
            "first",
            "--name",
            "second",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and {line.split("\t")[0] for line in out.splitlines()[1:]} == {
        "first",
        "second",
    }
    code = main(["eval", files["qrels"], files["bm25"], "--name", "a", "--name", "b"])
    assert code == 2 and "--name given 2 times for 1 runs" in capsys.readouterr().err
    value = float(out.splitlines()[1].split("\t")[3])
    assert math.isfinite(value)


def test_means_is_a_deprecated_name_of_aggregate() -> None:
    """One name for the per-run values: ``aggregate`` (``means`` was wrong for sums and
    geometric means); the old name still answers, with a DeprecationWarning."""
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    runs = {"x": {"q1": {"a": 1.0}, "q2": {"c": 1.0}}, "y": {"q1": {"c": 1.0}}}
    rs = ranklens.evaluate(qrels, runs, ["AP", "NumRelRet"])
    with pytest.warns(DeprecationWarning, match="ResultSet.aggregate"):
        assert rs.means == rs.aggregate
    with pytest.warns(DeprecationWarning, match="Results.aggregate"):
        assert rs["x"].means == rs["x"].aggregate == {"AP": 0.5, "NumRelRet": 1.0}
