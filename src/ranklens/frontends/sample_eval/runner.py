r"""``sample_eval [-q] qrels run``: NIST sample_eval.pl's output (inferred measures from
stratified sampled judgments; Yilmaz, Kanoulas and Aslam, SIGIR 2008), byte for byte.

The qrels are ``topic 0 docno stratum judgment``: the pool of each topic is split into
strata, a random sample of each stratum is judged, and a pooled document that was not
sampled has judgment ``-1`` (any negative judgment). For a topic with strata :math:`s`,
:math:`N_s` pooled and :math:`n_s` sampled documents of which :math:`r_s` are relevant:

* the estimated number of relevant documents :math:`\hat R = \sum_s r_s N_s / n_s`
  (``inum_rel``);
* **xinfAP** (printed ``infAP``): at each relevant sampled document at rank :math:`k`, the
  estimated precision :math:`1/k + ((k - 1)/k) \sum_s (d_s / d)(\rho_s + 10^{-5})/(\sigma_s
  + 3 \cdot 10^{-5})` from the pooled documents above it (:math:`d` of them, :math:`d_s`
  in stratum :math:`s`, :math:`\sigma_s` sampled and :math:`\rho_s` relevant), where the
  :math:`k - 1` is sample_eval's count :math:`d` of pooled documents above; per stratum the
  mean over its relevant sampled documents (retrieved or not), weighted by the stratum's
  share :math:`(r_s N_s / n_s)/\hat R`;
* **infNDCG**: the DCG (gain = grade, discount :math:`\log_2(k + 1)`) of each stratum's
  sampled retrieved documents, scaled to the stratum and divided by the ideal DCG built
  from the estimated number of documents of each grade (rounded to whole documents, capped
  at rank 1000 as sample_eval does);
* **iP@k** (``iP10``, ``iP50``, ``iP1000``) and the interpolated precision at the 11
  recall levels: from the estimated number of relevant documents retrieved up to each
  rank, :math:`\sum_s d_s (\rho_s + 10^{-5})/(\sigma_s + 3 \cdot 10^{-5})`
  (``inum_rel_ret`` at the last rank): a stratum with nothing sampled above a rank is
  smoothed to 1/3.

What sample_eval does, reproduced: at most 1000 documents a topic are read (``num_ret``
counts every line); documents are ordered by score descending, then docno descending; a run
topic loses its leading zeros and topics are taken in numeric order, a topic the qrels lack
is skipped; a document retrieved twice keeps its last score; a document judged twice keeps
its last judgment while both lines count in their strata; ``inum_rel`` of ``all`` sums over
every qrels topic; a topic whose sample holds no relevant document has infAP and infNDCG 0.
Values are printed ``%6.4f`` (counts ``%14.4f`` and ``%9d``).

The qrels are read by :func:`ranklens.data.strata.read_strata` and the estimates computed by
:mod:`ranklens.kernels.sampled`, the arithmetic that the sampled measures of the language
(``xinfAP``, ``infNDCG``, ``infP@k``, ...) share; this module orders the run, reads it as
sample_eval does and prints.

Deliberate differences: each line must have its 5 (qrels) or 6 (run) fields, where
sample_eval reads the file as one stream of words and silently shifts; a run without a
topic in the qrels is an error (sample_eval divides by zero).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ranklens.base.errors import InputError, ParseError
from ranklens.data.source import read_bytes
from ranklens.data.strata import StrataTopic, read_strata
from ranklens.frontends.gdeval.runner import perl_number
from ranklens.kernels.sampled import (
    MAX_RESULT_SIZE,
    RECALL_LEVELS,
    SampledValues,
    estimated_relevant,
    ideal_dcg,
    interpolated_points,
    precision_at,
    topic_values,
)

PRECISION_RANKS = (10, 50, MAX_RESULT_SIZE)


@dataclass
class _Measures:
    ap: float
    ndcg: float
    precision: list[float]
    num_rel_ret: float
    num_rel: float
    num_ret: int
    rel_at_rank: list[float]  # estimated relevant retrieved up to each rank
    values: SampledValues


@dataclass(frozen=True)
class _Judged:
    """A qrels topic with its estimated relevant count and ideal DCG (computed once)."""

    entry: StrataTopic
    num_rel: float
    optimal_dcg: float


def _lines(source: object) -> tuple[list[bytes], str]:
    data, name = read_bytes(source)
    return data.splitlines(), name


def _read_qrels(source: object) -> dict[bytes, _Judged]:
    topics = read_strata(source).topics
    return {
        topic: _Judged(entry, estimated_relevant(entry), ideal_dcg(entry))
        for topic, entry in topics.items()
    }


def _read_run(source: object) -> dict[bytes, tuple[dict[bytes, float], int]]:
    lines, name = _lines(source)
    topics: dict[bytes, tuple[dict[bytes, float], int]] = {}
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 6:
            raise ParseError(
                "expected 'topic Q0 docno rank score runid' (6 fields)", path=name, line=number
            )
        topic = fields[0].lstrip(b"0")
        scores, count = topics.get(topic, ({}, 0))
        scores[fields[2]] = perl_number(fields[4])
        topics[topic] = (scores, count + 1)
    return topics


def _evaluate_topic(judged: _Judged, scores: dict[bytes, float], num_ret: int) -> _Measures:
    order = sorted(scores, reverse=True)  # docno descending, then (stable) score descending
    order.sort(key=lambda doc: -scores[doc] if not math.isnan(scores[doc]) else 0.0)
    values = topic_values(
        judged.entry, order, num_rel=judged.num_rel, optimal_dcg=judged.optimal_dcg
    )
    precision = [precision_at(values, k) for k in PRECISION_RANKS]
    return _Measures(
        values.ap,
        values.ndcg,
        precision,
        values.num_rel_ret,
        values.num_rel,
        num_ret,
        values.rel_at_rank,
        values,
    )


def _topic_sort_key(topic: bytes) -> float:
    return perl_number(topic)


@dataclass(frozen=True)
class SampleEvalResult:
    """Per topic and over all topics, what sample_eval prints."""

    topics: dict[str, _Measures]
    interpolated: list[float]
    num_rel_all: float
    num_ret_all: int


def sample_eval_values(qrels: object, run: object) -> SampleEvalResult:
    """The unrounded values of :func:`run_sample_eval`."""
    judged = _read_qrels(qrels)
    retrieved = _read_run(run)
    topics: dict[str, _Measures] = {}
    interpolated = [0.0] * len(RECALL_LEVELS)
    num_ret_all = 0
    for topic in sorted(retrieved, key=_topic_sort_key):
        if topic not in judged:
            continue
        scores, lines = retrieved[topic]
        m = _evaluate_topic(judged[topic], scores, lines)
        topics[topic.decode("utf-8", errors="surrogateescape")] = m
        num_ret_all += len(m.rel_at_rank)
    # sample_eval sums the interpolated points over its topics in string order
    for name in sorted(topics, key=lambda t: t.encode("utf-8", errors="surrogateescape")):
        for i, value in enumerate(interpolated_points(topics[name].values)):
            interpolated[i] += value
    num_rel_all = 0.0
    for judged_topic in sorted(judged):
        num_rel_all += judged[judged_topic].num_rel
    return SampleEvalResult(topics, interpolated, num_rel_all, num_ret_all)


def run_sample_eval(qrels: object, run: object, per_topic: bool = False) -> str:
    """sample_eval.pl's output for ``run`` against stratified ``qrels`` (``-q``:
    ``per_topic``).

    Examples
    --------
    >>> import io
    >>> qrels = io.BytesIO(b"1 0 a 1 1\\n1 0 b 1 0\\n1 0 c 2 -1\\n1 0 d 2 1\\n")
    >>> run = io.BytesIO(b"1 Q0 a 1 3 r\\n1 Q0 c 2 2 r\\n1 Q0 d 3 1 r\\n")
    >>> run_sample_eval(qrels, run).splitlines()[0].split()
    ['infAP', 'all', '0.8518']
    """
    res = sample_eval_values(qrels, run)
    count = len(res.topics)
    if count == 0:
        raise InputError(
            "no run topic is in the qrels: nothing to evaluate (sample_eval would divide by "
            "zero); check that the files belong together"
        )
    out: list[str] = []
    sums = [0.0, 0.0, 0.0, 0.0, 0.0]
    precision_sums = [0.0] * len(PRECISION_RANKS)
    for topic, m in res.topics.items():
        if per_topic:
            out.append(f"infAP\t\t{topic}\t\t{m.ap:6.4f}\n")
            out.append(f"infNDCG\t\t{topic}\t\t{m.ndcg:6.4f}\n")
            for k, value in zip(PRECISION_RANKS, m.precision, strict=True):
                out.append(f"iP{k}\t\t{topic}\t\t{value:6.4f}\n")
            out.append(f"inum_rel_ret\t{topic}\t{m.num_rel_ret:14.4f}\n")
            out.append(f"inum_rel\t{topic}\t{m.num_rel:14.4f}\n")
            out.append(f"num_ret\t\t{topic}\t{m.num_ret:9d}\n")
        sums[0] += m.ap
        sums[1] += m.ndcg
        sums[2] += m.num_rel_ret
        for i, value in enumerate(m.precision):
            precision_sums[i] += value
    out.append(f"infAP\t\tall\t\t{sums[0] / count:6.4f}\n")
    out.append(f"infNDCG\t\tall\t\t{sums[1] / count:6.4f}\n")
    for i, total in enumerate(res.interpolated):
        out.append(f"iprec@rec{i / 10:4.2f}\tall\t\t{total / count:6.4f}\n")
    for k, total in zip(PRECISION_RANKS, precision_sums, strict=True):
        out.append(f"iP{k}\t\tall\t\t{total / count:6.4f}\n")
    out.append(f"inum_rel_ret\tall\t{sums[2]:14.4f}\n")
    out.append(f"inum_rel\tall\t{res.num_rel_all:14.4f}\n")
    out.append(f"num_ret\t\tall\t{res.num_ret_all:9d}\n")
    return "".join(out)
