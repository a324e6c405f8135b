"""Worked computations of the measures of generated answers
(:mod:`ranklens.measures.catalog_rag`) on one topic: a table of what the measure adds up
(nuggets, cited segments, gold answers, sentences) and the last step with the numbers, in
the :class:`~ranklens.presentation.explanation.model.Explanation` every explanation has
(the ``k`` column numbers the rows, ``doc`` names the nugget, segment, gold answer or
sentence; ``rel`` is empty). The value is the one :func:`ranklens.evaluate` gives.

>>> ex = explain_answers(
...     [{"qid": "q1", "nuggets": [
...         {"text": "a", "importance": "vital", "assignment": "support"},
...         {"text": "b", "importance": "okay", "assignment": "partial_support"}]}],
...     {"q1": "answer"}, "q1", ["NuggetWeighted"])[0]
>>> ex.column("credit"), ex.value
([1.0, 0.5], 0.8333333333333334)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens.base.errors import OptionError
from ranklens.data.rag.nuggets import ASSIGNMENT, IMPORTANCE
from ranklens.data.rag.support import SUPPORT_LABELS
from ranklens.evaluation.answers import Joined, join_answers
from ranklens.kernels import rag_nuggets as rn
from ranklens.kernels import rag_text as rt
from ranklens.measures.base import Measure
from ranklens.presentation.explanation.model import Cell, Explanation, Row

_SUPPORT_NAMES = {0: "full", 1: "partial", 2: "none", 3: "unknown", 4: "not judged"}


def explain_answers(
    judgments: Any,
    run: Any,
    query: str,
    measures: Sequence[str | Measure],
    *,
    queries: str = "qrels",
) -> tuple[Explanation, ...]:
    """The worked computation of each measure of answers on topic ``query`` of ``run``
    (judgments and run as :func:`ranklens.evaluate` takes them).

    Raises
    ------
    OptionError
        ``query`` is not an evaluated topic.
    """
    if not isinstance(query, str):
        raise OptionError(f"query must be a topic id (a string), not {query!r}")
    return explain_topics(judgments, run, [query], measures, queries=queries)[query]


def explain_topics(
    judgments: Any,
    run: Any,
    topics: Sequence[str],
    measures: Sequence[str | Measure],
    *,
    queries: str = "qrels",
) -> dict[str, tuple[Explanation, ...]]:
    """:func:`explain_answers` for several topics of one run (joined once)."""
    from ranklens.evaluation.evaluator import Evaluator

    evaluator = Evaluator(judgments, list(measures), queries=queries)  # type: ignore[arg-type]
    joined = join_answers(evaluator, run)
    view = joined.view
    values = [np.asarray(m.spec.kernel(view, **dict(m.items))) for m in evaluator.measures]
    out: dict[str, tuple[Explanation, ...]] = {}
    for query in topics:
        if query not in view.qids:
            shown = ", ".join(repr(q) for q in view.qids[:5])
            raise OptionError(
                f"topic {query!r} is not evaluated for run '{joined.run.name}' (topics: "
                f"{shown}{', ...' if len(view.qids) > 5 else ''})"
            )
        index = view.qids.index(query)
        made = []
        for m, column in zip(evaluator.measures, values, strict=True):
            made.append(_explain(m, joined, index, float(column[index])))
        out[query] = tuple(made)
    return out


def _explain(m: Measure, joined: Joined, index: int, value: float) -> Explanation:
    kind = m.spec.judgments
    if kind == "assignments":
        return _nuggets(m, joined, index, value)
    if kind == "support":
        return _support(m, joined, index, value)
    if kind == "gold":
        return _gold(m, joined, index, value)
    if kind == "segments":
        return _coverage(m, joined, index, value)
    return _citations(m, joined, index, value)


def _explanation(
    m: Measure,
    joined: Joined,
    index: int,
    family: str,
    columns: tuple[str, ...],
    rows: Sequence[tuple[str, tuple[Cell, ...]]],
    result: tuple[Cell, ...],
    summary: tuple[tuple[Cell, ...], ...],
    quantities: tuple[tuple[str, float], ...],
    value: float,
) -> Explanation:
    return Explanation(
        measure=m.name,
        family=family,
        query=joined.view.qids[index],
        run=joined.run.name,
        formula=m.spec.formula,
        columns=columns,
        rows=tuple(Row(k + 1, doc, None, None, cells) for k, (doc, cells) in enumerate(rows)),
        result=result,
        summary=summary,
        quantities=quantities,
        value=value,
    )


def _label(value: object) -> str:
    return value if isinstance(value, str) else repr(value)


def _nuggets(m: Measure, joined: Joined, index: int, value: float) -> Explanation:
    arrays = joined.view.nuggets
    if arrays is None:  # the evaluator builds them for every nugget measure
        raise OptionError(f"{m.name}: no nugget assignments were read")
    start, stop = int(arrays.offsets[index]), int(arrays.offsets[index + 1])
    imp, asg = arrays.importance[start:stop], arrays.assignment[start:stop]
    nuggets = m.spec.name.removeprefix("Nugget").removesuffix("Strict").lower()
    strict = m.spec.name.endswith("Strict")
    weight = rn.weights(imp, nuggets) * rn.kept(imp, asg, str(m["unknown"]))
    credit = rn.credits(asg, strict)
    topic = joined.view.qids[index]
    judged = joined.per_run["assignments"]
    listed = judged[topic] if topic in judged.qids else None
    nuggets_file = joined.judgments.nuggets
    if listed is None and nuggets_file is not None and topic in nuggets_file.qids:
        listed = nuggets_file[topic]
    texts = listed.texts if listed is not None else ()
    rows = []
    for i in range(stop - start):
        imp_label = _label(listed.importance[i]) if listed is not None else IMPORTANCE[int(imp[i])]
        asg_label = (
            _label(listed.assignment[i])
            if listed is not None and listed.assignment is not None
            else ASSIGNMENT[2]
        )
        rows.append(
            (
                texts[i] if i < len(texts) else f"nugget {i + 1}",
                (
                    imp_label,
                    asg_label,
                    float(weight[i]),
                    float(credit[i]),
                    float(weight[i] * credit[i]),
                ),
            )
        )
    earned, possible = float((weight * credit).sum()), float(weight.sum())
    notes: list[tuple[Cell, ...]] = [
        (
            "credit: support 1, partial_support",
            "0 (strict)" if strict else "1/2",
            ", anything else 0",
        ),
    ]
    if m["unknown"] == "ignore":
        notes.append(("nuggets with a label outside the defined sets weigh 0 (ignored)",))
    if listed is None or topic not in judged:
        notes.append(("the run does not answer this topic: no nugget is supported",))
    return _explanation(
        m,
        joined,
        index,
        "nuggets",
        ("importance", "assignment", "weight", "credit", "weight x credit"),
        rows,
        (f"{m.name} =", earned, "/", possible, "=", value),
        tuple(notes),
        (("earned", earned), ("possible", possible)),
        value,
    )


def _support(m: Measure, joined: Joined, index: int, value: float) -> Explanation:
    arrays = joined.view.support
    if arrays is None:
        raise OptionError(f"{m.name}: no support judgments were read")
    start, stop = int(arrays.pair_offsets[index]), int(arrays.pair_offsets[index + 1])
    answer = joined.view.answers[index]
    segments = [c for cited in answer.cited for c in cited]
    policy = str(m["unknown"])
    rows = []
    weights = []
    judged = []
    for k in range(stop - start):
        code = int(arrays.label[start + k])
        counts = code <= (2 if policy == "ignore" else 3)
        w = {0: 1.0, 1: 0.5}.get(code, 0.0) if counts else 0.0
        weights.append(w)
        judged.append(counts)
        rows.append(
            (
                segments[k],
                (int(arrays.pair_sentence[start + k]) + 1, _SUPPORT_NAMES[code], w, counts),
            )
        )
    if m.spec.name == "SupportPrecision":
        total, n = sum(w for w, j in zip(weights, judged, strict=True) if j), sum(judged)
        result: tuple[Cell, ...] = (f"{m.name} =", total, "/", n, "judged citations =", value)
        quantities = (("sum", total), ("judged", float(n)))
    else:
        best: dict[int, float] = {}
        for k, (w, j) in enumerate(zip(weights, judged, strict=True)):
            if j:
                s = int(arrays.pair_sentence[start + k])
                best[s] = max(best.get(s, 0.0), w)
        total, n = sum(best.values()), len(answer.sentences)
        result = (f"{m.name} =", total, "/", n, "sentences =", value)
        quantities = (("sum of best", total), ("sentences", float(n)))
    return _explanation(
        m,
        joined,
        index,
        "support",
        ("sentence", "support", "w", "judged"),
        rows,
        result,
        (("w: full support 1, partial 1/2, none 0; labels:", ", ".join(SUPPORT_LABELS)),),
        quantities,
        value,
    )


def _gold(m: Measure, joined: Joined, index: int, value: float) -> Explanation:
    gold = joined.view.gold[index] if joined.view.gold is not None else None
    answer = joined.view.texts[index]
    name = m.spec.name
    rows: list[tuple[str, tuple[Cell, ...]]] = []
    if gold is None:
        return _explanation(
            m,
            joined,
            index,
            "gold",
            ("score",),
            [],
            (f"{m.name} =", value),
            (("this topic has no gold answers: 0",),),
            (),
            value,
        )
    if name in ("EM", "TokenF1", "F1"):
        kept = [g for g in gold if rt.squad_normalize(g)] or [""]
        mine = rt.squad_tokens(answer)
        for g in kept:
            score = (
                float(rt.squad_normalize(g) == rt.squad_normalize(answer))
                if name == "EM"
                else float(rt.token_f1([answer], [(g,)])[0])
            )
            rows.append((g, (rt.squad_normalize(g), score)))
        note = f"the answer normalised: {' '.join(mine)!r}"
        return _explanation(
            m,
            joined,
            index,
            "gold",
            ("normalised", "score"),
            rows,
            (f"{m.name} = max =", value),
            ((note,),),
            (("best", value),),
            value,
        )
    kind = name.removeprefix("ROUGE-")
    stemmer = rt.porter_stemmer() if m["stem"] else None
    tokens = rt.rouge_tokens(answer, stemmer)
    for g in gold or ("",):
        p, r, f = rt.rouge_pair(rt.rouge_tokens(g, stemmer), tokens, kind)
        rows.append((g, (p, r, f)))
    return _explanation(
        m,
        joined,
        index,
        "gold",
        ("P", "R", "F"),
        rows,
        (f"{m.name} (the gold answer with the best F, stat {m['stat']!r}) =", value),
        ((f"the answer's tokens: {' '.join(tokens)}",),),
        (("value", value),),
        value,
    )


def _citations(m: Measure, joined: Joined, index: int, value: float) -> Explanation:
    answer = joined.view.answers[index]
    rows = [
        (
            sentence,
            (len(cites), sum(1 for c in cites if c < 0), bool(cites), len(sentence.split())),
        )
        for sentence, cites in zip(answer.sentences, answer.citations, strict=True)
    ]
    notes: tuple[tuple[Cell, ...], ...] = (
        (f"references: {len(answer.references)}, distinct: {len(set(answer.references))}",),
    )
    return _explanation(
        m,
        joined,
        index,
        "citations",
        ("citations", "dangling", "cites", "words"),
        rows,
        (f"{m.name} =", value),
        notes,
        (("value", value),),
        value,
    )


def _coverage(m: Measure, joined: Joined, index: int, value: float) -> Explanation:
    arrays = joined.view.coverage
    if arrays is None:
        raise OptionError(f"{m.name}: no nugget assignments to segments were read")
    start, stop = int(arrays.offsets[index]), int(arrays.offsets[index + 1])
    topic = joined.view.qids[index]
    segments = joined.judgments.segments
    texts = segments[topic].texts if segments is not None and topic in segments else ()
    never = np.iinfo(np.int64).max
    rows = []
    for i in range(stop - start):
        rank, partial = int(arrays.rank[start + i]), int(arrays.partial_rank[start + i])
        rows.append(
            (
                texts[i] if i < len(texts) else f"nugget {i + 1}",
                (
                    IMPORTANCE[int(arrays.importance[start + i])]
                    if int(arrays.importance[start + i]) < 2
                    else "other",
                    None if rank == never else rank,
                    None if partial == never else partial,
                ),
            )
        )
    return _explanation(
        m,
        joined,
        index,
        "coverage",
        ("importance", "first full support at", "first partial support at"),
        rows,
        (f"{m.name} =", value),
        (("ranks among the answer's references, a repeated one counted once",),),
        (("value", value),),
        value,
    )
