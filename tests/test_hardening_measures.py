"""Hardening of the ndeval front end, the measure language's parameters and custom gains,
and the Results readers (issue #23, items 5, 6, 7, 11, 21 and 23).

Each input that gave a wrong number now gives the right one or a clear
:class:`~ranklens.base.errors.RanklensError`; ndeval's own behaviour is taken from its source
(``naturalNumber``, ``parseTopic``, its duplicate checks), transcribed below for the
differential test of the number reader.
"""

from __future__ import annotations

import io
import itertools
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import DuplicateError, InputError, MeasureError, ParseError
from ranklens.cli import main
from ranklens.frontends.ndeval import NdevalOptions, run_ndeval, runner
from ranklens.measures import parse_measure
from ranklens.measures.registry import SPECS

# --- ndeval: files ---------------------------------------------------------------------------

QRELS = "1 1 a 1\n1 2 b 1\n1 1 c 1\n2 1 x 1\n2 2 y 1\n"


def _ndeval(qrels: str, run: str) -> str:
    return run_ndeval(io.BytesIO(qrels.encode()), io.BytesIO(run.encode()))


def _rows(csv: str) -> dict[str, list[str]]:
    return {line.split(",")[1]: line.split(",")[2:] for line in csv.splitlines()[1:]}


def _cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], qrels: str, run: str, *opts: str):
    (tmp_path / "q.txt").write_text(qrels, encoding="utf-8")
    (tmp_path / "r.txt").write_text(run, encoding="utf-8")
    status = main(["ndeval", *opts, str(tmp_path / "q.txt"), str(tmp_path / "r.txt")])
    return status, capsys.readouterr()


def test_repeated_document_is_refused_as_ndeval_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # alpha-nDCG@10 was 1.113: the relevant document counted twice
    run = "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 a 3 1 r\n"
    with pytest.raises(DuplicateError, match=r"duplicate docno \(a\) for topic 1"):
        _ndeval(QRELS, run)
    status, out = _cli(tmp_path, capsys, QRELS, run)
    assert status != 0
    assert out.out == ""
    assert len(out.err.strip().splitlines()) == 1 and "Traceback" not in out.err
    # and ranklens.evaluate refuses the same files
    with pytest.raises(InputError):
        ranklens.evaluate(tmp_path / "q.txt", tmp_path / "r.txt", ["alpha_nDCG@10"])


def test_a_repeat_beyond_the_depth_cut_is_allowed_as_in_ndeval() -> None:
    run = "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 a 3 1 r\n"
    out = run_ndeval(
        io.BytesIO(QRELS.encode()),
        io.BytesIO(run.encode()),
        NdevalOptions(depth=2),
    )
    assert _rows(out)["1"] == _rows(_ndeval(QRELS, "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n"))["1"]


def test_prefixed_qrels_topic_is_a_syntax_error_naming_the_line() -> None:
    # it scored 0 with a -nan mean; ndeval stops: a qrels topic takes no prefix
    qrels = "1 1 a 1\nwt09-2 1 x 1\n"
    with pytest.raises(ParseError, match="wt09-2") as info:
        _ndeval(qrels, "1 Q0 a 1 3 r\n")
    assert info.value.line == 2


def test_zero_padded_qrels_topics_are_merged_as_ndeval_reads_them() -> None:
    # "01" and "1" are topic 1 for ndeval: every judgment counts, not one set of them
    padded = "1 1 a 1\n01 2 b 1\n001 1 c 1\n2 1 x 1\n02 2 y 1\n"
    plain = QRELS
    run = "1 Q0 b 1 3 r\n1 Q0 a 2 2 r\n1 Q0 c 3 1 r\n2 Q0 y 1 1 r\n"
    assert _ndeval(padded, run) == _ndeval(plain, run)
    only_ones = "1 1 a 1\n1 1 c 1\n2 1 x 1\n"  # what keeping one set of judgments gave
    assert _ndeval(only_ones, run) != _ndeval(plain, run)


def test_zero_padded_run_topics_are_one_topic() -> None:
    run_split = "1 Q0 a 1 3 r\n01 Q0 b 2 2 r\nwt09-001 Q0 c 3 1 r\n"
    run_plain = "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 c 3 1 r\n"
    assert _ndeval(QRELS, run_split) == _ndeval(QRELS, run_plain)


def test_the_same_judgment_twice_through_padding_is_refused() -> None:
    with pytest.raises(DuplicateError, match="judged twice") as info:
        _ndeval("1 1 a 1\n01 1 a 1\n", "1 Q0 a 1 3 r\n")
    assert info.value.lines == (1, 2)


@pytest.mark.parametrize(
    ("line", "field"),
    [
        (f"{2**63} Q0 a 1 3 r", "topic"),
        (f"{2**64 + 1} Q0 a 1 3 r", "topic"),
        ("\u0661 Q0 a 1 3 r", "topic"),  # an Arabic-Indic one: isdigit() but not ndeval's
        ("x\u0661 Q0 a 1 3 r", "topic"),
        ("wt09-² Q0 a 1 3 r", "topic"),
        ("1000010 Q0 a 1 3 r", "topic"),
        ("abc Q0 a 1 3 r", "topic"),  # no digit first, no '-': ndeval parses the next field
        (f"1 Q0 a {2**64 + 1} 3 r", "rank"),  # wrapped to 1 modulo 2**64 before
        ("1 Q0 a 99999999999999999999 3 r", "rank"),
        ("1 Q0 a 1000010 3 r", "rank"),
        ("1 Q0 a ٣ 3 r", "rank"),
    ],
)
def test_numbers_ndeval_cannot_read_are_errors_naming_the_line(line: str, field: str) -> None:
    run = f"1 Q0 b 1 3 r\n{line}\n"
    with pytest.raises(ParseError, match=field) as info:
        _ndeval(QRELS, run)
    assert info.value.line == 2


def test_the_largest_number_ndeval_reads_is_read() -> None:
    largest = 1000009  # ndeval gives up once the value read so far exceeds 100000
    qrels = f"{largest} 1 a 1\n{largest} 2 b 1\n"
    out = _rows(_ndeval(qrels, f"{largest} Q0 a {largest} 1 r\n"))
    assert str(largest) in out


@pytest.mark.parametrize("text", ["-1", "+1", "1.0", "\u0661"])
def test_qrels_numbers_ndeval_cannot_read_are_errors(text: str) -> None:
    for qrels in (f"1 1 a {text}\n", f"1 {text} a 1\n"):
        with pytest.raises(ParseError):
            _ndeval(qrels, "1 Q0 a 1 3 r\n")


def _ndeval_natural_number(s: str) -> int:
    """ndeval 4.5's ``naturalNumber``, transcribed from its C source (bytes compared to
    '0'..'9'; the value checked against LARGE_ENOUGH before each digit)."""
    large_enough = 100000
    if not s:
        return -1
    value = 0
    for byte in s.encode("utf-8"):
        if 48 <= byte <= 57:
            if value > large_enough:
                return -1
            value = 10 * value + (byte - 48)
        else:
            return -1
    return value


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(alphabet="0123456789", max_size=25),
        st.text(max_size=8),
        st.integers(0, 2 * 10**6).map(str),
        st.integers(0, 10**7).map(lambda v: "0" * (v % 4) + str(v)),
    )
)
def test_natural_number_equals_ndeval(text: str) -> None:
    assert runner.natural_number(text) == _ndeval_natural_number(text)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "x"])
def test_risk_alpha_must_be_finite_and_non_negative(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    status, out = _cli(tmp_path, capsys, QRELS, "1 Q0 a 1 3 r\n", "-riskAlpha", value)
    assert status == 2
    assert "-riskAlpha" in out.err and "Traceback" not in out.err
    assert out.out == ""


# --- measure parameters ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("IPrec@1.5", r"recall must be in \[0.0, 1.0\]"),  # always 0 before
        ("IPrec@-0.1", r"in \[0.0, 1.0\]"),
        ("RBP(p=1)", r"p must be in \[0.0, 1.0\)"),  # always 0 before
        ("RBP(p=-0.5)", r"\[0.0, 1.0\)"),
        ("RBPResid(p=1)", r"\[0.0, 1.0\)"),
        ("CWL_RBP(theta=1)", r"theta must be in \[0.0, 1.0\)"),
        ("RprecMult@0", "greater than 0.0"),  # always 0 before
        ("INST(T=0)", "greater than 0.0"),  # NaN before
        ("11ptAvg(levels=[0.5,2])", r"in \[0, 1\]"),
        ("P@0", "at least 1"),
        ("nDCG@-3", "at least 1"),
        ("Utility(a=1e999)", "finite"),
        ("SetF(beta=-1)", "at least 0.0"),
    ],
)
def test_parameters_outside_their_range_are_refused_with_the_range(name: str, says: str) -> None:
    with pytest.raises(MeasureError, match=says):
        parse_measure(name)


def _numeric_params():
    for spec in SPECS:
        for param in spec.all_params():
            if param.type in (int, float):
                yield spec, param


@pytest.mark.parametrize(
    ("spec", "param"), list(_numeric_params()), ids=lambda x: getattr(x, "name", "")
)
def test_every_numeric_parameter_checks_its_declared_range(spec, param) -> None:
    """One rule for every declared range: the bounds (open or closed) and finiteness."""
    values: list[object] = []
    if param.type is float:
        values += [math.nan, math.inf, -math.inf]
    if param.minimum is not None:
        below = param.minimum - (1 if param.type is int else 1e-9)
        values.append(param.type(below) if param.type is int else below)
        if param.exclusive_minimum:
            values.append(param.type(param.minimum))
    if param.maximum is not None:
        above = param.maximum + (1 if param.type is int else 1e-9)
        values.append(above)
        if param.exclusive_maximum:
            values.append(param.type(param.maximum))
    for value in values:
        with pytest.raises(MeasureError, match=param.name):
            param.check(value, spec.name)
    inside = [
        b
        for b, open_ in (
            (param.minimum, param.exclusive_minimum),
            (param.maximum, param.exclusive_maximum),
        )
        if b is not None and not open_
    ]
    for bound in inside:
        assert param.check(param.type(bound), spec.name) == param.type(bound)


def test_trec_eval_names_are_checked_too() -> None:
    with pytest.raises(MeasureError):
        parse_measure("iprec_at_recall.1.5")
    with pytest.raises(MeasureError):
        parse_measure("iprec_at_recall_1.5")


# --- custom gains ----------------------------------------------------------------------------

ISSUE_GAINS = ["{1: 0.5, 2: 0.9, 3: 0.95}", "{1: 0.25, 2: 0.5, 3: 1.0}", "{3: 3e9}"]
PERFECT_QRELS = {"q": {"a": 3, "b": 2, "c": 1, "d": 0}}
PERFECT_RUN = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}


@pytest.mark.parametrize("gains", ISSUE_GAINS)
@pytest.mark.parametrize("family", ["nDCG", "nDCG@10", "nDCG@2", "nDCGRel", "RnDCG"])
def test_perfect_ranking_scores_one_with_the_issues_gains(gains: str, family: str) -> None:
    # trec_eval's (int)(g1 - g2) order gave 0, 1.44 and 1.1e9
    base, _, at = family.partition("@")
    name = f"{base}(gains={gains})" + (f"@{at}" if at else "")
    value = ranklens.evaluate(PERFECT_QRELS, PERFECT_RUN, [name]).aggregate[
        parse_measure(name).name
    ]
    assert value == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("gains", ISSUE_GAINS)
def test_idcg_is_the_dcg_of_the_perfect_ranking(gains: str) -> None:
    names = [f"DCG(gains={gains})", f"IDCG(gains={gains})"]
    res = ranklens.evaluate(PERFECT_QRELS, PERFECT_RUN, names).aggregate
    dcg, idcg = (res[parse_measure(n).name] for n in names)
    assert dcg == pytest.approx(idcg, rel=1e-12)


@st.composite
def _gain_case(draw: st.DrawFn):
    grades = st.integers(-1, 4)
    docs = [f"d{i}" for i in range(draw(st.integers(1, 8)))]
    qrels = {"q": {d: draw(grades) for d in docs}}
    shown = draw(st.lists(st.sampled_from([*docs, "u1", "u2"]), unique=True, min_size=1))
    shown.append(docs[0])  # a judged document is retrieved
    run = {"q": {d: float(draw(st.integers(0, 3))) for d in dict.fromkeys(shown)}}
    gain = st.one_of(
        st.floats(0.0, 2.0),  # gains less than 1 apart: trec_eval's comparison ties them
        st.floats(0.0, 1e10),  # beyond int: trec_eval's comparison overflows
        st.sampled_from([0.25, 0.5, 0.9, 0.95, 1.0, 3e9]),
    )
    mapping = draw(st.dictionaries(st.integers(0, 4), gain, max_size=5))
    cutoff = draw(st.sampled_from(["", "@1", "@3", "@10"]))
    return qrels, run, mapping, cutoff


def _gains_text(mapping: dict[int, float]) -> str:
    return "{" + ",".join(f"{k}:{v!r}" for k, v in sorted(mapping.items())) + "}"


@settings(max_examples=80, deadline=None)
@given(_gain_case())
def test_ndcg_with_any_finite_non_negative_gains_is_in_0_1_and_1_when_perfect(case) -> None:
    qrels, run, mapping, cutoff = case
    if not mapping:
        return
    name = f"nDCG(gains={_gains_text(mapping)}){cutoff}"
    canonical = parse_measure(name).name
    value = ranklens.evaluate(qrels, run, [name]).aggregate[canonical]
    assert -1e-12 <= value <= 1 + 1e-12
    # the perfect ranking: every judged document by decreasing gain
    gain = {g: mapping.get(g, float(g)) for g in range(-1, 5)}
    judged = {d: g for d, g in qrels["q"].items() if g >= 0}
    ordered = sorted(judged, key=lambda d: -gain[judged[d]])
    perfect = {"q": {d: float(len(ordered) - i) for i, d in enumerate(ordered)}}
    best = ranklens.evaluate(qrels, perfect, [name]).aggregate[canonical]
    if any(gain[g] > 0 for g in judged.values()):
        assert best == pytest.approx(1.0, abs=1e-12)
    else:
        assert best == 0.0


@pytest.mark.parametrize("gains", ["1=0.5,2=0.9,3=0.95", "1=0.25,2=0.5,3=1.0", "3=3e9"])
def test_trec_eval_names_keep_trec_evals_order(gains: str) -> None:
    """Through trec_eval's names (and the trec-eval front end) the ideal is ordered as
    trec_eval orders it; the language's own name orders by exact gain."""
    trec = parse_measure(f"ndcg.{gains}")
    assert trec["ideal"] == "trec_eval"
    mapping = "{" + ",".join(f"{p.split('=')[0]}:{p.split('=')[1]}" for p in gains.split(",")) + "}"
    own = parse_measure(f"nDCG(gains={mapping})")
    assert own["ideal"] == "sorted"
    res = ranklens.evaluate(PERFECT_QRELS, PERFECT_RUN, [trec, own]).aggregate
    assert res[own.name] == pytest.approx(1.0)
    assert res[trec.name] != pytest.approx(1.0)  # trec_eval's quirk, kept under its name


def test_trec_eval_front_end_prints_trec_evals_fractional_gain_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "q.txt").write_text("q 0 a 3\nq 0 b 2\nq 0 c 1\nq 0 d 0\n")
    (tmp_path / "r.txt").write_text("q Q0 a 1 4 r\nq Q0 b 2 3 r\nq Q0 c 3 2 r\nq Q0 d 4 1 r\n")
    status = main(
        [
            "trec-eval",
            "-m",
            "ndcg.1=0.5,2=0.9,3=0.95",
            str(tmp_path / "q.txt"),
            str(tmp_path / "r.txt"),
        ]
    )
    out = capsys.readouterr().out
    assert status == 0
    trec = parse_measure("nDCG(gains={1:0.5,2:0.9,3:0.95},ideal='trec_eval')")
    want = ranklens.evaluate(tmp_path / "q.txt", tmp_path / "r.txt", [trec]).aggregate[trec.name]
    assert f"{want:.4f}" in out


# --- Results readers --------------------------------------------------------------------------


def _results() -> ranklens.Results:
    return ranklens.evaluate(
        {"1": {"a": 1}, "2": {"b": 1}}, {"1": {"a": 1.0}, "2": {"a": 1.0}}, ["P@5"]
    )


def test_from_jsonl_with_a_repeated_query_names_the_file_and_lines(tmp_path: Path) -> None:
    # it kept one row in per_query but averaged over both
    buffer = io.StringIO()
    _results().to_jsonl(buffer)
    lines = buffer.getvalue().splitlines()
    repeated = [*lines, lines[0].replace("0.2", "0.4")]
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(repeated) + "\n")
    with pytest.raises(DuplicateError, match="query '1'") as info:
        ranklens.Results.from_jsonl(path)
    assert info.value.lines == (1, 3)
    assert str(path) in str(info.value) and ":3:" in str(info.value)


def test_from_parquet_with_a_repeated_query_is_refused(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "r.parquet"
    _results().to_parquet(path)
    table = pq.read_table(path)
    doubled = pa.concat_tables([table, table.slice(0, 1)]).replace_schema_metadata(
        table.schema.metadata
    )
    pq.write_table(doubled, path)
    with pytest.raises(DuplicateError, match="query '1'"):
        ranklens.Results.from_parquet(path)


def test_round_trips_still_work(tmp_path: Path) -> None:
    res = _results()
    buffer = io.StringIO()
    res.to_jsonl(buffer)
    back = ranklens.Results.from_jsonl(io.StringIO(buffer.getvalue()))
    assert back.per_query == res.per_query
    assert [json.loads(line)["query_id"] for line in buffer.getvalue().splitlines()] == ["1", "2"]
    assert list(itertools.islice(back.queries, 2)) == ["1", "2"]
