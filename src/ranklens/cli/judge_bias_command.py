"""``ranklens judge-bias``: is an LLM judge biased? (see :mod:`ranklens.analysis.judge_bias`).

Per measure, the runs' shifts under the LLM's judgments and the runs it favours; the
corrected prevalence of relevant pairs; with ``--covariates`` the regression of its error
on covariates of the pairs; with ``--preferences`` the position bias of a pairwise judge.
``--example`` builds, deterministically, a judge with planted biases from the bundled
example (:func:`example_judge`).
"""

from __future__ import annotations

import argparse
import json
import math
from typing import IO, Any

from ranklens.cli import _options

EXAMPLE_RUNS = ("bm25", "dense", "rerank")
FAVOURED = "dense"
"""The run the example's judge favours."""


def register(commands: Any) -> None:
    """Add the ``judge-bias`` subcommand."""
    p = commands.add_parser(
        "judge-bias",
        help="is an LLM judge biased: favoured runs, error drivers, prevalence, position",
        description=(
            "Audit a judge against people. Per measure: each run's shift under the second "
            "judgments (mean of M_llm - M_human per query), its shift beyond the other runs' "
            "(delta), a t-test of that per-query difference, Holm-corrected over the runs, "
            "and the leaderboards under both. Also the Rogan-Gladen corrected share of "
            "relevant pairs; with --covariates, an OLS of the grade difference on covariates "
            "of the pairs with HC3 standard errors; with --preferences, the position bias of "
            "a pairwise judge (docs/judges.md)."
        ),
    )
    p.add_argument("qrels_a", nargs="?", metavar="QRELS", help="the reference (human) qrels")
    p.add_argument("qrels_b", nargs="?", metavar="QRELS_B", help="the judge's (LLM) qrels")
    p.add_argument("runs", nargs="*", metavar="RUN", help="two or more run files")
    _options.add_measures(p, _options.DEFAULT_MEASURES)
    _options.add_names(p)
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    p.add_argument(
        "--correction",
        choices=_options.CORRECTIONS,
        default="holm",
        help="correction over the runs: holm (default), bonferroni, bh, none",
    )
    p.add_argument(
        "--rel", type=int, default=1, metavar="N", help="relevant means grade >= N (default 1)"
    )
    p.add_argument(
        "--covariates",
        metavar="FILE",
        help="a .csv/.tsv table of query_id, doc_id and numeric columns: regress the "
        "judge's grade error on them",
    )
    p.add_argument(
        "--preferences",
        metavar="FILE",
        help="pairwise judgments 'query first second winner' (winner a document or -): the "
        "judge's position bias",
    )
    p.add_argument(
        "--judges",
        nargs="+",
        default=[],
        metavar="FILE",
        help="more judgments of the same pairs: Fleiss' kappa of all the judges and the "
        "pairwise kappa and mean grade shift (always shown for the two qrels)",
    )
    _options.add_format(p)
    _options.add_output(p, "the tables")
    _options.add_conventions(p)
    _options.add_example(
        p,
        "audit a simulated judge with planted biases (it favours the dense run and "
        "overrates long documents; its pairwise twin prefers the first passage) on",
    )
    _options.add_quiet(p)
    p.set_defaults(handler=run_judge_bias)


def example_judge() -> dict[str, Any]:
    """The example of ``judge-bias --example``: the bundled human qrels, and an LLM judge
    made from them with fixed seeds that (1) calls a non-relevant document relevant in
    half the cases when the ``dense`` run puts it in its top 10 (and judges the unjudged
    documents there the same way), (2) overrates long documents (a synthetic ``length``
    per pair, the covariates), and (3) as a pairwise judge, picks the first of two
    passages a quarter of the time whatever they hold. Returns ``human``, ``llm``,
    ``runs`` (paths by name), ``covariates`` (columns) and ``preferences`` (rows)."""
    import numpy as np

    from ranklens.data.examples import example_paths, example_run_paths
    from ranklens.data.qrels import Qrels
    from ranklens.data.run import Run

    human = Qrels.from_file(example_paths()[0]).to_dict()
    paths = example_run_paths()
    runs = {name: str(paths[name]) for name in EXAMPLE_RUNS}
    favoured = Run.from_file(paths[FAVOURED]).to_dict()
    rng = np.random.default_rng(47)
    top = {
        q: {d for d, _ in sorted(docs.items(), key=lambda item: (-item[1], item[0]))[:10]}
        for q, docs in favoured.items()
    }
    llm: dict[str, dict[str, int]] = {}
    columns: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "length": []}
    for q in sorted(human):
        grades = human[q]
        llm[q] = {}
        for d in sorted(grades):
            grade = grades[d]
            length = float(round(rng.lognormal(4.5, 0.6)))
            judged = grade
            if rng.random() < 0.15:  # plain noise, one grade either way
                judged = int(min(3, max(0, grade + rng.choice((-1, 1)))))
            if rng.random() < min(0.9, length / 400.0):  # long documents look better
                judged = min(3, judged + 1)
            if grade == 0 and d in top.get(q, set()) and rng.random() < 0.5:
                judged = max(judged, 1)
            llm[q][d] = int(judged)
            columns["query_id"].append(q)
            columns["doc_id"].append(d)
            columns["length"].append(length)
        for d in sorted(top.get(q, set()) - set(grades)):  # the judge's own pool
            llm[q][d] = int(rng.random() < 0.5)
    preferences: list[tuple[str, str, str, str]] = []
    for q in sorted(human):
        docs = sorted(human[q])
        for _ in range(6):
            a, b = (str(x) for x in rng.choice(docs, size=2, replace=False))
            for first, second in ((a, b), (b, a)):
                if rng.random() < 0.25:
                    winner = first
                elif human[q][first] != human[q][second]:
                    winner = first if human[q][first] > human[q][second] else second
                else:
                    winner = first if rng.random() < 0.5 else second
                preferences.append((q, first, second, winner))
    return {
        "human": human,
        "llm": llm,
        "runs": runs,
        "covariates": columns,
        "preferences": preferences,
    }


def run_judge_bias(args: argparse.Namespace) -> int:
    """Handle ``ranklens judge-bias``."""
    from ranklens.analysis.judge_bias import (
        judge_bias,
        judge_bias_regression,
        judge_matrix,
        judge_prevalence,
        position_bias,
    )
    from ranklens.base.errors import OptionError
    from ranklens.data.coerce import as_qrels

    human: Any = args.qrels_a
    llm: Any = args.qrels_b
    runs: Any = list(args.runs)
    covariates: Any = args.covariates
    preferences: Any = args.preferences
    if args.example:
        if human or llm or runs or covariates or preferences or args.judges:
            raise OptionError("--example takes no files: it uses the bundled example data")
        example = example_judge()
        human, llm, runs = example["human"], example["llm"], example["runs"]
        covariates, preferences = example["covariates"], example["preferences"]
    elif not (human and llm and len(runs) >= 2):
        raise OptionError(
            "give the human qrels, the judge's qrels and two or more runs (or --example)"
        )
    inputs = [
        x
        for x in (
            args.qrels_a,
            args.qrels_b,
            *args.runs,
            args.covariates,
            args.preferences,
            *args.judges,
        )
        if x
    ]
    _options.check_output(args, inputs)
    if args.names and not args.example:
        runs = dict(zip(_options.given_names(args, len(runs)), runs, strict=True))
    measures = _options.measure_names(args.measures, _options.DEFAULT_MEASURES)
    conventions = _options.conventions(args)
    # read once for every measure and analysis (a second read of '-' would find it empty)
    policy = conventions.get("duplicates", "error")
    human, llm = as_qrels(human, policy), as_qrels(llm, policy)
    biases = [
        judge_bias(human, llm, runs, m, alpha=args.alpha, correction=args.correction, **conventions)
        for m in measures
    ]
    prevalence = judge_prevalence(human, llm, args.rel, alpha=args.alpha)
    regression = (
        judge_bias_regression(human, llm, covariates, alpha=args.alpha)
        if covariates is not None
        else None
    )
    position = position_bias(preferences, alpha=args.alpha) if preferences is not None else None
    labels = _judge_labels(args)
    matrix = judge_matrix(dict(zip(labels, [human, llm, *args.judges], strict=True)))
    payload = _payload(biases, prevalence, regression, position, matrix)
    with _options.output_stream(args, inputs) as out:
        if args.format == "json":
            out.write(json.dumps(_finite(payload), allow_nan=False) + "\n")
        elif args.format in ("csv", "tsv"):
            _write_csv(payload, _options.csv_writer(out, args.format))
        else:
            _write_tables(biases, prevalence, regression, position, matrix, out)
    return 0


def _judge_labels(args: argparse.Namespace) -> list[str]:
    """The judges' names: their files' names (whole paths where two share one), or
    ``human`` and ``llm`` for the example."""
    import os

    if args.example:
        return ["human", "llm"]
    paths = [args.qrels_a, args.qrels_b, *args.judges]
    names = [os.path.basename(p) for p in paths]
    return names if len(set(names)) == len(names) else paths


def _payload(
    biases: Any, prevalence: Any, regression: Any, position: Any, matrix: Any
) -> dict[str, Any]:
    from dataclasses import asdict

    out: dict[str, Any] = {
        "runs": {
            b.measure: {
                "queries": len(b.queries),
                "queries_left_out": b.queries_left_out,
                "favoured": list(b.favoured),
                "order_human": list(b.leaderboard.order_a) if b.leaderboard else None,
                "order_llm": list(b.leaderboard.order_b) if b.leaderboard else None,
                "runs": {r: asdict(v) for r, v in b.runs.items()},
            }
            for b in biases
        },
        "prevalence": asdict(prevalence),
    }
    if regression is not None:
        reg = asdict(regression)
        reg["conf_int"] = {k: list(v) for k, v in regression.conf_int.items()}
        reg["names"] = list(regression.names)
        out["regression"] = reg
    if position is not None:
        out["position"] = asdict(position)
    out["judges"] = {
        "names": list(matrix.names),
        "fleiss_kappa": matrix.fleiss_kappa,
        "kappa": matrix.agreement.tolist(),
        "shift": matrix.shift.tolist(),
        "pairs": matrix.pairs.tolist(),
    }
    return out


def _finite(value: Any) -> Any:
    """``value`` with non-finite floats as None (JSON has no nan or infinity)."""
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _write_csv(payload: dict[str, Any], writer: Any) -> None:
    """Long format: ``section,item,number,value``."""
    writer.writerow(["section", "item", "number", "value"])
    for measure, block in payload["runs"].items():
        for run, numbers in block["runs"].items():
            for key, value in numbers.items():
                if key != "run":
                    writer.writerow([f"runs {measure}", run, key, value])
    for key, value in payload["prevalence"].items():
        writer.writerow(["prevalence", "", key, value])
    if "regression" in payload:
        reg = payload["regression"]
        for key in ("params", "bse", "zvalues", "pvalues"):
            for name, value in reg[key].items():
                writer.writerow(["regression", name, key, value])
        for name, (low, high) in reg["conf_int"].items():
            writer.writerow(["regression", name, "low", low])
            writer.writerow(["regression", name, "high", high])
        for key in ("nobs", "unmatched", "without_covariates"):
            writer.writerow(["regression", "", key, reg[key]])
    for key, value in payload.get("position", {}).items():
        writer.writerow(["position", "", key, value])
    judges = payload["judges"]
    writer.writerow(["judges", "", "fleiss_kappa", judges["fleiss_kappa"]])
    for i, row_name in enumerate(judges["names"]):
        for j, column_name in enumerate(judges["names"]):
            for key in ("kappa", "shift", "pairs"):
                writer.writerow(["judges", f"{row_name}|{column_name}", key, judges[key][i][j]])


def _write_tables(
    biases: Any, prevalence: Any, regression: Any, position: Any, matrix: Any, out: IO[str]
) -> None:
    from ranklens.cli.output import write_plain_table

    for b in biases:
        out.write(
            f"{b.measure} over {len(b.queries)} queries judged by both "
            f"(correction {b.correction}, alpha {b.alpha:g})\n"
        )
        rows = [
            [
                r.run,
                r.score_human,
                r.score_llm,
                r.rank_human,
                r.rank_llm,
                r.shift,
                r.delta,
                r.p_value,
                r.p_value_corrected,
                "favoured" if r.favoured else ("disfavoured" if r.disfavoured else "-"),
            ]
            for r in b.runs.values()
        ]
        header = [
            "run",
            "human",
            "llm",
            "rank",
            "rank_llm",
            "shift",
            "delta",
            "p",
            "p_corr",
            "bias",
        ]
        write_plain_table(header, rows, out)
        if b.leaderboard is not None:
            lb = b.leaderboard
            out.write(
                f"leaderboard: {' > '.join(lb.order_a)}  vs  {' > '.join(lb.order_b)} "
                f"(kendall_tau {lb['kendall_tau']:.4f})\n"
            )
        out.write("\n")
    p = prevalence
    out.write(f"prevalence of relevant pairs (grade >= {p.threshold})\n")
    write_plain_table(
        ["observed", "sensitivity", "specificity", "corrected", "low", "high", "llm_pairs"],
        [[p.observed, p.sensitivity, p.specificity, p.corrected, p.low, p.high, p.llm_pairs]],
        out,
    )
    if regression is not None:
        r = regression
        out.write(f"\ngrade error (llm - human) regressed on covariates, {r.nobs} pairs, HC3\n")
        write_plain_table(
            ["term", "coef", "se", "z", "p", "low", "high"],
            [
                [n, r.params[n], r.bse[n], r.zvalues[n], r.pvalues[n], *r.conf_int[n]]
                for n in r.names
            ],
            out,
        )
    if position is not None:
        s = position
        out.write("\nposition bias of the pairwise judge\n")
        write_plain_table(
            ["judgments", "first_rate", "p", "low", "high", "ties", "both_orders", "consistency"],
            [
                [
                    s.judgments,
                    s.first_rate,
                    s.p_value,
                    s.low,
                    s.high,
                    s.ties,
                    s.pairs_both_orders,
                    s.consistency,
                ]
            ],
            out,
        )
    out.write(
        f"\njudges: Fleiss' kappa {matrix.fleiss_kappa:.4f}; kappa (upper) and mean grade "
        "shift of the row's judge over the column's (lower)\n"
    )
    size = len(matrix.names)
    cells = [
        [
            name,
            *(
                "-" if i == j else (matrix.agreement[i, j] if j > i else matrix.shift[j, i])
                for j in range(size)
            ),
        ]
        for i, name in enumerate(matrix.names)
    ]
    write_plain_table(["judge", *matrix.names], cells, out)
