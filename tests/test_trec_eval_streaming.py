"""``ranklens trec-eval`` on a run read in chunks of whole queries prints what it prints
with the run in memory: trec_eval's golden outputs (10.0 and 9.0.8) byte for byte, and the
same text or the same error on generated data under every query option."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

import ranklens
import ranklens.data.chunks
from conftest import TREC_EVAL_DATA
from ranklens.base.errors import InputError, RanklensError
from ranklens.cli import main
from ranklens.frontends.trec_eval.runner import TrecOptions, trec_eval
from ranklens.measures.trec_table import TrecUsageError
from scale_data import make_case
from test_trec_eval_command import COMMANDS, run_command

QRELS_FORMAT = sorted(name for name, args in COMMANDS.items() if "-R" not in args)


@pytest.fixture(params=[1, 997, 1 << 20], ids=["chunk1", "chunk997", "chunk1M"])
def small_chunks(request, monkeypatch) -> Iterator[int]:
    """Streamed runs are cut into chunks of about this many bytes."""
    whole = ranklens.data.chunks.query_chunks
    size = int(request.param)
    monkeypatch.setattr(ranklens.data.chunks, "query_chunks", lambda source, _: whole(source, size))
    yield size


def test_golden_commands_cover_the_qrels_format() -> None:
    assert len(QRELS_FORMAT) >= 8


def grouped_copy(source: Path, target: Path) -> bool:
    """Copy ``source`` (a run) grouped by query, lines in their order within each query
    (what trec_eval prints does not change); whether it was not grouped already."""
    groups: dict[str, list[str]] = {}
    for line in source.read_text().splitlines(keepends=True):
        groups.setdefault(line.split()[0] if line.strip() else "", []).append(line)
    text = "".join(line for lines in groups.values() for line in lines)
    target.write_text(text)
    return text != source.read_text()


@pytest.fixture(scope="module")
def grouped_data(tmp_path_factory) -> tuple[Path, Path]:
    """trec_eval's test files with the runs grouped by query (results.trunc is not)."""
    root = tmp_path_factory.mktemp("trec_eval_grouped")
    (root / "v9.0.8").mkdir()
    regrouped = []
    for source in TREC_EVAL_DATA.rglob("*"):
        if source.is_dir():
            continue
        target = root / source.relative_to(TREC_EVAL_DATA)
        if source.name.startswith("results."):
            if grouped_copy(source, target):
                regrouped.append(source.name)
        else:
            target.write_bytes(source.read_bytes())
    assert regrouped == ["results.trunc"]
    return root, root / "v9.0.8"


@pytest.mark.parametrize("expected", QRELS_FORMAT)
def test_streamed_output_is_trec_eval_10s(
    small_chunks, grouped_data, expected: str, capsys
) -> None:
    data, _ = grouped_data
    code, out, err = run_command(["--stream", *COMMANDS[expected]], data, data, capsys)
    assert code == 0, err
    assert out == (TREC_EVAL_DATA / expected).read_text()


@pytest.mark.parametrize(
    "expected", [e for e in QRELS_FORMAT if (TREC_EVAL_DATA / "v9.0.8" / e).exists()]
)
def test_streamed_output_is_trec_eval_9s(small_chunks, grouped_data, expected: str, capsys) -> None:
    data, v9 = grouped_data
    code, out, err = run_command(["--v9", "--stream", *COMMANDS[expected]], data, v9, capsys)
    assert code == 0, err
    assert out == (TREC_EVAL_DATA / "v9.0.8" / expected).read_text()


def test_the_ungrouped_test_run_is_rejected_in_small_chunks(capsys, monkeypatch) -> None:
    whole = ranklens.data.chunks.query_chunks
    monkeypatch.setattr(ranklens.data.chunks, "query_chunks", lambda source, _: whole(source, 1))
    code, _, err = run_command(
        ["--stream", *COMMANDS["out.test.aqc"]], TREC_EVAL_DATA, TREC_EVAL_DATA, capsys
    )
    assert code == 2 and "results.trunc:3: the run is not grouped by query" in err


def _outcome(qrels: Path, run: Path, opts: TrecOptions) -> tuple[str, str | int]:
    """The printed text, or the error's class and trec_eval exit code."""
    try:
        return "ok", trec_eval(str(qrels), str(run), opts)
    except TrecUsageError as exc:
        return f"usage: {exc}", exc.code
    except RanklensError as exc:
        return f"{type(exc).__name__}: {exc}", 2


OPTION_GRID = [
    dict(zip(("complete", "v9", "depth", "judged_only", "level"), values, strict=True))
    for values in itertools.product([False, True], [False, True], [None, 5], [False, True], [1, 2])
]


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_streamed_equals_in_memory_on_generated_data(tmp_path: Path, seed: int) -> None:
    """Ties, grades -1..3, unjudged documents, queries without relevant documents, queries
    only in the qrels or only in the run, non-ASCII ids: every option combination."""
    case = make_case(seed)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(case.qrels_text())
    run.write_text(case.run_text())
    # every option combination, a quarter of them per seed (the four seeds cover them all)
    for extra, chunk in itertools.product(OPTION_GRID[seed % 4 :: 4], (1, 200, 1 << 20)):
        base = TrecOptions(measures=("all_trec", "relstring.15"), per_query=True, **extra)
        in_memory = _outcome(qrels, run, TrecOptions(**{**base.__dict__, "stream": False}))
        streamed = _outcome(
            qrels, run, TrecOptions(**{**base.__dict__, "stream": True, "chunk_bytes": chunk})
        )
        assert streamed == in_memory, (extra, chunk)
    # with the qrels restricted to queries the run has, 10.0 without -c evaluates too
    in_run = {q for q, _, _ in case.run}
    qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in case.qrels if q in in_run))
    for chunk in (1, 200):
        opts = TrecOptions(measures=("official",), per_query=True, stream=True, chunk_bytes=chunk)
        streamed = _outcome(qrels, run, opts)
        assert streamed[0] == "ok"
        assert streamed == _outcome(qrels, run, TrecOptions(measures=("official",), per_query=True))


def test_one_query_with_d(tmp_path: Path) -> None:
    case = make_case(5)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(case.qrels_text())
    run.write_text(case.run_text())
    both = sorted({q for q, _, _ in case.run} & {q for q, _, _ in case.qrels})
    only_qrels = sorted({q for q, _, _ in case.qrels} - {q for q, _, _ in case.run})
    for qid in [both[0], both[-1], only_qrels[0], "no-such-query"]:
        opts = TrecOptions(measures=("all_trec",), per_query=True, only_query=qid)
        streamed = TrecOptions(**{**opts.__dict__, "stream": True, "chunk_bytes": 50})
        assert _outcome(qrels, run, streamed) == _outcome(qrels, run, opts)


def test_a_run_not_grouped_by_query_is_rejected_with_how_to_sort(tmp_path: Path, capsys) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n2 0 b 1\n")
    run.write_text("1 Q0 a 1 0.5 r\n2 Q0 b 1 0.4 r\n" + "1 Q0 c 2 0.3 r\n" * 1)
    code = main(["trec-eval", "--stream", str(qrels), str(run)])
    err = capsys.readouterr().err
    # one chunk holds every line here, so it is evaluated as in memory
    assert code == 0, err
    opts = TrecOptions(stream=True, chunk_bytes=1)
    with pytest.raises(InputError, match="not grouped by query") as info:
        trec_eval(str(qrels), str(run), opts)
    assert "sort -k1,1 -s" in str(info.value) and f"{run}:3" in str(info.value)


def test_large_files_stream_without_a_flag(tmp_path: Path, monkeypatch, capsys) -> None:
    """Over the size threshold the run is streamed (seen here by a run that is not grouped:
    only the streamed read rejects it); --no-stream reads it in memory."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n2 0 b 1\n")
    run.write_text("1 Q0 a 1 0.5 r\n2 Q0 b 1 0.4 r\n1 Q0 c 2 0.3 r\n")
    whole = ranklens.data.chunks.query_chunks
    monkeypatch.setattr(ranklens.data.chunks, "query_chunks", lambda source, _: whole(source, 1))
    assert main(["trec-eval", str(qrels), str(run)]) == 0
    capsys.readouterr()
    monkeypatch.setattr(ranklens.data.chunks, "STREAM_THRESHOLD", 10)
    assert main(["trec-eval", str(qrels), str(run)]) == 2
    err = capsys.readouterr().err
    assert "not grouped by query" in err and err.count("\n") == 1
    assert main(["trec-eval", "--no-stream", str(qrels), str(run)]) == 0


def test_streamed_errors_name_the_file_and_line(tmp_path: Path, capsys) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n2 0 b 1\n")
    run.write_text("1 Q0 a 1 0.5 r\n2 Q0 b 1 0.4 r\n2 Q0 b 2 x r\n")
    opts = TrecOptions(stream=True, chunk_bytes=1)
    with pytest.raises(InputError) as info:
        trec_eval(str(qrels), str(run), opts)
    assert f"{run}:3" in str(info.value)
    run.write_text("1 Q0 a 1 0.5 r\n2 Q0 b 1 0.4 r\n2 Q0 b 2 0.3 r\n")
    assert main(["trec-eval", "--stream", str(qrels), str(run)]) == 4
    err = capsys.readouterr().err
    assert "twice" in err and "lines 2 and 3" in err


def test_streamed_evaluate_names_duplicate_lines_of_the_file(tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n2 0 b 1\n")
    run.write_text("1 Q0 a 1 0.5 r\n2 Q0 c 1 0.4 r\n2 Q0 b 2 0.3 r\n2 Q0 b 3 0.2 r\n")
    from ranklens.evaluation.streaming import evaluate_stream

    evaluator = ranklens.Evaluator(str(qrels), ["P@1"])
    with pytest.raises(InputError) as info:
        evaluate_stream(evaluator, str(run), chunk_bytes=1)
    assert f"{run}:4" in str(info.value) and "(lines 3 and 4)" in str(info.value)
