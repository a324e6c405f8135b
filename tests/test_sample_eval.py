"""``ranklens sample-eval``: NIST sample_eval.pl's output byte for byte (the golden outputs
of tests/data/sample_eval, made by sample_eval.pl itself), its estimators checked by hand on
a small case, and its bad input refused in one line."""

from __future__ import annotations

import io
import math
from pathlib import Path

import pytest

from ranklens.base.errors import InputError, ParseError
from ranklens.cli import main
from ranklens.frontends.sample_eval import run_sample_eval, sample_eval_values

DATA = Path(__file__).parent / "data"
QRELS = DATA / "sample_eval" / "qrels.sampled.txt.gz"


@pytest.mark.parametrize(
    ("run", "args", "golden"),
    [
        ("run.ql-cata.txt.gz", [], "out.ql-cata.txt"),
        ("run.ql-cata.txt.gz", ["-q"], "out.ql-cata.q.txt"),
        ("run.rm-cata-f.txt.gz", ["-q"], "out.rm-cata-f.q.txt"),
    ],
)
def test_golden_outputs_byte_for_byte(run, args, golden, capsys):
    assert main(["sample-eval", *args, str(QRELS), str(DATA / "ndeval" / run)]) == 0
    assert capsys.readouterr().out == (DATA / "sample_eval" / golden).read_text()


QRELS_SMALL = b"1 0 a 1 1\n1 0 b 1 0\n1 0 c 2 -1\n1 0 d 2 1\n1 0 e 2 0\n"
RUN_SMALL = b"01 Q0 a 1 3 r\n01 Q0 c 2 2 r\n01 Q0 d 3 1 r\n"


def test_estimators_by_hand():
    """Stratum 1: a (relevant), b; all judged. Stratum 2: c (not sampled), d (relevant), e:
    2 of 3 judged. The run ranks a, c, d (topic 01 is topic 1)."""
    res = sample_eval_values(io.BytesIO(QRELS_SMALL), io.BytesIO(RUN_SMALL))
    m = res.topics["1"]
    # estimated relevant: 1 * 2/2 + 1 * 3/2 = 2.5
    assert m.num_rel == pytest.approx(2.5)
    # precision at a: 1; at d (rank 3, 2 pooled documents above: a in stratum 1, relevant
    # and sampled; c in stratum 2, not sampled: smoothed to 1/3)
    above = 0.5 * (1 + 1e-5) / (1 + 3e-5) + 0.5 * (0 + 1e-5) / (0 + 3e-5)
    prec_d = 1 / 3 + (2 / 3) * above
    # xinfAP: each stratum's mean precision, weighted by its share of the relevant estimate
    assert m.ap == pytest.approx((1 / 2.5) * 1.0 + (1.5 / 2.5) * prec_d, rel=1e-12)
    # infNDCG: per stratum, the DCG of its sampled retrieved documents scaled to the stratum
    dcg = (1 / 3) * (1 / 1) / 1 + (2 / 3) * (1 / math.log2(4)) / 1
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)  # round(2.5) = 3 documents of grade 1 (Perl int(x + 0.5))
    assert m.ndcg == pytest.approx(3 * dcg / ideal, rel=1e-12)
    # estimated relevant retrieved at the last rank: stratum 1 has 1 of 1 sampled relevant,
    # stratum 2 has 1 relevant of 1 sampled among its 2 retrieved
    rel_ret = 1 * (1 + 1e-5) / (1 + 3e-5) + 2 * (1 + 1e-5) / (1 + 3e-5)
    assert m.num_rel_ret == pytest.approx(rel_ret, rel=1e-12)
    assert m.precision[0] == pytest.approx(rel_ret / 10, rel=1e-12)  # fewer than 10 retrieved
    assert m.num_ret == 3


def test_run_topics_missing_from_qrels_are_skipped_and_num_rel_counts_every_topic():
    qrels = QRELS_SMALL + b"2 0 x 1 1\n"
    out = run_sample_eval(io.BytesIO(qrels), io.BytesIO(RUN_SMALL + b"9 Q0 z 1 1 r\n"), per_topic=True)
    assert "\t9\t" not in out and "\t2\t" not in out
    assert out.splitlines()[-1] == "num_ret\t\tall\t        3"
    assert "inum_rel\tall\t        3.5000" in out  # 2.5 for topic 1 + 1 for topic 2 (not run)


@pytest.mark.parametrize(
    ("qrels", "run", "error"),
    [
        (b"1 0 a 1\n", RUN_SMALL, ParseError),  # ordinary qrels: no stratum column
        (b"1 0 a 1 x\n", RUN_SMALL, ParseError),  # judgment not a number
        (QRELS_SMALL, b"1 Q0 a 1 3\n", ParseError),  # a run line with 5 fields
        (QRELS_SMALL, b"7 Q0 a 1 3 r\n", InputError),  # no run topic in the qrels
    ],
)
def test_bad_input_is_one_clear_error(qrels, run, error):
    with pytest.raises(error):
        run_sample_eval(io.BytesIO(qrels), io.BytesIO(run))


def test_cli_error_is_one_line(tmp_path, capsys):
    bad = tmp_path / "ordinary.qrels"
    bad.write_text("1 0 a 1\n")
    assert main(["sample-eval", str(bad), str(DATA / "ndeval" / "run.ql-cata.txt.gz")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ordinary.qrels:1" in err and "stratum" in err
