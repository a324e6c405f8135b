"""trec_eval's preference (``-R prefs``/``qrels_prefs``) and judgement-group (``-R qrels_jg``)
measures: every printed line of trec_eval's own expected outputs, hand-computed cases, the
readers, and a seeded differential test against naive loop-by-loop reference
implementations written from trec_eval's C code (form_prefs_counts.c, m_prefs_*.c,
form_res_rels_jg.c, m_*_avgjg.c)."""

from __future__ import annotations

import gzip
import io
import math
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from ranklens import Run
from ranklens.base.errors import (
    DuplicateError,
    EmptyInputError,
    InputError,
    OptionError,
    ParseError,
)
from ranklens.data.grouped import encode_ids
from ranklens.data.judgement_groups import QrelsJG, read_qrels_jg
from ranklens.data.prefs import Prefs, read_prefs, read_qrels_prefs
from ranklens.kernels.judgement_groups import (
    DEFAULT_P_CUTOFFS,
    DEFAULT_RPREC_MULTS,
    evaluate_jg,
    jg_value_names,
    summarize_jg,
)
from ranklens.kernels.preferences import (
    PREFS_MEASURES,
    PREFS_SUMMED,
    evaluate_prefs,
    summarize_prefs,
)

# -- trec_eval's expected outputs -------------------------------------------------------------


def read_expected(path: Path) -> dict[tuple[str, str], str]:
    out = {}
    for line in path.read_text().splitlines():
        name, qid, value = line.split("\t")
        out[(name.strip(), qid)] = value
    return out


def printed(name: str, value: float) -> str:
    """trec_eval's formatting: ``%ld`` of the (long) value for counts, else ``%6.4f``."""
    return str(int(value)) if name in PREFS_SUMMED else f"{value:6.4f}"


def check_against(expected: dict[tuple[str, str], str], per_query, summary) -> int:
    computed = {}
    for qid, values in per_query.items():
        for name, value in values.items():
            computed[(name, qid)] = printed(name, value)
    for name, value in summary.items():
        computed[(name, "all")] = printed(name, value)
    wanted = {k: v for k, v in expected.items() if k[0] not in ("runid", "num_q")}
    assert computed == wanted
    assert len(per_query) == int(expected[("num_q", "all")])
    return len(computed)


PREFS_CASES = {
    "prefs": (read_prefs, "prefs.test", "prefs.results.test", "out.test.prefs"),
    "prefs-comments": (read_prefs, "prefs.comment.test", "prefs.results.test", "out.test.prefs"),
    "qrels_prefs": (read_qrels_prefs, "qrels.test", "results.test", "out.test.qrels_prefs"),
}


@pytest.mark.parametrize("version", ["", "v9.0.8"])
@pytest.mark.parametrize("case", sorted(PREFS_CASES))
def test_prefs_match_trec_eval(trec_eval_data: Path, case: str, version: str) -> None:
    reader, judgments, run, expected = PREFS_CASES[case]
    per_query = evaluate_prefs(
        reader(trec_eval_data / judgments), Run.from_file(trec_eval_data / run)
    )
    lines = check_against(
        read_expected(trec_eval_data / version / expected), per_query, summarize_prefs(per_query)
    )
    assert lines == 14 * (len(per_query) + 1)


@pytest.mark.parametrize("version", ["", "v9.0.8"])
@pytest.mark.parametrize("judgments", ["qrels.123", "qrels.comments.123"])
def test_qrels_jg_match_trec_eval(trec_eval_data: Path, judgments: str, version: str) -> None:
    per_query = evaluate_jg(
        read_qrels_jg(trec_eval_data / judgments), Run.from_file(trec_eval_data / "results.test")
    )
    lines = check_against(
        read_expected(trec_eval_data / version / "out.test.qrels_jg"),
        per_query,
        summarize_jg(per_query),
    )
    assert lines == 20 * 4


def test_qrels_prefs_depends_on_trec_eval_rnonrel_recount(trec_eval_data: Path) -> None:
    """The golden values need trec_eval's recount, which also pairs the non-relevant class
    with its own first R documents (302: 0.0700, not the 'clean' 0.4712)."""
    per_query = evaluate_prefs(
        read_qrels_prefs(trec_eval_data / "qrels.test"),
        Run.from_file(trec_eval_data / "results.test"),
    )
    assert f"{per_query['302']['prefs_avgjg_Rnonrel']:6.4f}" == "0.0700"


# -- hand-computed cases ----------------------------------------------------------------------


def prefs_of(*records: tuple[str, str, str, str, float]) -> Prefs:
    return Prefs.from_records(records)


def one(values: dict[str, dict[str, float]], qid: str = "q") -> dict[str, float]:
    return values[qid]


def test_preference_with_unretrieved_preferred_document_fulfilled_by_implication() -> None:
    prefs = prefs_of(("q", "u", "s", "A", 2.0), ("q", "u", "s", "B", 1.0))
    v = one(evaluate_prefs(prefs, {"q": {"A": 1.0, "x": 0.5}}))  # B not retrieved
    assert (v["prefs_num_prefs_poss"], v["prefs_num_prefs_ful"], v["prefs_num_prefs_ful_ret"]) == (
        1.0,
        1.0,
        0.0,
    )
    assert v["prefs_simp"] == v["prefs_simp_imp"] == v["prefs_avgjg"] == v["prefs_avgjg_imp"] == 1.0
    assert v["prefs_simp_ret"] == v["prefs_avgjg_ret"] == v["prefs_pair_ret"] == 0.0
    assert v["prefs_pair"] == v["prefs_pair_imp"] == 1.0
    # R = 2 relevant (levels > 0), N = 0: (ful + R_ret (R-N)) / (poss + R (R-N)) = 3/5
    assert v["prefs_avgjg_Rnonrel"] == 0.6
    # _ret: R_ret = 1, N_ret = 0: (0 + 1*1) / (0 + R*1) = 1/2 (trec_eval multiplies by R)
    assert v["prefs_avgjg_Rnonrel_ret"] == 0.5


def test_preference_with_only_the_less_preferred_document_retrieved_fails() -> None:
    prefs = prefs_of(("q", "u", "s", "A", 2.0), ("q", "u", "s", "B", 1.0))
    v = one(evaluate_prefs(prefs, {"q": {"B": 1.0}}))
    assert v["prefs_num_prefs_poss"] == 1.0 and v["prefs_num_prefs_ful"] == 0.0
    assert v["prefs_simp"] == v["prefs_simp_imp"] == v["prefs_pair"] == v["prefs_avgjg"] == 0.0
    assert v["prefs_avgjg_Rnonrel"] == 0.4  # (0 + 1*2) / (1 + 2*2)
    assert v["prefs_avgjg_Rnonrel_ret"] == 0.5


def test_neither_document_retrieved_counts_as_possible_only() -> None:
    prefs = prefs_of(("q", "u", "s", "A", 2.0), ("q", "u", "s", "B", 1.0))
    v = one(evaluate_prefs(prefs, {"q": {"x": 1.0}}))
    assert v["prefs_num_prefs_poss"] == 1.0 and v["prefs_num_prefs_ful"] == 0.0
    assert v["prefs_simp"] == 0.0 and v["prefs_simp_imp"] == 0.0  # 0/0 -> 0
    assert v["prefs_pair"] == 0.0 and v["prefs_pair_imp"] == 0.0


def test_equal_rel_levels_express_no_preference() -> None:
    prefs = prefs_of(
        ("q", "u", "s", "A", 1.0), ("q", "u", "s", "B", 1.0), ("q", "u", "s", "C", 0.0)
    )
    v = one(evaluate_prefs(prefs, {"q": {"C": 3.0, "A": 2.0, "B": 1.0}}))
    assert v["prefs_num_prefs_poss"] == 2.0  # A>C, B>C; nothing between A and B
    assert v["prefs_num_prefs_ful"] == 0.0


def test_score_ties_break_by_docno_ascending_for_prefs_but_descending_for_jg() -> None:
    prefs = prefs_of(("q", "u", "s", "d1", 1.0), ("q", "u", "s", "d2", 0.0))
    run = {"q": {"d1": 1.0, "d2": 1.0}}
    assert one(evaluate_prefs(prefs, run))["prefs_simp"] == 1.0  # d1 ranked first
    qrels = QrelsJG.from_records([("q", "u", "d1", 1), ("q", "u", "d2", 0)])
    assert one(evaluate_jg(qrels, run, p_cutoffs=[1]))["P_avgjg_1"] == 0.0  # d2 first


def test_sub_group_with_one_document_adds_no_preference_but_counts_in_r() -> None:
    prefs = prefs_of(
        ("q", "u", "s1", "A", 2.0), ("q", "u", "s1", "B", 1.0), ("q", "u", "s2", "C", 1.0)
    )
    v = one(evaluate_prefs(prefs, {"q": {"A": 2.0, "B": 1.0}}))  # C not retrieved
    assert v["prefs_num_prefs_poss"] == 1.0 and v["prefs_num_prefs_ful_ret"] == 1.0
    assert v["prefs_simp"] == 1.0
    assert v["prefs_avgjg_Rnonrel"] == 0.7  # R=3, R_ret=2: (1 + 2*3) / (1 + 3*3)
    assert v["prefs_avgjg_Rnonrel_ret"] == 5 / 7  # (1 + 2*2) / (1 + 3*2)


def test_single_document_group_has_no_preferences() -> None:
    v = one(evaluate_prefs(prefs_of(("q", "u", "s", "A", 1.0)), {"q": {"A": 1.0}}))
    assert v["prefs_num_prefs_poss"] == 0.0 and v["prefs_simp"] == 0.0
    assert v["prefs_avgjg_Rnonrel"] == 1.0  # (0 + 1*1) / (0 + 1*1), as trec_eval's 7.EC.no


def test_sub_groups_are_closed_under_transitivity() -> None:
    prefs = prefs_of(
        ("q", "u", "s1", "A", 2.0),
        ("q", "u", "s1", "B", 1.0),
        ("q", "u", "s2", "B", 5.0),
        ("q", "u", "s2", "C", 4.0),
    )
    v = one(evaluate_prefs(prefs, {"q": {"A": 3.0, "C": 2.0, "B": 1.0}}))
    assert v["prefs_num_prefs_poss"] == 3.0  # A>B, B>C and the implied A>C
    assert v["prefs_num_prefs_ful"] == 2.0  # A>B, A>C; B>C fails
    assert v["prefs_simp"] == 2 / 3


def test_groups_are_averaged_and_pairs_pool_their_votes() -> None:
    prefs = prefs_of(
        ("q", "g1", "s", "A", 1.0),
        ("q", "g1", "s", "B", 0.0),
        ("q", "g2", "s", "A", 0.0),
        ("q", "g2", "s", "B", 1.0),
        ("q", "g2", "s", "C", 0.0),
    )
    v = one(evaluate_prefs(prefs, {"q": {"A": 3.0, "B": 2.0, "C": 1.0}}))
    # g1: A>B fulfilled (1/1); g2: B>A fails, B>C fulfilled (1/2)
    assert v["prefs_simp"] == 2 / 3
    assert v["prefs_avgjg"] == (1.0 + 0.5) / 2
    # pairs: {A,B}: 1 of 2 votes agree with the ranking; {B,C}: 1 of 1
    assert v["prefs_pair"] == (0.5 + 1.0) / 2


def test_depth_cuts_the_ranking_before_counting() -> None:
    prefs = prefs_of(("q", "u", "s", "A", 1.0), ("q", "u", "s", "B", 0.0))
    run = {"q": {"x": 3.0, "B": 2.0, "A": 1.0}}
    assert one(evaluate_prefs(prefs, run))["prefs_simp"] == 0.0
    assert one(evaluate_prefs(prefs, run, depth=2))["prefs_simp"] == 0.0  # B in, A out
    cut = one(evaluate_prefs(prefs, run, depth=1))
    assert cut["prefs_num_prefs_ful"] == 0.0 and cut["prefs_simp_imp"] == 0.0
    with pytest.raises(OptionError):
        evaluate_prefs(prefs, run, depth=-1)


def test_judged_only_does_not_change_prefs() -> None:
    prefs = prefs_of(("q", "u", "s", "A", 1.0), ("q", "u", "s", "B", 0.0))
    run = {"q": {"x": 3.0, "A": 2.0, "B": 1.0}}
    assert evaluate_prefs(prefs, run) == evaluate_prefs(prefs, run, judged_only=True)


def test_queries_policy_and_missing_queries() -> None:
    prefs = prefs_of(
        ("q1", "u", "s", "A", 1.0), ("q1", "u", "s", "B", 0.0), ("q2", "u", "s", "A", 1.0)
    )
    run = {"q2": {"A": 1.0}, "q3": {"A": 1.0}}
    complete = evaluate_prefs(prefs, run)  # trec_eval 10 -c: q1 scored as an empty ranking
    assert list(complete) == ["q1", "q2"]
    assert complete["q1"]["prefs_num_prefs_poss"] == 1.0 and complete["q1"]["prefs_simp"] == 0.0
    assert list(evaluate_prefs(prefs, run, queries="both")) == ["q2"]
    assert list(evaluate_prefs(prefs, run, queries="run")) == ["q2", "q3"]
    assert set(evaluate_prefs(prefs, run, queries="run")["q3"].values()) == {0.0}
    with pytest.raises(OptionError):
        evaluate_prefs(prefs, run, queries="all")  # type: ignore[arg-type]


def test_query_order_is_strcmp_order() -> None:
    records = [(q, "u", "s", "A", 1.0) for q in ("9", "10", "100", "b", "B")]
    assert list(evaluate_prefs(Prefs.from_records(records), {})) == ["10", "100", "9", "B", "b"]
    assert list(evaluate_prefs(Prefs.from_records(records), {}, queries="both")) == []


def test_summary_sums_counts_and_averages_the_rest() -> None:
    per_query = {
        "a": dict.fromkeys(PREFS_MEASURES, 1.0),
        "b": dict.fromkeys(PREFS_MEASURES, 2.0),
    }
    summary = summarize_prefs(per_query)
    assert list(summary) == list(PREFS_MEASURES)
    assert summary["prefs_num_prefs_poss"] == 3.0 and summary["prefs_simp"] == 1.5
    assert summarize_prefs(per_query, num_q=3)["prefs_simp"] == 1.0
    with pytest.raises(EmptyInputError):
        summarize_prefs({})


def test_inconsistent_preferences_are_errors() -> None:
    two_levels = prefs_of(("q", "u", "s", "A", 1.0), ("q", "u", "s", "A", 2.0))
    with pytest.raises(InputError, match="two different rel_levels"):
        evaluate_prefs(two_levels, {"q": {"A": 1.0}})
    cycle = prefs_of(
        ("q", "u", "s1", "A", 2.0),
        ("q", "u", "s1", "B", 1.0),
        ("q", "u", "s2", "B", 2.0),
        ("q", "u", "s2", "A", 1.0),
    )
    with pytest.raises(InputError, match="each preferred to the other"):
        evaluate_prefs(cycle, {"q": {"A": 1.0}})
    zero = prefs_of(
        ("q", "u", "s1", "A", 1.0),
        ("q", "u", "s1", "B", 0.0),
        ("q", "u", "s2", "B", 2.0),
        ("q", "u", "s2", "C", 1.0),
    )
    with pytest.raises(InputError, match="both 0 and non-0"):
        evaluate_prefs(zero, {"q": {"A": 1.0}})
    # the same contradiction in two judgement groups is fine
    fine = prefs_of(
        ("q", "u1", "s", "A", 2.0),
        ("q", "u1", "s", "B", 1.0),
        ("q", "u2", "s", "B", 2.0),
        ("q", "u2", "s", "A", 1.0),
    )
    assert one(evaluate_prefs(fine, {"q": {"A": 1.0, "B": 0.5}}))["prefs_pair"] == 0.5


def test_repeated_document_in_the_ranking_is_an_error_inside_the_depth_window() -> None:
    data, offsets = encode_ids(["A", "B", "A"])
    run = Run(
        qids=("q",),
        q_offsets=np.array([0, 3], dtype=np.int64),
        doc_data=data,
        doc_offsets=offsets,
        lines=None,
        source="<test>",
        scores=np.array([3.0, 2.0, 1.0]),
        name="r",
    )
    prefs = prefs_of(("q", "u", "s", "A", 1.0), ("q", "u", "s", "B", 0.0))
    qrels = QrelsJG.from_records([("q", "u", "A", 1)])
    with pytest.raises(DuplicateError, match="'A' twice"):
        evaluate_prefs(prefs, run)
    with pytest.raises(DuplicateError):
        evaluate_jg(qrels, run)
    assert one(evaluate_prefs(prefs, run, depth=2))["prefs_simp"] == 1.0  # as trec_eval -M2
    assert one(evaluate_jg(qrels, run, depth=2, p_cutoffs=[1]))["P_avgjg_1"] == 1.0


# -- judgement groups -------------------------------------------------------------------------


def test_jg_values_are_averaged_over_groups() -> None:
    qrels = QrelsJG.from_records(
        [("q", "a", "d1", 1), ("q", "a", "d3", 1), ("q", "b", "d2", 1), ("q", "b", "d9", 0)]
    )
    run = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    v = one(evaluate_jg(qrels, run, p_cutoffs=[1, 2, 5], rprec_mults=[0.5, 1.0, 2.0]))
    # a: relevant at ranks 1 and 3, R=2: AP = (1 + 2/3)/2; b: rank 2, R=1: AP = 1/2
    assert v["map_avgjg"] == ((1 + 2 / 3) / 2 + 0.5) / 2
    assert v["P_avgjg_1"] == (1.0 + 0.0) / 2
    assert v["P_avgjg_2"] == (0.5 + 0.5) / 2
    assert v["P_avgjg_5"] == (2 / 5 + 1 / 5) / 2
    # cut = (long)(x R + 0.9): a: 1, 2, 4 (> 3 retrieved: 2/4); b: 1, 1, 2
    assert v["Rprec_mult_avgjg_0.50"] == (1.0 + 0.0) / 2
    assert v["Rprec_mult_avgjg_1.00"] == (0.5 + 0.0) / 2
    assert v["Rprec_mult_avgjg_2.00"] == (2 / 4 + 1 / 2) / 2


def test_jg_relevance_level_and_judged_only() -> None:
    qrels = QrelsJG.from_records([("q", "a", "d1", 2), ("q", "a", "d2", 1), ("q", "a", "d3", -1)])
    run = {"q": {"x": 4.0, "d3": 3.0, "d2": 2.0, "d1": 1.0}}
    v = one(evaluate_jg(qrels, run, p_cutoffs=[1, 4]))
    assert v["P_avgjg_4"] == 0.5 and v["map_avgjg"] == (1 / 3 + 2 / 4) / 2
    v2 = one(evaluate_jg(qrels, run, rel_level=2, p_cutoffs=[1, 4]))
    assert v2["map_avgjg"] == 1 / 4
    judged = one(evaluate_jg(qrels, run, judged_only=True, p_cutoffs=[1, 4]))
    assert judged["P_avgjg_1"] == 1.0 and judged["map_avgjg"] == 1.0  # x, d3 dropped
    cut = one(evaluate_jg(qrels, run, depth=2, p_cutoffs=[1, 4]))
    assert cut["P_avgjg_4"] == 0.0


def test_jg_names_defaults_and_validation() -> None:
    names = jg_value_names()
    assert (
        names[0] == "map_avgjg" and names[1] == "P_avgjg_5" and names[10] == "Rprec_mult_avgjg_0.20"
    )
    assert len(names) == 1 + len(DEFAULT_P_CUTOFFS) + len(DEFAULT_RPREC_MULTS)
    qrels = QrelsJG.from_records([("q", "a", "d1", 1)])
    assert list(one(evaluate_jg(qrels, {"q": {"d1": 1.0}}))) == names
    for bad in ([0], [5, 5], []):
        with pytest.raises(ValueError):
            evaluate_jg(qrels, {}, p_cutoffs=bad)
    with pytest.raises(ValueError):
        evaluate_jg(qrels, {}, rprec_mults=[1.0, 1.0])


def test_jg_missing_query_scores_zero_and_summary_is_a_mean() -> None:
    qrels = QrelsJG.from_records([("q1", "a", "d1", 1), ("q2", "a", "d1", 1)])
    per_query = evaluate_jg(qrels, {"q2": {"d1": 1.0}}, p_cutoffs=[1], rprec_mults=[1.0])
    assert set(per_query["q1"].values()) == {0.0}
    assert summarize_jg(per_query) == {
        "map_avgjg": 0.5,
        "P_avgjg_1": 0.5,
        "Rprec_mult_avgjg_1.00": 0.5,
    }
    assert list(evaluate_jg(qrels, {"q2": {"d1": 1.0}}, queries="both")) == ["q2"]


# -- readers ----------------------------------------------------------------------------------


def test_prefs_reader_skips_comments_and_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_text("# header\n\nq1 u s d1 2\r\n   # indented comment\nq1 u s d2 0.5e1\n")
    prefs = read_prefs(path)
    assert prefs.records() == [("q1", "u", "s", "d1", 2.0), ("q1", "u", "s", "d2", 5.0)]
    assert prefs.lines is not None and prefs.lines.tolist() == [3, 5]
    assert prefs.rel_format == "prefs" and prefs.source == str(path)


def test_qrels_prefs_reader_uses_column_two_as_group() -> None:
    prefs = read_qrels_prefs(io.BytesIO(b"q1 0 d2 1\nq1 7 d1 0\n"))
    assert prefs.records() == [("q1", "7", "0", "d1", 0.0), ("q1", "0", "0", "d2", 1.0)]
    assert prefs.rel_format == "qrels_prefs"


def test_readers_accept_compressed_input(tmp_path: Path) -> None:
    path = tmp_path / "p.gz"
    path.write_bytes(gzip.compress(b"q1 g d1 1\n"))
    assert read_qrels_jg(path).records() == [("q1", "g", "d1", 1)]


@pytest.mark.parametrize(
    ("reader", "text", "line", "message"),
    [
        (read_prefs, "q u s d 1\nq u s d\n", 2, "expected 5 fields"),
        (read_prefs, "\n\nq u s d 1 extra\n", 3, "found 6"),
        (read_prefs, "q u s d one\n", 1, "not a decimal number"),
        (read_prefs, "q u s d nan\n", 1, "not a decimal number"),
        (read_prefs, "q u s d 1e999\n", 1, "out of range"),
        (read_qrels_prefs, "q 0 d\n", 1, "expected 4 fields"),
        (read_qrels_jg, "q 0 d 1.5\n", 1, "not an integer"),
        (read_qrels_jg, "# c\nq 0 d x\n", 2, "not an integer"),
    ],
)
def test_readers_report_malformed_lines(reader, text: str, line: int, message: str) -> None:
    with pytest.raises(ParseError, match=message) as info:
        reader(io.StringIO(text))
    assert info.value.line == line


def test_readers_reject_invalid_utf8_and_empty_input() -> None:
    with pytest.raises(ParseError, match="UTF-8"):
        read_prefs(io.BytesIO(b"q u s d\xff 1\n"))
    with pytest.raises(EmptyInputError):
        read_prefs(io.StringIO("# only a comment\n\n"))
    with pytest.raises(EmptyInputError):
        Prefs.from_records([])


def test_qrels_jg_reader_rejects_a_document_twice_in_a_group() -> None:
    assert read_qrels_jg(io.StringIO("q a d 1\nq b d 0\nq a e 2.0\n")).records() == [
        ("q", "a", "d", 1),
        ("q", "a", "e", 2),
        ("q", "b", "d", 0),
    ]
    with pytest.raises(DuplicateError) as info:
        read_qrels_jg(io.StringIO("q a d 1\nq b d 0\nq a d 2\n"))
    assert info.value.lines == (1, 3) and info.value.document == "d"


# -- naive references, written loop by loop from trec_eval's C code ---------------------------


def naive_prefs(entries, ranked):
    """entries: (jg, jsg, docno, level); ranked: docnos in ranking order (after -M)."""
    judged = sorted({e[2] for e in entries})
    rank = {}
    for d in ranked:
        if d in judged and d not in rank:
            rank[d] = len(rank)
    njr = len(rank)
    for d in judged:
        rank.setdefault(d, len(rank))
    nj = len(judged)
    counts = [[0] * nj for _ in range(nj)]
    rows = sorted((jg, jsg, -lvl, rank[d], d, lvl) for jg, jsg, d, lvl in entries)
    groups = []
    for jg in sorted({r[0] for r in rows}):
        members = [r for r in rows if r[0] == jg]
        g = dict.fromkeys(("fr", "pr", "fi", "pi", "no", "rel", "relr", "non", "nonr"), 0)
        if len({r[1] for r in members}) == 1:
            classes = []
            for r in members:
                if not classes or classes[-1][0] != r[5]:
                    classes.append((r[5], []))
                classes[-1][1].append(r[3])
            for k, (lvl, ranks) in enumerate(classes):
                ret = sum(1 for x in ranks if x < njr)
                if lvl > 0:
                    g["rel"] += len(ranks)
                    g["relr"] += ret
                else:
                    g["non"] += len(ranks)
                    g["nonr"] += ret
                for _, other in classes[k + 1 :]:
                    for a in ranks:
                        for b in other:
                            counts[a][b] += 1
                            if a == b:
                                raise ValueError("two levels")
                            if a < b:
                                key = "fr" if b < njr else ("fi" if a < njr else "no")
                            else:
                                key = "pr" if a < njr else ("pi" if b < njr else "no")
                            g[key] += 1
            g["classes"] = [ranks for _, ranks in classes]
        else:
            pa = [[0] * nj for _ in range(nj)]
            rel = [-1.0] * nj
            for i, r in enumerate(members):
                old = rel[r[3]]
                if (old > 0 and r[5] == 0) or (old == 0 and r[5] > 0):
                    raise ValueError("0 and non-0")
                rel[r[3]] = r[5]
                for s in members[i + 1 :]:
                    if s[1] == r[1] and s[5] < r[5]:
                        pa[r[3]][s[3]] = 1
            for i in range(nj):
                pa[i][i] = 1
            current = pa
            while True:  # multiply by the original until nothing changes, as trec_eval
                product = [
                    [int(any(pa[i][k] and current[k][j] for k in range(nj))) for j in range(nj)]
                    for i in range(nj)
                ]
                if product == current:
                    break
                current = product
            for i in range(nj):
                current[i][i] = 0
            for i in range(nj):
                for j in range(nj):
                    if current[i][j] and current[j][i]:
                        raise ValueError("cycle")
            for i in range(nj):
                if rel[i] > 0:
                    g["rel"] += 1
                    g["relr"] += i < njr
                elif rel[i] == 0:
                    g["non"] += 1
                    g["nonr"] += i < njr
                for j in range(nj):
                    if current[i][j]:
                        counts[i][j] += 1
                        if i < njr and j < njr:
                            g["fr" if j > i else "pr"] += 1
                        elif i < njr:
                            g["fi"] += 1
                        elif j < njr:
                            g["pi"] += 1
                        else:
                            g["no"] += 1
            g["pa"], g["rel_array"] = current, rel
        g["pr"] += g["fr"]
        g["pi"] += g["fi"]
        groups.append(g)
    return measures_of(groups, counts, njr, nj)


def recount(g, njr, nj, ret_only):
    ful = poss = 0
    if "classes" in g:
        classes = g["classes"]
        if ret_only:
            classes = [[x for x in c if x < njr] for c in classes]
        new = classes[-1][: g["relr" if ret_only else "rel"]]
        pairs = [
            (classes[a], classes[b])
            for a in range(len(classes))
            for b in range(a + 1, len(classes) - 1)
        ]
        pairs += [(c, new) for c in classes]
        for first, second in pairs:
            for a in first:
                for b in second:
                    if a < b and a < njr:
                        ful += 1
                    else:
                        poss += 1
        return ful, poss + ful
    rel, pa = g["rel_array"], g["pa"]
    limit = njr if ret_only else nj
    seen, first = 0, limit
    for i in range(limit):
        if rel[i] == 0:
            seen += 1
            if seen == g["rel"] + 1:
                first = i
                break

    def dropped(i):
        return i >= first and rel[i] == 0

    for i in range(nj):
        for j in range(nj):
            if not pa[i][j] or dropped(i) or dropped(j):
                continue
            if i < njr and j < njr:
                if j > i:
                    ful += 1
                else:
                    poss += 1
            elif not ret_only:
                if i < njr:
                    ful += 1
                else:
                    poss += 1
    return ful, poss + ful


def ratio(a, b):
    return a / b if b else math.nan


def measures_of(groups, counts, njr, nj):
    fr = sum(g["fr"] for g in groups)
    fi = sum(g["fi"] for g in groups)
    pr = sum(g["pr"] for g in groups)
    pi = sum(g["pi"] for g in groups)
    no = sum(g["no"] for g in groups)
    v = {
        "prefs_num_prefs_poss": float(pr + pi + no),
        "prefs_num_prefs_ful": float(fr + fi),
        "prefs_num_prefs_ful_ret": float(fr),
        "prefs_simp": (fr + fi) / (pr + pi + no) if pr + pi + no else 0.0,
        "prefs_simp_ret": fr / pr if pr else 0.0,
        "prefs_simp_imp": (fr + fi) / (pr + pi) if pr + pi else 0.0,
    }
    for name, ful_keys, poss_keys in (
        ("prefs_avgjg", ("fr", "fi"), ("pr", "pi", "no")),
        ("prefs_avgjg_ret", ("fr",), ("pr",)),
        ("prefs_avgjg_imp", ("fr", "fi"), ("pr", "pi")),
    ):
        total = 0.0
        for g in groups:
            poss = sum(g[k] for k in poss_keys)
            if poss:
                total += sum(g[k] for k in ful_keys) / poss
        v[name] = total / len(groups) if total > 0 else 0.0
    for name, ret_only in (("prefs_avgjg_Rnonrel", False), ("prefs_avgjg_Rnonrel_ret", True)):
        total = 0.0
        for g in groups:
            big_r, big_n = (g["relr"], g["nonr"]) if ret_only else (g["rel"], g["non"])
            if big_r >= big_n:
                ful = g["fr"] + (0 if ret_only else g["fi"]) + g["relr"] * (big_r - big_n)
                poss = g["pr"] + (0 if ret_only else g["pi"] + g["no"]) + g["rel"] * (big_r - big_n)
            else:
                ful, poss = recount(g, njr, nj, ret_only)
            total += ratio(ful, poss)
        v[name] = total / len(groups) if total > 0 else 0.0
    sums = {"ret": [0.0, 0], "imp": [0.0, 0], "all": [0.0, 0]}
    for i in range(njr):
        for j in range(i + 1, njr):
            if counts[i][j] or counts[j][i]:
                share = counts[i][j] / (counts[i][j] + counts[j][i])
                for key in sums:
                    sums[key][0] += share
                    sums[key][1] += 1
    for i in range(njr):
        for j in range(njr, nj):
            if counts[i][j] or counts[j][i]:
                share = counts[i][j] / (counts[i][j] + counts[j][i])
                for key in ("imp", "all"):
                    sums[key][0] += share
                    sums[key][1] += 1
    for i in range(njr, nj):
        for j in range(i + 1, nj):
            if counts[i][j] or counts[j][i]:
                sums["all"][1] += 1
    for key, name in (("all", "prefs_pair"), ("ret", "prefs_pair_ret"), ("imp", "prefs_pair_imp")):
        v[name] = sums[key][0] / sums[key][1] if sums[key][1] else 0.0
    return {name: v[name] for name in PREFS_MEASURES}


def naive_jg(judgments, ranked, level, judged_only, cutoffs, mults):
    """judgments: {jg: {docno: rel}}; ranked: docnos in ranking order (after -M)."""
    totals = [0.0] * (1 + len(cutoffs) + len(mults))
    for jg in sorted(judgments):
        qrels = judgments[jg]
        rels = [(-1 if d not in qrels else (-2 if qrels[d] < 0 else qrels[d])) for d in ranked]
        if judged_only:
            rels = [r for r in rels if r >= 0]
        num_rel = sum(1 for r in qrels.values() if r >= 0 and r >= level)
        num_rel_ret = sum(1 for r in rels if r >= 0 and r >= level)
        found, total = 0, 0.0
        for i, r in enumerate(rels):
            if r >= level:
                found += 1
                total += found / (i + 1)
        if found:
            totals[0] += total / num_rel
        for k, cut in enumerate(cutoffs):
            totals[1 + k] += sum(1 for r in rels[:cut] if r >= level) / cut
        cuts = [int(x * num_rel + 0.9) for x in mults]
        current = len(mults) - 1
        while current >= 0 and cuts[current] > len(rels):
            totals[1 + len(cutoffs) + current] += num_rel_ret / cuts[current]
            current -= 1
        so_far = num_rel_ret
        i = len(rels)
        while i > 0 and so_far > 0:
            while current >= 0 and i == cuts[current]:
                totals[1 + len(cutoffs) + current] += so_far / i
                current -= 1
            if rels[i - 1] >= level:
                so_far -= 1
            i -= 1
    if len(judgments) > 1:
        totals = [t / len(judgments) for t in totals]
    return totals


# -- differential tests -----------------------------------------------------------------------

DOCS = ["A", "B", "C", "D", "E", "F", "a", "b"]


def random_run(rng: random.Random, qids):
    run = {}
    for qid in qids:
        if rng.random() < 0.1:
            continue  # missing from the run
        docs = rng.sample([*DOCS, "u1", "u2", "u3"], rng.randint(1, 9))
        run[qid] = {d: float(rng.choice([1, 2, 2, 3, 4])) for d in docs}  # many ties
    return run


def ranked_docs(scores, ascending_ties: bool, depth):
    order = sorted(scores, reverse=not ascending_ties)
    order.sort(key=lambda d: -scores[d])
    return order[:depth] if depth is not None else order


def random_prefs(rng: random.Random):
    """Mostly consistent groups: each group ranks documents by a hidden level, which its
    sub-groups rescale (0 stays 0); 10% of groups draw levels freely (often inconsistent),
    and some sub-groups list a document twice."""
    levels = [0.0, 0.0, 0.5, 1.0, 2.0, 3.0]
    records = []
    for qid in ("q1", "q2", "q3"):
        for jg in rng.sample(["g1", "g2", "g3"], rng.randint(1, 3)):
            hidden = {d: rng.choice(levels) for d in DOCS}
            free = rng.random() < 0.1
            for jsg in rng.sample(["s1", "s2", "s3"], rng.choice([1, 1, 2, 3])):
                k = rng.randint(1, 6)
                docs = rng.choices(DOCS, k=k) if rng.random() < 0.1 else rng.sample(DOCS, k)
                scale = rng.choice([1.0, 2.0, 10.0])
                for d in docs:
                    level = rng.choice(levels) if free else hidden[d] * scale
                    records.append((qid, jg, jsg, d, level))
    return records


def test_prefs_agree_with_naive_reference_on_random_inputs() -> None:
    rng = random.Random(20240601)
    outcomes = Counter()
    for _ in range(300):
        records = random_prefs(rng)
        run = random_run(rng, ["q1", "q2", "q3"])
        depth = rng.choice([None, None, 2, 4])
        expected = {}
        try:
            for qid in ("q1", "q2", "q3"):
                entries = [(jg, jsg, d, lvl) for q, jg, jsg, d, lvl in records if q == qid]
                ranked = ranked_docs(run.get(qid, {}), True, depth)
                expected[qid] = naive_prefs(entries, ranked)
        except ValueError:
            with pytest.raises(InputError):
                evaluate_prefs(Prefs.from_records(records), run, depth=depth)
            outcomes["error"] += 1
            continue
        assert evaluate_prefs(Prefs.from_records(records), run, depth=depth) == expected
        outcomes["ok"] += 1
    assert outcomes["ok"] > 200 and outcomes["error"] > 10


def test_jg_agree_with_naive_reference_on_random_inputs() -> None:
    rng = random.Random(7)
    cutoffs, mults = [1, 2, 3, 5, 20], [0.2, 0.5, 1.0, 1.5, 3.0]
    for _ in range(300):
        records = []
        for qid in ("q1", "q2"):
            for jg in rng.sample(["g1", "g2", "g3"], rng.randint(1, 3)):
                for d in rng.sample(DOCS, rng.randint(1, 6)):
                    records.append((qid, jg, d, rng.choice([-1, 0, 0, 1, 1, 2, 3])))
        run = random_run(rng, ["q1", "q2"])
        level = rng.choice([1, 1, 2, 0])
        depth = rng.choice([None, None, 1, 3])
        judged_only = rng.random() < 0.3
        got = evaluate_jg(
            QrelsJG.from_records(records),
            run,
            rel_level=level,
            depth=depth,
            judged_only=judged_only,
            p_cutoffs=cutoffs,
            rprec_mults=mults,
        )
        names = jg_value_names(cutoffs, mults)
        for qid in ("q1", "q2"):
            judgments = {}
            for q, jg, d, r in records:
                if q == qid:
                    judgments.setdefault(jg, {})[d] = r
            ranked = ranked_docs(run.get(qid, {}), False, depth)
            want = naive_jg(judgments, ranked, level, judged_only, cutoffs, mults)
            assert got[qid] == dict(zip(names, want, strict=True))
