"""Power, minimum detectable difference and queries needed in ``compare`` (issue #26):
the numbers against statsmodels, the sentence for underpowered non-significant
comparisons, and every format (table, Markdown, CSV, JSON, HTML, CLI)."""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest
from statsmodels.stats.power import TTestPower

from ranklens.analysis.comparison import compare, compare_results
from ranklens.base.errors import OptionError
from ranklens.cli import main
from ranklens.cli._options import DEFAULT_MEASURES
from ranklens.data.examples import example_paths
from ranklens.evaluation.results import Results
from ranklens.measures import parse_measures


def _results(values: np.ndarray, measure: str, names: list[str]) -> list[Results]:
    measures = tuple(parse_measures([measure]))
    qids = tuple(f"q{i:02d}" for i in range(values.shape[0]))
    return [Results(n, measures, qids, values[:, [i]].copy()) for i, n in enumerate(names)]


def _noisy(n: int = 12, shift: float = 0.02, seed: int = 5) -> np.ndarray:
    """Two runs with a small true difference and much noise: not significant, low power."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.2, 0.8, n)
    other = np.clip(base + shift + rng.normal(0, 0.15, n), 0, 1)
    return np.column_stack([base, other])


@pytest.fixture(scope="module")
def example():
    qrels, runs = example_paths()
    return compare(qrels, runs, ["nDCG@10", "AP"])


@pytest.mark.parametrize("power", [0.8, 0.9])
def test_numbers_equal_statsmodels(example, power) -> None:
    qrels, runs = example_paths()
    cmp = example if power == 0.8 else compare(qrels, runs, ["nDCG@10", "AP"], power=power)
    n = len(cmp.queries)
    assert cmp.power == power
    for m in cmp.measures:
        st = cmp.vs_baseline["rerank"][m]
        a, b = (r.values[:, r.names.index(m)] for r in cmp.results)
        d = b - a
        sd = float(np.std(d, ddof=1))
        effect = TTestPower().solve_power(nobs=n, alpha=cmp.alpha, power=power)
        assert st.mdd == pytest.approx(sd * effect, rel=2e-5)
        observed = TTestPower().power(abs(d.mean()) / sd, n, cmp.alpha)
        assert st.power == pytest.approx(observed, abs=1e-10)
        solved = TTestPower().solve_power(abs(d.mean()) / sd, alpha=cmp.alpha, power=power)
        assert st.topics_needed == max(2, math.ceil(solved - 1e-9))


def test_mirrored_and_all_pairs_keep_the_power() -> None:
    values = np.column_stack([_noisy()[:, 0], _noisy()[:, 1], _noisy(seed=9)[:, 1]])
    cmp = compare_results(_results(values, "AP", ["a", "b", "c"]), all_pairs=True)
    for x, y in (("a", "b"), ("b", "c"), ("a", "c")):
        st, back = cmp.stats(y, "AP", x), cmp.stats(x, "AP", y)
        assert (st.mdd, st.power, st.topics_needed) == (back.mdd, back.power, back.topics_needed)
    assert cmp.vs_baseline["b"]["AP"].mdd == cmp.pairs[("a", "b")]["AP"].mdd


def test_underpowered_non_significant_pair_says_so() -> None:
    cmp = compare_results(_results(_noisy(), "AP", ["base", "new"]))
    st = cmp.vs_baseline["new"]["AP"]
    assert not st.significant and st.power < 0.8
    assert st.topics_needed is not None and st.topics_needed > 12
    [note] = cmp.power_notes()
    assert note.startswith("new vs base on AP: not significant, but with 12 queries")
    assert f"about {st.topics_needed:,} queries would be needed" in note
    assert f"{st.power:.0%} power" in note
    assert note in cmp.to_markdown()


def test_significant_or_powerful_pairs_have_no_note(example) -> None:
    assert example.power_notes() == []  # both comparisons significant
    # not significant, but with a tiny spread a large difference would have been seen:
    # the power for the observed (zero) difference is alpha, and a zero difference is no
    # sign of an underpowered test
    values = np.column_stack([np.linspace(0, 1, 20), np.linspace(0, 1, 20)])
    values[:, 1] += np.tile([0.01, -0.01], 10)
    cmp = compare_results(_results(values, "AP", ["a", "b"]))
    st = cmp.vs_baseline["b"]["AP"]
    assert st.delta == pytest.approx(0.0, abs=1e-15)
    assert not st.significant and cmp.power_notes() == []


def test_constant_differences() -> None:
    values = np.column_stack([np.arange(6) / 8, np.arange(6) / 8 + 0.25])
    st = compare_results(_results(values, "AP", ["a", "b"])).vs_baseline["b"]["AP"]
    assert (st.mdd, st.power, st.topics_needed) == (0.0, 1.0, 2)
    same = compare_results(_results(np.column_stack([values[:, 0]] * 2), "AP", ["a", "b"]))
    st = same.vs_baseline["b"]["AP"]
    assert st.topics_needed is None and st.power == 0.05
    entry = json.loads(same.to_json())["runs"][1]["vs_baseline"]["AP"]
    assert entry["topics_needed"] is None and entry["mdd"] == 0.0


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.2, True, "0.8"])
def test_bad_power(bad) -> None:
    qrels, runs = example_paths()
    with pytest.raises(OptionError, match="power must be"):
        compare(qrels, runs, ["AP"], power=bad)


def test_records_and_csv(example) -> None:
    [row] = [r for r in example.to_records() if r["run"] == "rerank" and r["measure"] == "AP"]
    st = example.vs_baseline["rerank"]["AP"]
    assert (row["mdd"], row["power"], row["topics_needed"]) == (
        st.mdd,
        st.power,
        st.topics_needed,
    )
    rows = list(csv.DictReader(io.StringIO(example.to_csv())))
    [ap] = [r for r in rows if r["run"] == "rerank" and r["measure"] == "AP"]
    assert float(ap["mdd"]) == st.mdd and int(ap["topics_needed"]) == st.topics_needed
    [base] = [r for r in rows if r["run"] == "bm25" and r["measure"] == "AP"]
    assert base["mdd"] == "" and base["topics_needed"] == ""


def test_cli_power_option_and_table(capsys) -> None:
    assert main(["compare", "--example", "-f", "json", "--power", "0.9"]) == 0
    payload = json.loads(capsys.readouterr().out)
    qrels, runs = example_paths()
    expected = compare(qrels, runs, list(DEFAULT_MEASURES), power=0.9).to_dict()
    assert payload == json.loads(json.dumps(expected))
    assert payload["power"] == 0.9
    assert main(["compare", "--example", "-m", "AP"]) == 0
    out = capsys.readouterr().out
    assert "power (paired t-test, alpha = 0.05, 80% power)" in out
    assert "queries needed" in out


def test_cli_bad_power_is_one_line(capsys) -> None:
    assert main(["compare", "--example", "--power", "2"]) == 2
    err = capsys.readouterr().err
    assert err == "ranklens: error: --power must be a number strictly between 0 and 1, not 2.0\n"


def test_report_html_has_the_power_columns() -> None:
    from ranklens.presentation.reporting._build import significance_html

    cmp = compare_results(_results(_noisy(), "AP", ["base", "new"]))
    html = significance_html(cmp)
    assert "MDD (80% power)" in html and "queries for Δ" in html
    assert "not significant, but with 12 queries" in html
