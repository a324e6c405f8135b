"""Plots (:mod:`ranklens.presentation.plots`): the data handed to matplotlib equals what
:mod:`ranklens.analysis.curves` and :func:`ranklens.evaluate` compute, the files written are valid,
every run is drawn with its own line style and marker (greyscale-safe), errors.

Pixels are never compared: each test reads back the arrays of the drawn artists.
"""

from __future__ import annotations

import copy
import io
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.figure import Figure

import ranklens
from ranklens.analysis.curves import (
    STANDARD_LEVELS,
    interpolated_pr,
    pr_curve,
    roc_curve,
    roc_optimal_cutoffs,
)
from ranklens.base.errors import MeasureError, MissingDependencyError, OptionError
from ranklens.data.examples import example_paths
from ranklens.presentation.plots import plot_cutoff, plot_delta, plot_dist, plot_pr, plot_roc
from ranklens.presentation.plots._style import LINESTYLES, MARKERS, style
from ranklens.presentation.plots.data import (
    average_roc,
    cutoff_data,
    delta_data,
    dist_data,
    named_runs,
    roc_data,
)

# q1: graded, ties (b and c at 0.8), an unjudged document (x), an unretrieved relevant one (e)
QRELS = {
    "q1": {"a": 1, "b": 0, "c": 2, "d": 0, "e": 1},
    "q2": {"a": 0, "b": 1, "c": 0},
    "q3": {"a": 1, "b": 0},
}
RUN_A = {
    "q1": {"a": 0.9, "b": 0.8, "c": 0.8, "x": 0.7, "d": 0.1},
    "q2": {"a": 2.0, "b": 1.0, "c": 0.5},
    "q3": {"b": 1.0, "a": 0.5},
}
RUN_B = {
    "q1": {"c": 0.9, "e": 0.8, "a": 0.7, "b": 0.1},
    "q2": {"b": 2.0, "a": 1.0},
    "q3": {"a": 1.0, "b": 0.5},
}
RUN_C = {"q1": {"d": 1.0, "a": 0.5}, "q2": {"c": 1.0}, "q3": {"a": 1.0}}
RUNS = {"A": RUN_A, "B": RUN_B}


@pytest.fixture(scope="module")
def example() -> tuple[str, list[str]]:
    qrels, runs = example_paths()
    return str(qrels), [str(r) for r in runs]


def lines_by_label(fig: Figure, axes: int = 0) -> dict[str, np.ndarray]:
    return {line.get_label(): line.get_xydata() for line in fig.axes[axes].lines}


def line_of(fig: Figure, label: str, axes: int = 0):
    [line] = [x for x in fig.axes[axes].lines if x.get_label() == label]
    return line


# ---------------------------------------------------------------------------------- runs


def test_named_runs_accepts_every_form_and_makes_names_unique() -> None:
    assert [n for n, _ in named_runs(RUN_A)] == ["run"]
    assert [n for n, _ in named_runs([RUN_A, RUN_B])] == ["run", "run (2)"]
    assert [n for n, _ in named_runs(RUNS)] == ["A", "B"]
    run = ranklens.Run.from_dict(RUN_A, name="sys")
    assert [n for n, _ in named_runs({"x": run, "y": run})] == ["x", "y"]
    assert [n for n, _ in named_runs((run, run))] == ["sys", "sys (2)"]
    records = [("q1", "a", 1.0), ("q1", "b", 0.5)]
    [(name, one)] = named_runs(records)
    assert name == "run" and len(one) == 2


def test_inputs_are_not_mutated() -> None:
    qrels, runs = copy.deepcopy(QRELS), copy.deepcopy(RUNS)
    plot_pr(qrels, runs, query="q1")
    plot_roc(qrels, runs)
    plot_cutoff(qrels, runs, max_k=3)
    assert qrels == QRELS and runs == RUNS


# ------------------------------------------------------------------------ precision-recall


def test_pr_one_query_draws_the_raw_and_interpolated_curves() -> None:
    fig = plot_pr(QRELS, RUNS, query="q1")
    assert isinstance(fig, Figure)
    drawn = lines_by_label(fig)
    assert list(drawn) == ["A", "A, interpolated", "B", "B, interpolated"]
    for name, run in RUNS.items():
        curve = pr_curve(QRELS, run, query="q1")
        np.testing.assert_array_equal(drawn[name], np.column_stack((curve.recall, curve.precision)))
        ip = interpolated_pr(QRELS, run)
        expected = ip.per_query()["q1"]
        np.testing.assert_array_equal(
            drawn[f"{name}, interpolated"], np.column_stack((STANDARD_LEVELS, expected))
        )
    assert fig.axes[0].get_xlabel() == "Recall" and fig.axes[0].get_ylabel() == "Precision"
    assert "q1" in fig.axes[0].get_title()


def test_pr_hand_computed_sawtooth() -> None:
    # q1 of run A (ties docid descending): a(1) c(2) b(0) x(-) d(0); R = 3
    drawn = lines_by_label(plot_pr(QRELS, RUN_A, query="q1", interpolated=False))
    assert list(drawn) == ["run"]
    np.testing.assert_allclose(
        drawn["run"], [[1 / 3, 1], [2 / 3, 1], [2 / 3, 2 / 3], [2 / 3, 1 / 2], [2 / 3, 2 / 5]]
    )


def test_pr_mean_is_the_mean_interpolated_curve_and_equals_iprec() -> None:
    levels = np.linspace(0, 1, 21)
    fig = plot_pr(QRELS, RUNS, levels=levels)
    drawn = lines_by_label(fig)
    assert list(drawn) == ["A", "B"]
    for name, run in RUNS.items():
        mean = interpolated_pr(QRELS, run, levels).mean
        np.testing.assert_array_equal(drawn[name], np.column_stack((levels, mean)))
    res = ranklens.evaluate(QRELS, RUN_A, ["IPrec@0.5"])
    assert drawn["A"][10, 1] == pytest.approx(res["IPrec@0.5"])
    assert "mean over 3 queries" in fig.axes[0].get_title()


def test_pr_errors() -> None:
    with pytest.raises(OptionError, match="per query only"):
        plot_pr(QRELS, RUNS, interpolated=False)
    with pytest.raises(OptionError, match="'nope'"):
        plot_pr(QRELS, RUNS, query="nope")
    with pytest.raises(OptionError, match="unknown option"):
        plot_pr(QRELS, RUNS, tie="input")


# ------------------------------------------------------------------------------------ ROC


@pytest.mark.parametrize("criterion", ["youden", "distance", "product"])
def test_roc_one_query_curve_auc_and_optimal_cutoff(criterion: str) -> None:
    fig = plot_roc(QRELS, RUNS, query="q1", cutoff=criterion)
    lines = fig.axes[0].lines
    assert lines[0].get_label() == "chance"
    attribute = {"youden": "youden", "distance": "closest", "product": "product"}[criterion]
    for i, (name, run) in enumerate(RUNS.items()):
        curve_line, best_line = lines[1 + 2 * i], lines[2 + 2 * i]
        curve = roc_curve(QRELS, run, query="q1")
        np.testing.assert_array_equal(
            curve_line.get_xydata(), np.column_stack((curve.fpr, curve.tpr))
        )
        assert curve_line.get_label() == f"{name} (AUC = {curve.auc:.3f})"
        best = getattr(roc_optimal_cutoffs(QRELS, run, query="q1"), attribute)
        np.testing.assert_array_equal(best_line.get_xydata(), [[best.fpr, best.tpr]])
        assert f"at k = {best.cutoff}" in best_line.get_label()


def test_roc_mean_is_the_vertical_average_and_its_area_is_the_mean_auc(example) -> None:
    qrels, runs = example
    fig = plot_roc(qrels, runs)
    data = roc_data(qrels, runs)
    for i, (s, run) in enumerate(zip(data.series, runs, strict=True)):
        drawn = fig.axes[0].lines[1 + 2 * i].get_xydata()
        np.testing.assert_array_equal(drawn, np.column_stack((s.fpr, s.tpr)))
        auc = ranklens.evaluate(qrels, run, "AUC")["AUC"]
        area = np.sum(np.diff(drawn[:, 0]) * (drawn[1:, 1] + drawn[:-1, 1]) / 2)
        assert s.auc == pytest.approx(auc, abs=1e-12)
        assert area == pytest.approx(auc, abs=1e-12)
        assert f"mean AUC = {auc:.3f}" in fig.axes[0].lines[1 + 2 * i].get_label()
        assert np.all(np.diff(drawn[:, 0]) >= 0) and np.all(np.diff(drawn[:, 1]) >= -1e-12)
        best = s.best
        assert best.cutoff is None
        assert best.value == pytest.approx(np.max(drawn[:, 1] - drawn[:, 0]))


def test_average_roc_by_hand_with_degenerate_queries() -> None:
    qrels = {"a": {"x": 1, "y": 0}, "b": {"x": 1}, "c": {"x": 0, "y": 1, "z": 0}}
    run = {"a": {"x": 2, "y": 1}, "b": {"x": 1}, "c": {"x": 3, "y": 2, "z": 1}}
    curves = roc_curve(qrels, run)
    fpr, tpr = average_roc(list(curves.values()))
    # a: (0,0) (0,1) (1,1); b: no judged non-relevant document, the zero curve;
    # c: (0,0) (.5,0) (.5,1) (1,1)
    np.testing.assert_allclose(fpr, [0, 0, 0.5, 0.5, 1])
    np.testing.assert_allclose(tpr, [0, 1 / 3, 1 / 3, 2 / 3, 2 / 3])
    area = np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2)
    assert area == pytest.approx(ranklens.evaluate(qrels, run, "AUC")["AUC"])


def test_roc_errors() -> None:
    with pytest.raises(OptionError, match="cutoff must be one of"):
        plot_roc(QRELS, RUNS, cutoff="closest!")
    with pytest.raises(OptionError, match="'nope'"):
        plot_roc(QRELS, RUNS, query="nope")


# ------------------------------------------------------------------------------ cut-offs


def test_cutoff_lines_equal_evaluate_at_each_k() -> None:
    fig = plot_cutoff(QRELS, RUNS, ["P", "nDCG", "R(rel=2)"], max_k=5)
    assert len(fig.axes) == 3
    for j, measure in enumerate(["P", "nDCG", "R(rel=2)"]):
        drawn = lines_by_label(fig, j)
        assert list(drawn) == ["A", "B"]
        assert fig.axes[j].get_ylabel() == f"{measure}@k"
        for name, run in RUNS.items():
            res = ranklens.evaluate(QRELS, run, [f"{measure}@{k}" for k in range(1, 6)])
            expected = [res[f"{measure}@{k}"] for k in range(1, 6)]
            np.testing.assert_array_equal(drawn[name], np.column_stack((range(1, 6), expected)))


def test_cutoff_to_100_on_the_example_is_fast_and_exact(example) -> None:
    import time

    qrels, runs = example
    start = time.perf_counter()
    data = cutoff_data(qrels, runs, max_k=100)
    assert time.perf_counter() - start < 2.0  # about 0.03 s
    assert data.values.shape == (2, 3, 100) and data.runs == ("bm25", "rerank")
    res = ranklens.evaluate(qrels, runs[1], ["P@7", "R@100", "nDCG@1"])
    assert data.values[1, 0, 6] == res["P@7"]
    assert data.values[1, 1, 99] == res["R@100"]
    assert data.values[1, 2, 0] == res["nDCG@1"]


def test_cutoff_errors() -> None:
    with pytest.raises(MeasureError, match="give P, not P@10"):
        plot_cutoff(QRELS, RUNS, ["P@10"])
    with pytest.raises(MeasureError, match="no cut-off"):
        plot_cutoff(QRELS, RUNS, ["Rprec"])
    with pytest.raises(MeasureError):
        plot_cutoff(QRELS, RUNS, ["Nope"])
    with pytest.raises(OptionError, match="max_k"):
        plot_cutoff(QRELS, RUNS, ["P"], max_k=0)
    fig = Figure()
    with pytest.raises(OptionError, match="one Axes per measure"):
        plot_cutoff(QRELS, RUNS, ["P", "R"], ax=fig.add_subplot())


# ----------------------------------------------------------------- per-query comparisons


def test_delta_bars_are_the_sorted_differences() -> None:
    a = ranklens.evaluate(QRELS, RUN_A, ["AP", "nDCG@3"])
    b = ranklens.evaluate(QRELS, RUN_B, ["AP", "nDCG@3"])
    fig = plot_delta(a, b, "AP")
    ax = fig.axes[0]
    heights = [bar.get_height() for bar in ax.containers[0]]
    diff = np.array([b.per_query[q]["AP"] - a.per_query[q]["AP"] for q in a.queries])
    np.testing.assert_array_equal(heights, np.sort(diff)[::-1])
    data = delta_data(a, b, "AP")
    assert [t.get_text() for t in ax.get_xticklabels()] == list(data.queries)
    wins, losses = int((diff > 0).sum()), int((diff < 0).sum())
    assert (data.wins, data.losses, data.ties) == (wins, losses, 3 - wins - losses)
    assert f"{wins} higher, {losses} lower" in ax.get_title()
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert f"run higher: {wins}" in legend[0]
    assert any(line.get_xydata()[0, 1] == 0 for line in ax.lines)  # the zero line
    # lower bars are hatched, so the plot survives greyscale printing
    assert all(
        bool(bar.get_hatch()) == (h < 0) for bar, h in zip(ax.containers[0], heights, strict=True)
    )
    # the method on Results is the same plot
    again = a.plot_delta(b, "AP").axes[0]
    assert [bar.get_height() for bar in again.containers[0]] == heights


def test_delta_sorts_ties_by_query_and_rejects_different_queries() -> None:
    qrels = {"q1": {"d": 1}, "q2": {"d": 1}, "q3": {"d": 1}}
    a = ranklens.evaluate(qrels, {"q1": {"d": 1, "x": 2}, "q2": {"d": 1}}, "RR")
    b = ranklens.evaluate(qrels, {"q1": {"d": 1}, "q2": {"d": 1, "x": 2}}, "RR")
    d = delta_data(a, b, "RR")
    assert d.queries == ("q1", "q3", "q2") and d.delta.tolist() == [0.5, 0.0, -0.5]
    other = ranklens.evaluate({"q1": {"d": 1}}, {"q1": {"d": 1}}, "RR")
    with pytest.raises(OptionError, match="different queries"):
        plot_delta(a, other, "RR")
    with pytest.raises(KeyError):
        plot_delta(a, b, "AP")


@pytest.mark.parametrize("kind", ["box", "violin"])
def test_dist_draws_each_runs_values_and_mean(kind: str) -> None:
    results = [ranklens.evaluate(QRELS, run, ["AP", "P@2"]) for run in (RUN_A, RUN_B, RUN_C)]
    fig = plot_dist(results, "AP", style=kind)
    ax = fig.axes[0]
    values = [np.array([r.per_query[q]["AP"] for q in r.queries]) for r in results]
    means = line_of(fig, "mean").get_xydata()
    np.testing.assert_array_equal(means, [[i + 1, r["AP"]] for i, r in enumerate(results)])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["run", "run (2)", "run (3)"]
    if kind == "box":
        names = dist_data(results, "AP").runs
        for name, v in zip(names, values, strict=True):
            [median] = [x for x in ax.lines if x.get_gid() == f"median {name}"]
            assert median.get_ydata()[0] == pytest.approx(np.median(v))
        bodies = ax.patches
    else:
        bodies = ax.collections[:3]
        [collection] = [c for c in ax.collections if c.get_gid() == "medians"]
        medians = [seg[0, 1] for seg in collection.get_segments()]
        np.testing.assert_allclose(medians, [np.median(v) for v in values])
    hatches = [b.get_hatch() or "" for b in bodies]
    assert len(set(hatches)) == 3  # several runs: one hatch each
    assert ax.get_ylabel() == "AP"


def test_dist_of_a_gmean_measure_marks_the_geometric_mean_and_results_method() -> None:
    res = ranklens.evaluate(QRELS, RUN_A, ["GMAP", "NumRel"])
    fig = res.plot_dist("GMAP")
    assert line_of(fig, "geometric mean").get_ydata()[0] == pytest.approx(res["GMAP"])
    counts = dist_data(res, "NumRel")
    assert counts.centers == (pytest.approx(np.mean(counts.values[0])),)
    violin = res.plot_dist("NumRel", style="violin")
    assert len(violin.axes[0].collections) >= 1
    with pytest.raises(OptionError, match="style must be one of"):
        plot_dist([res], "GMAP", style="bars")
    with pytest.raises(OptionError, match="at least one"):
        plot_dist([], "GMAP")


# --------------------------------------------------------------- look, files, ax=, deps


def test_style_cycle_is_greyscale_safe() -> None:
    pairs = {(style(i).linestyle, style(i).marker) for i in range(len(LINESTYLES) * len(MARKERS))}
    assert len(pairs) == 28
    assert len({style(i).hatch for i in range(7)}) == 7


def test_each_run_has_its_own_linestyle_and_marker_in_every_line_plot() -> None:
    runs = {"A": RUN_A, "B": RUN_B, "C": RUN_C, "D": RUN_A, "E": RUN_B}
    figures = [
        (plot_pr(QRELS, runs), 0, 1),
        (plot_pr(QRELS, runs, query="q1", interpolated=False), 0, 1),
        (plot_roc(QRELS, runs), 1, 2),
        (plot_cutoff(QRELS, runs, ["P"], max_k=3), 0, 1),
    ]
    for fig, first, step in figures:
        lines = fig.axes[0].lines[first::step]
        assert [x.get_label().split(" ")[0].rstrip(":,") for x in lines] == list(runs)
        looks = {(x.get_linestyle(), x.get_marker()) for x in lines}
        assert len(looks) == len(runs)
        assert len({x.get_linestyle() for x in lines[:4]}) == 4
        assert len({x.get_marker() for x in lines}) == len(runs)


@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
def test_written_files_are_valid(fmt: str) -> None:
    fig = plot_roc(QRELS, RUNS, query="q1")
    out = io.BytesIO()
    fig.savefig(out, format=fmt)
    data = out.getvalue()
    assert len(data) > 1000
    if fmt == "png":
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert (width, height) == (800, 500)
    elif fmt == "svg":
        assert ET.fromstring(data).tag.endswith("svg")
    else:
        assert data.startswith(b"%PDF")


def test_ax_draws_into_an_existing_axes() -> None:
    fig = Figure()
    left, right = fig.subplots(1, 2)
    assert plot_pr(QRELS, RUNS, ax=left) is fig
    a, b = (ranklens.evaluate(QRELS, r, "AP") for r in (RUN_A, RUN_B))
    assert plot_delta(a, b, "AP", ax=right) is fig
    assert len(left.lines) == 2 and len(right.containers) == 1
    sub = Figure().subfigures(1, 2)[0]
    ax = sub.add_subplot()
    assert isinstance(plot_cutoff(QRELS, RUNS, "P", max_k=2, ax=ax), Figure)
    res = ranklens.evaluate(QRELS, RUN_A, "AP")
    assert res.plot_dist("AP", ax=ax) is not None


def test_missing_matplotlib_names_the_install(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingDependencyError, match="pip install"):
        plot_pr(QRELS, RUNS)
    res = ranklens.evaluate(QRELS, RUN_A, "AP")
    with pytest.raises(MissingDependencyError, match="matplotlib"):
        res.plot_dist("AP")


def test_importing_ranklens_plots_does_not_import_matplotlib() -> None:
    code = (
        "import sys, ranklens.presentation.plots, ranklens.cli; ranklens.cli.build_parser(); "
        "print('matplotlib' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
