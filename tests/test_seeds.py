"""The founding documents' worked examples (tests/data/seeds, copied from the project's shared folder) for the core measures.

Each test names its source; values are the mathematically correct ones (see
tests/data/seeds/ERRATA.md where the document's arithmetic slips).
"""

from __future__ import annotations

import math

import pytest

import ranklens


def ranking(labels: list[int], extra_relevant: int = 0) -> tuple[dict, dict]:
    """Qrels and run for one query ranking documents with ``labels`` in order.

    ``extra_relevant`` relevant documents exist in the qrels but are not retrieved.
    """
    docs = [f"d{i}" for i in range(len(labels))]
    qrels = {"q": dict(zip(docs, labels, strict=True))}
    qrels["q"].update({f"missing{i}": 1 for i in range(extra_relevant)})
    run = {"q": {d: float(len(docs) - i) for i, d in enumerate(docs)}}
    return qrels, run


def values(labels: list[int], measures: list[str], extra_relevant: int = 0) -> dict[str, float]:
    qrels, run = ranking(labels, extra_relevant)
    return ranklens.evaluate(qrels, run, measures).aggregate


class TestSeed000BinaryExample:
    """000 "Problem Setup 1": relevant at ranks 1, 3 and 5 of 5 (3 relevant in all)."""

    labels = [1, 0, 1, 0, 1]

    def test_precision_at_k_table(self) -> None:
        got = values(self.labels, [f"P@{k}" for k in range(1, 6)])
        assert [got[f"P@{k}"] for k in range(1, 6)] == pytest.approx([1, 0.5, 2 / 3, 0.5, 0.6])

    def test_recall_at_k_table(self) -> None:
        got = values(self.labels, [f"R@{k}" for k in range(1, 6)])
        assert [got[f"R@{k}"] for k in range(1, 6)] == pytest.approx(
            [1 / 3, 1 / 3, 2 / 3, 2 / 3, 1.0]
        )

    def test_average_precision_corrected(self) -> None:
        # printed 0.7575; ERRATA: (1 + 2/3 + 3/5) / 3 = 0.7556
        assert values(self.labels, ["AP"])["AP"] == pytest.approx((1 + 2 / 3 + 3 / 5) / 3)
        assert round(values(self.labels, ["AP"])["AP"], 4) == 0.7556

    def test_average_precision_relevant_first(self) -> None:
        assert values([1, 1, 1, 0, 0], ["AP"])["AP"] == 1.0

    def test_reciprocal_rank_cases(self) -> None:
        assert values(self.labels, ["RR"])["RR"] == 1.0
        assert values([0, 0, 0, 0, 1], ["RR"])["RR"] == pytest.approx(0.2)
        assert values([0, 0, 0, 0, 0], ["RR"])["RR"] == 0.0


class TestSeed000GradedExample:
    """000 "Problem Setup 2": grades [3, 2, 3, 0, 1]; the qrels hold exactly these five."""

    labels = [3, 2, 3, 0, 1]

    def test_ndcg_at_k_table(self) -> None:
        # printed values are truncated (ERRATA): 1, 0.8710, 0.9777, 0.9112, 0.9723
        got = values(self.labels, [f"nDCG@{k}" for k in range(1, 6)])
        expected = [1.0, 0.87105, 0.97778, 0.91119, 0.97236]
        for k, want in zip(range(1, 6), expected, strict=True):
            assert got[f"nDCG@{k}"] == pytest.approx(want, abs=1e-4)

    def test_ndcg_at_k_exact_formula(self) -> None:
        dcg = [3, 3 + 2 / math.log2(3), 3 + 2 / math.log2(3) + 1.5]
        idcg = [3, 3 + 3 / math.log2(3), 3 + 3 / math.log2(3) + 1.0]
        got = values(self.labels, ["nDCG@2", "nDCG@3"])
        assert got["nDCG@2"] == pytest.approx(dcg[1] / idcg[1], rel=1e-12)
        assert got["nDCG@3"] == pytest.approx(dcg[2] / idcg[2], rel=1e-12)


class TestSeed001:
    """001 "Precision@k & Recall@k" and "AP@k"."""

    def test_precision_and_recall_at_5(self) -> None:
        # A..G; top 5 holds relevant A, C, G; F is relevant but not retrieved.
        got = values([1, 0, 1, 0, 1], ["P@5", "R@5"], extra_relevant=1)
        assert got["P@5"] == pytest.approx(3 / 5)
        assert got["R@5"] == pytest.approx(3 / 4)

    def test_average_precision_at_5_q1_and_q2(self) -> None:
        # printed 0.81 and 0.53: correct when the query has exactly 3 relevant documents
        q1 = values([1, 0, 1, 1, 0], ["AP@5"])["AP@5"]
        q2 = values([0, 1, 0, 1, 1], ["AP@5"])["AP@5"]
        assert q1 == pytest.approx((1 + 2 / 3 + 3 / 4) / 3)
        assert q2 == pytest.approx((1 / 2 + 2 / 4 + 3 / 5) / 3)
        assert (round(q1, 4), round(q2, 4)) == (0.8056, 0.5333)


class TestSeed003:
    """003 "Order based metrics": a corpus with 4 relevant documents."""

    def test_average_precision_two_rankings(self) -> None:
        assert values([1, 0, 0, 1], ["AP"], extra_relevant=2)["AP"] == pytest.approx(0.375)
        assert values([1, 1, 0, 0], ["AP"], extra_relevant=2)["AP"] == pytest.approx(0.5)

    def test_reciprocal_rank(self) -> None:
        assert values([1, 1, 0], ["RR"])["RR"] == 1.0
        assert values([0, 1, 1], ["RR"])["RR"] == 0.5

    def test_precision_ignores_order(self) -> None:
        a = values([1, 1, 0, 0], ["P@4"])["P@4"]
        b = values([0, 0, 1, 1], ["P@4"])["P@4"]
        assert a == b == 0.5


class TestSeed004:
    """004 "NDCG": Set-A [2, 3, 3, 1, 2]; Set-B [3, 3, 2, 2, 1] is the ideal."""

    def test_dcg_and_ndcg(self) -> None:
        # printed DCG_A ~ 6.64 and NDCG ~ 0.93; ERRATA: 6.5972 and 0.9238
        dcg_a = sum(g / math.log2(i + 2) for i, g in enumerate([2, 3, 3, 1, 2]))
        dcg_b = sum(g / math.log2(i + 2) for i, g in enumerate([3, 3, 2, 2, 1]))
        assert round(dcg_a, 4) == 6.5972
        got = values([2, 3, 3, 1, 2], ["nDCG"])["nDCG"]
        assert got == pytest.approx(dcg_a / dcg_b, rel=1e-12)
        assert round(got, 4) == 0.9238
