"""``EE-L``, ``EE-D`` and ``EE-R`` as measures of the language (``ranklens.evaluate``,
``ranklens eval -m EE-D``): per query and mean equal to ``ranklens expeval --fixed`` (the
corrected definitions, a separate implementation reading expeval's own file formats) on the
bundled expeval cases and on generated stochastic runs; a run without sample numbers, and
these measures mixed with those of one ranking, refused in one line; a stochastic run given
to ordinary measures told what it is."""

from __future__ import annotations

import contextlib
import io
import json
import math
import warnings
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import (
    DuplicateError,
    EmptyInputError,
    InputError,
    InputWarning,
    MeasureError,
)
from ranklens.cli import main
from ranklens.frontends.expeval import ExpevalOptions, expeval_values
from ranklens.frontends.expeval.runner import (
    ordered_samples,
    read_expeval_qrels,
    read_expeval_run,
)

DATA = Path(__file__).parent / "data" / "expeval"
OPTION_SETS: dict[str, list[str]] = json.loads((DATA / "options.json").read_text())
EE = ("EE-L", "EE-D", "EE-R")
FRONT = {"EE-L": "difference", "EE-D": "disparity", "EE-R": "relevance"}


def _options(flags: list[str]) -> tuple[ExpevalOptions, dict[str, object]]:
    """expeval's flags as its front end's options and as the measures' parameters."""
    model, p, u = "gerr", 0.5, 0.5
    i = 0
    switches: set[str] = set()
    while i < len(flags):
        flag = flags[i]
        if flag in ("-u", "-p", "-r"):
            value = flags[i + 1]
            if flag == "-u":
                model = value
            elif flag == "-p":
                p = float(value)
            else:
                u = float(value)
            i += 2
            continue
        switches.add(flag)
        i += 1
    front = ExpevalOptions(
        model=model,  # type: ignore[arg-type]
        patience=p,
        utility=u,
        binary="-B" in switches,
        groups="-G" in switches,
        complete="-C" in switches,
        normalise="-U" not in switches,
        fixed=True,
    )
    params = {
        "model": model,
        "p": p,
        "u": u,
        "binary": "-B" in switches,
        "complete": "-C" in switches,
        "normalize": "-U" not in switches,
    }
    return front, params


def _measure(name: str, params: dict[str, object]) -> str:
    return name + "(" + ",".join(f"{k}={v!r}" for k, v in params.items()) + ")"


def _check(front_values: dict, results: ranklens.Results, params: dict[str, object]) -> None:
    names = [_measure(n, params) for n in EE]
    raw = "" if params["normalize"] else "_raw"
    assert list(results.queries) == sorted(front_values)
    for qid, value in front_values.items():
        for name, short in zip(names, EE, strict=True):
            want = getattr(value, FRONT[short] + raw)
            got = results.per_query[qid][name]
            assert got == pytest.approx(want, rel=1e-12, abs=1e-12), (qid, short)
    for name, short in zip(names, EE, strict=True):
        values = [getattr(v, FRONT[short] + raw) for v in front_values.values()]
        want = math.fsum(values) / len(values)
        assert results.aggregate[name] == pytest.approx(want, rel=1e-12, abs=1e-12)


def _inputs_of(qrels_path: Path, complete: bool, qualify: bool = False):
    """The bundled expeval qrels as ranklens qrels and groups (every document there has
    groups, -1 where the line has none). expeval's groups are per query and document,
    ranklens' per document: with ``qualify``, document ids are prefixed with the query
    (case 4 gives a document other groups in another query)."""
    read = read_expeval_qrels(qrels_path, complete=complete)
    labels: dict[str, list[int]] = {}
    grades: dict[str, dict[str, int]] = {}
    for qid, docs in read.groups.items():
        for doc, groups in docs.items():
            name = f"{qid}:{doc}" if qualify else doc
            assert labels.setdefault(name, groups) == groups
            grades.setdefault(qid, {})[name] = read.grades[qid][doc]
    return grades, labels


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_bundled_cases_equal_expeval_fixed(seed, name):
    qrels_path, run_path = DATA / f"qrels.{seed}.txt", DATA / f"run.{seed}.txt"
    front, params = _options(OPTION_SETS[name])
    front_values, _ = expeval_values(qrels_path, run_path, front)
    grades, labels = _inputs_of(qrels_path, front.complete, qualify=True)
    parsed = read_expeval_run(run_path)
    samples = {
        q: [[f"{q}:{d}" for d in ranking] for ranking in ordered_samples(parsed, q)]
        for q in parsed.rankings
    }
    results = ranklens.evaluate(
        grades,
        samples,
        [_measure(n, params) for n in EE],
        groups=labels if front.groups else None,
    )
    _check(front_values, results, params)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_run_file_read_as_expeval_reads_it(seed, tmp_path):
    # cases 1-3 have no bad rank: the run file itself is read, and the groups from a file
    qrels_path, run_path = DATA / f"qrels.{seed}.txt", DATA / f"run.{seed}.txt"
    front, params = _options(["-G"])
    front_values, _ = expeval_values(qrels_path, run_path, front)
    grades, labels = _inputs_of(qrels_path, complete=False)
    groups = tmp_path / "groups.csv"
    groups.write_text("".join(f"{d},{','.join(map(str, g))}\n" for d, g in labels.items()))
    results = ranklens.evaluate(grades, run_path, [_measure(n, params) for n in EE], groups=groups)
    _check(front_values, results, params)


# --- generated stochastic runs ----------------------------------------------------------


@st.composite
def stochastic_case(draw):
    """Graded and negative judgments, queries without relevant documents, queries missing
    from the run and run queries without judgments, unjudged and repeated documents in a
    sample, empty samples, and documents without a group label."""
    grades: dict[str, dict[str, int]] = {}
    samples: dict[str, list[list[str]]] = {}
    labels: dict[str, list[int]] = {}
    for q in range(draw(st.integers(1, 5))):
        qid = f"q{q}"
        docs = [f"{qid}d{j}" for j in range(draw(st.integers(1, 6)))]
        for d in docs:
            if draw(st.integers(0, 4)):  # some documents have no group
                labels[d] = sorted(set(draw(st.lists(st.integers(0, 2), min_size=1, max_size=2))))
        grades[qid] = {d: draw(st.integers(-1, 3)) for d in docs}
        if draw(st.booleans()) or q == 0:
            pool = [*docs, f"{qid}u"]
            rankings = []
            for _ in range(draw(st.integers(1, 4))):
                order = list(draw(st.permutations(pool)))
                ranking = order[: draw(st.integers(0, len(pool)))]
                if ranking and draw(st.integers(0, 5)) == 0:
                    ranking.append(ranking[0])  # a document twice in one sample
                rankings.append(ranking)
            samples[qid] = rankings
    if draw(st.booleans()):
        samples["extra"] = [["x1", "x2"]]  # a run query without judgments
    return grades, samples, labels


MODELS = st.sampled_from([("gerr", 0.5, 0.5), ("gerr", 0.8, 0.3), ("rbp", 0.7, 0.5)])


def _expeval_text(grades, samples, labels):
    qrels = "".join(
        f"{q} {'|'.join(str(g) for g in labels.get(d, [-1]))} {d} {r}\n"
        for q, docs in grades.items()
        for d, r in docs.items()
    )
    run = "".join(
        f"{q} {s} {d} {i} 0 t\n"
        for q, rankings in samples.items()
        for s, ranking in enumerate(rankings)
        for i, d in enumerate(ranking, 1)
    )
    return qrels.encode(), run.encode()


def _repeats_a_document(samples):
    return any(len(set(r)) != len(r) for rankings in samples.values() for r in rankings)


def _has_target(grades, complete):
    return any(g > 0 or (complete and docs) for docs in grades.values() for g in docs.values())


@settings(max_examples=40, deadline=None)
@given(
    case=stochastic_case(),
    user=MODELS,
    grouped=st.booleans(),
    complete=st.booleans(),
    binary=st.booleans(),
    normalize=st.booleans(),
)
def test_generated_runs_equal_expeval_fixed(case, user, grouped, complete, binary, normalize):
    grades, samples, labels = case
    if not _has_target(grades, complete) or not any(q in grades for q in samples):
        return
    model, p, u = user
    # expeval puts a document without a group in group -1: give it that label here too
    full_labels = {d: labels.get(d, [-1]) for docs in grades.values() for d in docs}
    front = ExpevalOptions(
        model=model,
        patience=p,
        utility=u,
        binary=binary,
        groups=grouped,
        complete=complete,
        normalise=normalize,
        fixed=True,
    )
    qrels_text, run_text = _expeval_text(grades, samples, full_labels)
    params = {"model": model, "p": p, "u": u, "binary": binary, "complete": complete}
    params["normalize"] = normalize
    names = [_measure(n, params) for n in EE]
    if _repeats_a_document(samples):  # refused by expeval --fixed and by the language
        with pytest.raises(DuplicateError, match=r"<stream>:\d+: document .* occurs twice"):
            expeval_values(io.BytesIO(qrels_text), io.BytesIO(run_text), front)
        with _quiet(), pytest.raises(DuplicateError, match="occurs twice"):
            ranklens.evaluate(grades, io.BytesIO(run_text), names)
        return
    if not any(r for rankings in samples.values() for r in rankings):
        with pytest.raises(EmptyInputError, match="no sampled ranking"):  # no run line
            expeval_values(io.BytesIO(qrels_text), io.BytesIO(run_text), front)
        return
    front_values, _ = expeval_values(io.BytesIO(qrels_text), io.BytesIO(run_text), front)
    if not any(q in grades and any(r) for q, r in samples.items()):
        return  # (no judged query has a sample with a document: no run line for them)
    with _quiet():  # the run read from the same text (an empty sample has no line)
        results = ranklens.evaluate(
            grades,
            io.BytesIO(run_text),
            [_measure(n, params) for n in EE],
            groups=full_labels if grouped else None,
        )
    _check(front_values, results, params)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Warnings (most queries missing from a small generated run) are not checked here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@settings(max_examples=30, deadline=None)
@given(case=stochastic_case(), user=MODELS, complete=st.booleans())
def test_groups_missing_for_some_documents_equal_the_api(case, user, complete):
    # a document without a label counts in no group (ranklens.expected_exposure's rule)
    grades, samples, labels = case
    if not _has_target(grades, complete) or not any(q in grades for q in samples):
        return
    model, p, u = user
    kwargs = {"model": model, "patience": p, "utility": u, "complete": complete}
    if _repeats_a_document(samples):  # a dict's sample: named by query and sample
        with pytest.raises(DuplicateError, match=r"query 'q\d+', sample \d+ .*occurs twice"):
            ranklens.expected_exposure(grades, samples, labels, **kwargs)
        with pytest.raises(DuplicateError, match="positions"), _quiet():
            ranklens.evaluate(grades, samples, f"EE-L(complete={complete})", groups=labels)
        return
    try:
        api = ranklens.expected_exposure(grades, samples, labels, **kwargs)
    except InputError as exc:  # a query none of whose documents has a group
        with pytest.raises(InputError, match="has a group label"), _quiet():
            ranklens.evaluate(grades, samples, f"EE-L(complete={complete})", groups=labels)
        assert "group label" in str(exc)
        return
    measures = [f"{n}(model={model!r},p={p},u={u},complete={complete})" for n in EE]
    with _quiet():
        results = ranklens.evaluate(grades, samples, measures, groups=labels)
    assert list(results.queries) == sorted(api.per_query)
    for qid, values in api.per_query.items():
        for name, short in zip(measures, EE, strict=True):
            assert results.per_query[qid][name] == pytest.approx(values[short], abs=1e-12)


# --- queries, policies, the command line ----------------------------------------------

QRELS = {"q1": {"a": 1, "b": 1, "c": 0}, "q2": {"d": 2, "e": 0}, "q3": {"f": 0}}
RUN = {"q1": [["a", "b"], ["b", "a"]], "q9": [["z"]]}


def test_queries_evaluated_and_policies():
    res = ranklens.evaluate(QRELS, RUN, ["EE-L", "EE-D"])
    assert res.queries == ("q1", "q2")  # q3 has no relevant document: no target exposure
    assert res.per_query["q2"] == {"EE-L": 1.0, "EE-D": 1.0}  # missing: the worst values
    assert res.query_counts["evaluated"] == 2 and res.query_counts["missing"] == 1
    both = ranklens.evaluate(QRELS, RUN, ["EE-L", "EE-D"], queries="both")
    assert both.queries == ("q1",) and both.aggregate == both.per_query["q1"]
    run_policy = ranklens.evaluate(QRELS, RUN, ["EE-L", "EE-D"], queries="run")
    assert run_policy.per_query == both.per_query  # q9 has no judgments: no target
    with pytest.warns(InputWarning, match="2 of the 3 evaluated queries are missing"):
        complete = ranklens.evaluate(QRELS, RUN, "EE-L(complete=True)")
    assert complete.queries == ("q1", "q2", "q3")


def test_depth_cuts_each_sample():
    cut = ranklens.evaluate(QRELS, RUN, "EE-D", depth=1, queries="both")
    by_hand = ranklens.evaluate(QRELS, {"q1": [["a"], ["b"]]}, "EE-D", queries="both")
    assert cut.aggregate == by_hand.aggregate
    assert cut.aggregate != ranklens.evaluate(QRELS, RUN, "EE-D", queries="both").aggregate


def test_frames_and_several_runs():
    rows = [
        (q, s, d, r)
        for q, rankings in RUN.items()
        for s, ranking in enumerate(rankings)
        for r, d in enumerate(ranking, 1)
    ]
    frame = pd.DataFrame(rows, columns=["query_id", "sample", "doc_id", "rank"])
    groups = pd.DataFrame({"doc_id": ["a", "b", "d"], "group": ["x", "y", "x"]})
    from_frame = ranklens.evaluate(QRELS, frame, EE, groups=groups)
    from_dict = ranklens.evaluate(QRELS, RUN, EE, groups={"a": "x", "b": "y", "d": "x"})
    assert from_frame.per_query == from_dict.per_query
    many = ranklens.evaluate(QRELS, {"r1": RUN, "r2": {"q1": [["c", "a", "b"]]}}, "EE-R")
    assert list(many.aggregate) == ["r1", "r2"]
    assert many.aggregate["r1"]["EE-R"] == ranklens.evaluate(QRELS, RUN, "EE-R")["EE-R"]
    assert many.aggregate["r2"]["EE-R"] < many.aggregate["r1"]["EE-R"]


def test_run_without_sample_numbers_is_refused(tmp_path):
    plain = tmp_path / "plain.run"
    plain.write_text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n")
    ordinary = {"q1": {"a": 2.0, "b": 1.0}}
    frame = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]})
    for run in (plain, ordinary, frame, ranklens.Run(ordinary)):
        with pytest.raises(InputError, match="EE-D needs several sampled rankings per query"):
            ranklens.evaluate(QRELS, run, "EE-D")


def test_mixing_with_measures_of_one_ranking_is_refused():
    with pytest.raises(MeasureError, match="evaluate them separately"):
        ranklens.evaluate(QRELS, RUN, ["EE-D", "nDCG@10"])
    with pytest.raises(MeasureError, match="evaluate different queries"):
        ranklens.evaluate(QRELS, RUN, ["EE-D", "EE-D(complete=True)"])
    with pytest.raises(MeasureError, match="sampled rankings"):
        ranklens.measures.parse_measure("EE-D").compute(None)  # type: ignore[arg-type]


def test_parameters_are_checked():
    for text, says in (
        ("EE-L(p=1.0)", r"in \[0.0, 1.0\)"),
        ("EE-L(u=1.5)", r"in \[0.0, 1.0\]"),
        ("EE-L(model='dcg')", "one of"),
    ):
        with pytest.raises(MeasureError, match=says):
            ranklens.evaluate(QRELS, RUN, text)


def _files(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, ds in QRELS.items() for d, g in ds.items()))
    run = tmp_path / "samples.run"
    run.write_text(
        "".join(
            f"{q} {s} {d} {r} 0 t\n"
            for q, rankings in RUN.items()
            for s, ranking in enumerate(rankings)
            for r, d in enumerate(ranking, 1)
        )
    )
    groups = tmp_path / "groups.csv"
    groups.write_text("a,x\nb,y\nd,x\n")
    return qrels, run, groups


def test_command_line_equals_the_api(tmp_path, capsys):
    qrels, run, groups = _files(tmp_path)
    args = ["eval", "-m", "EE-L", "-m", "EE-R", "-q", "-f", "tsv", "--precision", "full"]
    assert main([*args, "--groups", str(groups), str(qrels), str(run)]) == 0
    out = capsys.readouterr()
    api = ranklens.evaluate(qrels, run, ["EE-L", "EE-R"], groups=groups)
    rows = [line.split("\t") for line in out.out.strip().splitlines()]
    assert rows[0] == ["run", "query", "measure", "value"]
    printed = {(q, m): float(v) for run_name, q, m, v in rows[1:] if run_name == "samples"}
    for qid, values in api.per_query.items():
        for name, value in values.items():
            assert printed[(qid, name)] == value
    assert printed[("all", "EE-R")] == api.aggregate["EE-R"]
    assert "given the worst values" in out.err


def test_command_line_refusals_are_one_line(tmp_path, capsys):
    qrels, run, _ = _files(tmp_path)
    plain = tmp_path / "plain.run"
    plain.write_text("q1 Q0 a 1 2.0 t\n")
    for args, says in (
        (["-m", "EE-D", str(qrels), str(plain)], "EE-D needs several sampled rankings"),
        (["-m", "EE-D", "-m", "AP", str(qrels), str(run)], "evaluate them separately"),
        (["-m", "EE-D", "--bounds", str(qrels), str(run)], "--bounds is not supported"),
        (["-m", "AP", str(qrels), str(run)], "This looks like a stochastic run"),
    ):
        assert main(["eval", *args]) == 2
        err = capsys.readouterr().err
        assert says in err and err.count("\n") == 1 and "Traceback" not in err


def test_stochastic_run_given_to_ordinary_measures(tmp_path):
    qrels, run, _ = _files(tmp_path)
    with pytest.raises(DuplicateError, match="samples 0 and 1"):
        ranklens.evaluate(qrels, run, "AP")
    # a repeated document of an ordinary run (Q0) keeps its usual message
    plain = tmp_path / "dup.run"
    plain.write_text("q1 Q0 a 1 2.0 t\nq1 Q0 a 2 1.0 t\n")
    with pytest.raises(DuplicateError) as info:
        ranklens.evaluate(qrels, plain, "AP")
    assert "looks like a stochastic run" not in str(info.value)


def test_groups_without_expected_exposure_warn():
    with pytest.warns(InputWarning, match="groups= .* read only by"):
        ranklens.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "AP", groups={"a": "x"})


def test_expeval_front_end_mean_line_equals_the_aggregate(tmp_path, capsys):
    qrels_path, run_path = DATA / "qrels.2.txt", DATA / "run.2.txt"
    assert main(["expeval", "--fixed", "--mean", str(qrels_path), str(run_path)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    means = {n: float(v) for n, q, v in (line.split("\t") for line in lines) if q == "all"}
    grades, _ = _inputs_of(qrels_path, complete=False)
    res = ranklens.evaluate(grades, run_path, EE)
    for name in EE:
        assert res.aggregate[name] == pytest.approx(means[FRONT[name]], abs=5e-7)


def test_measure_reads_only_its_stream():
    # the qrels given as a file object and a run of one sample per query
    qrels = io.StringIO("q1 0 a 1\nq1 0 b 0\n")
    res = ranklens.evaluate(qrels, {"q1": [["a", "b"]]}, "EE-R(model='rbp')")
    assert res.per_query["q1"]["EE-R(model='rbp')"] == 1.0  # the ideal ranking
