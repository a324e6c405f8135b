"""trec_eval's other relevance formats for the front end: ``-R prefs``, ``-R qrels_prefs``
(:mod:`ranklens.kernels.preferences`) and ``-R qrels_jg``
(:mod:`ranklens.kernels.judgement_groups`)."""

from __future__ import annotations

import os
from typing import IO, TYPE_CHECKING

from ranklens.base.types import QueryPolicy
from ranklens.data.run import Run
from ranklens.measures.trec_table import Slot, TrecUsageError

if TYPE_CHECKING:
    from ranklens.frontends.trec_eval.runner import TrecOptions


def evaluate(
    source: str | os.PathLike[str] | IO[bytes],
    run: Run,
    rel_format: str,
    opts: TrecOptions,
    slots: list[Slot],
) -> tuple[list[str], dict[str, dict[str, float]], int]:
    """Per-query values for the prefs or judgement-group measures, the queries in order, and
    the divisor of the means (the number of judged queries with 9.0.8's ``-c``)."""
    policy: QueryPolicy = "both" if opts.v9 else "qrels"
    if rel_format in ("prefs", "qrels_prefs"):
        from ranklens.data.prefs import read_prefs, read_qrels_prefs
        from ranklens.kernels.preferences import evaluate_prefs

        prefs = read_prefs(source) if rel_format == "prefs" else read_qrels_prefs(source)
        judged = prefs.qids
        _check_missing(judged, run, opts)
        per_query = evaluate_prefs(
            prefs, run, depth=opts.depth, judged_only=opts.judged_only, queries=policy
        )
    else:
        from ranklens.data.judgement_groups import read_qrels_jg
        from ranklens.kernels.judgement_groups import evaluate_jg

        qrels_jg = read_qrels_jg(source)
        judged = qrels_jg.qids
        _check_missing(judged, run, opts)
        cutoffs = [s.arg[1] for s in slots if isinstance(s.arg, tuple) and s.arg[0] == "P_avgjg"]
        mults = [
            s.arg[1] for s in slots if isinstance(s.arg, tuple) and s.arg[0] == "Rprec_mult_avgjg"
        ]
        per_query = evaluate_jg(
            qrels_jg,
            run,
            rel_level=opts.level,
            depth=opts.depth,
            judged_only=opts.judged_only,
            p_cutoffs=cutoffs or (5,),
            rprec_mults=mults or (0.2,),
            queries=policy,
        )
    queries = list(per_query)
    divisor = len(judged) if (opts.v9 and opts.complete) else len(queries)
    return queries, per_query, divisor


def _check_missing(judged: tuple[str, ...], run: Run, opts: TrecOptions) -> None:
    present = run.query_index()
    if not opts.v9 and not opts.complete:
        for qid in judged:
            if qid not in present:
                raise TrecUsageError(
                    f"trec_eval: judged query '{qid}' has no results in the run (trec_eval "
                    "10 stops here); give -c to score it 0, or --v9 to leave it out as "
                    "trec_eval 9.0.8 does",
                    4,
                )
    if not any(q in present for q in judged):
        raise TrecUsageError("trec_eval: No queries with both results and relevance info", 7)
