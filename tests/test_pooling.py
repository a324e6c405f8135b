"""Pools (ranklens.pool, ranklens pool): against direct computations, trectools, and by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.analysis.pooling import Pool
from ranklens.base.errors import OptionError
from ranklens.cli import main

DOCS = ["a", "b", "c", "d", "e", "f", "g", "h"]
QUERIES = ["1", "2", "10"]
RunDict = dict[str, dict[str, float]]

runs_strategy = st.lists(
    st.dictionaries(
        st.sampled_from(QUERIES),
        st.dictionaries(st.sampled_from(DOCS), st.sampled_from([0.1, 0.2, 0.5]), min_size=1),
        min_size=1,
    ),
    min_size=1,
    max_size=4,
)


def ranked(run: dict[str, float]) -> list[str]:
    """trec_eval's order, computed directly: score descending, then docid descending."""
    return [d for d, _ in sorted(run.items(), key=lambda item: (item[1], item[0]), reverse=True)]


def expected_pool(
    runs: list[RunDict], value: str, depth: int | None, budget: int | None, p: float, k: float
) -> tuple[dict[str, list[str]], dict[tuple[str, str], tuple[int, ...]]]:
    pooled: dict[str, list[str]] = {}
    contributors: dict[tuple[str, str], tuple[int, ...]] = {}
    for qid in sorted({q for run in runs for q in run}):
        members: dict[str, list[int]] = {}
        score: dict[str, float] = {}
        for i, run in enumerate(runs):
            order = ranked(run.get(qid, {}))
            for rank, doc in enumerate(order[:depth] if depth else order, start=1):
                members.setdefault(doc, []).append(i)
                if value == "depth":
                    score[doc] = max(score.get(doc, -math.inf), -rank)
                elif value == "rbp":
                    score[doc] = score.get(doc, 0.0) + (1 - p) * p ** (rank - 1)
                else:
                    score[doc] = score.get(doc, 0.0) + 1 / (k + rank)
        chosen = sorted(members, key=lambda d: (score[d], d), reverse=True)
        if budget is not None:
            chosen = chosen[:budget]
        pooled[qid] = sorted(chosen)
        contributors.update({(qid, d): tuple(members[d]) for d in chosen})
    return pooled, contributors


def check(
    made: Pool, want: tuple[dict[str, list[str]], dict[tuple[str, str], tuple[int, ...]]]
) -> None:
    pooled, contributors = want
    assert made.to_dict() == pooled
    got = {(q, d): members for q, docs in made.documents.items() for d, members in docs.items()}
    assert got == contributors


@settings(max_examples=40, deadline=None)
@given(runs_strategy, st.integers(1, 5), st.none() | st.integers(1, 6))
def test_depth_pool_is_the_union_of_each_runs_top_k(
    runs: list[RunDict], depth: int, budget: int | None
) -> None:
    made = ranklens.pool(runs, "depth", depth=depth, budget=budget)
    check(made, expected_pool(runs, "depth", depth, budget, 0.8, 60))
    if budget is None:  # the plain depth pool: exactly the union of the top-K sets
        union = {(q, d) for run in runs for q, r in run.items() for d in ranked(r)[:depth]}
        assert {(q, d) for q, docs in made.to_dict().items() for d in docs} == union


@settings(max_examples=40, deadline=None)
@given(
    runs_strategy,
    st.sampled_from(["rbp", "rrf"]),
    st.integers(1, 6),
    st.none() | st.integers(1, 5),
    st.sampled_from([0.5, 0.8, 0.95]),
    st.sampled_from([0, 1, 60]),
)
def test_rbp_and_rrf_pools_take_the_budget_best_fused_documents(
    runs: list[RunDict], strategy: str, budget: int, depth: int | None, p: float, k: int
) -> None:
    made = ranklens.pool(runs, strategy, depth=depth, budget=budget, p=p, k=k)
    check(made, expected_pool(runs, strategy, depth, budget, p, k))
    assert all(size <= budget for size in made.sizes().values())


def test_rrf_pool_is_the_top_of_ranklens_fuse_rrf() -> None:
    runs = [
        {"1": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5}, "2": {"x": 1.0, "y": 2.0}},
        {"1": {"c": 9.0, "e": 8.0, "a": 7.0}, "2": {"y": 1.0, "z": 0.5}},
        {"1": {"e": 1.0, "d": 0.9, "f": 0.8}},
    ]
    fused = ranklens.fuse(runs, "rrf", params={"k": 60})
    top = {q: ranked(docs)[:3] for q, docs in fused.to_dict().items()}
    made = ranklens.pool(runs, "rrf", budget=3, k=60)
    assert made.to_dict() == {q: sorted(docs) for q, docs in top.items()}


def test_statistics_by_hand() -> None:
    a = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7}, "q2": {"d5": 0.5}}
    b = {"q1": {"d2": 0.9, "d4": 0.8, "d9": 0.1}}
    qrels = {"q1": {"d1": 1, "d2": 1, "d3": 0, "d4": -1}, "q2": {"d5": 2}}
    made = ranklens.pool([a, b], depth=2)
    # q1: a's top 2 {d1, d2}, b's top 2 {d2, d4}; q2: {d5}
    assert made.to_dict() == {"q1": ["d1", "d2", "d4"], "q2": ["d5"]}
    stats = ranklens.pool_statistics(made, [a, b], qrels, ["P@2"])
    assert stats.sizes == {"q1": 3, "q2": 1} and stats.total == 4
    sa, sb = stats.runs
    assert (sa.name, sb.name) == ("run1", "run2")
    assert dict(sa.contributed) == {"q1": 2, "q2": 1} and dict(sb.contributed) == {"q1": 2, "q2": 0}
    assert sa.share == 3 / 4 and sb.share == 2 / 4
    assert dict(sa.unique) == {"q1": 1, "q2": 1} and dict(sb.unique) == {"q1": 1, "q2": 0}
    # a's unique: d1 (rel 1), d5 (rel 2); b's unique: d4 (rel -1: pooled, not judged)
    assert (sa.unique_judged, sa.unique_relevant) == (2, 2)
    assert (sb.unique_judged, sb.unique_relevant) == (0, 0)
    # a: P@2 q1 = 2/2, q2 = 1/2 -> 0.75; without d1 and d5: q1 keeps d2 -> 1/2, q2 leaves
    # the qrels (no judgment left) -> mean over q1 alone = 0.5
    assert sa.scores == {"P@2": 0.75} and sa.scores_without == {"P@2": 0.5}
    assert sa.change == {"P@2": -0.25}
    # b: q1 d2 relevant -> 1/2, q2 missing -> 0: mean 0.25, and d4's removal changes nothing
    assert sb.scores == {"P@2": 0.25} and sb.change == {"P@2": 0.0}
    counts_only = ranklens.pool_statistics(made, [a, b])
    assert counts_only.runs[0].unique_judged is None and counts_only.runs[0].scores is None


@pytest.mark.filterwarnings("ignore:.*missing from run:ranklens.base.errors.InputWarning")
@settings(max_examples=20, deadline=None)
@given(runs_strategy, st.integers(1, 4))
def test_leave_one_run_out_equals_evaluating_with_edited_qrels(
    runs: list[RunDict], depth: int
) -> None:
    qrels = {
        q: {d: (i % 3) - (1 if i % 5 == 4 else 0) for i, d in enumerate(DOCS)} for q in QUERIES
    }
    measures = ["AP", "P@3", "bpref", "nDCG@5"]
    made = ranklens.pool(runs, depth=depth)
    stats = ranklens.pool_statistics(made, runs, qrels, measures)
    for i, (run, got) in enumerate(zip(runs, stats.runs, strict=True)):
        unique = {
            (q, d) for q, docs in made.documents.items() for d, m in docs.items() if m == (i,)
        }
        edited = {
            q: {d: r for d, r in docs.items() if (q, d) not in unique} for q, docs in qrels.items()
        }
        edited = {q: docs for q, docs in edited.items() if docs}
        full = ranklens.evaluate(qrels, run, measures).aggregate
        without = ranklens.evaluate(edited, run, measures).aggregate
        assert got.scores == full and got.scores_without == without
        assert got.change == {m: without[m] - full[m] for m in full}
        assert stats.measures == tuple(full)
        assert got.unique_judged == sum(1 for q, d in unique if qrels[q][d] >= 0)
        assert got.unique_relevant == sum(1 for q, d in unique if qrels[q][d] >= 1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"depth": 0}, "depth must be a positive"),
        ({"depth": -3}, "depth must be a positive"),
        ({"depth": 2.5}, "depth must be a positive"),
        ({}, "needs a depth"),
        ({"depth": 3, "budget": 0}, "budget must be a positive"),
        ({"strategy": "rbp", "depth": 3}, "needs a budget"),
        ({"strategy": "rrf", "budget": -1}, "budget must be a positive"),
        ({"strategy": "rbp", "budget": 3, "p": 0.0}, "strictly between 0 and 1"),
        ({"strategy": "rbp", "budget": 3, "p": 1.0}, "strictly between 0 and 1"),
        ({"strategy": "rbp", "budget": 3, "p": math.nan}, "strictly between 0 and 1"),
        ({"strategy": "rrf", "budget": 3, "k": -1}, "k must be"),
        ({"strategy": "rrf", "budget": 3, "k": math.inf}, "k must be"),
        ({"strategy": "topX", "depth": 3}, "unknown pooling strategy"),
    ],
)
def test_bad_options_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(OptionError, match=message):
        ranklens.pool([{"q": {"d": 1.0}}], **kwargs)  # type: ignore[arg-type]


def test_bad_runs_are_refused() -> None:
    with pytest.raises(OptionError, match="at least one run"):
        ranklens.pool([], depth=1)
    with pytest.raises(OptionError, match="a list of runs"):
        ranklens.pool("run.txt", depth=1)
    made = ranklens.pool([{"q": {"d": 1.0}}], depth=1)
    with pytest.raises(OptionError, match="not the pool's"):
        ranklens.pool_statistics(made, [{"q": {"d": 1.0}}, {"q": {"e": 1.0}}])
    with pytest.raises(OptionError, match="not in the pool"):
        made.contributors("q", "zzz")


def write_run(path: Path, run: RunDict, tag: str) -> str:
    lines = [
        f"{q} Q0 {d} {rank} {run[q][d]!r} {tag}\n"
        for q in sorted(run)
        for rank, d in enumerate(ranked(run[q]), start=1)
    ]
    path.write_text("".join(lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    a = {"1": {"Zeta": 0.9, "alpha": 0.8, "\u00e9t\u00e9": 0.7}, "2": {"x": 0.5, "y": 0.5}}
    b = {"1": {"beta": 0.9, "alpha": 0.1}, "2": {"y": 0.3}}
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 Zeta 1\n1 0 alpha 0\n1 0 beta 2\n2 0 x 1\n2 0 y 0\n", encoding="utf-8")
    return {
        "a": write_run(tmp_path / "a.run", a, "A"),
        "b": write_run(tmp_path / "b.run", b, "B"),
        "qrels": str(qrels),
    }


def test_cli_writes_the_pool_sorted_in_byte_order(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pool.txt"
    assert main(["pool", files["a"], files["b"], "--depth", "2", "-o", str(out), "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines == ["1 Zeta", "1 alpha", "1 beta", "2 x", "2 y"]  # 'Z' < 'a' in bytes
    assert lines == sorted(lines, key=lambda s: s.encode("utf-8"))
    assert main(["pool", files["a"], files["b"], "--depth", "2"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == lines
    assert (
        captured.err == "ranklens: pooled 2 runs (depth): 2 queries, 5 documents (2.5 per query)\n"
    )
    assert main(["pool", files["a"], "--depth", "3", "-o", str(out)]) == 2  # exists
    assert "exists; give --force" in capsys.readouterr().err
    assert main(["pool", files["a"], "--depth", "3", "-o", str(out), "--force", "--quiet"]) == 0
    assert "1 \u00e9t\u00e9" in out.read_text(encoding="utf-8").splitlines()


def test_cli_never_writes_over_an_input(files: dict[str, str]) -> None:
    before = Path(files["a"]).read_bytes()
    for extra in ([], ["--force"]):
        assert main(["pool", files["a"], files["b"], "--depth", "2", "-o", files["b"], *extra]) == 2
    assert (
        main(["pool", files["a"], "--depth", "2", "--qrels", files["qrels"], "-o", files["qrels"]])
        == 2
    )
    assert Path(files["a"]).read_bytes() == before


@pytest.mark.parametrize(
    "options",
    [
        ["--depth", "-1"],
        ["--depth", "0"],
        ["--strategy", "rbp", "--budget", "-5"],
        ["--strategy", "rrf", "--budget", "0"],
        ["--strategy", "rrf"],
        ["--strategy", "rbp", "--budget", "3", "--p", "1.5"],
        ["--strategy", "bogus", "--depth", "3"],
        [],
    ],
)
def test_cli_errors_are_one_line(
    files: dict[str, str], options: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["pool", files["a"], *options]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("ranklens: error: ") and captured.err.count("\n") == 1


def test_cli_statistics_are_those_of_the_api(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["pool", files["a"], files["b"], "--depth", "2", "--qrels", files["qrels"], "-m", "P@2"]
    assert main([*argv, "-f", "json", "--quiet"]) == 0
    payload = json.loads(capsys.readouterr().out)
    made = ranklens.pool([files["a"], files["b"]], depth=2)
    stats = ranklens.pool_statistics(made, [files["a"], files["b"]], files["qrels"], ["P@2"])
    assert payload["sizes"] == stats.sizes and payload["total"] == 5
    for row, want in zip(payload["runs"], stats.runs, strict=True):
        assert row["run"] == want.name and row["change"] == want.change
        assert row["unique_relevant"] == want.unique_relevant
    assert main([*argv, "-f", "csv", "--quiet"]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert header.split(",") == [
        "run", "contributed", "share", "unique", "unique_judged", "unique_relevant", "P@2",
        "P@2_change",
    ]  # fmt: skip
    assert [r.split(",")[0] for r in rows] == ["A", "B"]


def test_cli_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pool", "--example", "--depth", "5", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    from ranklens.data.examples import example_paths

    _, paths = example_paths()
    made = ranklens.pool([str(p) for p in paths], depth=5)
    assert lines == [line.rstrip("\n") for line in made.lines()]
    assert main(["pool", "--example", "x.run", "--depth", "5"]) == 2


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")
@pytest.mark.filterwarnings("ignore:.*inplace keyword")  # trectools' own pandas calls
def test_against_trectools(tmp_path: Path) -> None:
    """trectools' TrecPoolMaker on runs without equal scores whose rank column is their
    ranked order, with integer query ids; budgets compared where no two documents tie at
    the boundary (trectools leaves those to pandas' sort)."""
    pytest.importorskip("trectools")
    import random

    from trectools import TrecPoolMaker, TrecRun

    rng = random.Random(7)
    runs: list[RunDict] = []
    for _ in range(4):
        run: RunDict = {}
        for q in ("1", "2", "3", "4"):
            docs = rng.sample([f"D{i}" for i in range(40)], rng.randint(5, 30))
            scores = rng.sample(range(1000), len(docs))
            run[q] = {d: s / 10 for d, s in zip(docs, scores, strict=True)}
        runs.append(run)
    paths = [write_run(tmp_path / f"r{i}.run", run, f"r{i}") for i, run in enumerate(runs)]
    maker = TrecPoolMaker()
    trec_runs = [TrecRun(p) for p in paths]

    def theirs(pool: object) -> dict[str, list[str]]:
        return {str(q): sorted(docs) for q, docs in pool.pool.items()}  # type: ignore[attr-defined]

    for depth in (1, 3, 10, 50):
        ours = ranklens.pool(paths, depth=depth).to_dict()
        assert ours == theirs(maker.make_pool(trec_runs, "topX", topX=depth))
    compared = 0
    for strategy in ("rbp", "rrf"):
        for budget in (1, 5, 17, 40):
            their_pool = theirs(
                maker.make_pool(trec_runs, strategy, topX=budget, rbp_p=0.8, rrf_den=60)
            )
            ours = ranklens.pool(paths, strategy, budget=budget, p=0.8, k=60).to_dict()
            values = expected_values(runs, strategy)
            for q in ours:
                ordered = sorted(values[q].values(), reverse=True)
                if len(ordered) > budget and math.isclose(
                    ordered[budget - 1], ordered[budget], rel_tol=1e-12
                ):
                    continue  # a tie at the boundary: trectools' choice is pandas'
                assert ours[q] == their_pool[q], (strategy, budget, q)
                compared += 1
    assert compared > 20


def expected_values(runs: list[RunDict], strategy: str) -> dict[str, dict[str, float]]:
    values: dict[str, dict[str, float]] = {}
    for run in runs:
        for q, docs in run.items():
            for rank, d in enumerate(ranked(docs), start=1):
                add = 0.2 * 0.8 ** (rank - 1) if strategy == "rbp" else 1 / (60 + rank)
                values.setdefault(q, {})[d] = values.get(q, {}).get(d, 0.0) + add
    return values


def test_cli_stats_beside_the_written_pool(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pool.txt"
    argv = ["pool", files["a"], files["b"], "--depth", "1", "-o", str(out), "--stats"]
    assert main([*argv, "-f", "csv", "--quiet"]) == 0
    # A's top 1: Zeta, and y (x and y tie at 0.5: docid descending puts y first); B's: beta, y
    assert out.read_text(encoding="utf-8").splitlines() == ["1 Zeta", "1 beta", "2 y"]
    header, *rows = capsys.readouterr().out.splitlines()
    assert header == "run,contributed,share,unique"  # no qrels: the counts alone
    assert rows == [f"A,2,{2 / 3!r},1", f"B,2,{2 / 3!r},1"]


def test_cli_reads_a_run_from_stdin_once(
    files: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    text = Path(files["b"]).read_text(encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8"))))
    argv = ["pool", files["a"], "-", "--depth", "1", "--qrels", files["qrels"], "-f", "json"]
    assert main([*argv, "--quiet"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["total"] == 3 and payload["runs"][1]["contributed"] == {"1": 1, "2": 1}
