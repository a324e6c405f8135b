"""A comparison as plain data: the JSON shape of ``ranklens compare --format json`` and
which runs beat which (what the presentation layer marks with letters).

The functions read a :class:`~ranklens.analysis.comparison.Comparison` (imported for types
only); :mod:`ranklens.analysis.comparison`'s methods delegate to them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ranklens.base.errors import InputError, OptionError

if TYPE_CHECKING:
    from ranklens.analysis.comparison import Comparison, Correlation, PairStats


NEGLIGIBLE = 1e-12
"""A mean difference at most this large is 0 for the power (rounding of the mean)."""


def finite(value: float) -> float | None:
    """``value``, or ``None`` when it is nan or infinite (JSON has no such numbers)."""
    return value if math.isfinite(value) else None


# ----------------------------------------------------------------------------- JSON


def pair_dict(st: PairStats) -> dict[str, float | int | str | None]:
    """The JSON keys of one comparison: the twelve of every comparison, the probability
    of being better and the risk (``prob_equivalent`` and ``verdict`` with a ROPE)."""
    out: dict[str, float | int | str | None] = {
        "delta": finite(st.delta),
        "p_value": finite(st.p_value),
        "p_value_corrected": finite(st.p_value_corrected),
        "ci_low": finite(st.ci_low),
        "ci_high": finite(st.ci_high),
        "effect_size": finite(st.effect_size),
        "wins": st.wins,
        "ties": st.ties,
        "losses": st.losses,
        "mdd": finite(st.mdd),
        "power": finite(st.power),
        "topics_needed": st.topics_needed,
        "prob_better": finite(st.prob_better),
        "urisk": finite(st.urisk),
        "trisk": finite(st.trisk),
    }
    if st.verdict is not None:
        out["prob_equivalent"] = None if st.prob_equivalent is None else finite(st.prob_equivalent)
        out["verdict"] = st.verdict
    return out


def correlation_dict(c: Correlation) -> dict[str, Any]:
    """The JSON shape of one correlation."""
    return {
        "measure_x": c.measure_x,
        "measure_y": c.measure_y,
        "qrels_x": c.qrels_x,
        "qrels_y": c.qrels_y,
        "kendall_tau": finite(c.kendall_tau),
        "kendall_p": finite(c.kendall_p),
        "spearman_rho": finite(c.spearman_rho),
        "spearman_p": finite(c.spearman_p),
    }


def to_dict(cmp: Comparison) -> dict[str, Any]:
    """The JSON object of ``ranklens compare --format json``."""
    runs: list[dict[str, Any]] = []
    for name in cmp.runs:
        run: dict[str, Any] = {
            "name": name,
            "mean": {m: finite(v) for m, v in cmp.means[name].items()},
        }
        if name != cmp.baseline:
            run["vs_baseline"] = {m: pair_dict(st) for m, st in cmp.vs_baseline[name].items()}
        runs.append(run)
    out: dict[str, Any] = {
        "measures": list(cmp.measures),
        "baseline": cmp.baseline,
        "test": cmp.test,
        "correction": cmp.correction,
        "alpha": cmp.alpha,
        "power": cmp.power,
        "runs": runs,
    }
    if cmp.pairs:
        out["pairs"] = [
            {"baseline": a, "run": b, "measures": {m: pair_dict(st) for m, st in per.items()}}
            for (a, b), per in cmp.pairs.items()
        ]
    if cmp.tukey is not None:
        out["tukey_hsd"] = {
            "blocked": cmp.tukey_kind == "blocked",
            "confidence": cmp.confidence,
            "measures": {
                m: [
                    {"baseline": a, "run": b, **values}
                    for (a, b), values in tukey_pairs(cmp, m).items()
                ]
                for m in cmp.measures
            },
        }
    if cmp.correlation:
        out["correlation"] = [correlation_dict(c) for c in cmp.correlation]
    if cmp.rope is not None:
        out["rope"] = cmp.rope
    if cmp.risk_alpha is not None:
        out["risk_alpha"] = cmp.risk_alpha
        out["risk_across_runs"] = {
            m: {kind: {r: finite(v) for r, v in values.items()} for kind, values in per.items()}
            for m, per in risk_across_runs(cmp).items()
        }
    if cmp.pairs:
        out["ranks"] = {
            m: {r: list(interval) for r, interval in cmp.ranks[m].items()} for m in cmp.measures
        }
        out["friedman"] = {m: friedman_dict(cmp, m) for m in cmp.measures}
    if cmp.notes:
        out["notes"] = list(cmp.notes)
    if cmp.groups:
        out["groups"] = {g: group_dict(part) for g, part in cmp.groups.items()}
    return out


def risk_across_runs(cmp: Comparison) -> dict[str, dict[str, dict[str, float]]]:
    """``{measure: {"zrisk": {run: v}, "georisk": {run: v}}}`` for the measures where they
    are defined (higher is better, per-query values >= 0, at least one query)."""
    out = {}
    for m in cmp.measures:
        if not cmp.higher_is_better[m] or len(cmp.queries) < 1:
            continue
        try:
            out[m] = {"zrisk": cmp.zrisk(m), "georisk": cmp.georisk(m)}
        except (InputError, OptionError):  # negative values, a run-level measure
            continue
    return out


def friedman_dict(cmp: Comparison, measure: str) -> dict[str, Any] | None:
    """Friedman's test of ``measure`` as JSON (``None`` with fewer than 2 queries)."""
    if len(cmp.queries) < 2:
        return None
    f = cmp.friedman(measure)
    return {
        "statistic": finite(f.statistic),
        "p_value": finite(f.p_value),
        "mean_ranks": {r: finite(v) for r, v in f.mean_ranks.items()},
        "critical_difference": finite(f.critical_difference),
    }


def group_dict(cmp: Comparison) -> dict[str, Any]:
    """One group of queries compared alone: its queries, means and comparisons."""
    out: dict[str, Any] = {
        "queries": len(cmp.queries),
        "mean": {r: {m: finite(v) for m, v in cmp.means[r].items()} for r in cmp.runs},
        "vs_baseline": {
            r: {m: pair_dict(st) for m, st in per.items()} for r, per in cmp.vs_baseline.items()
        },
    }
    if cmp.notes:
        out["notes"] = list(cmp.notes)
    return out


def rank_intervals(cmp: Comparison, measure: str) -> dict[str, tuple[int, int]]:
    """``{run: (best, worst)}``: 1 + the runs significantly better, k - the runs
    significantly worse (every pair compared)."""
    k = len(cmp.runs)
    worse = {r: len(beaten(cmp, r, measure)) for r in cmp.runs}
    better_than = {r: 0 for r in cmp.runs}
    for r in cmp.runs:
        for other in beaten(cmp, r, measure):
            better_than[other] += 1
    return {r: (1 + better_than[r], k - worse[r]) for r in cmp.runs}


def tukey_pairs(cmp: Comparison, measure: str) -> dict[tuple[str, str], dict[str, Any]]:
    """Tukey's HSD of ``measure`` per pair ``(a, b)``: ``b - a`` as in :attr:`pairs`."""
    if cmp.tukey is None:
        return {}
    res = cmp.tukey[measure]
    out = {}
    for i, a in enumerate(cmp.runs):
        for j in range(i + 1, len(cmp.runs)):
            p = float(res.p_value[j, i])
            out[(a, cmp.runs[j])] = {
                "delta": finite(float(res.statistic[j, i])),
                "p_value": finite(p),
                "ci_low": finite(float(res.ci_low[j, i])),
                "ci_high": finite(float(res.ci_high[j, i])),
                "significant": p <= cmp.alpha,
            }
    return out


# ------------------------------------------------------------------ significance marks


def better(st: PairStats, higher_is_better: bool) -> bool:
    return st.delta > 0 if higher_is_better else st.delta < 0


def beaten(cmp: Comparison, run: str, measure: str) -> tuple[str, ...]:
    """The runs that ``run`` is significantly better than on ``measure``."""
    hib = cmp.higher_is_better[measure]
    out = []
    for other in cmp.runs:
        if other == run:
            continue
        if cmp.pairs or cmp.baseline in (run, other):
            st = cmp.stats(run, measure, other)
            if st.significant and better(st, hib):
                out.append(other)
    return tuple(out)


# ---------------------------------------------------------------------------- power


def underpowered(cmp: Comparison, st: PairStats) -> bool:
    """Whether a comparison is not significant and its test had less than the wanted
    power to detect the difference observed."""
    return not st.significant and abs(st.delta) > NEGLIGIBLE and st.power < cmp.power


def power_notes(cmp: Comparison) -> list[str]:
    """A sentence for each non-significant, underpowered comparison (against the
    baseline, then the other pairs)."""
    out = []
    compared = [(cmp.baseline, r) for r in cmp.runs if r != cmp.baseline]
    compared += [pair for pair in cmp.pairs if cmp.baseline not in pair]
    n = len(cmp.queries)
    for a, b in compared:
        for m in cmp.measures:
            st = cmp.stats(b, m, a)
            if not underpowered(cmp, st):
                continue
            needed = (
                f"about {st.topics_needed:,} queries would be needed to detect it"
                if st.topics_needed is not None
                else "more than 10 million queries would be needed to detect it"
            )
            out.append(
                f"{b} vs {a} on {m}: not significant, but with {n} queries a paired t-test "
                f"had only {st.power:.0%} power to detect a difference of "
                f"{abs(st.delta):.4f} ({needed}); differences below {st.mdd:.4f} were not "
                f"detectable with {cmp.power:.0%} power. No significance here is not "
                "evidence of no difference."
            )
    return out


# ----------------------------------------------------------------------- tables (rows)

_STATS = (
    "delta",
    "p_value",
    "p_value_corrected",
    "ci_low",
    "ci_high",
    "effect_size",
    "wins",
    "ties",
    "losses",
    "significant",
    "mdd",
    "power",
    "topics_needed",
    "prob_better",
    "urisk",
    "trisk",
)


def _stats_row(st: PairStats | None) -> dict[str, Any]:
    if st is None:
        return dict.fromkeys(_STATS)
    return {
        "delta": st.delta,
        "p_value": st.p_value,
        "p_value_corrected": st.p_value_corrected,
        "ci_low": st.ci_low,
        "ci_high": st.ci_high,
        "effect_size": st.effect_size,
        "wins": st.wins,
        "ties": st.ties,
        "losses": st.losses,
        "significant": st.significant,
        "mdd": st.mdd,
        "power": st.power,
        "topics_needed": st.topics_needed,
        "prob_better": st.prob_better,
        "urisk": st.urisk,
        "trisk": st.trisk,
    }


def rows(cmp: Comparison, pairs: bool = False) -> list[dict[str, Any]]:
    """The rows of :meth:`Comparison.to_records`: per (run, measure) against the baseline,
    or, with ``pairs``, per (pair, measure)."""
    out: list[dict[str, Any]] = []
    if not pairs:
        for run in cmp.runs:
            for m in cmp.measures:
                st = None if run == cmp.baseline else cmp.vs_baseline[run][m]
                row = {"run": run, "measure": m, "mean": cmp.means[run][m]}
                row["baseline"] = cmp.baseline
                out.append({**row, **_stats_row(st)})
        return out
    compared = list(cmp.pairs) or [(cmp.baseline, r) for r in cmp.runs if r != cmp.baseline]
    for a, b in compared:
        for m in cmp.measures:
            row = {
                "run": b,
                "against": a,
                "measure": m,
                "mean": cmp.means[b][m],
                "against_mean": cmp.means[a][m],
            }
            out.append({**row, **_stats_row(cmp.stats(b, m, a))})
    return out


def columns(cmp: Comparison, pairs: bool = False) -> dict[str, list[Any]]:
    """:func:`rows` as columns (column name -> values), for DataFrames."""
    table = rows(cmp, pairs)
    names = list(table[0]) if table else ["run", "measure", "mean", "baseline", *_STATS]
    return {n: [r[n] for r in table] for n in names}
