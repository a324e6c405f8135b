"""The tie policy ``ties="rank"``: runs ordered by their rank column, as NIST ndeval orders
them without ``-traditional``.

The measure language with ``ties="rank"`` is checked against ndeval 4.5's golden CSVs
(``tests/data/ndeval``, every column, every topic) and against the ``ranklens ndeval`` front
end (which orders by the rank column with its own reader) on generated runs whose rank
order differs from their score order; the C parser and the numpy fallback give the same
values; the errors (no rank column, a rank that is not an integer, a rank twice) name
what to do.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import InputError, OptionError
from ranklens.cli import main
from ranklens.data.run import Run
from ranklens.frontends.ndeval import NdevalOptions, run_ndeval

DATA = Path(__file__).parent / "data" / "ndeval"
QRELS = DATA / "qrels.web2012.txt.gz"
RUN = DATA / "run.ql-cata.txt.gz"


def _columns(alpha: str = "", nrbp: str = "") -> dict[str, str]:
    """ndeval's CSV columns and the measure-language names of the same values."""
    out: dict[str, str] = {}
    for k in (5, 10, 20):
        out[f"ERR-IA@{k}"] = f"ERR_IA{alpha}@{k}"
        out[f"nERR-IA@{k}"] = f"nERR_IA{alpha}@{k}"
        out[f"alpha-DCG@{k}"] = f"alpha_DCG{alpha}@{k}"
        out[f"alpha-nDCG@{k}"] = f"alpha_nDCG{alpha}@{k}"
        out[f"P-IA@{k}"] = f"P_IA@{k}"
        out[f"strec@{k}"] = f"StRecall@{k}"
    out["NRBP"] = f"NRBP{nrbp}"
    out["nNRBP"] = f"nNRBP{nrbp}"
    out["MAP-IA"] = "AP_IA"
    return out


def _csv_rows(text: str) -> dict[str, dict[str, str]]:
    return {row["topic"]: row for row in csv.DictReader(io.StringIO(text))}


def _shown(value: float) -> str:
    return f"{value:.6f}"


def _agree(per_query: dict[str, dict[str, float]], rows: dict[str, dict[str, str]],
           columns: dict[str, str]) -> int:
    """Asserts that every topic's value prints as ndeval's; returns the values compared."""
    compared = 0
    topics = [t for t in rows if t != "amean"]
    assert sorted(topics) == sorted(per_query)
    for topic in topics:
        for column, name in columns.items():
            expected = rows[topic][column]
            if expected == "-nan":  # ndeval's 0/0 (no relevant subtopic): 0 here, documented
                expected = "0.000000"
            assert _shown(per_query[topic][name]) == expected, (topic, column)
            compared += 1
    return compared


@pytest.mark.parametrize(
    ("golden", "alpha", "nrbp", "depth"),
    [
        ("out.ql-cata.csv", "", "", None),
        ("out.ql-cata.alpha0.8.beta0.3.csv", "(alpha=0.8)", "(alpha=0.8,beta=0.3)", None),
        ("out.ql-cata.M10.csv", "", "", 10),
    ],
)
def test_rank_ties_equal_ndeval_golden_per_topic(
    golden: str, alpha: str, nrbp: str, depth: int | None
) -> None:
    columns = _columns(alpha, nrbp)
    res = ranklens.evaluate(
        QRELS, RUN, list(columns.values()), ties="rank", queries="both", depth=depth
    )
    rows = _csv_rows((DATA / golden).read_text())
    assert _agree(res.per_query, rows, columns) == 50 * 21


def test_rank_ties_differ_from_score_order_on_the_2012_run() -> None:
    """The 2012 run's rank column and its scores disagree on topic 151 (docs/ndeval.md):
    MAP-IA 0.164459 by rank, 0.164449 by score."""
    by_rank = ranklens.evaluate(QRELS, RUN, ["AP_IA"], ties="rank").query_values("AP_IA")
    by_score = ranklens.evaluate(QRELS, RUN, ["AP_IA"]).query_values("AP_IA")
    assert _shown(by_rank["151"]) == "0.164459"
    assert _shown(by_score["151"]) == "0.164449"


def _generated(seed: int, topics: int = 6) -> tuple[str, str]:
    """Subtopic qrels and a run (TREC text) whose rank column is a random order of each
    topic's documents, unrelated to the (tied, coarse) scores."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for topic in range(1, topics + 1):
        docs = [f"d{topic}-{i}" for i in range(int(rng.integers(5, 40)))]
        for sub in range(1, int(rng.integers(2, 6)) + 1):
            for doc in rng.choice(docs, size=int(rng.integers(1, len(docs))), replace=False):
                qrels.append(f"{topic} {sub} {doc} {int(rng.integers(0, 3))}")
        shown = list(rng.choice(docs, size=int(rng.integers(1, len(docs) + 1)), replace=False))
        shown += [f"x{topic}-{i}" for i in range(int(rng.integers(0, 5)))]
        ranks = rng.permutation(len(shown)) * int(rng.integers(1, 4)) + int(rng.integers(0, 3))
        for doc, rank in zip(shown, ranks.tolist(), strict=True):
            run.append(f"{topic} Q0 {doc} {rank} {int(rng.integers(0, 4)) / 2} tag")
        if topic % 2:  # the lines of a topic need not be in rank order
            run[-len(shown) :] = reversed(run[-len(shown) :])
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_rank_ties_equal_the_ndeval_front_end_on_generated_runs(seed: int) -> None:
    qrels_text, run_text = _generated(seed)
    columns = _columns()
    res = ranklens.evaluate(
        io.StringIO(qrels_text), io.StringIO(run_text), list(columns.values()), ties="rank",
        queries="both",
    )
    out = run_ndeval(io.BytesIO(qrels_text.encode()), io.BytesIO(run_text.encode()))
    _agree(res.per_query, _csv_rows(out), columns)
    # and the default tie policy is ndeval -traditional
    traditional = run_ndeval(
        io.BytesIO(qrels_text.encode()), io.BytesIO(run_text.encode()),
        NdevalOptions(traditional=True),
    )
    res = ranklens.evaluate(
        io.StringIO(qrels_text), io.StringIO(run_text), list(columns.values()), queries="both"
    )
    _agree(res.per_query, _csv_rows(traditional), columns)


def test_generated_rank_order_really_differs_from_score_order() -> None:
    qrels_text, run_text = _generated(7)
    by_rank = ranklens.evaluate(
        io.StringIO(qrels_text), io.StringIO(run_text), ["AP_IA", "alpha_nDCG@10"], ties="rank"
    )
    by_score = ranklens.evaluate(
        io.StringIO(qrels_text), io.StringIO(run_text), ["AP_IA", "alpha_nDCG@10"]
    )
    assert by_rank.per_query != by_score.per_query


def test_c_parser_and_numpy_fallback_agree(tmp_path: Path) -> None:
    qrels_text, run_text = _generated(11, topics=10)
    (tmp_path / "q.txt").write_text(qrels_text)
    (tmp_path / "r.txt").write_text(run_text)
    code = (
        "import json, sys, ranklens\n"
        "from ranklens.data import native\n"
        "res = ranklens.evaluate(sys.argv[1], sys.argv[2], "
        "['alpha_nDCG@10', 'ERR_IA@20', 'AP_IA', 'NRBP', 'P_IA@5'], ties='rank')\n"
        "print(json.dumps([native.is_native(), res.per_query]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "RANKLENS_NATIVE"}
    outputs = []
    for native in ("1", "0"):
        done = subprocess.run(
            [sys.executable, "-c", code, str(tmp_path / "q.txt"), str(tmp_path / "r.txt")],
            env={**env, "RANKLENS_NATIVE": native},
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.append(json.loads(done.stdout))
    assert [o[0] for o in outputs] == [True, False]
    assert outputs[0][1] == outputs[1][1]


def test_cli_eval_ties_rank(tmp_path: Path) -> None:
    qrels = tmp_path / "q.txt"
    qrels.write_bytes(gzip.decompress(QRELS.read_bytes()))
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(
            ["eval", "--ties", "rank", "-m", "AP_IA", "-m", "alpha_nDCG@20", "--quiet",
             "-f", "json", str(qrels), str(RUN)]
        )
    assert status == 0
    expected = ranklens.evaluate(QRELS, RUN, ["AP_IA", "alpha_nDCG@20"], ties="rank")
    text = out.getvalue()
    assert f"{expected['AP_IA']!r}"[:10] in text
    golden = _csv_rows((DATA / "out.ql-cata.csv").read_text())["amean"]
    assert f"{expected['AP_IA']:.6f}" == golden["MAP-IA"]


def test_ranking_by_rank_column_order_and_lines() -> None:
    text = "q Q0 a 3 9 t\nq Q0 b 1 0 t\nq Q0 c 2 5 t\np Q0 z -4 1 t\np Q0 y 10 2 t\n"
    run = Run.from_file(io.StringIO(text))
    order = [run.docid(i) for i in run.ranking("rank")]
    assert order == ["z", "y", "b", "c", "a"]  # queries in byte order: p, then q
    assert [run.docid(i) for i in run.ranking()] == ["y", "z", "a", "c", "b"]


def test_huge_ranks_are_ordered_exactly() -> None:
    big = 2**62
    text = f"q Q0 a {big + 1} 1 t\nq Q0 b {big} 1 t\nq Q0 c -{big} 1 t\n"
    run = Run.from_file(io.StringIO(text))
    assert [run.docid(i) for i in run.ranking("rank")] == ["c", "b", "a"]


def test_duplicate_rank_is_an_error_naming_the_lines(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("q Q0 a 1 9 t\nq Q0 b 2 8 t\nr Q0 a 2 1 t\nq Q0 c 2 7 t\n")
    with pytest.raises(InputError, match=r"duplicate rank 2 for query 'q' \(lines 2 and 4\)"):
        ranklens.evaluate({"q": {"a": 1}}, path, ["P@1"], ties="rank")
    # other policies do not read the rank column
    assert ranklens.evaluate({"q": {"a": 1}}, path, ["P@1"])["P@1"] == 1.0


def test_rank_that_is_not_an_integer_is_an_error_only_for_rank_ties() -> None:
    text = "q Q0 a 1 9 t\nq Q0 b x 8 t\n"
    with pytest.raises(InputError, match="not an integer") as info:
        ranklens.evaluate({"q": {"a": 1}}, io.StringIO(text), ["P@1"], ties="rank")
    assert info.value.line == 2
    assert ranklens.evaluate({"q": {"a": 1}}, io.StringIO(text), ["P@1"])["P@1"] == 1.0


def test_runs_without_a_rank_column_say_what_to_do() -> None:
    with pytest.raises(OptionError, match=r"has none.*TREC file.*'rank' column"):
        ranklens.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["P@1"], ties="rank")


def test_dataframe_rank_column() -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {"query_id": ["q", "q", "q"], "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0],
         "rank": [3, 1, 2]}
    )
    res = ranklens.evaluate({"q": {"b": 1}}, frame, ["P@1", "RR"], ties="rank")
    assert res.aggregate == {"P@1": 1.0, "RR": 1.0}
    assert ranklens.evaluate({"q": {"b": 1}}, frame, ["RR"])["RR"] == 0.5
    with pytest.raises(OptionError, match="'rank' column"):
        ranklens.evaluate({"q": {"b": 1}}, frame.drop(columns="rank"), ["RR"], ties="rank")
    bad = frame.assign(rank=[1.0, 2.5, 3.0])
    with pytest.raises(InputError, match="not an integer"):
        ranklens.evaluate({"q": {"b": 1}}, bad, ["RR"], ties="rank")


def test_duplicates_first_keeps_the_first_line_rank() -> None:
    text = "q Q0 a 1 9 t\nq Q0 a 2 8 t\nq Q0 b 2 1 t\n"
    res = ranklens.evaluate(
        {"q": {"b": 1}}, io.StringIO(text), ["RR"], ties="rank", duplicates="first"
    )
    assert res["RR"] == 0.5


def test_streamed_run_orders_by_rank_too(tmp_path: Path) -> None:
    qrels_text, run_text = _generated(5, topics=8)
    (tmp_path / "q.txt").write_text(qrels_text)
    (tmp_path / "r.txt").write_text(run_text)
    names = ["alpha_nDCG@10", "AP_IA", "NRBP"]
    ev = ranklens.Evaluator(tmp_path / "q.txt", names, ties="rank", queries="both")
    whole = ev.evaluate(tmp_path / "r.txt", stream=False).per_query
    # grouped by query for the streamed reader (chunks of whole queries)
    lines = sorted(run_text.splitlines(), key=lambda line: line.split()[0])
    (tmp_path / "g.txt").write_text("\n".join(lines) + "\n")
    assert ev.evaluate(tmp_path / "g.txt", stream=True).per_query == whole


# --- ranklens ndeval's run reader: the native fast path reads what the numpy one reads ---

TOPICS = ["1", "2", "10", "01", "wt09-3", "x", "#1", "é"]
RANK_TEXT = ["1", "2", "3", "007", "0", "+4", "2.0", "-1", "x", "1" * 19, "5"]
SCORE_TEXT = ["1", "-2.5", "1e3", ".5", "2.", "+7", "-0", "nan", "inf", "1_0", "0x1", "abc"]


@st.composite
def _ndeval_run(draw: st.DrawFn) -> bytes:
    lines = []
    odd = draw(st.booleans())  # half the files well-formed but for ties: the native path
    for i in range(draw(st.integers(0, 12))):
        fields = [
            draw(st.sampled_from(TOPICS if odd else TOPICS[:5])),
            "Q0",
            draw(st.sampled_from(["d1", "d2", "doc-3", "D", "dé", "d1" * 9])),
            draw(st.sampled_from(RANK_TEXT)) if odd else str(i + draw(st.integers(0, 1))),
            draw(st.sampled_from(SCORE_TEXT if odd else SCORE_TEXT[:7])),
            draw(st.sampled_from(["run", "r2"])),
        ]
        if odd and draw(st.integers(0, 12)) == 0:
            fields = fields[: draw(st.integers(1, 7))] + ["extra"] * draw(st.integers(0, 1))
        sep = draw(st.sampled_from([" ", "\t", "  ", " \r"]))
        lines.append(sep.join(fields) + draw(st.sampled_from(["", "\r", " "])))
        if draw(st.integers(0, 8)) == 0:
            lines.append(draw(st.sampled_from(["", "   ", "# c"] if odd else ["", "   "])))
    return ("\n".join(lines) + draw(st.sampled_from(["", "\n"]))).encode()


def _read(data: bytes, traditional: bool, native: bool) -> object:
    from ranklens.frontends.ndeval.runner import read_run

    try:
        run = read_run(io.BytesIO(data), traditional, 3 if traditional else 0, native=native)
    except InputError as exc:
        return type(exc), str(exc)
    return (
        run.runid,
        run.topics.tolist(),
        run.offsets.tolist(),
        run.docs.tolist(),
        str(run.docs.dtype),
    )


@settings(max_examples=300, deadline=None)
@given(_ndeval_run(), st.booleans())
def test_ndeval_reader_native_path_equals_numpy_path(data: bytes, traditional: bool) -> None:
    assert _read(data, traditional, True) == _read(data, traditional, False)


def test_ndeval_reader_native_path_on_the_2012_runs() -> None:
    for path in (RUN, DATA / "run.rm-cata-f.txt.gz"):
        data = gzip.decompress(path.read_bytes())
        for traditional in (False, True):
            assert _read(data, traditional, True) == _read(data, traditional, False)
