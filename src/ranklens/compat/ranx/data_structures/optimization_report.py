"""ranx's ``OptimizationReport``: the scores of every configuration
:func:`ranklens.compat.ranx.optimize_fusion` tried, printed as ranx prints them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["OptimizationReport"]

_METHODS = {
    "logn_isr": ("LogN_ISR", "Sigma"),
    "gmnz": ("GMNZ", "Gamma"),
    "mixed": ("Mixed", "Weights"),
    "probfuse": ("ProbFuse", "# Segments"),
    "rbc": ("RBC", "phi"),
    "rrf": ("RRF", "k"),
    "slidefuse": ("SlideFuse", "w"),
    "w_bordafuse": ("Weighted BordaFuse", "Weights"),
    "w_condorcet": ("Weighted Condorcet", "Weights"),
    "wmnz": ("WMNZ", "Weights"),
    "wsum": ("Weighted SUM", "Weights"),
}
_LABELS = {
    "hits": "Hits",
    "hit_rate": "Hit_Rate",
    "precision": "P",
    "recall": "Recall",
    "f1": "F1",
    "r-precision": "R-Prec",
    "mrr": "MRR",
    "map": "MAP",
    "ndcg": "NDCG",
    "ndcg_burges": "NDCG_Burges",
}


class OptimizationReport:
    """The configurations a fusion optimisation tried (``configs``, as text) and the mean
    ``metric`` of each (``results``); ``str()`` is ranx's table (the best row first among
    equals is in bold green where the console shows styles).

    >>> report = OptimizationReport("rrf", ["10", "20"], [0.5, 0.625], "ndcg")
    >>> print(str(report).splitlines()[5])
    │ 20 │ 0.625 │
    """

    def __init__(
        self,
        method: str,
        configs: Sequence[str],
        results: Sequence[float],
        metric: str,
        rounding_digits: int = 3,
        show_percentages: bool = False,
    ) -> None:
        self.method = method
        self.configs = list(configs)
        self.results = list(results)
        self.metric = metric
        self.rounding_digits = rounding_digits
        self.show_percentages = show_percentages

    def get_metric_label(self, m: str) -> str:
        """ranx's label of a metric (``ndcg@10`` is ``NDCG@10``); other names as they are."""
        name, at, cutoff = m.partition("@")
        label = _LABELS.get(name, name)
        return f"{label}@{cutoff}" if at else label

    def format_score(self, score: float) -> str:
        """``score`` rounded to ``rounding_digits`` (as a percentage with two digits fewer)."""
        if self.show_percentages:
            digits = max(0, self.rounding_digits - 2)
            return f"%.{self.rounding_digits - 2}f" % round(score * 100, digits)
        return f"%.{self.rounding_digits}f" % round(score, self.rounding_digits)

    def to_table(self) -> Any:
        """ranx's table: a :class:`rich.table.Table`, the best configuration in bold green."""
        import numpy as np
        from rich.table import Table

        title, parameter = _METHODS.get(self.method, (self.method, "Config"))
        table = Table(title=title)
        table.add_column(header=parameter, header_style="bold magenta", justify="center")
        table.add_column(
            header=self.get_metric_label(self.metric),
            header_style="bold magenta",
            justify="center",
        )
        best = int(np.argmax(self.results)) if self.results else -1
        for i, (config, score) in enumerate(zip(self.configs, self.results, strict=True)):
            cells = [str(config), self.format_score(score)]
            if i == best:
                cells = [f"[bold green]{cell}[/bold green]" for cell in cells]
            table.add_row(*cells)
        return table

    def __str__(self) -> str:
        from io import StringIO

        from rich.console import Console

        buffer = StringIO()
        Console(file=buffer, force_jupyter=False).print(self.to_table())
        return buffer.getvalue()

    __repr__ = __str__
