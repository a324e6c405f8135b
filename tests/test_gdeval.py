"""``ranklens gdeval``: NIST gdeval.pl 1.3's CSV byte for byte (the golden outputs of
tests/data/gdeval, made by gdeval.pl itself), its quirks checked by hand, its measures
equal to the measure language's ``nDCG(dcg='exp-log2')@k`` and ``ERR(max_rel=4)@k``, and
its bad input refused in one line."""

from __future__ import annotations

import io
import math
from pathlib import Path

import pytest

import ranklens
from ranklens.base.errors import InputError, OptionError, ParseError
from ranklens.cli import main
from ranklens.frontends.gdeval import GdevalOptions, gdeval_values, run_gdeval

DATA = Path(__file__).parent / "data"
QRELS = DATA / "gdeval" / "qrels.adhoc2012.txt.gz"
RUN = DATA / "ndeval" / "run.ql-cata.txt.gz"
BASELINE = DATA / "ndeval" / "run.rm-cata-f.txt.gz"


@pytest.mark.parametrize(
    ("args", "golden"),
    [
        ([], "out.ql-cata.csv"),
        (["-k", "10"], "out.ql-cata.k10.csv"),
        (["-c"], "out.ql-cata.c.csv"),
        (["-baseline", str(BASELINE), "-riskAlpha", "1"], "out.ql-cata.baseline-rm-cata-f.risk1.csv"),
    ],
)
def test_golden_outputs_byte_for_byte(args, golden, capsys):
    assert main(["gdeval", *args, str(QRELS), str(RUN)]) == 0
    assert capsys.readouterr().out == (DATA / "gdeval" / golden).read_text()


@pytest.mark.parametrize("depth", [5, 10, 20, 100])
def test_measure_language_equals_gdeval(depth):
    """gdeval's nDCG and ERR are the language's nDCG(dcg='exp-log2')@k and ERR(max_rel=4)@k."""
    values = gdeval_values(QRELS, RUN, GdevalOptions(depth=depth))
    names = [f"nDCG(dcg='exp-log2')@{depth}", f"ERR(max_rel=4)@{depth}"]
    res = ranklens.evaluate(QRELS, RUN, names, queries="both")
    assert set(values) == set(res.per_query)
    for topic, (ndcg, err) in values.items():
        assert res.per_query[topic][names[0]] == pytest.approx(ndcg, rel=1e-12, abs=1e-15)
        assert res.per_query[topic][names[1]] == pytest.approx(err, rel=1e-12, abs=1e-15)


def _run(qrels: str, run: str, **options: object) -> str:
    return run_gdeval(io.BytesIO(qrels.encode()), io.BytesIO(run.encode()), GdevalOptions(**options))  # type: ignore[arg-type]


def test_quirks_by_hand():
    # prefixes are dropped; the rank column is ignored (score, then docno descending);
    # a document retrieved twice counts twice; the run id is the last line's
    qrels = "wt12-7 0 a 1\n7 0 b 1\n8 0 z 0\n"
    run = "7 Q0 a 1 1.0 x\n7 Q0 b 9 1.0 x\n7 Q0 a 3 0.5 y\n8 Q0 z 1 1 y\n"
    out = _run(qrels, run, depth=3)
    # order b, a (docno descending among equal scores), a again: gains 1, 1, 1
    ideal = 1 + 1 / math.log2(3)
    ndcg = (1 + 1 / math.log2(3) + 1 / 2) / ideal
    r = 1 / 16
    err = r + r * (1 - r) / 2 + r * (1 - r) ** 2 / 3
    assert out == f"runid,topic,ndcg@3,err@3\ny,7,{ndcg:.5f},{err:.5f}\ny,amean,{ndcg:.5f},{err:.5f}\n"
    # topic 8 has no relevant document: never evaluated, not even with -c
    assert "y,8," not in _run(qrels, run, depth=3, complete=True)


def test_duplicate_judgments_lower_grade_wins_and_ideal_counts_both():
    out = gdeval_values(io.BytesIO(b"1 0 a 3\n1 0 a 1\n"), io.BytesIO(b"1 Q0 a 1 1 r\n"), GdevalOptions(depth=5))
    ideal = 7 + 1 / math.log2(3)  # both judgments of a in the ideal ranking
    assert out["1"][0] == pytest.approx(1 / ideal)  # its gain is the lower judgment, 1


def test_complete_and_risk_with_missing_topics():
    qrels = "1 0 a 1\n2 0 b 2\n3 0 c 1\n"
    run = "1 Q0 a 1 1 r\n"
    base = "1 Q0 x 1 1 b\n2 Q0 b 1 1 b\n"
    plain = _run(qrels, run, complete=True).splitlines()
    assert plain[-1] == f"r,amean,{1 / 3:.5f},{1 / 16 / 3:.5f}"  # divided by 3 qrels topics
    baseline = io.BytesIO(base.encode())
    out = run_gdeval(
        io.BytesIO(qrels.encode()),
        io.BytesIO(run.encode()),
        GdevalOptions(complete=True, baseline=baseline, risk_alpha=1.0, risk_alpha_text="1"),
    ).splitlines()
    label = "r (rel to. b, rs=1+a, a=1)"
    # topic 1: run 1 against base 0; topic 2 (missing from the run): 0 against 1 -> -2;
    # topic 3 (missing from both): gdeval carries the previous topic's baseline values over
    assert out[1] == f"{label},1,1.00000,0.06250"
    assert out[2] == f"{label},2,-2.00000,{-2 * 3 / 16:.5f}"
    assert out[3] == f"{label},3,-2.00000,{-2 * 3 / 16:.5f}"


@pytest.mark.parametrize(
    ("qrels", "run", "error"),
    [
        ("1 0 a 5\n", "1 Q0 a 1 1 r\n", ParseError),  # judgment above 4
        ("1 1 a 1\n", "1 Q0 a 1 1 r\n", ParseError),  # second field not 0
        ("x 0 a 1\n", "1 Q0 a 1 1 r\n", ParseError),  # topic not a number
        ("1 0 a 1\n\n", "1 Q0 a 1 1 r\n", ParseError),  # a blank line
        ("1 0 a 1\n", "1 Q1 a 1 1 r\n", ParseError),  # not Q0
        ("1 0 a 1\n", "1 Q0 a r1 1 r\n", ParseError),  # rank not digits
        ("1 0 a 1\n", "1 Q0 a 1 1\n", ParseError),  # no run id
        ("1 0 a 1\n", "1 Q0 a 1 1 0\n", ParseError),  # run id 0 (false to Perl)
        ("1 0 a 1\n01 0 b 1\n", "1 Q0 a 1 1 r\n", InputError),  # one topic spelled two ways
    ],
)
def test_bad_input_is_one_clear_error(qrels, run, error):
    with pytest.raises(error):
        _run(qrels, run)


def test_bad_options(tmp_path, capsys):
    with pytest.raises(OptionError):
        _run("1 0 a 1\n", "1 Q0 a 1 1 r\n", depth=0)
    for args in (["-k", "0"], ["-k", "x"], ["-riskAlpha", "nan"], ["-riskAlpha", "-1"]):
        assert main(["gdeval", *args, str(QRELS), str(RUN)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("ranklens: error:") and err.count("\n") == 1
    bad = tmp_path / "bad.qrels"
    bad.write_text("1 0 a 1\n1 0 b 9\n")
    assert main(["gdeval", str(bad), str(RUN)]) == 2
    assert "bad.qrels:2" in capsys.readouterr().err
