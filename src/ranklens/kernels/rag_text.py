r"""Answer measures against gold answers: exact match and token F1 with SQuAD's
normalisation, and ROUGE-1, ROUGE-2 and ROUGE-L as Google's ``rouge-score`` package
computes them.

**Exact match and F1** (Rajpurkar et al. 2016, 2018; the SQuAD 2.0 evaluation script).
A text is normalised by lower-casing it, removing ASCII punctuation, removing the
articles *a*, *an*, *the* (as words) and collapsing white space; its tokens are the
normalised text split on white space. EM is 1 when the normalised answer equals a
normalised gold answer; F1 is the harmonic mean of token precision and recall over the
multiset of common tokens (1 when both token lists are empty, 0 when one is). Each takes
the best over the gold answers; gold answers that normalise to nothing are dropped, and a
topic left without any (an unanswerable question) has the single gold answer ``""``.

**ROUGE** (Lin 2004, as ``rouge_score.rouge_scorer.RougeScorer(..., use_stemmer=True)``
and its ``score_multi``). Tokens: the lower-cased text with every run of characters other
than ``a-z0-9`` replaced by a space, split on white space, each token longer than three
characters stemmed by NLTK's Porter stemmer (``stem=True``), empty tokens dropped.
ROUGE-N counts the n-grams two token lists share (with multiplicity): precision over the
answer's n-grams, recall over the gold answer's (each denominator at least 1); ROUGE-L
uses the length of their longest common subsequence (0 when either list is empty). F is
:math:`2PR / (P + R)` (0 when :math:`P + R = 0`). Over several gold answers the one with
the highest F (the first of equals) gives P, R and F.

>>> exact_match(["The Eiffel Tower!"], [("eiffel tower",)]).tolist()
[1.0]
>>> token_f1(["in Paris, France"], [("Paris",)]).tolist()
[0.5]
>>> rouge(["the cat sat"], [("the cat sat on the mat",)], "L", "p", stem=False).tolist()
[1.0]
"""

from __future__ import annotations

import importlib
import re
import string
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ranklens.base.errors import MeasureError, MissingDependencyError
from ranklens.base.types import Float64Array
from ranklens.kernels.options import ROUGE_STATS

_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_NON_ALPHANUMERIC = re.compile(r"[^a-z0-9]+")
_SPACES = re.compile(r"\s+")
_VALID = re.compile(r"^[a-z0-9]+$")
STATS = ROUGE_STATS
"""ROUGE's statistics: F, precision, recall."""
Gold = Sequence[str] | None
"""A topic's gold answers; ``None`` for a topic without any (not judged: every value 0)."""


# --- SQuAD ------------------------------------------------------------------------------


def squad_normalize(text: str) -> str:
    """SQuAD's normalisation: lower case, no punctuation, no articles, single spaces.

    >>> squad_normalize("  The  Cat's   hat! ")
    'cats hat'
    """
    lowered = text.lower()
    unpunctuated = "".join(ch for ch in lowered if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", unpunctuated).split())


def squad_tokens(text: str) -> list[str]:
    """The normalised text's tokens (none for an empty text)."""
    return squad_normalize(text).split() if text else []


def _golds(gold: Sequence[str]) -> list[str]:
    """The gold answers that normalise to something, or ``[""]`` when none does."""
    kept = [g for g in gold if squad_normalize(g)]
    return kept or [""]


def _f1(gold_tokens: list[str], answer_tokens: list[str]) -> float:
    if not gold_tokens or not answer_tokens:
        return float(gold_tokens == answer_tokens)
    common = sum((Counter(gold_tokens) & Counter(answer_tokens)).values())
    if common == 0:
        return 0.0
    precision = common / len(answer_tokens)
    recall = common / len(gold_tokens)
    return (2 * precision * recall) / (precision + recall)


def exact_match(answers: Sequence[str], gold: Sequence[Gold]) -> Float64Array:
    """Per topic: 1 if the normalised answer equals a normalised gold answer, else 0."""
    out = np.zeros(len(answers), dtype=np.float64)
    for i, (answer, golds) in enumerate(zip(answers, gold, strict=True)):
        if golds is None:
            continue
        mine = squad_normalize(answer)
        out[i] = float(any(squad_normalize(g) == mine for g in _golds(golds)))
    return out


def token_f1(answers: Sequence[str], gold: Sequence[Gold]) -> Float64Array:
    """Per topic: the best token F1 of the answer against a gold answer."""
    out = np.zeros(len(answers), dtype=np.float64)
    for i, (answer, golds) in enumerate(zip(answers, gold, strict=True)):
        if golds is None:
            continue
        mine = squad_tokens(answer)
        out[i] = max(_f1(squad_tokens(g), mine) for g in _golds(golds))
    return out


# --- ROUGE ------------------------------------------------------------------------------


def porter_stemmer() -> Callable[[str], str]:
    """NLTK's Porter stemmer (its default mode, as ``rouge-score`` uses it), imported on
    first use.

    Raises
    ------
    MissingDependencyError
        NLTK is not installed.
    """
    try:
        porter: Any = importlib.import_module("nltk.stem.porter")  # untyped
    except ImportError as exc:
        raise MissingDependencyError(
            "ROUGE with stemming needs the optional package 'nltk' (the Porter stemmer that "
            "rouge-score uses), which is not installed: pip install \"ranklens[rag]\"; or "
            "give stem=False, e.g. ROUGE-L(stem=False)"
        ) from exc
    stem: Callable[[str], str] = porter.PorterStemmer().stem
    return stem


def rouge_tokens(text: str, stem: Callable[[str], str] | None) -> list[str]:
    """``rouge-score``'s tokens of ``text`` (module docstring).

    >>> rouge_tokens("The U.S.A. -- 2nd time!", None)
    ['the', 'u', 's', 'a', '2nd', 'time']
    """
    spaced = _NON_ALPHANUMERIC.sub(" ", text.lower())
    tokens = _SPACES.split(spaced)
    if stem is not None:
        tokens = [stem(t) if len(t) > 3 else t for t in tokens]
    return [t for t in tokens if _VALID.match(t)]


def _ngrams(tokens: list[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _fmeasure(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def _lcs_length(a: list[str], b: list[str]) -> int:
    """The length of the longest common subsequence (one row of the table at a time)."""
    if len(b) > len(a):
        a, b = b, a
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b, 1):
            current.append(previous[j - 1] + 1 if x == y else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


def rouge_pair(gold: list[str], answer: list[str], kind: str) -> tuple[float, float, float]:
    """(precision, recall, F) of ``answer``'s tokens against ``gold``'s; ``kind`` is
    ``"1"``, ``"2"`` (n-grams) or ``"L"`` (longest common subsequence)."""
    if kind == "L":
        if not gold or not answer:
            return 0.0, 0.0, 0.0
        lcs = _lcs_length(gold, answer)
        precision, recall = lcs / len(answer), lcs / len(gold)
        return precision, recall, _fmeasure(precision, recall)
    n = int(kind)
    gold_grams, answer_grams = _ngrams(gold, n), _ngrams(answer, n)
    shared = sum(min(count, answer_grams[g]) for g, count in gold_grams.items())
    precision = shared / max(sum(answer_grams.values()), 1)
    recall = shared / max(sum(gold_grams.values()), 1)
    return precision, recall, _fmeasure(precision, recall)


def rouge(
    answers: Sequence[str], gold: Sequence[Gold], kind: str, stat: str, stem: bool = True
) -> Float64Array:
    """Per topic: ROUGE-``kind`` (``"1"``, ``"2"``, ``"L"``) statistic ``stat`` (``"f"``,
    ``"p"``, ``"r"``) of the answer against the gold answer with the best F."""
    if kind not in ("1", "2", "L"):
        raise MeasureError(f"ROUGE kind must be '1', '2' or 'L', not {kind!r}")
    if stat not in STATS:
        raise MeasureError(f"stat must be one of {list(STATS)}, not {stat!r}")
    stemmer = _cached(porter_stemmer()) if stem else None
    column = {"p": 0, "r": 1, "f": 2}[stat]
    out = np.zeros(len(answers), dtype=np.float64)
    for i, (answer, golds) in enumerate(zip(answers, gold, strict=True)):
        if golds is None:
            continue
        mine = rouge_tokens(answer, stemmer)
        best: tuple[float, float, float] | None = None
        for g in golds or ("",):
            scored = rouge_pair(rouge_tokens(g, stemmer), mine, kind)
            if best is None or scored[2] > best[2]:
                best = scored
        out[i] = best[column] if best is not None else 0.0
    return out


def _cached(stem: Callable[[str], str]) -> Callable[[str], str]:
    """``stem`` remembering its answers for one call of :func:`rouge` (words repeat)."""
    seen: dict[str, str] = {}

    def cached(word: str) -> str:
        found = seen.get(word)
        if found is None:
            found = seen[word] = stem(word)
        return found

    return cached


def answer_words(answers: Sequence[str]) -> Float64Array:
    """Per topic: the answer's number of words (white-space separated)."""
    return np.array([len(a.split()) for a in answers], dtype=np.float64)
