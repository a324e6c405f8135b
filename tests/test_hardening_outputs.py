"""Issue #23, part C: fusion near the float limits, writing files, hangs and blow-ups.

Each test fails on the code before the fix: fused scores were NaN for scores near
``±1.8e308``, TREC writers wrote ids that read back as other ids, ``--grid-out`` overwrote
inputs, atomic writes ignored the umask, the weight grid and ``--max-k`` had no bound, bad
``--step`` values were internal errors, and the report repeated its warnings.
"""

from __future__ import annotations

import io
import itertools
import math
import os
import stat
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ranklens import Qrels, Run
from ranklens.base.errors import InputError, InputWarning, OptionError
from ranklens.cli import main
from ranklens.data.output import write_atomically
from ranklens.fusion import fuse, normalize, train
from ranklens.fusion.optimize import fuse_optimize, weight_grid

BIG = 1.7976931348623157e308
FINITE = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(
    [BIG, -BIG, BIG / 2, -BIG / 3, 1e308, -1e308, 1e154, 0.0, -0.0, 5e-324, 1.0]
)
BOUNDED = ["min-max", "min-max@2", "sum", "zmuv", "rank", "borda", "max"]


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def scores_run(values: list[float]) -> dict[str, dict[str, float]]:
    return {"q": {f"d{i}": v for i, v in enumerate(values)}}


# --- 8: normalisations never overflow --------------------------------------------------


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(FINITE, min_size=1, max_size=7), st.sampled_from(BOUNDED))
def test_normalised_scores_are_finite_and_keep_each_runs_order(
    values: list[float], norm: str
) -> None:
    run = scores_run(values)
    [normalised] = normalize([run], norm)
    out = normalised.to_dict()["q"]
    assert all(math.isfinite(v) for v in out.values())
    for (a, sa), (b, sb) in itertools.permutations(run["q"].items(), 2):
        if sa > sb:
            assert out[a] >= out[b], (norm, sa, sb, out[a], out[b])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(FINITE, min_size=1, max_size=6),
    st.lists(FINITE, min_size=1, max_size=6),
    st.sampled_from(["min-max", "sum", "zmuv", "min-max@3"]),
    st.sampled_from(["comb_sum", "comb_mnz", "comb_max", "comb_med", "wsum", "comb_anz"]),
)
def test_fused_scores_are_finite(a: list[float], b: list[float], norm: str, method: str) -> None:
    fused = fuse([scores_run(a), scores_run(b)], method, norm=norm)
    assert np.isfinite(fused.scores).all()


def test_overflowing_queries_get_the_exact_values_of_unbounded_floats() -> None:
    # (s - min) / (max - min) with max - min = 2 * BIG: scaled by a power of two, exact
    [minmax] = normalize([scores_run([BIG, 0.0, -BIG])], "min-max")
    assert minmax.to_dict()["q"] == {"d0": 1.0, "d1": 0.5, "d2": 0.0}
    [total] = normalize([scores_run([BIG, BIG, 0.0])], "sum")
    assert total.to_dict()["q"] == {"d0": 0.5, "d1": 0.5, "d2": 0.0}
    # z-scores of (1, 1, -2) * c are (1, 1, -2) / sqrt(2), whatever c
    [z] = normalize([scores_run([BIG / 2, BIG / 2, -BIG])], "zmuv")
    want = normalize([scores_run([1.0, 1.0, -2.0])], "zmuv")[0].to_dict()["q"]
    assert z.to_dict()["q"] == pytest.approx(want, rel=1e-15)
    # a query that does not overflow keeps the very same arithmetic
    ordinary = {"q2": {"a": 0.3, "b": 0.1, "c": 0.7}}
    mixed = {**scores_run([BIG, -BIG]), **ordinary}
    for norm in ("min-max", "sum", "zmuv"):
        alone = normalize([ordinary], norm)[0].to_dict()["q2"]
        assert normalize([mixed], norm)[0].to_dict()["q2"] == alone


def test_zmuv_ranks_the_highest_score_first() -> None:
    run = scores_run([BIG, BIG / 2, 0.0, -BIG])
    fused = fuse([run, run], "comb_sum", norm="zmuv").to_dict()["q"]
    assert list(fused) == ["d0", "d1", "d2", "d3"]
    assert all(math.isfinite(v) for v in fused.values())


def test_raw_sums_that_overflow_are_a_clear_error() -> None:
    run = scores_run([BIG, 1.0])
    with pytest.raises(OptionError, match=r"overflows .*choose a normalisation"):
        fuse([run, run], "comb_sum", norm="none")


def test_fuse_cli_never_writes_nan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text(f"q Q0 x 1 {BIG!r} a\nq Q0 y 2 0 a\nq Q0 z 3 {-BIG!r} a\n")
    b.write_text(f"q Q0 y 1 {BIG!r} b\nq Q0 x 2 {BIG!r} b\nq Q0 z 3 {-BIG!r} b\n")
    for norm in ("min-max", "zmuv", "sum"):
        out = tmp_path / f"{norm}.run"
        code, _, err = run_cli(
            ["fuse", str(a), str(b), "--method", "comb_sum", "--norm", norm, "-o", str(out)],
            capsys,
        )
        assert code == 0, err
        fused = Run.from_file(out)  # reads back: no nan
        assert np.isfinite(fused.scores).all()
        assert next(iter(fused.to_dict()["q"])) == "x"


# --- 12: ids TREC text cannot hold ------------------------------------------------------


@pytest.mark.parametrize(
    ("docs", "named"),
    [
        ({"q": {"a b": 1.0, "c": 0.5}}, "'a b'"),
        ({"q": {"a\nq2": 1.0}}, "'a\\nq2'"),
        ({"q": {"": 1.0}}, "''"),
        ({"q": {"a\tb": 1.0}}, "'a\\tb'"),
        ({"q 1": {"a": 1.0}}, "'q 1'"),
        ({"#q": {"a": 1.0}}, "'#q'"),
    ],
)
def test_run_write_refuses_ids_trec_text_cannot_hold(
    tmp_path: Path, docs: dict[str, dict[str, float]], named: str
) -> None:
    run = Run.from_dict(docs)
    with pytest.raises(InputError, match=named.replace("\\", "\\\\")):
        run.write(io.StringIO())
    path = tmp_path / "out.run"
    with pytest.raises(InputError, match="cannot be written as TREC text"):
        run.write(path)
    assert not path.exists()


def test_run_write_names_the_query_and_refuses_a_broken_tag() -> None:
    run = Run.from_dict({"q7": {"ok": 2.0, "bad id": 1.0}})
    with pytest.raises(InputError, match=r"'bad id' of query 'q7'"):
        run.write(io.StringIO())
    good = Run.from_dict({"q": {"a": 1.0}})
    for tag in ("two\nlines", "   ", "a\x00b"):
        with pytest.raises(InputError, match="run tag"):
            good.write(io.StringIO(), name=tag)
    stream = io.StringIO()
    good.write(stream, name="with space")  # the last column: only its first word reads back
    assert stream.getvalue() == "q Q0 a 1 1.0 with space\n"


def test_qrels_write_refuses_ids_trec_text_cannot_hold(tmp_path: Path) -> None:
    for docs in ({"q": {"a b": 1}}, {"q x": {"a": 1}}, {"q": {"": 1}}, {"#c": {"a": 1}}):
        qrels = Qrels.from_dict(docs)
        path = tmp_path / "qrels.txt"
        with pytest.raises(InputError, match="cannot be written as TREC text"):
            qrels.write(path)
        assert not path.exists()
    fine = Qrels.from_dict({"q": {"d": 2}})
    stream = io.StringIO()
    fine.write(stream)
    assert stream.getvalue() == "q 0 d 2\n"


def test_fused_run_with_a_bad_id_is_refused_before_writing(tmp_path: Path) -> None:
    fused = fuse([{"q": {"a b": 1.0, "c": 0.5}}, {"q": {"c": 1.0}}], "rrf")
    with pytest.raises(InputError, match="'a b'"):
        fused.write(tmp_path / "fused.run")
    assert not (tmp_path / "fused.run").exists()


# --- 13: --grid-out follows -o's rules --------------------------------------------------


@pytest.fixture
def fuse_files(tmp_path: Path) -> dict[str, Path]:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n")
    a = tmp_path / "a.run"
    a.write_text("q1 Q0 a 1 3 a\nq1 Q0 b 2 2 a\nq2 Q0 c 1 1 a\nq2 Q0 a 2 0.5 a\n")
    b = tmp_path / "b.run"
    b.write_text("q1 Q0 b 1 9 b\nq1 Q0 a 2 1 b\nq2 Q0 a 1 4 b\nq2 Q0 c 2 3 b\n")
    return {"qrels": qrels, "a": a, "b": b}


def _optimize_args(files: dict[str, Path], *extra: str) -> list[str]:
    return [
        "fuse",
        str(files["a"]),
        str(files["b"]),
        "--optimize",
        str(files["qrels"]),
        "--method",
        "wsum",
        "--step",
        "0.5",
        "--quiet",
        *extra,
    ]


def test_grid_out_never_overwrites_an_input_and_fails_before_optimising(
    fuse_files: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import ranklens.fusion

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the optimisation ran before the output was checked")

    monkeypatch.setattr(ranklens.fusion, "fuse_optimize", refuse)
    before = fuse_files["qrels"].read_bytes()
    for force in ([], ["--force"]):
        code, _, err = run_cli(
            _optimize_args(fuse_files, "--grid-out", str(fuse_files["qrels"]), *force), capsys
        )
        assert code == 2 and "is one of the input files" in err and err.count("\n") == 1
    assert fuse_files["qrels"].read_bytes() == before
    grid = fuse_files["qrels"].parent / "grid.csv"
    grid.write_text("keep me\n")
    code, _, err = run_cli(_optimize_args(fuse_files, "--grid-out", str(grid)), capsys)
    assert code == 2 and "exists; give --force" in err
    assert grid.read_text() == "keep me\n"
    code, _, err = run_cli(
        _optimize_args(fuse_files, "--grid-out", str(grid), "-o", str(grid), "--force"), capsys
    )
    assert code == 2 and "both name" in err


def test_grid_out_replaces_a_link_only_with_force(
    fuse_files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = fuse_files["qrels"].parent
    target = folder / "target.csv"
    target.write_text("target\n")
    link = folder / "link.csv"
    link.symlink_to(target)
    code, _, err = run_cli(_optimize_args(fuse_files, "--grid-out", str(link)), capsys)
    assert code == 2 and "symbolic link" in err
    code, _, err = run_cli(_optimize_args(fuse_files, "--grid-out", str(link), "--force"), capsys)
    assert code == 0, err
    assert not link.is_symlink() and target.read_text() == "target\n"
    rows = link.read_text().splitlines()
    assert rows[0] == "weights,nDCG@10" and len(rows) == 1 + 3  # weights 0, 0.5, 1


# --- 14: permissions and interrupted writes ---------------------------------------------


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_files_follow_the_umask_and_replaced_files_keep_their_mode(tmp_path: Path) -> None:
    old = os.umask(0o077)
    try:
        write_atomically(tmp_path / "private.txt", "x")
        os.umask(0o022)
        write_atomically(tmp_path / "public.txt", "x")
        secret = tmp_path / "secret.txt"
        secret.write_text("old")
        secret.chmod(0o600)
        write_atomically(secret, "new", force=True)
    finally:
        os.umask(old)
    assert _mode(tmp_path / "private.txt") == 0o600
    assert _mode(tmp_path / "public.txt") == 0o644
    assert _mode(secret) == 0o600 and secret.read_text() == "new"


@pytest.mark.parametrize("interruption", [KeyboardInterrupt, OSError])
def test_an_interrupted_write_leaves_no_temporary_file(
    tmp_path: Path, interruption: type[BaseException]
) -> None:
    target = tmp_path / "out.run"
    target.write_text("before\n")

    def chunks():  # type: ignore[no-untyped-def]
        yield b"x" * 1_000_000
        raise interruption("stop")

    with pytest.raises(interruption):
        write_atomically(target, chunks(), force=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.run"]
    assert target.read_text() == "before\n"


# --- 15 and 21: the weight grid ---------------------------------------------------------


@pytest.mark.parametrize(("n", "step"), [(1, 0.5), (2, 0.25), (3, 0.1), (4, 0.2), (5, 0.5)])
def test_weight_grid_is_the_compositions_in_the_old_order(n: int, step: float) -> None:
    from ranklens.fusion.optimize import weight_grid_size

    units = round(1 / step)
    old = [
        tuple(round(c * step, 10) for c in combo)
        for combo in itertools.product(range(units + 1), repeat=n)
        if sum(combo) == units
    ]
    assert weight_grid(n, step) == old
    assert weight_grid_size(n, step) == len(old)


def test_weight_grids_over_the_limit_are_refused_with_their_size() -> None:
    from ranklens.fusion.optimize import MAX_GRID, weight_grid_size

    assert weight_grid_size(10, 0.1) == math.comb(19, 9) <= MAX_GRID
    with pytest.raises(OptionError, match=r"352,716 weightings.*limit of 100,000.*--step"):
        weight_grid(12, 0.1)
    with pytest.raises(OptionError, match="1,000,001 weightings"):
        weight_grid(2, 1e-6)


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ("0", "in \\(0, 1\\]"),
        ("nan", "in \\(0, 1\\]"),
        ("1e-300", "1e\\+300 weightings"),
        ("0.3", "must divide 1"),
        ("-0.5", "in \\(0, 1\\]"),
    ],
)
def test_bad_steps_are_one_line_errors(
    fuse_files: dict[str, Path], capsys: pytest.CaptureFixture[str], step: str, message: str
) -> None:
    argv = _optimize_args(fuse_files)
    argv[argv.index("--step") + 1] = step
    code, _, err = run_cli(argv, capsys)
    assert code == 2 and err.count("\n") == 1 and "internal error" not in err
    assert "step" in err
    import re

    assert re.search(message, err), err


def test_a_bad_step_is_refused_even_where_the_grid_has_no_weights(
    fuse_files: dict[str, Path],
) -> None:
    with pytest.raises(OptionError, match="step"):
        fuse_optimize(fuse_files["qrels"], [fuse_files["a"], fuse_files["b"]], "rrf", step=0.0)


def test_training_without_a_shared_query_is_a_clear_error() -> None:
    qrels = {"qa": {"a": 1}}
    runs = [{"qa": {"a": 1.0}}, {"qb": {"a": 1.0, "b": 0.5}}]
    for method in ("probfuse", "posfuse", "segfuse", "bayesfuse", "slidefuse"):
        with pytest.raises(InputError, match=r"run 2 .*shares no query with the training qrels"):
            train(method, qrels, runs)


def test_fuse_cli_probfuse_without_a_shared_query(
    fuse_files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    other = fuse_files["qrels"].parent / "other.qrels"
    other.write_text("zz 0 a 1\n")
    code, _, err = run_cli(
        [
            "fuse",
            str(fuse_files["a"]),
            str(fuse_files["b"]),
            "--method",
            "probfuse",
            "--train",
            str(other),
        ],
        capsys,
    )
    assert code == 2 and "shares no query" in err and "internal error" not in err


def test_fusing_one_run_is_a_one_line_error(
    fuse_files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(["fuse", str(fuse_files["a"])], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "at least two runs" in err


# --- 16: cut-off curves stop at the longest ranking ------------------------------------


def test_cutoff_curves_stop_at_the_longest_ranking() -> None:
    from ranklens.presentation.plots.data import cutoff_data

    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    runs = {"x": {"q1": {"a": 3.0, "z": 2.0, "b": 1.0}, "q2": {"c": 1.0}}}
    data = cutoff_data(qrels, runs, ["P", "R"], max_k=1000)
    assert data.ks.tolist() == [1, 2, 3]
    small = cutoff_data(qrels, runs, ["P", "R"], max_k=2)
    assert small.ks.tolist() == [1, 2]
    assert data.values[..., :2].tolist() == small.values.tolist()
    with_depth = cutoff_data(qrels, runs, ["P"], max_k=50, depth=2)
    assert with_depth.ks.tolist() == [1, 2]


def test_plot_cutoff_cli_with_a_huge_max_k(
    fuse_files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    out = fuse_files["qrels"].parent / "cutoff.svg"
    code, _, err = run_cli(
        [
            "plot",
            "cutoff",
            str(fuse_files["qrels"]),
            str(fuse_files["a"]),
            "--max-k",
            "100000000",
            "-o",
            str(out),
            "--quiet",
        ],
        capsys,
    )
    assert code == 0, err
    assert out.stat().st_size > 0


# --- 23: the report warns once, with advice that applies -----------------------------


def test_report_warns_once_and_works_with_queries_both(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from ranklens.presentation.reporting import build_report

    qrels = {f"q{i}": {"a": 1, "b": 0} for i in range(6)}
    partial = {"q0": {"a": 1.0, "b": 2.0}, "q1": {"b": 1.0}}
    full = {f"q{i}": {"a": 2.0, "b": 1.0} for i in range(6)}
    runs = {"partial": partial, "full": full}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build_report(qrels, runs, ["AP"], explain_limit=2)
    said = [str(w.message) for w in caught if issubclass(w.category, InputWarning)]
    assert len(said) == 1 and "'partial'" in said[0]
    assert "ranklens eval" not in said[0]  # the advice names the option, not another command
    html = build_report(qrels, runs, ["AP"], queries="both", explain_limit=2)
    assert "full - partial, AP, per query" in html
