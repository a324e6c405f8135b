"""Nugget scores of generated answers: ranklens.rag.nugget_scores and the six Nugget*
measures equal the reference scorer's (castorini/nuggetizer, with the weighted scores of
pyterrier-nuggetizer) on the TREC RAG 2024 baseline and on generated runs with the labels
real LLM judges write, to the last bit per topic; the unknown-label policies; every way in;
the errors."""

from __future__ import annotations

import gzip
import io
import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens import InputError, InputWarning, MeasureError, OptionError, ParseError
from ranklens.rag import NUGGET_MEASURES, nugget_scores

DATA = Path(__file__).resolve().parent / "data" / "rag"
BASELINE = DATA / "baseline_rag24.assignments.jsonl.gz"
GENERATED = DATA / "generated.assignments.jsonl"
PEER = (
    "strict_vital_score",
    "vital_score",
    "strict_weighted_score",
    "weighted_score",
    "strict_all_score",
    "all_score",
)


def _jsonl(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:  # type: ignore[operator]
        return [json.loads(line) for line in handle if line.strip()]


def reference(nuggets: list[dict[str, Any]]) -> dict[str, float]:
    """The six scores of one answer, written from the definitions (nuggetizer's rules for
    labels outside the defined sets), independently of ranklens' vectorised kernel."""
    out = {}
    for strict in (True, False):

        def credit(n: dict[str, Any], strict: bool = strict) -> float:
            if n["assignment"] == "support":
                return 1.0
            return 0.5 if n["assignment"] == "partial_support" and not strict else 0.0

        vital = [n for n in nuggets if n["importance"] == "vital"]
        okay = [n for n in nuggets if n["importance"] == "okay"]
        prefix = "strict_" if strict else ""
        out[prefix + "vital_score"] = sum(credit(n) for n in vital) / len(vital) if vital else 0.0
        weight = len(vital) + 0.5 * len(okay)
        earned = sum(credit(n) for n in vital) + 0.5 * sum(credit(n) for n in okay)
        out[prefix + "weighted_score"] = earned / weight if weight else 0.0
        out[prefix + "all_score"] = (
            sum(credit(n) for n in nuggets) / len(nuggets) if nuggets else 0.0
        )
    return out


# --- the reference scorer's own output --------------------------------------------------


def test_the_trec_rag_2024_baseline_is_reproduced_to_the_last_bit() -> None:
    expected = _jsonl(DATA / "baseline_rag24.metrics.jsonl")
    with pytest.warns(InputWarning, match="65 labels outside the defined sets"):
        res = nugget_scores(BASELINE)
    per_topic = [e for e in expected if e["qid"] != "all"]
    assert len(res.queries) == len(per_topic) == 301
    for line in per_topic:
        for name in PEER:
            assert res.per_query[line["qid"]][name] == line[name], (line["qid"], name)
    means = next(e for e in expected if e["qid"] == "all")
    for name in PEER:  # docs/rag.md: at most 7 units in the last place of nuggetizer's
        assert abs(res.aggregate[name] - means[name]) <= 7 * np.spacing(means[name])
    assert res.query_counts["unknown_labels"] == 65
    assert res.run == "baseline_rag24.test_command-r-plus_top20"


@pytest.mark.parametrize("run", ["gen0", "gen1", "gen2", "gen3"])
def test_generated_runs_with_awkward_labels_match_the_reference_scorer(run: str) -> None:
    expected = [e for e in _jsonl(DATA / "generated.metrics.jsonl") if e["run_id"] == run]
    with pytest.warns(InputWarning):
        res = nugget_scores(GENERATED, run=run)
    for line in expected:
        for name in PEER:
            if line["qid"] == "all":  # docs/rag.md: 2 units in the last place here
                assert abs(res.aggregate[name] - line[name]) <= 2 * np.spacing(line[name])
            else:
                assert res.per_query[line["qid"]][name] == line[name]
    assert len(res.queries) == 40 and res.run == run


def test_the_generated_file_holds_what_the_test_claims() -> None:
    """The generated runs really hold the awkward cases: topics without nuggets, without
    vital nuggets, and labels outside the defined sets of both kinds."""
    records = _jsonl(GENERATED)
    assert any(not r["nuggets"] for r in records)
    assert any(
        r["nuggets"] and all(n["importance"] != "vital" for n in r["nuggets"]) for r in records
    )
    labels = {n["assignment"] for r in records for n in r["nuggets"]}
    importance = {n["importance"] for r in records for n in r["nuggets"]}
    assert {None, "", "Support", "questionable"} <= labels
    assert {None, "", "Vital", "failed"} <= importance


# --- names --------------------------------------------------------------------------------


def test_results_answer_to_nuggetizers_names_and_to_ranklens_names() -> None:
    records = [
        {
            "qid": "q1",
            "nuggets": [
                {"text": "a", "importance": "vital", "assignment": "support"},
                {"text": "b", "importance": "vital", "assignment": "partial_support"},
                {"text": "c", "importance": "okay", "assignment": "partial_support"},
            ],
        }
    ]
    res = nugget_scores(records)
    assert res.names == list(NUGGET_MEASURES)
    row = res.per_query["q1"]
    assert row["vital_score"] == row["NuggetVital"] == 0.75
    assert row["strict_vital_score"] == 0.5
    assert row["weighted_score"] == (1 + 0.5 + 0.5 * 0.5) / 2.5
    assert row["strict_weighted_score"] == 1 / 2.5
    assert row["all_score"] == (1 + 0.5 + 0.5) / 3
    assert row["strict_all_score"] == 1 / 3
    assert res["vital_score"] == 0.75
    assert str(ranklens.parse_measure("strict_all_score")) == "NuggetAllStrict"


# --- unknown labels -----------------------------------------------------------------------


def _known_only(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            **r,
            "nuggets": [
                n
                for n in r["nuggets"]
                if n["importance"] in ("vital", "okay")
                and n["assignment"] in ("support", "partial_support", "not_support")
            ],
        }
        for r in records
    ]


@pytest.mark.parametrize("run", ["gen0", "gen3"])
def test_ignore_leaves_out_every_nugget_with_a_label_outside_the_sets(run: str) -> None:
    records = [r for r in _jsonl(GENERATED) if r["run_id"] == run]
    ignored = nugget_scores(records, unknown="ignore")  # chosen: counted, not warned about
    assert ignored.query_counts["unknown_labels"] > 0
    cleaned = nugget_scores(_known_only(records))
    assert ignored.queries == cleaned.queries
    assert ignored.values.tolist() == cleaned.values.tolist()
    assert ignored.names == [m + "(unknown='ignore')" for m in NUGGET_MEASURES]
    assert cleaned.query_counts["unknown_labels"] == 0


def test_error_refuses_the_first_unknown_label_naming_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "assign.jsonl"
    path.write_text(
        json.dumps(
            {
                "qid": "q1",
                "nuggets": [{"text": "a", "importance": "vital", "assignment": "support"}],
            }
        )
        + "\n"
        + json.dumps(
            {"qid": "q2", "nuggets": [{"text": "b", "importance": "vital", "assignment": "failed"}]}
        )
        + "\n"
    )
    with pytest.raises(InputError, match=r"assign\.jsonl:2: .*'failed'.*unknown='error'"):
        nugget_scores(path, unknown="error")
    with pytest.raises(InputError, match=r":2: "):
        ranklens.evaluate(None, str(path), ["NuggetVital(unknown='error')"])
    with pytest.warns(InputWarning, match=r"1 labels outside the defined sets.*'failed'"):
        res = nugget_scores(path)
    assert res.per_query["q2"]["vital_score"] == 0.0
    assert res.query_counts["unknown_labels"] == 1
    with pytest.raises(OptionError, match="unknown must be one of"):
        nugget_scores(path, unknown="skip")


def test_unknown_importance_counts_among_all_nuggets_only() -> None:
    records = [
        {
            "qid": "q1",
            "nuggets": [
                {"text": "a", "importance": "vital", "assignment": "not_support"},
                {"text": "b", "importance": "", "assignment": "support"},
                {"text": "c", "importance": None, "assignment": "partial_support"},
            ],
        }
    ]
    with pytest.warns(InputWarning, match="2 labels"):
        row = nugget_scores(records).per_query["q1"]
    assert row["vital_score"] == 0.0 and row["weighted_score"] == 0.0
    assert row["all_score"] == 1.5 / 3 and row["strict_all_score"] == 1 / 3


# --- properties ---------------------------------------------------------------------------

IMPORTANCE = st.sampled_from(["vital", "vital", "okay", "okay", "failed", "", None, "Vital"])
ASSIGNMENT = st.sampled_from(
    [
        "support",
        "partial_support",
        "not_support",
        "support",
        "not_support",
        "",
        None,
        "Support",
        "questionable",
    ]
)
NUGGET = st.fixed_dictionaries(
    {"text": st.sampled_from(["x", "y", "z"]), "importance": IMPORTANCE, "assignment": ASSIGNMENT}
)
TOPICS = st.dictionaries(
    st.sampled_from(["1", "10", "2", "9", "q", "Q", "é"]),
    st.lists(NUGGET, max_size=9),
    min_size=1,
    max_size=6,
)


@settings(max_examples=80, deadline=None)
@given(TOPICS, st.randoms(use_true_random=False))
def test_scores_equal_the_definitions_and_keep_their_invariants(
    topics: dict[str, list[dict[str, Any]]], rnd: random.Random
) -> None:
    records = [{"qid": q, "nuggets": n} for q, n in topics.items()]
    with _quiet():
        res = nugget_scores(records)
    for q, nuggets in topics.items():
        expected = reference(nuggets)
        row = res.per_query[q]
        for name in PEER:
            assert row[name] == expected[name], (q, name)
            assert 0.0 <= row[name] <= 1.0
        for kind in ("vital", "weighted", "all"):
            assert row[f"strict_{kind}_score"] <= row[f"{kind}_score"]
    shuffled = [{"qid": q, "nuggets": rnd.sample(n, len(n))} for q, n in topics.items()]
    with _quiet():
        again = nugget_scores(list(reversed(shuffled)))
    assert again.queries == res.queries and again.values.tolist() == res.values.tolist()
    assert list(res.queries) == sorted(topics, key=lambda s: s.encode())


def _quiet() -> Any:
    import warnings

    manager = warnings.catch_warnings()
    manager.__enter__()
    warnings.simplefilter("ignore", InputWarning)

    class _Exit:
        def __enter__(self) -> None:
            return None

        def __exit__(self, *exc: object) -> None:
            manager.__exit__(*exc)

    return _Exit()


# --- topics and runs ----------------------------------------------------------------------


def _assignments(*topics: tuple[str, list[tuple[str, str]]], run: str | None = None) -> list:
    out = []
    for qid, nuggets in topics:
        record: dict[str, Any] = {
            "qid": qid,
            "nuggets": [
                {"text": f"n{i}", "importance": imp, "assignment": asg}
                for i, (imp, asg) in enumerate(nuggets)
            ],
        }
        if run is not None:
            record["run_id"] = run
        out.append(record)
    return out


def test_a_nuggets_file_names_the_topics_judged() -> None:
    nuggets = [
        {"qid": "q1", "nuggets": [{"text": "n0", "importance": "vital"}]},
        {
            "qid": "q2",
            "nuggets": [
                {"text": "n0", "importance": "vital"},
                {"text": "n1", "importance": "okay"},
            ],
        },
    ]
    assigned = _assignments(("q1", [("vital", "support")]))
    res = nugget_scores(assigned, nuggets=nuggets)
    assert res.queries == ("q1", "q2")
    assert res.per_query["q2"]["all_score"] == 0.0 and res.aggregate["vital_score"] == 0.5
    assert res.query_counts["missing"] == 1
    both = nugget_scores(assigned, nuggets=nuggets, queries="both")
    assert both.queries == ("q1",) and both.aggregate["vital_score"] == 1.0


def test_several_runs_in_one_file() -> None:
    records = _assignments(("q1", [("vital", "support")]), run="a") + _assignments(
        ("q1", [("vital", "not_support")]), ("q2", [("okay", "support")]), run="b"
    )
    with pytest.raises(OptionError, match="hold runs 'a', 'b': name the one"):
        nugget_scores(records)
    assert nugget_scores(records, run="b").queries == ("q1", "q2")
    assert nugget_scores(records, run="a").per_query["q1"]["vital_score"] == 1.0
    # the file as judgments, runs by name ({topic: text} answers)
    rs = ranklens.evaluate(
        records, {"a": {"q1": "x"}, "b": {"q1": "y", "q2": "z"}}, ["NuggetVital", "NuggetAll"]
    )
    assert rs["a"].aggregate["NuggetVital"] == 1.0
    assert rs["b"].per_query["q2"]["NuggetAll"] == 1.0
    with pytest.raises(InputError, match="no nugget assignments for run 'c'"):
        ranklens.evaluate(records, {"c": {"q1": "x"}}, ["NuggetVital"])


def test_every_way_in_gives_the_same_results(tmp_path: Path) -> None:
    records = _jsonl(GENERATED)[:40]  # run gen0
    path = tmp_path / "a.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    gz = tmp_path / "a.jsonl.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    array = tmp_path / "a.json"
    array.write_text(json.dumps(records))
    with _quiet():
        results = [
            nugget_scores(path),
            nugget_scores(str(gz)),
            nugget_scores(array),
            nugget_scores(io.StringIO(path.read_text())),
            nugget_scores(records),
        ]
        pd = pytest.importorskip("pandas")
        rows = [
            {"qid": r["qid"], "run_id": r["run_id"], **n} for r in records for n in r["nuggets"]
        ]
        results.append(nugget_scores(pd.DataFrame(rows)))
    first = results[0]
    for other in results[1:]:
        same = [q for q in first.queries if q in other.queries]
        # a table has no row for a topic without nuggets: it is not in the table
        assert set(first.queries) - set(same) <= {r["qid"] for r in records if not r["nuggets"]}
        for q in same:
            assert other.per_query[q] == first.per_query[q]


# --- errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            ['{"qid": "q1", "nuggets": [{"text": "a", "importance": "vital"}]}'],
            r"a\.jsonl:1: nugget 1 of topic 'q1' has no 'assignment'",
        ),
        (
            ['{"qid": "q1", "nuggets": [{"text": "a", "assignment": "support"}]}'],
            r"a\.jsonl:1: nugget 1 of topic 'q1' has no 'importance'",
        ),
        (['{"nuggets": []}'], r"a\.jsonl:1: .*needs the field 'qid' or 'topic_id'"),
        (['{"qid": "q1", "nuggets": "none"}'], r"a\.jsonl:1: 'nuggets' must be a list"),
        (['{"qid": "q1", "nuggets": ["a"]}'], r"a\.jsonl:1: nugget 1 of topic 'q1' must be"),
        (
            ['{"qid": "q1", "nuggets": []}', '{"qid": "q1", "nuggets": []}'],
            r"a\.jsonl:2: topic 'q1' has two records .* on lines 1 and 2",
        ),
        (['{"qid": "q1", "nuggets": [}'], r"a\.jsonl:1: is not a JSON object"),
        (['["q1"]'], r"a\.jsonl: item 1 of the JSON array is a str"),
        (['{"qid": true, "nuggets": []}'], r"a\.jsonl:1: the topic id must be a string"),
    ],
)
def test_bad_files_are_one_line_errors_naming_the_file_and_line(
    tmp_path: Path, lines: list[str], message: str
) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=message) as caught:
        nugget_scores(path)
    assert "\n" not in str(caught.value)


def test_empty_inputs_and_wrong_types_are_refused(tmp_path: Path) -> None:
    empty = tmp_path / "e.jsonl"
    empty.write_text("\n")
    with pytest.raises(InputError, match="holds no nugget assignments: the file is empty"):
        nugget_scores(empty)
    with pytest.raises(InputError, match="the list is empty"):
        nugget_scores([])
    with pytest.raises(InputError, match=r"record 1 .* is a int"):
        nugget_scores([1])
    with pytest.raises(ParseError):
        nugget_scores(io.StringIO("not json\n"))
    with pytest.raises(MeasureError, match="needs gold answers"):
        ranklens.evaluate(None, {"q1": "x"}, ["EM"])


def test_a_run_that_is_not_there_is_named_with_the_ones_that_are() -> None:
    one = [
        {
            "qid": "q1",
            "run_id": "r",
            "nuggets": [{"text": "a", "importance": "vital", "assignment": "support"}],
        }
    ]
    with pytest.raises(OptionError, match=r"hold no run named 'x'; they hold one run, 'r'"):
        nugget_scores(one, run="x")
    with pytest.raises(OptionError, match=r"no run named 'nope'; they hold runs 'gen0', 'gen1'"):
        nugget_scores(GENERATED, run="nope")
    with pytest.raises(OptionError, match=r"hold runs 'gen0', .*: name the one to score"):
        nugget_scores(GENERATED)


@pytest.mark.parametrize("reader", ["read_assignments", "read_nuggets"])
def test_a_topic_given_twice_names_both_records(tmp_path: Path, reader: str) -> None:
    record = {
        "qid": "q1",
        "run_id": "r",
        "nuggets": [{"text": "a", "importance": "vital", "assignment": "support"}],
    }
    read = getattr(ranklens.rag, reader)
    with pytest.raises(InputError, match=r"topic 'q1' has two records .* on records 1 and 3;"):
        read([record, {**record, "qid": "q2"}, record])
    path = tmp_path / "a.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [record, {**record, "qid": "q2"}, record]))
    with pytest.raises(InputError, match=r"a\.jsonl:3: topic 'q1' .* on lines 1 and 3;"):
        read(str(path))
