"""The entry points: :func:`evaluate` and :class:`Evaluator`."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast, overload

import numpy as np

from ranklens.base.errors import (
    InputError,
    InputWarning,
    MeasureError,
    OptionError,
    ParseError,
    ResourceError,
)
from ranklens.base.progress import Progress
from ranklens.base.types import (
    DUPLICATE_POLICIES,
    QUERY_POLICIES,
    TIE_POLICIES,
    DuplicatePolicy,
    QueryPolicy,
    TiePolicy,
)
from ranklens.data.coerce import QrelsLike, RunLike, as_qrels, as_run
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.evaluation.result_set import ResultSet, is_many_runs
from ranklens.evaluation.results import Results
from ranklens.measures.base import Measure, RunStatistic, is_run_level, is_sampled
from ranklens.measures.language import parse_measures
from ranklens.ranking.align import Aligned, PreparedQrels, align
from ranklens.ranking.judgments import Judgments, JudgmentsLike

if TYPE_CHECKING:
    # imported where their inputs appear (a small dict run, generated answers, side data
    # of the recommender or C/W/L measures): every evaluation imports this module
    from ranklens.evaluation.answers import AnswerSetup
    from ranklens.evaluation.tiny import Judged, ScalarKernel, TinyState
    from ranklens.ranking.costs import CostsLike
    from ranklens.ranking.interactions import TrainLike
    from ranklens.ranking.item_features import ItemFeaturesLike
    from ranklens.ranking.items import PopularityLike


def check_options(ties: str, queries: str, depth: int | None, duplicates: str) -> None:
    """Raise :class:`OptionError` for a value outside those an option accepts."""
    for option, value, allowed in (
        ("ties", ties, TIE_POLICIES),
        ("queries", queries, QUERY_POLICIES),
        ("duplicates", duplicates, DUPLICATE_POLICIES),
    ):
        if value not in allowed:
            raise OptionError(f"{option} must be one of {list(allowed)}, not {value!r}")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise OptionError(f"depth must be a positive number of documents, not {depth!r}")


def read_qrels(qrels: QrelsLike, duplicates: DuplicatePolicy) -> Qrels:
    """:func:`~ranklens.data.coerce.as_qrels`, saying when a document judged twice is
    judged under two subtopics (diversity qrels given to an ordinary measure)."""
    from ranklens.base.errors import DuplicateError

    try:
        return as_qrels(qrels, duplicates)
    except DuplicateError as exc:
        subtopics = _subtopics_of(exc)
        if subtopics is None or exc.lines is None:
            raise
        raise DuplicateError(
            f"{exc.message}. These look like subtopic (diversity) qrels: the second column "
            f"numbers the subtopics (lines {exc.lines[0]} and {exc.lines[1]} judge it for "
            f"subtopics {subtopics[0]} and {subtopics[1]}, of the same query); the diversity "
            "measures read them as such (alpha_nDCG@20, ERR_IA@20, ..., as ranklens ndeval "
            "does); ordinary measures need one judgment per document (duplicates='max' keeps "
            "its highest)",
            path=exc.path,
            lines=exc.lines,
            query=exc.query,
            document=exc.document,
        ) from None


def _subtopics_of(exc: Any) -> tuple[str, str] | None:
    """The second columns of the two lines of a qrels file's duplicate, when they differ."""
    from ranklens.data.kinds import file_kind
    from ranklens.data.source import second_fields_of_duplicate

    if file_kind(exc.path) is not None:  # Parquet, JSON lines, CSV: no second column
        return None
    found: tuple[str, str] | None = second_fields_of_duplicate(exc)
    return found


def _examples(ids: Sequence[str]) -> str:
    shown = ", ".join(repr(q) for q in ids[:3])
    return shown + (", ..." if len(ids) > 3 else "")


def document_examples(qrels: Qrels, run: Run) -> tuple[Sequence[str], Sequence[str]]:
    """A few document ids of the run and of the qrels, for a message: those of the first
    query in both (or of their first queries)."""
    index = qrels.query_index()
    pair = next(((i, index[q]) for i, q in enumerate(run.qids) if q in index), (0, 0))

    def some(data: Run | Qrels, row: int) -> list[str]:
        if row >= data.num_queries:
            return []
        start = int(data.q_offsets[row])
        stop = min(int(data.q_offsets[row + 1]), start + 3)
        bounds = data.doc_offsets
        blob = data.doc_data
        return [
            blob[int(bounds[k]) : int(bounds[k + 1])].tobytes().decode("utf-8", "replace")
            for k in range(start, stop)
        ]

    return some(run, pair[0]), some(qrels, pair[1])


MIN_QUERIES_TO_WARN = 10
"""Most queries retrieving no judged document is a warning from this many queries on, and
none retrieving one an error (on fewer, a few documents may miss the judged ones by
chance)."""
MIN_DOCUMENTS_TO_REFUSE = 100
"""No query retrieving a judged document is also an error from this many documents
retrieved (over the queries in the qrels) on, however few the queries."""


def check_judged(
    counts: Mapping[str, int],
    name: str,
    source: str | None,
    documents: tuple[Sequence[str], Sequence[str]] | None = None,
) -> None:
    """Refuse a run none of whose queries retrieves a document the qrels list for it (its
    document ids are not the qrels'); warn when most of them retrieve none (see
    :meth:`Evaluator.evaluate`): from :data:`MIN_QUERIES_TO_WARN` queries on (the error
    also from :data:`MIN_DOCUMENTS_TO_REFUSE` documents on). Only the queries in both
    count (``retrieving``, ``matched`` and ``retrieved`` of the query counts): a document
    "judged" is one the qrels list for the query, whatever its grade (0 and negative
    included). ``documents``: some document ids of the run and of the qrels for the
    message."""
    retrieving, matched = counts.get("retrieving", 0), counts.get("matched", 0)
    documents_retrieved = counts.get("retrieved", 0)
    enough = retrieving >= MIN_QUERIES_TO_WARN or documents_retrieved >= MIN_DOCUMENTS_TO_REFUSE
    shown = ""
    if documents is not None and documents[0] and documents[1]:
        shown = (
            f" (the run has documents such as {_examples(documents[0])}, the qrels "
            f"{_examples(documents[1])})"
        )
    if retrieving and not matched and enough:
        raise InputError(
            f"run '{name}' retrieves no judged document: none of the {documents_retrieved} "
            f"documents it ranks for its {retrieving} queries in the qrels is in the "
            f"qrels{shown}; every value would "
            "be 0. Check that the run and the qrels use the same document ids (a prefix, "
            "another id scheme, corpus ids against passage ids), and that these are the "
            "right files",
            path=source,
        )
    if retrieving >= MIN_QUERIES_TO_WARN and matched * 2 < retrieving:
        warnings.warn(
            f"only {matched} of the {retrieving} queries of run '{name}' in the qrels "
            f"retrieve a judged document{shown}; the others score 0 on most measures: check "
            "that the run and the qrels use the same document ids",
            InputWarning,
            stacklevel=5,
        )


def check_overlap(
    counts: Mapping[str, int],
    name: str,
    source: str | None,
    examples: Sequence[str] = (),
    documents: tuple[Sequence[str], Sequence[str]] | None = None,
) -> None:
    """Refuse a run that shares no query with the qrels, or that retrieves no judged
    document (:func:`check_judged`); warn when most qrels queries are missing from it, or
    most of its queries retrieve no judged document (see :meth:`Evaluator.evaluate`).
    ``counts`` are a result's query counts; ``examples``, some of the run's query ids for
    the message, ``documents`` some document ids of the run and of the qrels."""
    shared = counts.get("shared", counts["run"] - counts["unjudged"])
    # (queries="run" evaluates the run's queries with or without judgments: no check there)
    by_judgments = counts["unjudged"] > 0 or counts["missing"] > 0
    if counts["run"] and counts["qrels"] and shared == 0 and by_judgments:
        shown = f" ({_examples(examples)})" if examples else ""
        raise InputError(
            f"the run and the qrels share no query: the run has {counts['run']}{shown}, the "
            f"qrels {counts['qrels']}; check that these are the right files and that the ids "
            "are written the same way",
            path=source,
        )
    check_judged(counts, name, source, documents)
    if counts["run"] and counts["missing"] * 2 > counts["qrels"] > 0:
        warnings.warn(
            f"{counts['missing']} of the {counts['qrels']} qrels queries are missing from run "
            f"'{name}' and score 0 (only {shared} {'is' if shared == 1 else 'are'} in it); "
            "to evaluate only the queries in both, pass queries='both' (--queries both on the "
            "command line)",
            InputWarning,
            stacklevel=4,
        )


class Evaluator:
    """Qrels and measures prepared once, to evaluate many runs.

    Parameters
    ----------
    qrels
        Relevance judgments: a :class:`~ranklens.Qrels`, a path, ``{qid: {docid: rel}}``,
        a DataFrame or ``(qid, docid, rel)`` tuples.
    measures
        Measure names in the ir_measures language (``"nDCG@10"``, ``"P(rel=2)@5"``) or
        trec_eval's (``"ndcg_cut.10"``, ``"official"``), or :class:`Measure` objects.
    ties
        How equal scores are ordered: ``"trec_eval"`` (default; document id descending),
        ``"input"`` or ``"docid_asc"``; ``"rank"`` orders by the run's rank column instead
        of by score (NIST ndeval's default; runs from TREC files or with a ``rank`` column).
    queries
        Which queries count: ``"qrels"`` (default; a query missing from the run scores 0, run
        queries without judgments are left out), ``"both"`` or ``"run"``.
    depth
        Keep only the top ``depth`` documents of each ranking (trec_eval ``-M``).
    duplicates
        A repeated (query, document) pair is an ``"error"`` (default), or keep the ``"first"``
        or the ``"max"``.
    judgments
        The judgement file for trec_eval's preference measures (``PrefsSimp``, ...,
        ``NumPrefsPoss``) and judgement-group measures (``APAvgJG``, ``PAvgJG@k``,
        ``RprecMultAvgJG@x``): a path or file object. A 5-column file (``qid jg jsg docno
        rel_level``) is read as trec_eval's ``-R prefs``; a 4-column one (``qid jg docno
        rel``, the second column naming the judgement group) as ``-R qrels_prefs`` and
        ``-R qrels_jg``. By default the qrels file, if ``qrels`` is a path (what trec_eval
        does with ``-R qrels_prefs`` / ``-R qrels_jg``); with qrels given otherwise these
        measures raise :class:`~ranklens.base.errors.MeasureError`. It is read once, here, and
        only if such a measure is asked for. These measures are computed on the evaluator's
        queries (a query the file does not judge scores 0) with ``depth`` and ``queries``;
        they break score ties as trec_eval does for them (docno ascending for the
        preference measures, descending for the others), whatever ``ties`` says. When
        every measure needs the judgement file, the qrels are not read as ordinary qrels:
        the judgement file stands for them (its queries are the evaluated ones, and
        :attr:`qrels` holds its documents with their highest grade), so a judgement-group
        file that judges a document in several groups, or a 5-column prefs file, can be
        given as ``qrels`` (also as ``-`` or a file object).
    costs
        What each document costs to examine, for the C/W/L measures (``INST``, ``BPM``,
        ``CWL_P``, ...: their expected costs ``report='EC'`` / ``'ETC'`` and BPM's budget
        ``K``): ``{docid: cost}``, ``{qid: {docid: cost}}``, or a file of lines ``docid cost``
        or ``qid docid cost``. A document without a cost costs the measure's ``max_cost``
        (``min_cost`` in the best case of a residual), 1 by default, as in ``cwl_eval``
        (see :mod:`ranklens.ranking.costs`). Other measures ignore costs.
    popularity
        Item popularity for the recommender measures (``ARP``, ``APLT``, ``ACLT``; and the
        catalogue of ``Coverage`` and ``Gini`` without ``num_items``): ``{item: count}``, a
        table (an item column and a ``count`` column, or training interactions, one row
        each), or a file of ``item count`` lines or a Parquet table; see
        :mod:`ranklens.ranking.items`. Items it does not list have popularity 0.
    num_items
        The catalogue size for ``Coverage`` and ``Gini`` (default: the items of
        ``popularity``).
    num_users
        The number of training users N of the propensity-scored measures (``PSP``,
        ``PSnDCG``, ``PSR``; default: the distinct users of ``popularity`` given as a table
        of training interactions with a user column, or of ``train``).
    item_features
        The item features of ``ILD``: ``{item: vector}``, ``{item: set of labels}``, a
        table (an item column and numeric feature columns, or an item column and a label
        column) or a file (lines ``item v1 v2 ...`` or ``item label``, or Parquet); see
        :mod:`ranklens.ranking.item_features`.
    train
        The training interactions, for ``PopRSP`` (each user's training items leave its
        denominators): a table with user and item columns, ``{user: [items]}`` or a file of
        ``user item`` lines (or Parquet); see :mod:`ranklens.ranking.interactions`. Without
        ``popularity`` they give it (interactions per item).
    groups
        Group labels of the documents for expected exposure (``EE-L``, ``EE-D``, ``EE-R``):
        ``{docid: label or [labels]}``, a table (a document and a ``group`` column) or a
        file of ``docid,group[,group...]`` lines (:mod:`ranklens.data.stochastic`); with
        them these measures compare the exposure of groups, without them of documents.
        These measures read a stochastic run (several sampled rankings per query, a sample
        column) and are evaluated by :mod:`ranklens.evaluation.sampled`, without the
        measures of one ranking per query: a run is either stochastic or not.

    Examples
    --------
    >>> ev = Evaluator({"q1": {"a": 1}}, ["P@2", "AP"])
    >>> ev.evaluate({"q1": {"a": 0.1, "b": 0.9}}).aggregate
    {'P@2': 0.5, 'AP': 0.5}
    """

    def __init__(
        self,
        qrels: QrelsLike,
        measures: Iterable[str | Measure] | str | Measure,
        *,
        ties: TiePolicy = "trec_eval",
        queries: QueryPolicy = "qrels",
        depth: int | None = None,
        duplicates: DuplicatePolicy = "error",
        judgments: JudgmentsLike | None = None,
        costs: CostsLike | None = None,
        popularity: PopularityLike | None = None,
        num_items: int | None = None,
        num_users: int | None = None,
        item_features: ItemFeaturesLike | None = None,
        train: TrainLike | None = None,
        groups: object | None = None,
    ) -> None:
        check_options(ties, queries, depth, duplicates)
        self.measures: tuple[Measure, ...] = tuple(parse_measures(measures))
        self.answers: AnswerSetup | None = None
        if _may_read_answers(self.measures):
            from ranklens.evaluation.answers import prepare_answers

            self.answers = prepare_answers(self.measures, qrels)
        if self.answers is not None:  # generated answers: their own judgments and path
            self._prepare_answers(self.answers, ties, queries, depth, duplicates)
            return
        self.sampled = None
        if groups is not None or any(is_sampled(m) for m in self.measures):
            from ranklens.evaluation.sampled import sampled_groups

            self.sampled = sampled_groups(self.measures, groups)
        self.ties: TiePolicy = ties
        self.queries: QueryPolicy = queries
        self.depth = depth
        self.duplicates: DuplicatePolicy = duplicates
        self._judgments: Judgments | None = None
        needed: dict[str, str] = {}
        for m in self.measures:
            if m.spec.judgments != "qrels":
                needed.setdefault(m.spec.judgments, m.name)
        reads_qrels = any(m.spec.judgments == "qrels" for m in self.measures)
        if needed:
            from ranklens.ranking.judgments import read_judgments

            if reads_qrels:
                self.qrels = read_qrels(qrels, duplicates)
            self._judgments = read_judgments(needed, judgments, qrels, qrels_read=reads_qrels)
            if not reads_qrels:  # the judgement file stands for the qrels
                self.qrels = self._judgments.as_qrels()
        else:
            try:
                self.qrels = read_qrels(qrels, duplicates)
            except ParseError:
                _refuse_answer_judgments(self.measures, qrels)
                raise
        if costs is not None:
            from ranklens.ranking.costs import DocumentCosts

            read = DocumentCosts.of(costs)
            self._judgments = (
                Judgments(costs=read)
                if self._judgments is None
                else dataclasses.replace(self._judgments, costs=read)
            )
        side = (popularity, num_items, num_users, item_features, train)
        if any(given is not None for given in side):
            from ranklens.ranking.items import ItemData

            items = ItemData.of(popularity, num_items, num_users, self.qrels, item_features, train)
            self._judgments = (
                Judgments(items=items)
                if self._judgments is None
                else dataclasses.replace(self._judgments, items=items)
            )
        self._prepared = PreparedQrels.of(self.qrels)
        self._tiny: TinyState | None = None  # the tiny path's kernels and judgments, lazily

    def _prepare_answers(
        self, setup: Any, ties: TiePolicy, queries: QueryPolicy, depth: Any, duplicates: Any
    ) -> None:
        """The evaluator of generated answers (:mod:`ranklens.evaluation.answers`)."""
        self.measures = setup.measures
        self.sampled = None
        self.ties, self.queries, self.depth, self.duplicates = ties, queries, depth, duplicates
        self._judgments = None
        self.qrels = setup.qrels  # None: no judgments to stand for qrels

    def align(self, run: RunLike, name: str | None = None) -> Aligned:
        """Rank ``run`` and join it with the qrels (what every measure reads)."""
        # a file's rank column is read now where the tie policy reads it, else when (if
        # ever) it is first needed (Run.from_file)
        ranks = True if self.ties == "rank" else None
        the_run = as_run(run, self.duplicates, name, ranks=ranks)
        return align(self._prepared, the_run, self.ties, self.queries, self.depth, self._judgments)

    def evaluate(
        self,
        run: RunLike,
        name: str | None = None,
        *,
        stream: bool | None = None,
        progress: Progress | None = None,
    ) -> Results:
        """Compute the measures for ``run`` (a path, :class:`~ranklens.Run`, dict, ...).

        A run file larger than 2 GiB (or a quarter of the available memory) is read in
        chunks of whole queries, in bounded memory, with the same results
        (:func:`ranklens.evaluation.streaming.evaluate_stream`; the run must be grouped by
        query); so is a Parquet run of more than about 54 million rows (the same size as
        TREC text) or a directory or glob of Parquet files, by record batches.
        ``stream=True`` or ``False`` forces the choice for a path or a binary file
        object. A streamed file reports the bytes read to ``progress(done, total)``
        (:mod:`ranklens.base.progress`).

        Raises
        ------
        InputError
            The run and the qrels share no query, or no query of the run retrieves a
            document the qrels list for it (the wrong pair of files, or ids written
            differently; from 10 queries or 100 documents on): every value would be a
            silent 0.
        ResourceError
            The machine runs out of memory (also a ``MemoryError``); it names the run.

        Warns
        -----
        InputWarning
            More than half of the qrels queries are missing from the run (scored 0), or,
            from 10 queries on, more than half of the run's queries in the qrels retrieve
            no judged document.
        """
        if self.answers is None and self.sampled is None:
            small = self._tiny_input(run)
            if small is not None:  # a small plain run: see ranklens.evaluation.tiny
                found = _tiny_results(
                    *small, name, self.measures, self.ties, self.queries, self.depth
                )
                if found is not None:
                    return found
        from ranklens.data.chunks import is_text_source, should_stream
        from ranklens.data.kinds import is_parquet_source

        # JSON lines is read in memory, even with stream=True (neither TREC text nor Parquet)
        if stream is None:
            streaming = should_stream(run)
            if not streaming and is_parquet_source(run):
                from ranklens.data.parquet_stream import should_stream_parquet

                streaming = should_stream_parquet(run)
        else:
            streaming = stream and (is_text_source(run) or is_parquet_source(run))
        if self.answers is not None:  # generated answers: read by their own readers
            from ranklens.evaluation.answers import evaluate_answers

            return evaluate_answers(self, run, name)
        if self.sampled is not None:  # a stochastic run: read whole, by its own reader
            from ranklens.evaluation.sampled import evaluate_sampled

            return evaluate_sampled(self, run, name, check_overlap)
        if streaming:
            from ranklens.evaluation.streaming import evaluate_stream

            streamed = evaluate_stream(self, run, name, progress=progress)
            check_overlap(streamed.query_counts, streamed.run, _name_of(run))
            if streamed.metadata is None:  # the header of a run file read in chunks
                from ranklens.data.ir_metadata import read_header

                streamed = dataclasses.replace(streamed, metadata=read_header(run))
            return streamed
        return self._evaluate(run, name, check=True)

    def evaluate_part(self, run: RunLike, name: str | None = None) -> Results:
        """The values of one part of a run split by query (a streamed chunk, a Dask or Spark
        partition), without the checks that only mean something for the whole run (no query
        shared with the qrels, most qrels queries missing): the caller makes them."""
        return self._evaluate(run, name, check=False)

    def _evaluate(self, run: RunLike, name: str | None, *, check: bool) -> Results:
        try:
            aligned = self.align(run, name)
            if check:
                the_run = aligned.run
                counts = aligned.query_counts
                documents = None
                if counts["retrieving"] > 2 * counts["matched"]:
                    documents = document_examples(self.qrels, the_run)
                check_overlap(counts, the_run.name, the_run.source, the_run.qids, documents)
            nq = aligned.base.num_queries
            values = np.empty((nq, len(self.measures)), dtype=np.float64)
            statistics: dict[str, RunStatistic] = {}
            for j, measure in enumerate(self.measures):
                if is_run_level(measure):  # no per-query values
                    statistics[measure.name] = measure.statistic(aligned)
                    values[:, j] = np.nan
                else:
                    values[:, j] = measure.compute(aligned)
            tied = self._tie_affected(aligned)
        except ResourceError:
            raise
        except MemoryError:
            raise ResourceError(
                f"{_name_of(run)}: out of memory while evaluating it; evaluate fewer measures "
                "or runs at once, or split the run by query"
            ) from None
        return Results(
            aligned.run_name,
            self.measures,
            aligned.base.qids,
            values,
            aligned.query_counts,
            tie_affected_queries=tied,
            run_statistics=statistics,
            metadata=aligned.run.metadata,
        )

    def _tie_affected(self, aligned: Aligned) -> int | None:
        """How many queries have tied scores that can decide a value (``None`` under
        ``ties="rank"``, which does not order by score; see
        :func:`ranklens.ranking.ties.tie_affected_queries`)."""
        from ranklens.ranking.ties import tie_affected_queries

        if self.ties == "rank" or not self.measures:
            return None
        return tie_affected_queries(aligned.base, deepest_cutoff(self.measures))

    def _tiny_input(
        self, run: RunLike
    ) -> tuple[dict[str, dict[str, float]], Judged, tuple[ScalarKernel, ...]] | None:
        """``run`` as plain scores, the qrels' judgments and the measures' per-query
        kernels, when the tiny path can take them (:mod:`ranklens.evaluation.tiny`:
        a small plain dict run, measures it covers, no judgement file or side data, a tie
        policy by score); else ``None``."""
        if self._judgments is not None or self.ties == "rank" or type(run) is not dict:
            return None  # (the tiny path takes only a dict: see tiny.plain_scores)
        from ranklens.evaluation import tiny

        if self._tiny is None:
            kernels = tiny.scalar_kernels(self.measures)
            self._tiny = tiny.TinyState(kernels, tiny.Judged(qrels=self.qrels))
        kernels, judged = self._tiny.kernels, self._tiny.judged
        if kernels is None:
            return None
        plain = tiny.plain_scores(run)
        if plain is None or not tiny.small(plain, judged):
            return None
        return plain, judged, kernels

    def evaluate_many(
        self,
        runs: Sequence[RunLike] | Mapping[str, RunLike],
        names: Sequence[str | None] | None = None,
    ) -> ResultSet:
        """Evaluate several runs: a sequence, or a mapping ``{name: run}``.

        A run's name is, in this order: the mapping's key or ``names[i]``; its tag; its file
        name's stem when several runs share a tag or a file has none (see
        :func:`ranklens.data.naming.distinct_names`). Names must end up distinct.
        """
        from ranklens.data.naming import distinct_names

        if isinstance(runs, Mapping):
            if names is not None:
                raise OptionError("give the runs' names either as the mapping's keys or as names")
            given: list[str | None] = [str(k) for k in runs]
            run_list = list(runs.values())
        else:
            run_list = list(runs)
            given = list(names) if names is not None else [None] * len(run_list)
        if len(given) != len(run_list):
            raise OptionError(f"{len(given)} names for {len(run_list)} runs")
        if self.answers is not None:
            from ranklens.evaluation.answers import evaluate_many_answers

            return evaluate_many_answers(self, run_list, given)
        if self.sampled is not None:
            from ranklens.evaluation.sampled import evaluate_many_sampled

            return evaluate_many_sampled(self, run_list, given)
        read = [as_run(r, self.duplicates, n) for r, n in zip(run_list, given, strict=True)]
        final = distinct_names(read, given)
        return ResultSet(
            tuple(self.evaluate(r.renamed(n)) for r, n in zip(read, final, strict=True))
        )


def deepest_cutoff(measures: Sequence[Measure]) -> int | None:
    """The deepest cut-off of ``measures`` (``None`` if one reads the whole ranking): how
    deep a tie can decide a value."""
    cutoffs = [
        m["cutoff"] if m.spec.at is not None and m.spec.at.name == "cutoff" else None
        for m in measures
    ]
    return None if None in cutoffs else max(c for c in cutoffs if c is not None)


def _tiny_results(
    run: dict[str, dict[str, float]],
    judged: Judged,
    kernels: tuple[ScalarKernel, ...],
    name: str | None,
    measures: tuple[Measure, ...],
    ties: TiePolicy,
    queries: QueryPolicy,
    depth: int | None,
) -> Results | None:
    """The tiny path's Results (:mod:`ranklens.evaluation.tiny`): the same checks, values
    and counts as :meth:`Evaluator._evaluate`, called at the same depth (so that a warning
    points where the general path's does); ``None`` where the general path's message
    would name document ids (most queries retrieving no judged document), which it then
    gives."""
    from ranklens.evaluation import tiny

    ranking = tiny.rank_run(run, judged, ties, queries, depth)
    counts = ranking.query_counts
    if counts["retrieving"] > 2 * counts["matched"]:
        return None
    run_name = name or "run"
    check_overlap(counts, run_name, "<dict>", ranking.run_qids, None)
    tied = tiny.tie_affected(ranking, deepest_cutoff(measures)) if measures else None
    return Results(
        run_name,
        measures,
        ranking.qids,
        tiny.values(ranking, kernels),
        counts,
        tie_affected_queries=tied,
        run_statistics={},
        metadata=None,
    )


def _tiny_evaluate(
    qrels: QrelsLike,
    run: RunLike,
    measures: tuple[Measure, ...],
    options: tuple[TiePolicy, QueryPolicy, int | None, DuplicatePolicy],
    name: object,
    side: tuple[object, ...],
) -> Results | None:
    """:func:`evaluate` by the tiny path when it can take the call (plain small dicts,
    measures it covers, no side data; see :mod:`ranklens.evaluation.tiny`), else ``None``.
    Bad options raise here as :class:`Evaluator` would."""
    ties, queries, depth, duplicates = options
    if any(given is not None for given in side) or ties == "rank":
        return None
    if name is not None and not isinstance(name, str):
        return None
    if type(qrels) is not dict or type(run) is not dict:
        return None  # (the tiny path takes only dicts: see tiny.plain_judgments)
    from ranklens.evaluation import tiny

    kernels = tiny.scalar_kernels(measures)
    if kernels is None:
        return None
    check_options(ties, queries, depth, duplicates)
    judged = tiny.plain_judgments(qrels)
    plain = None if judged is None else tiny.plain_scores(run)
    if judged is None or plain is None:
        return None
    judgments = tiny.Judged(mapping=judged)
    if not tiny.small(plain, judgments):
        return None
    return _tiny_results(plain, judgments, kernels, name, measures, ties, queries, depth)


def _refuse_answer_judgments(measures: Sequence[Measure], qrels: object) -> None:
    """Qrels that could not be read: if they are judgments of generated answers (a gold
    answers file...), say that the measures are measures of rankings instead."""
    from ranklens.evaluation.answers import refuse_ranking_measures

    refuse_ranking_measures(measures, qrels)


def _may_read_answers(measures: Sequence[Measure]) -> bool:
    """Whether ``measures`` may be an evaluation of generated answers (some measure reads
    answers, or all are ``F1``, the token F1 on gold answers): only then is
    :func:`ranklens.evaluation.answers.reads_answers` asked (and its module, with the RAG
    readers, imported)."""
    return any(m.spec.rankings == "answer" for m in measures) or (
        bool(measures) and all(m.spec.name == "F1" for m in measures)
    )


def _name_of(run: object) -> str:
    """The run's file for a message (its source when it was read from one)."""
    from ranklens.data.source import describe

    source = getattr(run, "source", None)
    if isinstance(source, str):
        return source
    if isinstance(run, dict):
        return "<dict>"
    return describe(run)


@overload
def evaluate(
    qrels: QrelsLike,
    run: list[Any] | tuple[Any, ...] | Mapping[str, Any],
    measures: Iterable[str | Measure] | str,
    *,
    ties: TiePolicy = ...,
    queries: QueryPolicy = ...,
    depth: int | None = ...,
    duplicates: DuplicatePolicy = ...,
    judgments: JudgmentsLike | None = ...,
    costs: CostsLike | None = ...,
    popularity: PopularityLike | None = ...,
    num_items: int | None = ...,
    num_users: int | None = ...,
    item_features: ItemFeaturesLike | None = ...,
    train: TrainLike | None = ...,
    groups: object | None = ...,
    name: str | Sequence[str] | None = ...,
) -> Results | ResultSet: ...


@overload
def evaluate(
    qrels: QrelsLike,
    run: RunLike,
    measures: Iterable[str | Measure] | str,
    *,
    ties: TiePolicy = ...,
    queries: QueryPolicy = ...,
    depth: int | None = ...,
    duplicates: DuplicatePolicy = ...,
    judgments: JudgmentsLike | None = ...,
    costs: CostsLike | None = ...,
    popularity: PopularityLike | None = ...,
    num_items: int | None = ...,
    num_users: int | None = ...,
    item_features: ItemFeaturesLike | None = ...,
    train: TrainLike | None = ...,
    groups: object | None = ...,
    name: str | Sequence[str] | None = ...,
) -> Results: ...


def evaluate(
    qrels: QrelsLike,
    run: RunLike,
    measures: Iterable[str | Measure] | str,
    *,
    ties: TiePolicy = "trec_eval",
    queries: QueryPolicy = "qrels",
    depth: int | None = None,
    duplicates: DuplicatePolicy = "error",
    judgments: JudgmentsLike | None = None,
    costs: CostsLike | None = None,
    popularity: PopularityLike | None = None,
    num_items: int | None = None,
    num_users: int | None = None,
    item_features: ItemFeaturesLike | None = None,
    train: TrainLike | None = None,
    groups: object | None = None,
    name: str | Sequence[str] | None = None,
) -> Results | ResultSet:
    """Evaluate one run (``evaluate(qrels, run, ["nDCG@10", "AP"])`` gives
    :class:`Results`) or several (a list of runs, or ``{name: run}``, gives one
    :class:`~ranklens.evaluation.result_set.ResultSet`).

    See :class:`Evaluator` for the parameters. By default every number equals trec_eval
    10.0's (with ``-c``): ties broken by document id descending, the mean over the qrels'
    queries. ``name`` names the run (a list of names for a list of runs); by default a
    run is named by its tag, or by its file name's stem when several runs share a tag or
    a file has none (``bm25.run`` is ``bm25``).

    A list or tuple counts as several runs when its items are runs (paths, Run objects,
    dicts of dicts, DataFrames), not ``(qid, docid, score)`` records; a mapping when its
    values are runs rather than ``{docid: score}``.

    Examples
    --------
    >>> res = evaluate({"q1": {"a": 2, "b": 1}}, {"q1": {"b": 0.9, "a": 0.3}}, "nDCG")
    >>> round(res["nDCG"], 4)
    0.8597
    >>> rs = evaluate({"q1": {"a": 1}}, {"x": {"q1": {"a": 1.0}}, "y": {"q1": {"b": 1.0}}}, "P@1")
    >>> rs.aggregate
    {'x': {'P@1': 1.0}, 'y': {'P@1': 0.0}}

    trec_eval's preference and judgement-group measures read a judgement file
    (``judgments=``, by default the qrels file):
    ``evaluate("qrels.txt", "run.txt", ["PrefsSimp", "APAvgJG", "PAvgJG@10"])``.
    Expected exposure reads a stochastic run (``qid sample docno rank score`` lines, or
    ``{qid: [[docid, ...], ...]}``) and, for group fairness, ``groups=``:
    ``evaluate("qrels.txt", "samples.run", ["EE-L", "EE-D", "EE-R"], groups="groups.csv")``.
    """
    parsed = parse_measures(measures)
    if not parsed:
        raise MeasureError("no measure given: name at least one, e.g. ['nDCG@10', 'AP']")
    side = (judgments, costs, popularity, num_items, num_users, item_features, train, groups)
    found = _tiny_evaluate(
        qrels, run, tuple(parsed), (ties, queries, depth, duplicates), name, side
    )
    if found is not None:  # a small plain call: see ranklens.evaluation.tiny
        return found
    evaluator = Evaluator(
        qrels,
        parsed,
        ties=ties,
        queries=queries,
        depth=depth,
        duplicates=duplicates,
        judgments=judgments,
        costs=costs,
        popularity=popularity,
        num_items=num_items,
        num_users=num_users,
        item_features=item_features,
        train=train,
        groups=groups,
    )
    many = is_many_runs(run)
    if evaluator.answers is not None:  # {topic: text} is one run of answers
        from ranklens.evaluation.answers import is_many_answer_runs

        many = is_many_answer_runs(run)
    if evaluator.sampled is not None:  # {qid: [[docid, ...], ...]} is one stochastic run
        from ranklens.evaluation.sampled import is_many_sampled_runs

        many = is_many_sampled_runs(run)
    if many:
        if isinstance(name, str):
            raise OptionError("several runs take a list of names (name=[...]), not one name")
        runs = cast("Sequence[RunLike] | Mapping[str, RunLike]", run)
        return evaluator.evaluate_many(runs, None if name is None else list(name))
    if name is not None and not isinstance(name, str):
        raise OptionError("one run takes one name (name='...')")
    return evaluator.evaluate(run, name)
