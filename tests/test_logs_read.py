"""Reading click logs: every format and layout gives the same log, and every kind of bad
input is one InputError naming the file and the line or row."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens.base.errors import EmptyInputError, InputError
from ranklens.logs import ClickLog, read_log

LONG = {
    "session_id": ["s1", "s1", "s1", "s2", "s2", "s3"],
    "query_id": ["q1", "q1", "q1", "q2", "q2", "q1"],
    "doc_id": ["a", "b", "c", "x", "a", "b"],
    "position": [1, 2, 3, 1, 2, 1],
    "clicked": [False, True, False, True, True, False],
}


def _rows(columns: dict[str, list[object]]) -> list[dict[str, object]]:
    names = list(columns)
    return [dict(zip(names, values, strict=True)) for values in zip(*columns.values(), strict=True)]


def _summary(log: ClickLog) -> list[tuple[str, str, list[str], list[bool]]]:
    out = []
    for i, session in enumerate(log.sessions):
        a, b = log.offsets[i], log.offsets[i + 1]
        out.append(
            (
                session,
                log.queries[log.query[i]],
                [log.documents[d] for d in log.doc[a:b]],
                log.clicked[a:b].tolist(),
            )
        )
    return out


EXPECTED = [
    ("s1", "q1", ["a", "b", "c"], [False, True, False]),
    ("s2", "q2", ["x", "a"], [True, True]),
    ("s3", "q1", ["b"], [False]),
]


def test_dict_of_columns() -> None:
    log = read_log(LONG)
    assert _summary(log) == EXPECTED
    assert log.positions.tolist() == [1, 2, 3, 1, 2, 1]
    assert log.queries == ("q1", "q2")


def test_every_format_gives_the_same_log(tmp_path: Path) -> None:
    import pandas as pd
    import polars as pl
    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = pd.DataFrame(LONG)
    frame.to_csv(tmp_path / "log.csv", index=False)
    frame.to_csv(tmp_path / "log.tsv", index=False, sep="\t")
    pq.write_table(pa.Table.from_pandas(frame), tmp_path / "log.parquet")
    with (tmp_path / "log.jsonl").open("w") as handle:
        for row in _rows(LONG):
            handle.write(json.dumps(row) + "\n")
    with gzip.open(tmp_path / "log.jsonl.gz", "wt") as handle:
        for row in _rows(LONG):
            handle.write(json.dumps(row) + "\n")
    sources = [
        frame,
        pl.DataFrame(LONG),
        pa.Table.from_pandas(frame),
        _rows(LONG),
        tmp_path / "log.csv",
        str(tmp_path / "log.tsv"),
        tmp_path / "log.parquet",
        tmp_path / "log.jsonl",
        tmp_path / "log.jsonl.gz",
    ]
    for source in sources:
        assert _summary(read_log(source)) == EXPECTED, source


def test_wide_layout_equals_long() -> None:
    wide = [
        {"session_id": "s1", "query_id": "q1", "doc_ids": ["a", "b", "c"], "clicks": [0, 1, 0]},
        {"session_id": "s2", "query_id": "q2", "doc_ids": ["x", "a"], "clicked_positions": [1, 2]},
        {"session_id": "s3", "query_id": "q1", "doc_ids": ["b"], "clicks": [False]},
    ]
    assert _summary(read_log(wide)) == EXPECTED


def test_rows_in_any_order_are_grouped_by_session() -> None:
    order = [5, 2, 0, 4, 1, 3]
    shuffled = {k: [v[i] for i in order] for k, v in LONG.items()}
    log = read_log(shuffled)
    by_session = {s: rest for s, *rest in _summary(log)}
    assert by_session == {s: rest for s, *rest in EXPECTED}


def test_optional_columns() -> None:
    columns = dict(LONG)
    columns["team"] = ["A", "B", "A", "B", "A", "A"]
    columns["dwell"] = [1.0, 30.0, None, 5.0, 2.0, 0.0]
    columns["propensity"] = [0.5] * 6
    columns["ranker"] = ["r1", "r1", "r1", "r2", "r2", "r1"]
    log = read_log(columns)
    assert log.teams == ("A", "B")
    assert log.team is not None and log.team.tolist() == [0, 1, 0, 1, 0, 0]
    assert log.dwell is not None and np.isnan(log.dwell[2])
    assert log.rankers == ("r1", "r2")
    assert log.ranker is not None and log.ranker.tolist() == [0, 1, 0]


def _error(source: object) -> str:
    with pytest.raises(InputError) as info:
        read_log(source)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_errors_name_the_csv_line(tmp_path: Path) -> None:
    path = tmp_path / "gap.csv"
    path.write_text("session_id,query_id,doc_id,position,clicked\ns1,q,a,1,0\ns1,q,b,3,1\n")
    message = _error(path)
    assert message.startswith(f"{path}:3: ")
    assert "position gap" in message and "1, 3" in message


def test_errors_name_the_jsonl_line(tmp_path: Path) -> None:
    path = tmp_path / "twice.jsonl"
    rows = [
        {"session_id": 1, "query_id": "q", "doc_id": "a", "position": 1, "clicked": 0},
        {"session_id": 1, "query_id": "q", "doc_id": "a", "position": 2, "clicked": 1},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    message = _error(path)
    assert message.startswith(f"{path}:2: ") and "shows document 'a' twice" in message


def test_errors_name_the_parquet_row(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "missing.parquet"
    table = pa.table(
        {
            "session_id": ["s1", "s2", "s2"],
            "query_id": ["q", None, "q"],
            "doc_id": ["a", "a", "b"],
            "position": [1, 1, 2],
            "clicked": [True, False, False],
        }
    )
    pq.write_table(table, path)
    message = _error(path)
    assert message == f"{path}: row 2: missing query id ('query_id'): every row needs one"


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"position": [1, 2, 2, 1, 2, 1]}, "row 3: session 's1' has position 2 twice"),
        ({"position": [1, 2, 4, 1, 2, 1]}, "row 3: session 's1' has a position gap"),
        ({"position": [0, 1, 2, 1, 2, 1]}, "row 1: position 0 is not positive"),
        ({"position": [1, 2, "x", 1, 2, 1]}, "row 3: position 'x' is not an integer"),
        (
            {"doc_id": ["a", "b", None, "x", "a", "b"], "clicked": [0, 0, 1, 0, 0, 0]},
            "row 3: a click at position 3, which shows no document",
        ),
        (
            {"doc_id": ["a", "b", "a", "x", "a", "b"]},
            "row 3: session 's1' shows document 'a' twice",
        ),
        ({"query_id": ["q1", "q1", "", "q2", "q2", "q1"]}, "row 3: missing query id"),
        ({"query_id": ["q1", "q1", "q9", "q2", "q2", "q1"]}, "row 3: session 's1' has two queries"),
        ({"clicked": [0, 1, 2, 0, 0, 0]}, "row 3: 'clicked' must be true or false"),
        ({"session_id": ["s1", None, "s1", "s2", "s2", "s3"]}, "row 2: missing session id"),
    ],
)
def test_each_problem_is_one_error(change: dict[str, list[object]], expected: str) -> None:
    columns = {**LONG, **change}
    message = _error(columns)
    assert message.startswith(f"<dict>: {expected}"), message


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        (
            {"query_id": "q", "doc_ids": ["a", "b"], "clicked_positions": [3]},
            "row 1: a click at position 3, which shows no document (the impression shows 2)",
        ),
        (
            {"query_id": "q", "doc_ids": ["a", "b"], "clicks": [0, 1, 1]},
            "row 1: a click at position 3, which shows no document",
        ),
        (
            {"query_id": "q", "doc_ids": ["a", "a"], "clicks": [0, 1]},
            "row 1: session '1' shows document 'a' twice",
        ),
        ({"query_id": None, "doc_ids": ["a"], "clicks": [0]}, "row 1: missing query id"),
        (
            {"query_id": "q", "doc_ids": [], "clicks": []},
            "row 1: the impression shows no documents",
        ),
    ],
)
def test_wide_problems(record: dict[str, object], expected: str) -> None:
    message = _error([record])
    assert message.startswith(f"<records>: {expected}"), message


def test_missing_column_and_empty_input(tmp_path: Path) -> None:
    message = _error({"session_id": [1], "query_id": ["q"], "position": [1], "clicked": [0]})
    assert "needs a 'doc_id' column" in message
    with pytest.raises(EmptyInputError):
        read_log({"session_id": [], "query_id": [], "doc_id": [], "position": [], "clicked": []})
    assert "cannot tell the log's format" in _error(tmp_path / "log.txt")
    (tmp_path / "bad.jsonl").write_text('{"a": 1}\nnot json\n')
    assert _error(tmp_path / "bad.jsonl").startswith(f"{tmp_path / 'bad.jsonl'}:2: not a JSON")


def test_split_and_subset() -> None:
    log = read_log(LONG)
    train, test = log.split(1 / 3, seed=3)
    assert train.num_impressions == 2 and test.num_impressions == 1
    assert sorted(train.sessions + test.sessions) == ["s1", "s2", "s3"]
    both = {s: rest for s, *rest in _summary(train) + _summary(test)}
    assert both == {s: rest for s, *rest in EXPECTED}


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["q1", "q2", "q3"]),
            st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=6, unique=True),
            st.data(),
        ),
        min_size=1,
        max_size=12,
    ),
    st.randoms(use_true_random=False),
)
def test_long_wide_and_shuffled_agree(
    sessions: list[tuple[str, list[str], st.DataObject]], rnd: object
) -> None:
    wide = []
    long: dict[str, list[object]] = {k: [] for k in LONG}
    for i, (q, docs, data) in enumerate(sessions):
        clicks = data.draw(st.lists(st.booleans(), min_size=len(docs), max_size=len(docs)))
        wide.append({"session_id": f"s{i}", "query_id": q, "doc_ids": docs, "clicks": clicks})
        for r, (d, c) in enumerate(zip(docs, clicks, strict=True)):
            for key, value in zip(LONG, (f"s{i}", q, d, r + 1, c), strict=True):
                long[key].append(value)
    order = list(range(len(long["session_id"])))
    rnd.shuffle(order)  # type: ignore[attr-defined]
    shuffled = {k: [v[i] for i in order] for k, v in long.items()}
    expected = _summary(read_log(wide))
    assert _summary(read_log(long)) == expected
    assert sorted(_summary(read_log(shuffled))) == sorted(expected)


@pytest.mark.parametrize("clicked", [[1, 0], {"a": 1}, [], [[True]]])
def test_a_clicked_list_or_object_is_an_error_at_its_line(tmp_path: Path, clicked: object) -> None:
    """Issue 45: a JSON-lines 'clicked' that is a list or object was a bare TypeError
    (unhashable); every reader names the line (or row) like the CSV reader."""
    path = tmp_path / "lists.jsonl"
    rows = [
        {"session_id": 1, "query_id": "q", "doc_id": "a", "position": 1, "clicked": False},
        {"session_id": 1, "query_id": "q", "doc_id": "b", "position": 2, "clicked": clicked},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    message = _error(path)
    assert message.startswith(f"{path}:2: ") and "'clicked' must be true or false" in message
    assert _error(rows).startswith("<records>: row 2: ")
    wide = [{"query_id": "q", "doc_ids": ["a", "b"], "clicks": [False, clicked]}]
    assert "a click must be true or false" in _error(wide)


@settings(max_examples=25, deadline=None)
@given(st.booleans(), st.sampled_from(["\n", "\r\n"]))
def test_a_byte_order_mark_is_read_past(bom: bool, newline: str) -> None:
    """Issue 45: a JSON-lines click log with a UTF-8 byte-order mark was refused; the CSV
    reader (and every other reader of ranklens) takes it. With or without it, the log is
    the same."""
    import tempfile

    rows = [
        {"session_id": 1, "query_id": "q", "doc_id": "a", "position": 1, "clicked": True},
        {"session_id": 1, "query_id": "q", "doc_id": "b", "position": 2, "clicked": False},
    ]
    text = newline.join(json.dumps(r) for r in rows) + newline
    with tempfile.TemporaryDirectory() as folder:
        plain = Path(folder) / "plain.jsonl"
        marked = Path(folder) / "marked.jsonl"
        plain.write_bytes(text.encode())
        marked.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode())
        csv_path = Path(folder) / "marked.csv"
        csv_path.write_bytes(
            (b"\xef\xbb\xbf" if bom else b"")
            + b"session_id,query_id,doc_id,position,clicked\n1,q,a,1,1\n1,q,b,2,0\n"
        )
        expected = _summary(read_log(plain))
        assert _summary(read_log(marked)) == expected == _summary(read_log(csv_path))
