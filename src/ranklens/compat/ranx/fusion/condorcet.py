"""ranx's ``condorcet`` (``ranx.fusion.condorcet``) and its two helpers on plain runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["condorcet", "get_candidates", "get_results"]


@ranx_errors
def condorcet(runs: Sequence[Any], name: str = "condorcet") -> Run:
    """CondorcetFuse (Montague and Aslam): documents ordered by pairwise majority votes of
    the runs, scored by their Copeland score (see :data:`ranklens.fusion.METHODS`); a
    cycle of majorities ties its documents (ranx orders them by its sort)."""
    return combine(runs, "condorcet", name)


def _contents(runs: Sequence[Any]) -> list[Mapping[str, Mapping[str, float]]]:
    return [run.run if isinstance(run, Run) else run for run in runs]


def get_candidates(runs: Sequence[Any]) -> list[list[str]]:
    """Per query (in the first run's order), the documents any of ``runs`` retrieves
    (``runs``: :class:`Run` objects or their ``run`` dicts), in first-seen order."""
    contents = _contents(runs)
    return [
        list(dict.fromkeys(d for content in contents for d in content.get(q, {})))
        for q in contents[0]
    ]


def get_results(runs: Sequence[Any]) -> list[list[list[str]]]:
    """Per query (in the first run's order) and run, the run's documents in ranked order
    (score descending; equal scores by document id, descending)."""
    contents = _contents(runs)
    return [
        [
            [d for d, _ in sorted(content.get(q, {}).items(), key=_by_score, reverse=True)]
            for content in contents
        ]
        for q in contents[0]
    ]


def _by_score(item: tuple[str, float]) -> tuple[float, str]:
    return item[1], item[0]
