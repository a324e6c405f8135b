r"""Citation measures of generated answers: support precision and recall from support
judgments (TREC 2024 RAG), and what the citations show without any judgment.

**Support** (Thakur et al., "Support Evaluation for the TREC 2024 RAG Track: Comparing
Human versus LLM Judges", SIGIR 2025, arXiv:2504.15205). Each (sentence, cited segment)
pair judged gets a weight :math:`w`: 1 full support, 1/2 partial support, 0 no support. A
pair is counted once however often the sentence cites the segment (the arrays hold each
pair once: :func:`ranklens.data.rag.view.support_arrays`).
For an answer with sentences :math:`S` and judged pairs :math:`J` (:math:`J_s` those of
sentence :math:`s`):

.. math::

    \mathrm{precision} = \frac{\sum_{(s, c) \in J} w_{sc}}{|J|}, \qquad
    \mathrm{recall} = \frac{\sum_{s \in S} \max_{c \in J_s} w_{sc}}{|S|}

(a sentence without a judged citation adds 0 to the recall; each is 0 when its
denominator is 0). A citation without a judgment (the track judged at most three per
sentence) is in neither. An unknown label follows ``unknown``: ``"zero"`` (weight 0,
counted; ``"error"`` refuses it before), or ``"ignore"`` (left out, as unjudged).

**Without judgments**, per answer: the share of sentences citing something, citations
per sentence, dangling citations (an index outside the references, or a segment that is
not among them), repeated references, and the answer's length in words.

>>> import numpy as np
>>> label = np.array([0, 1, 2, 4], dtype=np.int8)   # FS, PS, NS, unjudged
>>> sentence = np.array([0, 0, 1, 1])
>>> pairs, sentences = np.array([0, 4]), np.array([0, 3])   # 3 sentences, 1 topic
>>> support_precision(label, pairs, "zero").tolist()
[0.5]
>>> support_recall(label, sentence, pairs, sentences, "zero").tolist()
[0.3333333333333333]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array, Int64Array
from ranklens.kernels._util import safe_divide
from ranklens.kernels.options import CITATION_UNKNOWN_POLICIES

FULL, PARTIAL, NONE, UNKNOWN, UNJUDGED = 0, 1, 2, 3, 4
UNKNOWN_POLICIES = CITATION_UNKNOWN_POLICIES


def _weights(label: npt.NDArray[np.int8], unknown: str) -> tuple[Float64Array, Float64Array]:
    """Each pair's weight and whether it counts as judged."""
    if unknown not in UNKNOWN_POLICIES:
        raise MeasureError(f"unknown must be one of {list(UNKNOWN_POLICIES)}, not {unknown!r}")
    weight = np.where(label == FULL, 1.0, np.where(label == PARTIAL, 0.5, 0.0))
    judged = label <= (NONE if unknown == "ignore" else UNKNOWN)
    return weight, judged.astype(np.float64)


def _topic_of(offsets: Int64Array) -> Int64Array:
    return np.repeat(np.arange(offsets.shape[0] - 1, dtype=np.int64), np.diff(offsets))


def support_precision(
    label: npt.NDArray[np.int8], pair_offsets: Int64Array, unknown: str
) -> Float64Array:
    """Per topic: the weights of the judged (sentence, cited segment) pairs over their
    number (each pair once in ``label``)."""
    nq = pair_offsets.shape[0] - 1
    weight, judged = _weights(label, unknown)
    topic = _topic_of(pair_offsets)
    earned = np.bincount(topic, weights=weight * judged, minlength=nq)
    return safe_divide(earned, np.bincount(topic, weights=judged, minlength=nq))


def support_recall(
    label: npt.NDArray[np.int8],
    pair_sentence: Int64Array,
    pair_offsets: Int64Array,
    sentence_offsets: Int64Array,
    unknown: str,
) -> Float64Array:
    """Per topic: the best judged weight of each sentence, summed, over the sentences;
    ``pair_sentence`` numbers each pair's sentence within its topic (from 0)."""
    nq = sentence_offsets.shape[0] - 1
    weight, judged = _weights(label, unknown)
    topic = _topic_of(pair_offsets)
    global_sentence = sentence_offsets[topic] + pair_sentence
    best = np.zeros(int(sentence_offsets[-1]), dtype=np.float64)
    np.maximum.at(best, global_sentence, weight * judged)
    earned = np.bincount(_topic_of(sentence_offsets), weights=best, minlength=nq)
    return safe_divide(earned, np.diff(sentence_offsets))


def cited_share(citations: Int64Array, sentence_offsets: Int64Array) -> Float64Array:
    """Per topic: the share of sentences with at least one citation (0 without sentences)."""
    nq = sentence_offsets.shape[0] - 1
    cited = np.bincount(
        _topic_of(sentence_offsets), weights=(citations > 0).astype(np.float64), minlength=nq
    )
    return safe_divide(cited, np.diff(sentence_offsets))


def per_sentence(counts: Int64Array, sentence_offsets: Int64Array) -> Float64Array:
    """Per topic: the sentences' ``counts`` summed, over the number of sentences."""
    nq = sentence_offsets.shape[0] - 1
    total = np.bincount(
        _topic_of(sentence_offsets), weights=counts.astype(np.float64), minlength=nq
    )
    return safe_divide(total, np.diff(sentence_offsets))


def summed(counts: Int64Array, sentence_offsets: Int64Array) -> Float64Array:
    """Per topic: the sentences' ``counts`` summed."""
    nq = sentence_offsets.shape[0] - 1
    weights = counts.astype(np.float64)
    total: Float64Array = np.bincount(_topic_of(sentence_offsets), weights, nq).astype(np.float64)
    return total


def within_limit(words: Int64Array, limit: int) -> Float64Array:
    """1 where an answer has at most ``limit`` words, else 0."""
    return (words <= limit).astype(np.float64)
