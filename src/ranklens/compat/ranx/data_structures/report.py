"""ranx's ``Report``: the outcome of :func:`ranklens.compat.ranx.compare`, with ranx's table,
LaTeX, dict and DataFrame."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from ranklens.base.optional import require
from ranklens.compat.ranx.data_structures.frozenset_dict import FrozensetDict

__all__ = ["Report"]

_CHARS = "abcdefghijklmnopqrstuvwxyz"
_SUPERSCRIPTS = "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ۹ʳˢᵗᵘᵛʷˣʸᶻ"
_LABELS = {
    "hits": "Hits",
    "hit_rate": "Hit Rate",
    "precision": "P",
    "recall": "Recall",
    "f1": "F1",
    "r-precision": "R-Prec",
    "mrr": "MRR",
    "map": "MAP",
    "dcg": "DCG",
    "dcg_burges": "DCG Burges",
    "ndcg": "NDCG",
    "ndcg_burges": "NDCG Burges",
    "bpref": "BPref",
}
_TEST_LABELS = {
    "fisher": "Fisher's randomization test",
    "student": "paired Student's t-test",
    "tukey": "Tukey's HSD test",
}


def _label(metric: str) -> str:
    """ranx's column header of a metric (``ndcg@10`` is ``NDCG@10``); a name ranx does not
    label (a ranklens measure name) is shown as it is."""
    base, _, level = metric.partition("-l")
    name, at, cutoff = base.partition("@")
    label = name.upper() if name.startswith("rbp.") else _LABELS.get(name, name)
    text = f"{label}@{cutoff}" if at else label
    return f"{text}-l{level}" if level else text


class Report:
    """The outcome of :func:`~ranklens.compat.ranx.compare`, shaped as ranx's ``Report``.

    Attributes
    ----------
    model_names
        The runs' names, in the order given.
    results
        ``{model: {metric: mean}}``.
    comparisons
        A :class:`FrozensetDict`: ``comparisons["a", "b"][metric]`` is ``{"p_value": p,
        "significant": bool}``.
    win_tie_loss
        ``{(model_a, model_b): {metric: {"W": .., "T": .., "L": ..}}}``: queries where
        ``model_a`` scores higher, the same, lower.
    """

    def __init__(
        self,
        model_names: list[str],
        results: dict[str, dict[str, float]],
        comparisons: Mapping[Any, dict[str, dict[str, Any]]],
        metrics: list[str],
        max_p: float,
        win_tie_loss: dict[tuple[str, str], dict[str, dict[str, int]]],
        rounding_digits: int = 3,
        show_percentages: bool = False,
        stat_test: str = "student",
    ) -> None:
        self.model_names = model_names
        self.results = results
        self.comparisons = FrozensetDict(comparisons)
        self.metrics = metrics
        self.max_p = max_p
        self.win_tie_loss = win_tie_loss
        self.rounding_digits = rounding_digits
        self.show_percentages = show_percentages
        self.stat_test = stat_test

    def format_score(self, score: float) -> str:
        """A mean as shown: ``rounding_digits`` decimals, or a percentage with two fewer."""
        if self.show_percentages:
            digits = max(0, self.rounding_digits - 2)
            return f"{round(score * 100, digits):.{digits}f}"
        return f"{round(score, self.rounding_digits):.{self.rounding_digits}f}"

    def _better_than(self, model: str, metric: str) -> list[int]:
        """Positions of the models ``model`` beats significantly on ``metric``."""
        mine = self.results[model][metric]
        return [
            j
            for j, other in enumerate(self.model_names)
            if other != model
            and self.comparisons[model, other][metric]["significant"]
            and mine > self.results[other][metric]
        ]

    def get_superscript_for_table(self, model: str, metric: str) -> str:
        """The superscript letters of the runs ``model`` beats significantly on ``metric``."""
        return "".join(_SUPERSCRIPTS[j] for j in self._better_than(model, metric))

    def get_superscript_for_latex(self, model: str, metric: str) -> str:
        """The same as letters, for the LaTeX table."""
        return "".join(_CHARS[j] for j in self._better_than(model, metric))

    def get_phantoms_for_latex(self, model: str, metric: str) -> str:
        """The letters of the other runs it does not beat (kept as invisible space)."""
        wins = set(self._better_than(model, metric))
        return "".join(
            _CHARS[j]
            for j, other in enumerate(self.model_names)
            if other != model and j not in wins
        )

    def get_metric_label(self, m: str) -> str:
        """ranx's header of metric ``m`` (``ndcg@10`` is ``NDCG@10``, ``map-l2`` ``MAP-l2``)."""
        return _label(m)

    def get_stat_test_label(self, stat_test: str) -> str:
        """The name of a statistical test as the LaTeX caption gives it.

        Raises
        ------
        KeyError
            A test other than ``"fisher"``, ``"student"`` and ``"tukey"`` (as ranx).
        """
        return _TEST_LABELS[stat_test]

    def to_table(self) -> str:
        """ranx's plain-text table (superscripts: the runs this one beats significantly)."""
        rows = []
        for i, model in enumerate(self.model_names):
            cells = [_CHARS[i], model]
            for metric in self.metrics:
                marks = self.get_superscript_for_table(model, metric)
                cells.append(self.format_score(self.results[model][metric]) + marks)
            rows.append(cells)
        return _tabulate(rows, ["#", "Model", *(_label(m) for m in self.metrics)])

    def to_latex(self) -> str:
        """ranx's LaTeX table (booktabs), best scores in bold, superscripts as letters."""
        best: dict[str, str | None] = {}
        for metric in self.metrics:
            best_model, best_score = None, 0.0
            for model in self.model_names:
                rounded = round(self.results[model][metric], self.rounding_digits)
                if best_score < rounded:
                    best_model, best_score = model, rounded
            best[metric] = best_model
        preamble = (
            "========================\n% Add in preamble\n\\usepackage{graphicx}\n"
            "\\usepackage{booktabs}\n========================\n\n"
        )
        head = (
            "% To change the table size, act on the resizebox argument `0.8`.\n"
            "\\begin{table*}[ht]\n\\centering\n\\caption{\nOverall effectiveness of the models.\n"
            "The best results are highlighted in boldface.\n"
            "Superscripts denote significant differences in "
            f"{self.get_stat_test_label(self.stat_test)} with $p \\le {self.max_p}$.\n}}\n"
            "\\resizebox{0.8\\textwidth}{!}{\n\\begin{tabular}{c|l"
            + "|c" * len(self.metrics)
            + "}\n\\toprule\n\\textbf{\\#}\n& \\textbf{Model}"
            + "".join(f"\n& \\textbf{{{_label(m)}}}" for m in self.metrics)
            + " \\\\ \n\\midrule"
        )
        rows = []
        for i, model in enumerate(self.model_names):
            cells = []
            for metric in self.metrics:
                score = self.format_score(self.results[model][metric])
                if best[metric] == model:
                    score = f"\\textbf{{{score}}}"
                marks = self.get_superscript_for_latex(model, metric)
                phantoms = self.get_phantoms_for_latex(model, metric)
                cells.append(f"{score}$^{{{marks}}}$\\hphantom{{$^{{{phantoms}}}$}} &")
            cells[-1] = cells[-1][:-1]
            rows.append(f"{_CHARS[i]} &\n{model} &\n" + "\n".join(cells) + "\\\\")
        body = "\n".join(rows).replace("_", "\\_").replace("$^{}$", "")
        tail = "\\bottomrule\n\\end{tabular}\n}\n\\label{tab:results}\n\\end{table*}"
        return preamble + "\n" + head + "\n" + body + "\n" + tail

    def to_dict(self) -> dict[str, Any]:
        """ranx's dict: ``stat_test``, ``metrics``, ``model_names``, then for each model its
        ``scores``, ``comparisons`` (p-values against each other model) and
        ``win_tie_loss``."""
        out: dict[str, Any] = {
            "stat_test": self.stat_test,
            "metrics": self.metrics,
            "model_names": self.model_names,
        }
        for a in self.model_names:
            p_values: dict[str, dict[str, float]] = {}
            wtl: dict[str, dict[str, dict[str, int]]] = {}
            for b in self.model_names:
                if a != b:
                    pair = self.comparisons[a, b]
                    p_values[b] = {m: pair[m]["p_value"] for m in self.metrics}
                    wtl[b] = {m: self.win_tie_loss[(a, b)][m] for m in self.metrics}
            out[a] = {"scores": self.results[a], "comparisons": p_values, "win_tie_loss": wtl}
        return out

    def to_dataframe(self) -> Any:
        """A pandas DataFrame as ranx builds it: a ``model_names`` column, then one column
        per metric."""
        pandas = require("pandas", "Report.to_dataframe")
        scores = {name: self.results[name] for name in self.model_names}
        frame = pandas.DataFrame.from_dict(scores, orient="index")
        return frame.reset_index().rename(columns={"index": "model_names"})

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_dict` as indented JSON."""
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(self.to_dict(), indent=4))

    def print_results(self) -> None:
        """Print the means as indented JSON (ranx's)."""
        print(json.dumps(self.results, indent=4))

    def __repr__(self) -> str:
        return self.to_table()

    def __str__(self) -> str:
        return self.to_table()


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _tabulate(rows: list[list[str]], headers: list[str]) -> str:
    """The ``tabulate`` package's default ("simple") layout, as ranx prints it: a column of
    numbers is shown in ``g`` format and aligned on the decimal point, any other column is
    left-aligned; columns at least two wider than their header, two spaces between them,
    dashes under the headers."""
    columns = [list(col) for col in zip(*rows, strict=True)] if rows else [[] for _ in headers]
    shown: list[list[str]] = []
    for col in columns:
        if col and all(_is_number(c) for c in col):
            text = [format(float(c), "g") for c in col]
            whole = [len(t.split(".")[0]) if "." in t else len(t) for t in text]
            frac = [len(t) - w for t, w in zip(text, whole, strict=True)]
            width_w, width_f = max(whole), max(frac)
            text = [
                " " * (width_w - w) + t + " " * (width_f - f)
                for t, w, f in zip(text, whole, frac, strict=True)
            ]
            shown.append(text)
        else:
            shown.append(list(col))
    widths = [
        max([len(h) + 2] + [len(c) for c in col]) for h, col in zip(headers, shown, strict=True)
    ]
    numeric = [bool(col) and all(_is_number(c) for c in col) for col in columns]

    def line(cells: Sequence[str], right: Sequence[bool]) -> str:
        parts = [
            c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [line(headers, numeric), "  ".join("-" * w for w in widths)]
    out += [line([col[i] for col in shown], numeric) for i in range(len(rows))]
    return "\n".join(out)
