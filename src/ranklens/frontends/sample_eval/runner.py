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

Deliberate differences: each line must have its 5 (qrels) or 6 (run) fields, where
sample_eval reads the file as one stream of words and silently shifts; a run without a
topic in the qrels is an error (sample_eval divides by zero).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ranklens.base.errors import InputError, ParseError
from ranklens.data.source import read_bytes
from ranklens.frontends.gdeval.runner import perl_number

MAX_RESULT_SIZE = 1000
PRECISION_RANKS = (10, 50, MAX_RESULT_SIZE)
RECALL_LEVELS = ("0", ".1", ".2", ".3", ".4", ".5", ".6", ".7", ".8", ".9", "1")


@dataclass
class _Topic:
    """One qrels topic: judgments and the per-stratum counts."""

    rel: dict[bytes, float] = field(default_factory=dict)  # docno -> judgment (last line)
    stratum: dict[bytes, bytes] = field(default_factory=dict)  # docno -> stratum (last line)
    docs: dict[bytes, int] = field(default_factory=dict)  # stratum -> pooled lines
    sampled: dict[bytes, int] = field(default_factory=dict)  # stratum -> judged lines
    relevant: dict[bytes, int] = field(default_factory=dict)  # stratum -> relevant lines
    per_grade: dict[bytes, dict[bytes, int]] = field(default_factory=dict)  # stratum -> grade
    num_rel: float = 0.0
    optimal_dcg: float = 0.0

    def strata(self) -> list[bytes]:
        """The strata in sample_eval's order (string order of their labels)."""
        return sorted(self.docs)


@dataclass
class _Measures:
    ap: float
    ndcg: float
    precision: list[float]
    num_rel_ret: float
    num_rel: float
    num_ret: int
    rel_at_rank: list[float]  # estimated relevant retrieved up to each rank


def _lines(source: object) -> tuple[list[bytes], str]:
    data, name = read_bytes(source)
    return data.splitlines(), name


def _read_qrels(source: object) -> dict[bytes, _Topic]:
    lines, name = _lines(source)
    topics: dict[bytes, _Topic] = {}
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 5:
            raise ParseError(
                "expected 'topic 0 docno stratum judgment' (5 fields): sample_eval reads "
                "stratified qrels; give ordinary qrels to 'ranklens eval'",
                path=name,
                line=number,
            )
        topic, _, docno, stratum, judgment = fields
        try:
            grade = float(judgment)
        except ValueError:
            raise ParseError(
                f"the judgment {judgment.decode(errors='replace')!r} is not a number",
                path=name,
                line=number,
            ) from None
        if not math.isfinite(grade):
            raise ParseError("the judgment must be a finite number", path=name, line=number)
        entry = topics.setdefault(topic, _Topic())
        entry.rel[docno] = grade
        entry.stratum[docno] = stratum
        entry.docs[stratum] = entry.docs.get(stratum, 0) + 1
        if grade >= 0:
            entry.sampled[stratum] = entry.sampled.get(stratum, 0) + 1
        if grade > 0:
            key = judgment  # sample_eval keys grades by their text
            grades = entry.per_grade.setdefault(stratum, {})
            grades[key] = grades.get(key, 0) + 1
            entry.relevant[stratum] = entry.relevant.get(stratum, 0) + 1
    for entry in topics.values():
        _estimate(entry)
    return topics


def _estimate(entry: _Topic) -> None:
    """The estimated number of relevant documents and the ideal DCG of one topic."""
    for stratum in entry.strata():
        sampled = entry.sampled.get(stratum, 0)
        if sampled != 0:
            entry.num_rel += entry.relevant.get(stratum, 0) * entry.docs[stratum] / sampled
    per_grade: dict[bytes, float] = {}
    for stratum in entry.strata():
        for grade in sorted(entry.per_grade.get(stratum, {})):
            count = entry.per_grade[stratum][grade]
            per_grade[grade] = per_grade.get(grade, 0.0) + (
                count * entry.docs[stratum] / entry.sampled[stratum]
            )
    start = 0
    for grade in sorted(per_grade, reverse=True):
        value = perl_number(grade)
        documents = int(per_grade[grade] + 0.5)
        for r in range(start + 1, start + documents + 1):
            entry.optimal_dcg += value / (math.log(r + 1) / math.log(2))
            if r >= MAX_RESULT_SIZE:
                break
        start += documents


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


def _smoothed(weight: float, relevant: int, sampled: int) -> float:
    """``weight * (relevant + 1e-5) / (sampled + 3e-5)``, in sample_eval's order of operations."""
    return weight * (relevant + 0.00001) / (sampled + 0.00003)


def _evaluate_topic(entry: _Topic, scores: dict[bytes, float], num_ret: int) -> _Measures:
    strata = entry.strata()
    docs_above = dict.fromkeys(strata, 0)
    sampled_above = dict.fromkeys(strata, 0)
    relevant_above = dict.fromkeys(strata, 0)
    gain = dict.fromkeys(strata, 0.0)
    precision_sum = dict.fromkeys(strata, 0.0)
    pooled_above = 0
    order = sorted(scores, reverse=True)  # docno descending, then (stable) score descending
    order.sort(key=lambda doc: -scores[doc] if not math.isnan(scores[doc]) else 0.0)
    rel_at_rank: list[float] = []
    precision: dict[int, float] = {}
    for rank, doc in enumerate(order[:MAX_RESULT_SIZE], 1):
        grade = entry.rel.get(doc, -1.0)
        stratum = entry.stratum.get(doc)
        if grade > 0 and stratum is not None:
            above = 0.0
            for s in strata:
                if pooled_above != 0:
                    share = docs_above[s] / pooled_above
                    if share != 0:
                        above += _smoothed(share, relevant_above[s], sampled_above[s])
            precision_sum[stratum] += 1 / rank + (pooled_above / rank) * above
            relevant_above[stratum] += 1
            gain[stratum] += grade / (math.log(rank + 1) / math.log(2))
        if stratum is not None:
            pooled_above += 1
            docs_above[stratum] += 1
            if grade >= 0:
                sampled_above[stratum] += 1
        estimate = 0.0
        for s in strata:
            estimate += _smoothed(docs_above[s], relevant_above[s], sampled_above[s])
        rel_at_rank.append(estimate)
        if rank in PRECISION_RANKS:
            precision[rank] = estimate / rank
    num_rel_ret = rel_at_rank[-1] if rel_at_rank else 0.0
    cut_precision = [precision.get(k, num_rel_ret / k) for k in PRECISION_RANKS]
    ap = 0.0
    for s in strata:
        sampled = entry.sampled.get(s, 0)
        if sampled != 0:
            relevant = entry.relevant.get(s, 0)
            estimated = relevant * entry.docs[s] / sampled
            if entry.num_rel != 0:
                share = estimated / entry.num_rel
                within = precision_sum[s] / relevant if relevant != 0 else 0.0
                ap += share * within
    dcg = 0.0
    for s in strata:
        if pooled_above != 0:
            share = docs_above[s] / pooled_above
            if sampled_above[s] != 0:
                dcg += share * gain[s] / sampled_above[s]
    ndcg = pooled_above * dcg / entry.optimal_dcg if entry.optimal_dcg != 0 else 0.0
    return _Measures(ap, ndcg, cut_precision, num_rel_ret, entry.num_rel, num_ret, rel_at_rank)


def _interpolated(m: _Measures) -> list[float]:
    """The 11-point interpolated precision of one topic, as sample_eval sums it."""
    cutoffs = [float(level) * m.num_rel for level in RECALL_LEVELS]
    points = [0.0] * len(cutoffs)
    best = 0.0
    current = len(cutoffs) - 1
    while current >= 0 and cutoffs[current] > m.num_rel_ret:
        current -= 1
    for rank in range(len(m.rel_at_rank), 0, -1):
        value = m.rel_at_rank[rank - 1]
        best = max(best, value / rank)
        if current >= 0 and cutoffs[current] > value:
            points[current] += best
            current -= 1
    while current >= 0:
        points[current] += best
        current -= 1
    return points


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
        for i, value in enumerate(_interpolated(topics[name])):
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
