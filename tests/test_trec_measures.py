"""The trec_eval 10.0 measures of ``catalog_trec`` (and nDCG's gains).

* Golden: every value of those measures in trec_eval's own expected outputs
  (tests/data/trec_eval, 10.0 and 9.0.8), per query and ``all``, printed as trec_eval
  prints them.
* Oracle: :func:`trec_reference`, a line-by-line Python transcription of trec_eval 10's C
  loops (m_*.c, gain_init.c with glibc's merge sort), equals ranklens to the last bit on
  seeded random cases full of ties, graded and negative labels and unjudged documents.
* pytrec_eval (trec_eval 9.0.8): every measure it has, where 9.0.8 and 10 agree.
* Hand-computed cases for RBP, RBPResid and Unjudged (pytrec_eval has none of them).
* Properties (hypothesis): bounds, invariance to the input order.

Known and deliberate differences with trec_eval 10, allowed here and nowhere else:

* ``RnDCG`` is 0 where trec_eval computes 0/0 (no ideal-gain boundary, e.g. all gains 0).
* ``11ptAvg`` on an empty ranking (``judged_only``) is 0, trec_eval prints NaN.
* ``nDCGRel`` is 0 where trec_eval divides by a zero ideal DCG (impossible with gains >= 0).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import MeasureError
from ranklens.measures import REGISTRY, parse_measure
from ranklens.measures.base import Measure
from ranklens.measures.trec_names import trec_value_name, with_relevance_level
from strategies import Case, cases, judged_only_st, random_cases, rel_st, trec_ranking

PROPS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

MINE = (
    "SetRelP",
    "SetAP",
    "SetF",
    "RelP",
    "RprecMult",
    "Utility",
    "NumNonRelJudgedRet",
    "Unjudged",
    "YAAP",
    "infAP",
    "GMBpref",
    "11ptAvg",
    "BinG",
    "G",
    "nDCGRel",
    "RnDCG",
    "DCG",
    "IDCG",
    "RBP",
    "RBPResid",
)

# --- golden: trec_eval's expected outputs -------------------------------------------------

# expected output -> (qrels, run, -l, -M, 11pt rounding)
GOLDEN = {
    "out.test.a": ("qrels.test", "results.test", 1, None, "round"),
    "out.test.aq": ("qrels.test", "results.test", 1, None, "round"),
    "out.test.aqc": ("qrels.test", "results.trunc", 1, None, "round"),
    "out.test.aqcM": ("qrels.test", "results.trunc", 1, 100, "round"),
    "out.test.aql": ("qrels.rel_level", "results.test", 2, None, "round"),
    "out.test.meas_params": ("qrels.test", "results.test", 1, None, "round"),
    "v9.0.8/out.test.a": ("qrels.test", "results.test", 1, None, "trec9"),
    "v9.0.8/out.test.aq": ("qrels.test", "results.test", 1, None, "trec9"),
    "v9.0.8/out.test.aqc": ("qrels.test", "results.trunc", 1, None, "trec9"),
    "v9.0.8/out.test.aqcM": ("qrels.test", "results.trunc", 1, 100, "trec9"),
    "v9.0.8/out.test.aql": ("qrels.rel_level", "results.test", 2, None, "trec9"),
    "v9.0.8/out.test.meas_params": ("qrels.test", "results.test", 1, None, "trec9"),
}

_PLAIN = {
    "set_relative_P": "SetRelP",
    "set_map": "SetAP",
    "set_F": "SetF",
    "utility": "Utility",
    "num_nonrel_judged_ret": "NumNonRelJudgedRet",
    "yaap": "YAAP",
    "infAP": "infAP",
    "gm_bpref": "GMBpref",
    "binG": "BinG",
    "G": "G",
    "ndcg_rel": "nDCGRel",
    "Rndcg": "RnDCG",
    "dcg": "DCG",
    "ideal_dcg": "IDCG",
    "rbp": "RBP(p=0.9,gain='graded')",
    "rbp_resid": "RBPResid(p=0.9,tail='trec')",
}


def _gain_map(raw: str) -> str:
    """trec_eval's ``1=3,2=9`` as the measure language's ``{1:3,2:9}``."""
    return "{" + raw.replace("=", ":") + "}"


def trec_measure(value_name: str, rel: int, rounding: str) -> Measure | None:
    """The ranklens measure behind one of trec_eval's value names (of this module's
    measures), under ``-l rel``; None for the other value names."""
    text: str | None = None
    if value_name in _PLAIN:
        text = _PLAIN[value_name]
    elif value_name == "11pt_avg":
        text = f"11ptAvg(rounding='{rounding}')"
    elif m := re.fullmatch(r"11pt_avg_(.+)", value_name):
        levels = ",".join(str(float(x)) for x in m.group(1).split(","))
        text = f"11ptAvg(rounding='{rounding}',levels=[{levels}])"
    elif m := re.fullmatch(r"relative_P_(\d+)", value_name):
        text = f"RelP@{m.group(1)}"
    elif m := re.fullmatch(r"Rprec_mult_(\d+\.\d+)", value_name):
        text = f"RprecMult@{float(m.group(1))}"
    elif m := re.fullmatch(r"unj_(\d+)", value_name):
        text = f"Unjudged@{m.group(1)}"
    elif m := re.fullmatch(r"utility_(.+)", value_name):
        a, b, c, d = (float(x) for x in m.group(1).split(","))
        text = f"Utility(a={a},b={b},c={c},d={d})"
    elif m := re.fullmatch(r"set_F_(.+)", value_name):
        text = f"SetF(beta={math.sqrt(float(m.group(1)))!r})"
    elif m := re.fullmatch(r"(ndcg|ndcg_rel|Rndcg|G|dcg|ideal_dcg)_(-?\d+=.+)", value_name):
        family = {"ndcg": "nDCG"} | {k: v for k, v in _PLAIN.items() if k != "ndcg"}
        ideal = "" if m.group(1) == "dcg" else ",ideal='trec_eval'"
        text = f"{family[m.group(1)]}(gains={_gain_map(m.group(2))}{ideal})"
    elif m := re.fullmatch(r"rbp_p=(.+)", value_name):
        text = f"RBP(p={float(m.group(1))},gain='graded')"
    if text is None:
        return None
    return with_relevance_level(parse_measure(text), rel)


def read_expected(path: Path) -> dict[tuple[str, str], str]:
    """``{(value name, qid): printed value}`` from a trec_eval output file."""
    out = {}
    for line in path.read_text().splitlines():
        name, qid, value = line.split("\t")
        out[(name.strip(), qid)] = value
    return out


def printed(value: float, measure: Measure) -> str:
    return str(int(value)) if measure.spec.aggregate == "sum" else f"{value:6.4f}"


@pytest.mark.parametrize("expected_file", sorted(GOLDEN))
def test_measures_match_trec_eval_outputs(trec_eval_data: Path, expected_file: str) -> None:
    qrels, run, rel, depth, rounding = GOLDEN[expected_file]
    expected = read_expected(trec_eval_data / expected_file)
    measures: dict[str, Measure] = {}
    for name, _ in expected:
        measure = trec_measure(name, rel, rounding)
        if measure is not None:
            measures[name] = measure
    res = ranklens.evaluate(
        trec_eval_data / qrels, trec_eval_data / run, list(measures.values()), depth=depth
    )
    checked = 0
    for (name, qid), want in expected.items():
        if name not in measures:
            continue
        measure = measures[name]
        got = res.aggregate[measure.name] if qid == "all" else res.per_query[qid][measure.name]
        assert printed(got, measure) == want, f"{name} {qid}: {got!r} vs trec_eval {want}"
        checked += 1
    assert checked >= len(measures)
    families = {m.spec.name for m in measures.values()}
    if "meas_params" in expected_file:
        assert {"Utility", "11ptAvg", "nDCG", "RprecMult"} <= families
    else:  # all_trec: every measure of this module that all_trec has
        v9 = expected_file.startswith("v9")
        want = (
            set(MINE) - {"YAAP", "DCG", "IDCG"} - ({"RBP", "RBPResid", "Unjudged"} if v9 else set())
        )
        assert families == want, sorted(want - families)


def test_golden_table_names_every_value_of_all_trec(trec_eval_data: Path) -> None:
    """Each all_trec value name is either a core measure's or this module's."""
    from ranklens.measures.trec_names import parse_trec_name

    expected = read_expected(trec_eval_data / "out.test.aq")
    core_or_mine = {"runid", "relstring"}
    for name, _ in expected:
        found = parse_trec_name(name)
        if (found and len(found) == 1) or trec_measure(name, 1, "round") is not None:
            core_or_mine.add(name)
    assert {name for name, _ in expected} == core_or_mine


def test_trec_value_names_of_the_defaults() -> None:
    assert trec_value_name(parse_measure("SetF")) == "set_F"
    assert trec_value_name(parse_measure("RelP@10")) == "relative_P_10"
    assert trec_value_name(parse_measure("RprecMult@0.2")) == "Rprec_mult_0.20"
    assert trec_value_name(parse_measure("Unjudged@5")) == "unj_5"
    assert trec_value_name(parse_measure("11ptAvg")) == "11pt_avg"
    assert trec_value_name(parse_measure("GMBpref")) == "gm_bpref"
    assert trec_value_name(parse_measure("IDCG")) == "ideal_dcg"
    assert trec_value_name(parse_measure("nDCG(gains={1:3})")) is None
    assert trec_value_name(parse_measure("RBP")) is None  # RBP(p=0.8) is not trec's rbp


# --- a pure-Python trec_eval 10 -------------------------------------------------------------


def glibc_msort(items: list[Any], cmp: Callable[[Any, Any], int]) -> None:
    """glibc's ``msort_with_tmp`` (qsort), in place: n1 = n / 2, take left while cmp <= 0."""

    def sort(lo: int, n: int) -> None:
        if n <= 1:
            return
        n1, n2 = n // 2, n - n // 2
        sort(lo, n1)
        sort(lo + n1, n2)
        tmp: list[Any] = []
        i, j = lo, lo + n1
        while n1 > 0 and n2 > 0:
            if cmp(items[i], items[j]) <= 0:
                tmp.append(items[i])
                i, n1 = i + 1, n1 - 1
            else:
                tmp.append(items[j])
                j, n2 = j + 1, n2 - 1
        tmp.extend(items[i : i + n1])
        items[lo : lo + len(tmp)] = tmp

    sort(0, len(items))


def c_int(x: float) -> int:
    """C's ``(int)`` of a double (x86-64: INT_MIN when out of range)."""
    t = math.trunc(x)
    return t if -(2**31) <= t < 2**31 else -(2**31)


def setup_gains(pairs: Sequence[tuple[int, float]], rel_levels: Sequence[int]) -> list[list[Any]]:
    """gain_init.c ``setup_gains``: [rel_level, gain, num_at_level], sorted by glibc qsort."""
    gains: list[list[Any]] = [[level, float(g), 0] for level, g in pairs]
    for i in range(len(rel_levels)):
        for entry in gains:
            if entry[0] == i:
                entry[2] = rel_levels[i]
                break
        else:
            gains.append([i, float(i), rel_levels[i]])
    glibc_msort(gains, lambda a, b: c_int(a[1] - b[1]))
    return gains


def get_gain(level: int, gains: list[list[Any]]) -> float:
    for entry in gains:
        if entry[0] == level:
            return float(entry[1])
    return 0.0


class IdealWalk:
    """The ``cur_level`` / ``num_at_level`` walk down the sorted gains (m_ndcg.c)."""

    def __init__(self, gains: list[list[Any]]) -> None:
        self.gains = gains
        self.cur = len(gains) - 1
        self.gain = gains[self.cur][1] if self.cur >= 0 else 0.0
        self.num_at_level = 0

    def step(self) -> float:
        self.num_at_level += 1
        while self.cur >= 0 and self.num_at_level > self.gains[self.cur][2]:
            self.num_at_level = 1
            self.cur -= 1
            self.gain = self.gains[self.cur][1] if self.cur >= 0 else 0.0
        return float(self.gain)


def ndcg_trec(labels: list[int], gains: list[list[Any]], form: str = "log2") -> tuple[float, ...]:
    """m_ndcg.c: (ndcg, dcg, ideal_dcg); ``form`` exp-log2 is ranklens's extension."""

    def shape(g: float) -> float:
        return 2.0**g - 1.0 if form == "exp-log2" else g

    results_dcg = ideal_dcg = 0.0
    walk = IdealWalk(gains)
    i = 0
    while i < len(labels) and walk.gain > 0.0:
        g = shape(get_gain(labels[i], gains))
        if g != 0:
            results_dcg += g / math.log2(i + 2)
        ig = walk.step()
        if ig > 0.0:
            ideal_dcg += shape(ig) / math.log2(i + 2)
        i += 1
    while i < len(labels):
        g = shape(get_gain(labels[i], gains))
        if g != 0:
            results_dcg += g / math.log2(i + 2)
        i += 1
    while walk.gain > 0.0:
        ig = walk.step()
        if ig > 0.0:
            ideal_dcg += shape(ig) / math.log2(i + 2)
        i += 1
    return (results_dcg / ideal_dcg if ideal_dcg > 0.0 else 0.0), results_dcg, ideal_dcg


def ndcg_cut_with_gains(
    labels: list[int], gains: list[list[Any]], k: int, form: str = "log2"
) -> tuple[float, float, float]:
    """ranklens's nDCG(gains)@k: DCG of the top k over the ideal's top k."""

    def shape(g: float) -> float:
        return 2.0**g - 1.0 if form == "exp-log2" else g

    dcg = 0.0
    for i, label in enumerate(labels[:k]):
        g = shape(get_gain(label, gains))
        if g != 0:
            dcg += g / math.log2(i + 2)
    ideal = 0.0
    walk = IdealWalk(gains)
    for i in range(k):
        if walk.gain <= 0.0:
            break
        ig = walk.step()
        if ig <= 0.0:
            break
        ideal += shape(ig) / math.log2(i + 2)
    return (dcg / ideal if ideal > 0 else 0.0), dcg, ideal


def ndcg_rel_trec(labels: list[int], gains: list[list[Any]]) -> float:
    """m_ndcg_rel.c (0 where trec_eval would divide by a zero ideal DCG)."""
    results_dcg = ideal_dcg = total = 0.0
    num_rel = num_rel_ret = 0
    walk = IdealWalk(gains)
    i = 0
    while i < len(labels) and walk.gain > 0.0:
        g = get_gain(labels[i], gains)
        if g != 0:
            results_dcg += g / math.log2(i + 2)
        ig = walk.step()
        if ig > 0.0:
            num_rel += 1
            ideal_dcg += ig / math.log2(i + 2)
        if g > 0:
            total += results_dcg / ideal_dcg
            num_rel_ret += 1
        i += 1
    while i < len(labels):
        g = get_gain(labels[i], gains)
        if g != 0:
            results_dcg += g / math.log2(i + 2)
        if g > 0:
            if ideal_dcg == 0.0:
                return 0.0
            total += results_dcg / ideal_dcg
            num_rel_ret += 1
        i += 1
    while walk.gain > 0.0:
        ig = walk.step()
        if ig > 0.0:
            num_rel += 1
            ideal_dcg += ig / math.log2(i + 2)
        i += 1
    if ideal_dcg == 0.0:
        return 0.0
    total += float(num_rel - num_rel_ret) * results_dcg / ideal_dcg
    return total / num_rel if total > 0.0 else 0.0


def rndcg_trec(labels: list[int], gains: list[list[Any]], num_rel: int) -> float:
    """m_Rndcg.c; NaN where trec_eval divides 0 by 0."""
    if num_rel == 0:
        return 0.0
    results_dcg = ideal_dcg = total = 0.0
    walk = IdealWalk(gains)
    old = walk.gain
    changes = 0
    i = 0
    while i < len(labels) and walk.gain > 0.0:
        g = get_gain(labels[i], gains)
        ig = walk.step()
        if old != ig:
            if ideal_dcg > 0.0:
                total += results_dcg / ideal_dcg
                changes += 1
            old = ig
        if g != 0:
            results_dcg += g / math.log2(i + 2)
        if ig > 0.0:
            ideal_dcg += ig / math.log2(i + 2)
        i += 1
    if i < len(labels):
        while i < len(labels):
            g = get_gain(labels[i], gains)
            if g != 0:
                results_dcg += g / math.log2(i + 2)
            i += 1
        if ideal_dcg > 0.0:
            total += results_dcg / ideal_dcg
            changes += 1
    while walk.gain > 0.0:
        ig = walk.step()
        if old != ig:
            if ideal_dcg > 0.0:
                total += results_dcg / ideal_dcg
                changes += 1
            old = ig
        if ig > 0.0:
            ideal_dcg += ig / math.log2(i + 2)
        i += 1
    return total / changes if changes else math.nan


def g_trec(labels: list[int], gains: list[list[Any]]) -> float:
    """m_G.c."""
    results_g = sum_results = sum_ideal = sum_cost = 0.0
    min_cost = 1.0
    walk = IdealWalk(gains)
    i = 0
    while i < len(labels) and walk.gain > 0.0:
        g = get_gain(labels[i], gains)
        sum_results += g
        ig = walk.step()
        if ig > 0.0:
            sum_ideal += ig
        sum_cost += ig if ig >= min_cost else min_cost
        if g != 0:
            results_g += c_div(g, c_log2(2 + sum_cost - sum_results))
        i += 1
    while i < len(labels):
        g = get_gain(labels[i], gains)
        sum_results += g
        sum_cost += min_cost
        if g != 0:
            results_g += c_div(g, c_log2(2 + sum_cost - sum_results))
        i += 1
    while walk.gain > 0.0:
        ig = walk.step()
        if ig > 0.0:
            sum_ideal += ig
    return results_g / sum_ideal if sum_ideal > 0.0 else 0.0


def lround(x: float) -> int:
    """C's ``lround`` for x >= 0: halves away from zero."""
    whole = math.floor(x)
    return whole + (1 if x - whole >= 0.5 else 0)


def c_div(a: float, b: float) -> float:
    """C's ``a / b`` on doubles (inf or NaN on a zero divisor)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(a) / np.float64(b))


def c_log2(x: float) -> float:
    """C's ``log2`` (-inf at 0, NaN below)."""
    return math.log2(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def eleven_pt_trec(relevant: list[bool], num_rel: int, levels: Sequence[float], rule: str) -> float:
    """m_11pt_avg.c (v10 lround; v9 ``+0.9``)."""
    levels = sorted(levels)
    if rule == "trec9":
        cutoffs = [int(x * num_rel + 0.9) for x in levels]
    else:
        cutoffs = [lround(x * num_rel) for x in levels]
    num_ret, num_rel_ret = len(relevant), sum(relevant)
    current = len(levels) - 1
    while current >= 0 and cutoffs[current] > num_rel_ret:
        current -= 1
    precis = num_rel_ret / num_ret if num_ret else math.nan
    int_precis = precis
    rel_so_far = num_rel_ret
    total = 0.0
    i = num_ret
    while i > 0 and rel_so_far > 0:
        precis = rel_so_far / i
        int_precis = max(int_precis, precis)
        if relevant[i - 1]:
            while current >= 0 and rel_so_far == cutoffs[current]:
                total += int_precis
                current -= 1
            rel_so_far -= 1
        i -= 1
    while current >= 0:
        total += int_precis
        current -= 1
    return total / len(levels)


def rprec_mult_trec(relevant: list[bool], num_rel: int, x: float) -> float:
    c = int(x * num_rel + 0.9)
    if c == 0:
        return 0.0
    return sum(relevant[:c]) / c


def infap_trec(labels: list[int], rel: int, num_rel: int) -> float:
    nonrel = rel_so_far = unjudged = 0
    inf_ap = 0.0
    for j, g in enumerate(labels):
        if g == -1:
            continue
        if g == -2:
            unjudged += 1
            continue
        if 0 <= g < rel:
            nonrel += 1
        else:
            rel_so_far += 1
            if j == 0:
                inf_ap += 1.0
            else:
                fj = float(j)
                inf_ap += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (
                    (rel_so_far - 1 + nonrel + unjudged) / fj
                ) * ((rel_so_far - 1 + 0.00001) / (rel_so_far - 1 + nonrel + 2 * 0.00001))
    return inf_ap / num_rel if num_rel else inf_ap


def rbp_trec(labels: list[int], rel_levels: Sequence[int], p: float) -> float:
    """m_rbp.c with ``min = max = 0`` before its normalisation loop."""
    gains = setup_gains((), rel_levels)
    lo = hi = 0.0
    for entry in gains:
        lo, hi = min(lo, entry[1]), max(hi, entry[1])
    if lo < 0 or hi > 1:
        for entry in gains:
            entry[1] = (entry[1] - lo) / (hi - lo)
    total, cur_p = 0.0, 1.0
    for label in labels:
        g = get_gain(label, gains)
        if g != 0:
            total += g * cur_p
        cur_p = cur_p * p
    return (1.0 - p) * total


def rbp_binary(relevant: list[bool], p: float) -> float:
    total, cur_p = 0.0, 1.0
    for r in relevant:
        if r:
            total += cur_p
        cur_p = cur_p * p
    return (1.0 - p) * total


def rbp_resid_trec(labels: list[int], p: float, tail: str) -> float:
    total, cur_p, unj = 0.0, 1.0, 0
    for label in labels:
        if label < 0:
            unj += 1
            total += cur_p
        cur_p = cur_p * p
    if tail == "trec" and not unj:
        return 0.0
    return cur_p + (1 - p) * total


GAIN_MAPS: dict[str, tuple[tuple[int, float], ...]] = {
    "": (),
    "{1:3,2:9,4:4.5}": ((1, 3.0), (2, 9.0), (4, 4.5)),
    "{0:0.5,1:0.7,2:1.2,3:0.3}": ((0, 0.5), (1, 0.7), (2, 1.2), (3, 0.3)),
    "{1:-1,2:5}": ((1, -1.0), (2, 5.0)),
    "{0:1,3:0}": ((0, 1.0), (3, 0.0)),
    "{2:1.5,3:1.4,4:2.6}": ((2, 1.5), (3, 1.4), (4, 2.6)),
    "{1:0.4,2:-0.3}": ((1, 0.4), (2, -0.3)),
}
CUTS = (1, 2, 3, 5, 10, 20)
MULTS = (0.2, 0.5, 1.0, 1.4, 2.0)
BETAS = (1.0, 0.5, 2.0)
PS = (0.8, 0.9, 0.5)
LEVEL_SETS = {"": None, "[0.25,0.5,0.75]": (0.25, 0.5, 0.75), "[0.0,1.0]": (0.0, 1.0)}


def with_gains(name: str, gains: str, extra: str = "") -> str:
    """The measure-language name of a gain measure as trec_eval computes it: custom gains
    ordered as trec_eval orders them (``ideal='trec_eval'``)."""
    order = "" if name == "DCG" else ",ideal='trec_eval'"  # DCG has no ideal ranking
    params = [p for p in (f"gains={gains}{order}" if gains else "", extra) if p]
    return name + (f"({','.join(params)})" if params else "")


def reference_table(
    qrels_q: Mapping[str, int], run_q: Mapping[str, float] | None, rel: int, judged_only: bool
) -> dict[str, float]:
    """One query's values of this module's measures, by the C transcriptions above."""
    ranked = trec_ranking(run_q) if run_q else []
    # trec_eval's judgment per rank: the grade, -1 not in the qrels, -2 judged negative
    labels = [(-1 if d not in qrels_q else -2 if qrels_q[d] < 0 else qrels_q[d]) for d in ranked]
    all_labels = labels
    if judged_only:
        labels = [g for g in labels if g >= 0]
    judged = [g for g in qrels_q.values() if g >= 0]
    rel_levels = [0] * (max(judged) + 1 if judged else 0)
    for g in judged:
        rel_levels[g] += 1
    num_rel = sum(1 for g in judged if g >= rel)
    relevant = [g >= 0 and g >= rel for g in labels]
    n, a = len(labels), sum(relevant)
    j = f"(rel={rel},judged_only={judged_only})"
    out: dict[str, float] = {}
    out[f"SetRelP{j}"] = a / min(n, num_rel) if n and num_rel else 0.0
    out[f"SetAP{j}"] = (float(a) * float(a)) / (float(n) * float(num_rel)) if n and num_rel else 0.0
    for beta in BETAS:
        x = beta * beta
        if a:
            p, r = a / n, a / num_rel
            value = (x + 1.0) * p * r / (x * p + r)
        else:
            value = 0.0
        out[f"SetF(beta={beta},rel={rel},judged_only={judged_only})"] = value
    for k in CUTS:
        out[f"RelP{j}@{k}"] = sum(relevant[:k]) / min(k, num_rel) if num_rel else 0.0
        unj = sum(1 for g in labels[:k] if g < 0)
        out[f"Unjudged(judged_only={judged_only})@{k}"] = unj / k
    for x in MULTS:
        out[f"RprecMult{j}@{x}"] = rprec_mult_trec(relevant, num_rel, x)
    out[f"Utility{j}"] = (
        1.0 * a + -1.0 * (n - a) + 0.0 * (num_rel - a) + 0.0 * (0 + a - n - num_rel)
    )
    out[
        f"Utility(a=2.0,b=-1.0,c=-0.5,d=0.25,num_docs=1000,rel={rel},judged_only={judged_only})"
    ] = 2.0 * a + -1.0 * (n - a) + -0.5 * (num_rel - a) + 0.25 * (1000 + a - n - num_rel)
    nonpool = sum(1 for g in labels if g == -1)
    unjudged_in_pool = sum(1 for g in labels if g == -2)
    out[f"NumNonRelJudgedRet{j}"] = float(n - nonpool - unjudged_in_pool - a)
    s, so_far = 0.0, 0
    for i, r in enumerate(relevant):
        if r:
            so_far += 1
            s += so_far / (i + 1)
    out[f"YAAP{j}"] = math.log((1.0 + s) / (1.0 + float(num_rel) - s))
    for text, levels in LEVEL_SETS.items():
        for rounding in ("round", "trec9"):
            params = f"rel={rel},judged_only={judged_only},rounding='{rounding}'"
            params += f",levels={text}" if text else ""
            value = eleven_pt_trec(
                relevant,
                num_rel,
                levels or (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
                rounding,
            )
            out[f"11ptAvg({params})"] = 0.0 if math.isnan(value) else value
    bing, so_far = 0.0, 0
    for i, r in enumerate(relevant):
        if r:
            so_far += 1
            bing += 1.0 / math.log2(3 + i - so_far)
    out[f"BinG{j}"] = bing / num_rel if so_far else 0.0
    for gains_text, pairs in GAIN_MAPS.items():
        gains = setup_gains(pairs, rel_levels)
        for form in ("log2", "exp-log2"):
            extra = f"judged_only={judged_only}" + (f",dcg='{form}'" if form != "log2" else "")
            ndcg, dcg, idcg = ndcg_trec(labels, gains, form)
            out[with_gains("nDCG", gains_text, extra)] = ndcg
            out[with_gains("DCG", gains_text, extra)] = dcg
            idcg_extra = f"dcg='{form}'" if form != "log2" else ""
            out[with_gains("IDCG", gains_text, idcg_extra)] = idcg
            for k in CUTS:
                ndcg_k, dcg_k, idcg_k = ndcg_cut_with_gains(labels, gains, k, form)
                out[with_gains("nDCG", gains_text, extra) + f"@{k}"] = ndcg_k
                out[with_gains("DCG", gains_text, extra) + f"@{k}"] = dcg_k
                out[with_gains("IDCG", gains_text, idcg_extra) + f"@{k}"] = idcg_k
        if not judged_only:
            out[with_gains("G", gains_text)] = g_trec(labels, gains)
            out[with_gains("nDCGRel", gains_text)] = ndcg_rel_trec(labels, gains)
            value = rndcg_trec(labels, gains, num_rel)
            out[with_gains("RnDCG", gains_text, f"rel={rel}")] = 0.0 if math.isnan(value) else value
    if not judged_only:
        out[f"infAP(rel={rel})"] = infap_trec(labels, rel, num_rel)
        for p in PS:
            out[f"RBP(p={p},gain='graded')"] = rbp_trec(labels, rel_levels, p)
            out[f"RBP(p={p},rel={rel})"] = rbp_binary(relevant, p)
            out[f"RBPResid(p={p},tail='trec')"] = rbp_resid_trec(all_labels, p, "trec")
            out[f"RBPResid(p={p})"] = rbp_resid_trec(all_labels, p, "always")
    return out


@functools.lru_cache(maxsize=16)
def parsed_measures(names: tuple[str, ...]) -> list[Measure]:
    return [parse_measure(n) for n in names]


def compare_with_reference(case: Case, rel: int, judged_only: bool) -> list[str]:
    """Every difference between ranklens and :func:`reference_table` on ``case``."""
    expected = {
        q: reference_table(case.qrels[q], case.run.get(q), rel, judged_only) for q in case.qrels
    }
    names = tuple(next(iter(expected.values())))
    parsed = parsed_measures(names)
    canonical = {n: m.name for n, m in zip(names, parsed, strict=True)}
    res = ranklens.evaluate(case.qrels, case.run, parsed)
    problems = []
    for q, values in expected.items():
        for name, want in values.items():
            got = res.per_query[q][canonical[name]]
            exact = "exp-log2" not in name
            same = got == want if exact else math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-15)
            if not same:
                problems.append(f"query {q}, {name}: ranklens {got!r}, trec_eval {want!r}")
    return problems


@pytest.mark.parametrize("block", range(3))
def test_equal_to_trec_eval_transcription(block: int) -> None:
    for case in random_cases(7100 + block, 20, pytrec_safe=False):
        for rel in (1, 2, 0):
            for judged_only in (False, True):
                problems = compare_with_reference(case, rel, judged_only)
                assert not problems, f"{case!r}\n" + "\n".join(problems[:10])


@given(case=cases(pytrec_safe=False), rel=rel_st, judged_only=judged_only_st)
@PROPS
def test_equal_to_trec_eval_transcription_hypothesis(
    case: Case, rel: int, judged_only: bool
) -> None:
    problems = compare_with_reference(case, rel, judged_only)
    assert not problems, "\n".join(problems[:10])


def test_long_rankings_equal_to_trec_eval_transcription() -> None:
    """Hundreds of documents, many grades: running sums and fractional gains at depth."""
    rng = np.random.default_rng(5)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(6):
        docs = [f"d{i}" for i in range(int(rng.integers(50, 400)))]
        judged = rng.choice(docs, size=len(docs) // 2, replace=False)
        qrels[f"q{q}"] = {d: int(rng.choice([-1, 0, 0, 0, 1, 1, 2, 3, 4])) for d in judged}
        run[f"q{q}"] = {d: float(rng.integers(0, 40)) / 8 for d in docs[: len(docs) * 3 // 4]}
    case = Case(qrels, run)
    for rel in (1, 3):
        problems = compare_with_reference(case, rel, False)
        assert not problems, "\n".join(problems[:10])


# --- pytrec_eval (trec_eval 9.0.8) ------------------------------------------------------------

# pytrec_eval key -> ranklens name template (where 9.0.8 computes what 10 computes)
PYTREC = {
    "set_relative_P": "SetRelP{rj}",
    "set_map": "SetAP{rj}",
    "set_F": "SetF(beta=0.5,rel={rel},judged_only={judged_only})",
    "relative_P_3": "RelP{rj}@3",
    "relative_P_10": "RelP{rj}@10",
    "Rprec_mult_0.20": "RprecMult{rj}@0.2",
    "Rprec_mult_1.40": "RprecMult{rj}@1.4",
    "Rprec_mult_2.00": "RprecMult{rj}@2.0",
    "utility": "Utility{rj}",
    "num_nonrel_judged_ret": "NumNonRelJudgedRet{rj}",
    "11pt_avg": "11ptAvg(rel={rel},judged_only={judged_only},rounding='trec9')",
    "binG": "BinG{rj}",
    "infAP": "infAP(rel={rel})",
    "G": "G",
    "ndcg_rel": "nDCGRel",
    "Rndcg": "RnDCG(rel={rel})",
}
NOT_JUDGED_ONLY = {"infAP", "G", "ndcg_rel", "Rndcg"}
PYTREC_MEASURES = {
    "set_relative_P",
    "set_map",
    "set_F.0.25",
    "relative_P.3,10",
    "Rprec_mult.0.2,1.4,2.0",
    "utility",
    "num_nonrel_judged_ret",
    "11pt_avg",
    "binG",
    "infAP",
    "G",
    "ndcg_rel",
    "Rndcg",
}


@pytest.mark.parametrize("block", range(3))
def test_equal_to_pytrec_eval(block: int) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    for case in random_cases(7300 + block, 40):
        for rel in (1, 2):
            for judged_only in (False, True):
                evaluator = pytrec_eval.RelevanceEvaluator(
                    case.qrels,
                    PYTREC_MEASURES,
                    relevance_level=rel,
                    judged_docs_only_flag=judged_only,
                )
                theirs = evaluator.evaluate(case.run)
                keys = [k for k in PYTREC if not (judged_only and k in NOT_JUDGED_ONLY)]
                names = {
                    k: PYTREC[k].format(
                        rj=f"(rel={rel},judged_only={judged_only})",
                        rel=rel,
                        judged_only=judged_only,
                    )
                    for k in keys
                }
                canonical = {k: parse_measure(v).name for k, v in names.items()}
                ours = ranklens.evaluate(case.qrels, case.run, list(names.values()), queries="both")
                assert set(ours.queries) == set(theirs)
                for q, values in theirs.items():
                    for key in keys:
                        want, got = values[key], ours.per_query[q][canonical[key]]
                        if math.isnan(want) and key in ("11pt_avg", "Rndcg"):
                            assert got == 0.0  # trec_eval's 0/0, ranklens's 0
                            continue
                        assert got == want, f"{case!r} q={q} {key}: {got!r} vs {want!r}"


# --- hand-computed cases ------------------------------------------------------------------------

HAND_QRELS = {
    "q1": {"a": 2, "b": 0, "c": 1, "d": -1, "e": 4},
    "q2": {"x": 1},
    "q3": {"y": 0},
}
# q1 ranking (ties broken by docid descending): c(0.9) b(0.5) a(0.5) u(0.4) d(0.3)
HAND_RUN = {
    "q1": {"a": 0.5, "b": 0.5, "c": 0.9, "d": 0.3, "u": 0.4},
    "q3": {"z": 1.0},
}


def hand(measure: str) -> dict[str, float]:
    return ranklens.evaluate(HAND_QRELS, HAND_RUN, [measure]).query_values(measure)


def test_rbp_by_hand() -> None:
    # q1 labels by rank: 1, 0, 2, unjudged, negative; q2: empty ranking; q3: unjudged.
    p = 0.8
    got = hand("RBP")
    assert got["q1"] == pytest.approx((1 - p) * (1 + p**2))  # c and a are relevant
    assert got["q2"] == 0.0 and got["q3"] == 0.0
    got = hand("RBP(rel=2)")
    assert got["q1"] == pytest.approx((1 - p) * p**2)
    # graded: q1's highest judged grade is 4, so gains are grade / 4
    got = hand("RBP(p=0.9,gain='graded')")
    assert got["q1"] == pytest.approx(0.1 * (1 / 4 + 0.9**2 * 2 / 4))
    # a query whose highest grade is 1 keeps its gains
    one = ranklens.evaluate(
        {"q": {"a": 1, "b": 0}}, {"q": {"b": 2.0, "a": 1.0}}, ["RBP(gain='graded')"]
    )
    assert one["RBP(gain='graded')"] == pytest.approx(0.2 * 0.8)


def test_rbp_weights_are_a_running_product() -> None:
    """p^i by repeated multiplication, as trec_eval, not pow: the sums are bit-identical."""
    docs = {f"d{i:03d}": float(-i) for i in range(60)}
    qrels = {"q": {d: 1 for d in docs}}
    res = ranklens.evaluate(qrels, {"q": docs}, ["RBP(p=0.9)"])
    expected, cur = 0.0, 1.0
    for _ in docs:
        expected += cur
        cur = cur * 0.9
    assert res["RBP(p=0.9)"] == (1.0 - 0.9) * expected


def test_rbp_residual_by_hand() -> None:
    p = 0.8
    got = hand("RBPResid")
    # q1: unjudged at ranks 3 (u) and 4 (d, judged negative); tail p^5
    assert got["q1"] == pytest.approx(p**5 + (1 - p) * (p**3 + p**4))
    assert got["q2"] == 1.0  # nothing retrieved: everything is still possible
    assert got["q3"] == pytest.approx(p + (1 - p))
    got = hand("RBPResid(tail='trec')")
    assert got["q1"] == pytest.approx(p**5 + (1 - p) * (p**3 + p**4))
    assert got["q2"] == 0.0  # trec_eval 10: no unjudged retrieved document, no residual
    # A fully judged ranking: only the tail, reported by tail='always'.
    judged = ranklens.evaluate(
        {"q": {"a": 1, "b": 0}}, {"q": {"a": 2.0, "b": 1.0}}, ["RBPResid", "RBPResid(tail='trec')"]
    )
    assert judged["RBPResid"] == pytest.approx(p**2)
    assert judged["RBPResid(tail='trec')"] == 0.0


def test_unjudged_by_hand() -> None:
    got = hand("Unjudged@2")
    assert got == {"q1": 0.0, "q2": 0.0, "q3": 0.5}  # divided by k, not by the ranking's length
    got = hand("Unjudged@5")
    assert got["q1"] == pytest.approx(2 / 5)  # u (not in qrels) and d (judged -1)
    got = hand("Unjudged@4")
    assert got["q1"] == pytest.approx(1 / 4)
    assert hand("Unjudged(judged_only=True)@5")["q1"] == 0.0
    assert parse_measure("Unjudged@5").spec.higher_is_better is False


def test_set_measures_by_hand() -> None:
    # q1: retrieved 5, relevant retrieved 2 (c, a), R = 3 (a, c, e)
    assert hand("SetRelP")["q1"] == pytest.approx(2 / 3)
    assert hand("SetAP")["q1"] == pytest.approx(4 / 15)
    p, r = 2 / 5, 2 / 3
    assert hand("SetF")["q1"] == pytest.approx(2 * p * r / (p + r))
    assert hand("SetF(beta=2.0)")["q1"] == pytest.approx(5 * p * r / (4 * p + r))
    assert hand("NumNonRelJudgedRet")["q1"] == 1.0  # b
    assert hand("Utility")["q1"] == 2 - 3
    assert hand("Utility(c=-1.0,d=0.5,num_docs=100)")["q1"] == 2 - 3 - 1 + 0.5 * (100 + 2 - 5 - 3)
    assert hand("RelP@2")["q1"] == 0.5 and hand("RelP@5")["q1"] == pytest.approx(2 / 3)
    assert hand("RprecMult@1.0")["q1"] == pytest.approx(2 / 3)  # c = floor(3 + 0.9) = 3


def test_set_f_uses_trec_eval_weight_exactly() -> None:
    from ranklens.kernels.set_based import f_weight

    assert math.sqrt(0.5) ** 2 != 0.5
    assert f_weight(math.sqrt(0.5)) == 0.5
    assert f_weight(1.0) == 1.0 and f_weight(2.0) == 4.0 and f_weight(0.3) == 0.09
    for x in (0.1, 0.2, 0.25, 0.3, 0.5, 0.7, 2.0, 3.0, 10.0):
        assert f_weight(math.sqrt(x)) == x


# --- gains --------------------------------------------------------------------------------------


def test_trec_gain_order_is_glibc_merge_sort_with_a_truncating_comparator() -> None:
    from ranklens.kernels.gains import trec_gain_order

    def ref(gains: list[float]) -> list[int]:
        items = list(range(len(gains)))
        glibc_msort(items, lambda a, b: c_int(gains[a] - gains[b]))
        return items

    assert trec_gain_order([0.0, 1.0, 2.0, 3.0, 9.0, 4.5]) == [0, 1, 2, 3, 5, 4]
    # 0.5 and 0.2 differ by less than 1: "equal", kept in input order
    assert trec_gain_order([0.5, 0.2, 1.7]) == [0, 1, 2]
    rng = np.random.default_rng(3)
    for _ in range(300):
        gains = (
            rng.integers(-8, 8, size=int(rng.integers(0, 9))) / rng.choice([1, 2, 4, 10])
        ).tolist()
        assert trec_gain_order(gains) == ref(gains)


def test_gain_map_validation() -> None:
    with pytest.raises(MeasureError, match="negative"):
        ranklens.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["nDCG(gains={-1:2})"])
    with pytest.raises(MeasureError, match="integer"):
        ranklens.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["nDCG(gains={1.5:2})"])
    with pytest.raises(MeasureError, match="map grades"):
        ranklens.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["nDCG(gains=[1,2])"])
    with pytest.raises(MeasureError, match="dcg"):
        parse_measure("nDCG(dcg='exp')")


def test_linear_gain_paths_agree_bit_for_bit() -> None:
    """The gain-map code with the identity map equals the linear-gain code."""
    for case in random_cases(7400, 60, pytrec_safe=False):
        names = [
            "nDCG",
            "nDCG(gains={1:1})",
            "nDCG@3",
            "nDCG(gains={1:1})@3",
            "nDCG@10",
            "nDCG(gains={1:1})@10",
        ]
        res = ranklens.evaluate(case.qrels, case.run, names)
        values = res.values
        assert np.array_equal(values[:, 0], values[:, 1])
        assert np.array_equal(values[:, 2], values[:, 3])
        assert np.array_equal(values[:, 4], values[:, 5])


def test_ndcg_with_gains_by_hand() -> None:
    qrels = {"q": {"a": 1, "b": 2, "c": 0}}
    run = {"q": {"c": 3.0, "a": 2.0, "b": 1.0}}
    res = ranklens.evaluate(
        qrels,
        run,
        [
            "nDCG(gains={1:3,2:9})",
            "DCG(gains={1:3,2:9})",
            "IDCG(gains={1:3,2:9})",
            "nDCG(dcg='exp-log2')",
        ],
    )
    dcg = 3 / math.log2(3) + 9 / math.log2(4)
    idcg = 9 / 1 + 3 / math.log2(3)
    assert res["DCG(gains={1:3,2:9})"] == pytest.approx(dcg)
    assert res["IDCG(gains={1:3,2:9})"] == pytest.approx(idcg)
    assert res["nDCG(gains={1:3,2:9})"] == pytest.approx(dcg / idcg)
    # exp-log2 with grades 1, 2: gains 1 and 3, the same ratio as the map {1:1,2:3}
    assert res["nDCG(dcg='exp-log2')"] == pytest.approx(
        (1 / math.log2(3) + 3 / 2) / (3 + 1 / math.log2(3))
    )


def test_parameters_round_trip_and_validate() -> None:
    m = parse_measure("11ptAvg(levels=[0.75,0.25,0.5])")
    assert m["levels"] == (0.25, 0.5, 0.75)
    assert parse_measure(m.name) == m
    assert (
        parse_measure("11ptAvg(levels=[0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1])").name == "11ptAvg"
    )
    for bad in ("11ptAvg(levels=[])", "11ptAvg(levels=[0.5,0.5])", "11ptAvg(levels=[-0.1])"):
        with pytest.raises(MeasureError):
            parse_measure(bad)
    with pytest.raises(MeasureError, match=r"in \[0.0, 1.0\)"):
        parse_measure("RBP(p=1.5)")
    with pytest.raises(MeasureError):
        parse_measure("RBP(gain='exp')")
    with pytest.raises(MeasureError, match="@"):
        parse_measure("RprecMult")
    m = parse_measure("nDCG(gains={2:9,1:3},dcg='exp-log2')@10")
    assert m.name == "nDCG(dcg='exp-log2',gains={1:3,2:9})@10"
    assert parse_measure(m.name) == m


@pytest.mark.parametrize("cells", [1 << 23, 64, 1])
@pytest.mark.parametrize("whole", [False, True])
def test_segment_cumsum_restarts_each_query_at_zero(
    monkeypatch: pytest.MonkeyPatch, cells: int, whole: bool
) -> None:
    """Exactly a C loop's running sums: in one padded block, in blocks by length band, and
    for whole numbers (where a flat cumsum is exact)."""
    from ranklens.kernels import _running
    from ranklens.kernels._running import segment_cumsum

    monkeypatch.setattr(_running, "_PADDED_CELLS", cells)
    rng = np.random.default_rng(1)
    counts = np.concatenate(([0, 1, 0], rng.integers(0, 30, size=50), [70, 0]))
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    size = int(offsets[-1])
    if whole:
        values = rng.integers(-5, 9, size=size).astype(np.float64)
    else:
        values = rng.standard_normal(size) * 10.0 ** rng.integers(-3, 4, size=size)
    got = segment_cumsum(values, offsets)
    for j in range(counts.shape[0]):
        total = 0.0
        for i in range(int(offsets[j]), int(offsets[j + 1])):
            total += float(values[i])
            assert got[i] == total


# --- properties ------------------------------------------------------------------------------


def property_names(rel: int, judged_only: bool) -> list[str]:
    rj = f"(rel={rel},judged_only={judged_only})"
    names = [f"SetRelP{rj}", f"SetAP{rj}", f"SetF{rj}", f"Utility{rj}", f"NumNonRelJudgedRet{rj}"]
    names += [f"YAAP{rj}", f"infAP(rel={rel})", f"GMBpref(rel={rel})", f"11ptAvg{rj}", f"BinG{rj}"]
    names += [f"RnDCG(rel={rel})", "G", "nDCGRel", f"DCG(judged_only={judged_only})", "IDCG"]
    names += [
        "RBP",
        f"RBP(rel={rel},p=0.5)",
        "RBP(gain='graded')",
        "RBPResid",
        "RBPResid(tail='trec')",
    ]
    for k in (1, 3, 10):
        names += [f"RelP{rj}@{k}", f"Unjudged(judged_only={judged_only})@{k}", f"IDCG@{k}"]
    names += [f"RprecMult{rj}@{x}" for x in (0.2, 1.0, 2.0)]
    names += ["G(gains={1:3,2:9,4:4.5})", "nDCGRel(gains={0:0.5,1:0.7,2:1.2})"]
    names += [
        f"RnDCG(gains={{2:5,3:7}},rel={rel})",
        "nDCG(gains={1:3,2:9})",
        "nDCG(dcg='exp-log2')@5",
    ]
    return names


def test_every_measure_of_this_module_is_exercised() -> None:
    families = {parse_measure(n).spec.name for n in property_names(1, False)}
    assert set(MINE) <= families
    assert all(name in REGISTRY for name in MINE)


@given(
    case=cases(pytrec_safe=False),
    rel=rel_st,
    judged_only=judged_only_st,
    queries=st.sampled_from(["qrels", "both", "run"]),
)
@PROPS
def test_bounds(case: Case, rel: int, judged_only: bool, queries: str) -> None:
    res = ranklens.evaluate(case.qrels, case.run, property_names(rel, judged_only), queries=queries)
    assert not np.isnan(res.values).any()
    for j, m in enumerate(res.measures):
        lo, hi = m.spec.bounds
        column = res.values[:, j]
        assert ((column >= lo - 1e-12) & (column <= hi + 1e-12)).all(), (m.name, column)
        if math.isfinite(lo) and math.isfinite(hi) and res.queries:
            assert lo - 1e-12 <= res.aggregate[m.name] <= hi + 1e-12
        if m.spec.aggregate == "sum":
            assert (column == np.round(column)).all()


@given(case=cases(pytrec_safe=False), rel=rel_st, judged_only=judged_only_st, data=st.data())
@PROPS
def test_input_order_does_not_matter(case: Case, rel: int, judged_only: bool, data: Any) -> None:
    names = property_names(rel, judged_only)
    base = ranklens.evaluate(case.qrels, case.run, names)

    def reorder(d: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        out = {}
        for q in data.draw(st.permutations(list(d))):
            out[q] = {doc: d[q][doc] for doc in data.draw(st.permutations(list(d[q])))}
        return out

    shuffled = ranklens.evaluate(reorder(case.qrels), reorder(case.run), names)
    assert shuffled.queries == base.queries
    assert np.array_equal(shuffled.values, base.values)
    assert shuffled.aggregate == base.aggregate


@given(case=cases(pytrec_safe=False))
@PROPS
def test_relations_between_measures(case: Case) -> None:
    names = [
        "RBP",
        "RBPResid",
        "Judged@5",
        "Unjudged@5",
        "NumRet",
        "nDCG(gains={1:3})",
        "DCG(gains={1:3})",
        "IDCG(gains={1:3})",
    ]
    res = ranklens.evaluate(case.qrels, case.run, names)
    for q in res.queries:
        v = res.per_query[q]
        # RBP + residual <= 1: the residual bounds what RBP could still gain
        assert v["RBP"] + v["RBPResid"] <= 1.0 + 1e-12
        # Unjudged@k is 1 - Judged@k when the ranking reaches k; nDCG is DCG / IDCG
        n = int(v["NumRet"])
        if n >= 5:
            assert v["Unjudged@5"] == pytest.approx(1.0 - v["Judged@5"])
        ideal = v["IDCG(gains={1:3})"]
        want = v["DCG(gains={1:3})"] / ideal if ideal > 0 else 0.0
        assert v["nDCG(gains={1:3})"] == pytest.approx(want)
