"""What the preference and judgement-group kernels share: the run ranked and aligned against
a judgement file's own queries, as trec_eval's ``-R prefs`` / ``-R qrels_jg`` do, through the
same :func:`~ranklens.ranking.align.align` as every other measure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ranklens.base.errors import OptionError
from ranklens.base.types import QUERY_POLICIES, Float64Array, QueryPolicy
from ranklens.data.run import Run
from ranklens.ranking.align import PreparedQrels, Ranked, align
from ranklens.ranking.judgments import Judgments


def check_depth(depth: int | None) -> None:
    """Reject a ``depth`` (``-M``) that is not ``None`` or a non-negative integer."""
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 0):
        raise OptionError(f"depth must be None or an integer >= 0, not {depth!r}")


def rank_for_judgments(
    judgments: Judgments,
    run: Run | Mapping[str, Mapping[str, float]],
    *,
    depth: int | None,
    queries: QueryPolicy,
) -> Ranked | list[str]:
    """``run`` ranked (trec_eval's ties) and aligned against the judgement file's queries,
    with the judgement data attached: what :func:`~ranklens.kernels.preferences.prefs_table`
    and :func:`~ranklens.kernels.judgement_groups.jg_table` read.

    A mapping without any document cannot be ranked: then the result is the list of queries
    evaluated on an empty ranking (every judged query under ``queries="qrels"``, none
    otherwise).
    """
    check_depth(depth)
    if queries not in QUERY_POLICIES:
        raise OptionError(f"queries must be one of {list(QUERY_POLICIES)}, not {queries!r}")
    qrels = judgments.as_qrels()
    if not isinstance(run, Run):
        if not any(len(docs) for docs in run.values()):
            return list(qrels.qids) if queries == "qrels" else []
        run = Run.from_dict(run)
    return align(PreparedQrels.of(qrels), run, "trec_eval", queries, depth, judgments).base


def per_query_dicts(
    qids: Sequence[str], table: Mapping[str, Float64Array], names: Sequence[str]
) -> dict[str, dict[str, float]]:
    """``{qid: {name: value}}`` from per-name arrays over ``qids``."""
    columns = {name: table[name].tolist() for name in names}
    return {qid: {name: columns[name][i] for name in names} for i, qid in enumerate(qids)}
