"""The sampled measures of the language (``xinfAP``, ``infNDCG``, ``infP@k``, ``infIPrec@x``,
``infNumRel``, ``infNumRelRet``): per query and mean, equal to NIST sample_eval.pl's own
output files (tests/data/sample_eval) and to ``ranklens sample-eval`` on generated stratified
qrels; stratified qrels given to an ordinary measure, and ordinary qrels given to a sampled
one, get one clear line."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import EmptyInputError, MeasureError, ParseError
from ranklens.cli import main
from ranklens.frontends.sample_eval import run_sample_eval, sample_eval_values

DATA = Path(__file__).parent / "data"
QRELS = DATA / "sample_eval" / "qrels.sampled.txt.gz"
RUNS = {
    "out.ql-cata.q.txt": DATA / "ndeval" / "run.ql-cata.txt.gz",
    "out.rm-cata-f.q.txt": DATA / "ndeval" / "run.rm-cata-f.txt.gz",
}
LEVELS = [f"{i / 10:.1f}" for i in range(11)]
# sample_eval's line name -> the measure of the language
PER_TOPIC = {
    "infAP": "xinfAP",
    "infNDCG": "infNDCG",
    "iP10": "infP@10",
    "iP50": "infP@50",
    "iP1000": "infP@1000",
    "inum_rel_ret": "infNumRelRet",
    "inum_rel": "infNumRel",
}
ALL_ONLY = {f"iprec@rec{float(x):4.2f}": f"infIPrec@{x}" for x in LEVELS}
MEASURES = [*PER_TOPIC.values(), *ALL_ONLY.values()]


def _golden(name: str) -> dict[tuple[str, str], str]:
    out = {}
    for line in (DATA / "sample_eval" / name).read_text().splitlines():
        measure, topic, value = line.split()
        out[(measure, topic)] = value
    return out


@pytest.mark.parametrize("golden", sorted(RUNS))
def test_equal_to_sample_eval_pl_output_per_topic_and_all(golden: str) -> None:
    expected = _golden(golden)
    res = ranklens.evaluate(QRELS, RUNS[golden], MEASURES)
    per_query = res.per_query
    checked = 0
    for (line, topic), value in expected.items():
        if line == "num_ret":
            continue
        name = PER_TOPIC.get(line) or ALL_ONLY[line]
        got = res.aggregate[name] if topic == "all" else per_query[topic][name]
        assert f"{got:.4f}" == value, (line, topic)
        checked += 1
    assert checked == 50 * len(PER_TOPIC) + len(PER_TOPIC) + len(ALL_ONLY)


def test_cli_eval_prints_estimated_counts_with_decimals(capsys: pytest.CaptureFixture[str]) -> None:
    run = RUNS["out.ql-cata.q.txt"]
    code = main(["eval", str(QRELS), str(run), "-m", "xinfAP", "-m", "infNumRel", "-f", "trec"])
    assert code == 0
    out = capsys.readouterr().out
    golden = _golden("out.ql-cata.q.txt")
    assert f"\tall\t{golden[('infAP', 'all')]}" in out
    # a summed estimate is not a whole number: shown with its decimals, not truncated
    assert f"\tall\t{golden[('inum_rel', 'all')]}" in out


# --- generated stratified qrels ----------------------------------------------------------


@st.composite
def sampled_cases(draw: st.DrawFn) -> tuple[bytes, bytes, set[str], set[str]]:
    """Stratified qrels (strata sampled at different rates, -1 pooled but not sampled,
    graded judgments, sometimes a document judged twice) and a run (tied scores, unpooled
    documents, topics missing from either side)."""
    qrels_lines: list[str] = []
    run_lines: list[str] = []
    qrels_topics = draw(st.sets(st.sampled_from(["1", "2", "3", "4"]), min_size=1))
    run_topics = draw(st.sets(st.sampled_from(["1", "2", "3", "4", "5"]), min_size=1))
    for topic in sorted(qrels_topics):
        pool = [f"d{i}" for i in range(draw(st.integers(1, 14)))]
        for doc in pool:
            stratum = draw(st.sampled_from(["1", "2", "10"]))  # "10" sorts before "2"
            rate = {"1": 1.0, "2": 0.5, "10": 0.2}[stratum]
            sampled = draw(st.floats(0, 1)) < rate
            grade = draw(st.sampled_from(["0", "1", "2"])) if sampled else "-1"
            qrels_lines.append(f"{topic} 0 {doc} {stratum} {grade}")
            if draw(st.integers(0, 9)) == 0:  # judged twice: the last line wins
                qrels_lines.append(f"{topic} 0 {doc} {stratum} {draw(st.sampled_from(['0', '1']))}")
    for topic in sorted(run_topics):
        docs = draw(st.lists(st.integers(0, 18), min_size=1, max_size=16, unique=True))
        for rank, doc in enumerate(docs, 1):
            score = draw(st.integers(0, 4))  # few values: many ties
            run_lines.append(f"{topic} Q0 d{doc} {rank} {score} r")
    qrels = ("\n".join(qrels_lines) + "\n").encode()
    run = ("\n".join(run_lines) + "\n").encode()
    return qrels, run, qrels_topics, run_topics


def _evaluate(qrels: bytes, run: bytes, queries: str = "qrels") -> ranklens.Results:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ranklens.evaluate(
            io.BytesIO(qrels),
            io.BytesIO(run),
            MEASURES,
            queries=queries,  # type: ignore[arg-type]
        )


PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(sampled_cases())
def test_per_query_equal_to_the_front_end(case: tuple[bytes, bytes, set[str], set[str]]) -> None:
    qrels, run, qrels_topics, run_topics = case
    if not qrels_topics & run_topics:
        return  # no shared topic: sample_eval has nothing to evaluate (checked below)
    front = sample_eval_values(io.BytesIO(qrels), io.BytesIO(run))
    res = _evaluate(qrels, run)
    per_query = res.per_query
    assert set(per_query) == qrels_topics
    for topic in qrels_topics:
        values = per_query[topic]
        if topic not in front.topics:  # a qrels topic the run lacks: nothing retrieved
            assert values["xinfAP"] == values["infNDCG"] == values["infNumRelRet"] == 0.0
            continue
        m = front.topics[topic]
        assert values["xinfAP"] == m.ap
        assert values["infNDCG"] == m.ndcg
        assert [values["infP@10"], values["infP@50"], values["infP@1000"]] == m.precision
        assert values["infNumRelRet"] == m.num_rel_ret
        assert values["infNumRel"] == m.num_rel


@PROPS
@given(sampled_cases())
def test_means_equal_sample_eval_all_lines(case: tuple[bytes, bytes, set[str], set[str]]) -> None:
    """With every qrels topic in the run the means are sample_eval's ``all`` lines; when
    the run lacks some, ``queries="both"`` gives its means and the default its sums."""
    qrels, run, qrels_topics, run_topics = case
    if not qrels_topics & run_topics:
        return
    text = run_sample_eval(io.BytesIO(qrels), io.BytesIO(run))
    lines = {line.split()[0]: line.split()[-1] for line in text.splitlines()}
    means = _evaluate(qrels, run, "both").aggregate
    sums = _evaluate(qrels, run).aggregate
    for line, name in {**PER_TOPIC, **ALL_ONLY}.items():
        if line in ("inum_rel_ret", "inum_rel"):
            assert f"{sums[name]:.4f}" == lines[line], line
        else:
            assert f"{means[name]:.4f}" == lines[line], line
            if qrels_topics <= run_topics:
                assert f"{sums[name]:.4f}" == lines[line], line


# --- bad input ---------------------------------------------------------------------------

STRATA_SMALL = b"1 0 a 1 1\n1 0 b 1 0\n1 0 c 2 -1\n1 0 d 2 1\n"
RUN_SMALL = {"1": {"a": 3.0, "c": 2.0, "d": 1.0}}


def test_stratified_qrels_given_to_an_ordinary_measure(tmp_path, capsys) -> None:
    with pytest.raises(ParseError) as info:
        ranklens.evaluate(io.BytesIO(STRATA_SMALL), RUN_SMALL, ["xinfAP", "AP"])
    assert "stratified" in str(info.value) and "sample-eval" in str(info.value)
    strata = tmp_path / "strata.qrels"
    strata.write_bytes(STRATA_SMALL)
    run = tmp_path / "r.run"
    run.write_text("1 Q0 a 1 3 r\n")
    assert main(["eval", str(strata), str(run), "-m", "AP"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "strata.qrels:1" in err
    assert "sample-eval" in err and "xinfAP" in err


def test_ordinary_qrels_given_to_a_sampled_measure(tmp_path, capsys) -> None:
    qrels = tmp_path / "ordinary.qrels"
    qrels.write_text("1 0 a 1\n")
    run = tmp_path / "r.run"
    run.write_text("1 Q0 a 1 3 r\n")
    assert main(["eval", str(qrels), str(run), "-m", "xinfAP"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ordinary.qrels:1" in err and "stratum" in err


@pytest.mark.parametrize(
    ("qrels", "error", "words"),
    [
        (b"1 0 a 1 x\n", ParseError, "not a number"),
        (b"1 0 a 1 nan\n", ParseError, "finite"),
        (b"1 0 a 1 1\n1 0 b 1\n", ParseError, "5 fields"),
        (b"\n", EmptyInputError, "no stratified"),
    ],
)
def test_malformed_stratified_qrels(qrels: bytes, error: type, words: str) -> None:
    with pytest.raises(error, match=words):
        ranklens.evaluate(io.BytesIO(qrels), RUN_SMALL, "xinfAP")


def test_stratified_qrels_must_be_a_file() -> None:
    with pytest.raises(MeasureError, match="stratified"):
        ranklens.evaluate({"1": {"a": 1}}, RUN_SMALL, ["xinfAP", "AP"])


def test_recall_levels_are_sample_evals_eleven() -> None:
    with pytest.raises(MeasureError, match="11 recall levels"):
        ranklens.evaluate(io.BytesIO(STRATA_SMALL), RUN_SMALL, "infIPrec@0.25")


def test_ties_are_ordered_as_sample_eval_whatever_the_ties_policy() -> None:
    run = {"1": {"a": 1.0, "c": 1.0, "d": 1.0}}  # all tied: d, c, a (docno descending)
    values = []
    for ties in ("trec_eval", "docid_asc"):
        res = ranklens.evaluate(io.BytesIO(STRATA_SMALL), run, "xinfAP", ties=ties)  # type: ignore[arg-type]
        values.append(res["xinfAP"])
    text = b"1 Q0 a 1 1 r\n1 Q0 c 2 1 r\n1 Q0 d 3 1 r\n"
    front = sample_eval_values(io.BytesIO(STRATA_SMALL), io.BytesIO(text))
    assert values == [front.topics["1"].ap] * 2


def test_a_topic_without_relevant_sampled_documents() -> None:
    """xinfAP and infNDCG are 0; the smoothed precision estimates are not (as sample_eval):
    c is pooled but not sampled, its stratum estimated at 1/3 relevant."""
    strata = b"1 0 a 1 0\n1 0 c 2 -1\n"
    run = {"1": {"a": 2.0, "c": 1.0}}
    res = ranklens.evaluate(io.BytesIO(strata), run, ["xinfAP", "infNDCG", "infP@2"])
    assert res["xinfAP"] == res["infNDCG"] == 0.0
    assert res["infP@2"] == pytest.approx((1e-5 / (1 + 3e-5) + 1 / 3) / 2, rel=1e-12)
    assert ranklens.measures.REGISTRY["infP"].no_rel_value is None


def test_ordinary_and_sampled_measures_together_with_judgments(tmp_path) -> None:
    """Ordinary qrels for AP, the stratified qrels as ``judgments=`` for xinfAP."""
    strata = tmp_path / "strata.qrels"
    strata.write_bytes(STRATA_SMALL)
    ordinary = {"1": {"a": 1, "b": 0, "d": 1}}
    res = ranklens.evaluate(ordinary, RUN_SMALL, ["AP", "xinfAP"], judgments=strata)
    alone = ranklens.evaluate(io.BytesIO(STRATA_SMALL), RUN_SMALL, "xinfAP")
    assert res["AP"] == pytest.approx((1 / 1 + 2 / 3) / 2)
    assert res["xinfAP"] == alone["xinfAP"]


def test_rankings_are_cut_at_1000_documents_as_sample_eval() -> None:
    lines = [f"1 0 d{i} {1 + i % 3} {(i % 4 == 0) - (i % 7 == 0)}" for i in range(1300)]
    qrels = ("\n".join(lines) + "\n").encode()
    run = "".join(f"1 Q0 d{i} {i + 1} {2000 - i} r\n" for i in reversed(range(1300))).encode()
    front = sample_eval_values(io.BytesIO(qrels), io.BytesIO(run)).topics["1"]
    assert len(front.rel_at_rank) == 1000
    values = _evaluate(qrels, run).per_query["1"]
    assert values["xinfAP"] == front.ap and values["infNDCG"] == front.ndcg
    assert values["infP@1000"] == front.precision[2]
    assert values["infNumRelRet"] == front.num_rel_ret
