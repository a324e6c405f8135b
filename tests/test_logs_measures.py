"""Click measures: against a pandas group-by of the same log, and against ranklens.evaluate
(one impression per query: clicks in the top k are k * P@k with the clicked documents as
relevant, the reciprocal rank of the first click is RR)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import MeasureError
from ranklens.logs import click_measures, read_log


def _random_log(seed: int, impressions: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(impressions):
        q = f"q{int(rng.integers(6))}"
        length = int(rng.integers(1, 8))
        docs = rng.choice(20, size=length, replace=False)
        for k, d in enumerate(docs.tolist()):
            rows.append((f"s{i}", q, f"d{d}", k + 1, bool(rng.random() < 0.3 / (k + 1))))
    return pd.DataFrame(rows, columns=["session_id", "query_id", "doc_id", "position", "clicked"])


def test_against_pandas() -> None:
    frame = _random_log(1)
    res = click_measures(frame, ["CTR", "Abandonment", "Clicks@1", "Clicks@3", "Clicks", "ClickRR"])
    frame["top3"] = frame.clicked & (frame.position <= 3)
    frame["top1"] = frame.clicked & (frame.position == 1)
    frame["rr"] = np.where(frame.clicked, 1.0 / frame.position, 0.0)
    per_session = frame.groupby("session_id").agg(
        query_id=("query_id", "first"),
        clicks=("clicked", "sum"),
        top1=("top1", "sum"),
        top3=("top3", "sum"),
        rr=("rr", "max"),  # the first click has the largest 1 / position
    )
    per_query = per_session.groupby("query_id").agg(
        CTR=("clicks", lambda c: float((c > 0).mean())),
        Clicks=("clicks", "mean"),
        top1=("top1", "mean"),
        top3=("top3", "mean"),
        rr=("rr", "mean"),
    )
    for q, row in per_query.iterrows():
        values = res.per_query[q]
        assert values["CTR"] == pytest.approx(row.CTR)
        assert values["Abandonment"] == pytest.approx(1 - row.CTR)
        assert values["Clicks"] == pytest.approx(row.Clicks)
        assert values["Clicks@1"] == pytest.approx(row.top1)
        assert values["Clicks@3"] == pytest.approx(row.top3)
        assert values["ClickRR"] == pytest.approx(row.rr)
    assert res.aggregate["CTR"] == pytest.approx(per_query.CTR.mean())
    assert list(res.queries) == sorted(per_query.index)
    assert res.to_pandas().shape[0] == len(per_query)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.booleans(), min_size=1, max_size=8), min_size=1, max_size=10))
def test_against_evaluate(sessions: list[list[bool]]) -> None:
    cols: dict[str, list[object]] = {
        k: [] for k in ("session_id", "query_id", "doc_id", "position", "clicked")
    }
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for i, clicks in enumerate(sessions):
        q = f"q{i}"
        qrels[q] = {f"x{i}": 0}  # every query judged, clicked documents relevant
        run[q] = {}
        for k, c in enumerate(clicks):
            d = f"d{k}"
            for key, value in zip(cols, (i, q, d, k + 1, c), strict=True):
                cols[key].append(value)
            run[q][d] = float(len(clicks) - k)
            if c:
                qrels[q][d] = 1
    ours = click_measures(cols, ["Clicks@3", "Clicks@5", "ClickRR", "CTR"])
    theirs = ranklens.evaluate(qrels, run, ["P@3", "P@5", "RR"])
    for q in qrels:
        assert ours.per_query[q]["Clicks@3"] == pytest.approx(3 * theirs.per_query[q]["P@3"])
        assert ours.per_query[q]["Clicks@5"] == pytest.approx(5 * theirs.per_query[q]["P@5"])
        assert ours.per_query[q]["ClickRR"] == pytest.approx(theirs.per_query[q]["RR"])
        assert ours.per_query[q]["CTR"] == float(theirs.per_query[q]["RR"] > 0)


def test_names_and_refusals() -> None:
    log = read_log(_random_log(2, 20))
    res = click_measures(log)
    assert res.names == ["CTR", "Abandonment", "Clicks@1", "Clicks@10", "ClickRR"]
    assert res.measures[1].spec.higher_is_better is False
    with pytest.raises(MeasureError, match="unknown click measure"):
        click_measures(log, ["nDCG@10"])
    with pytest.raises(MeasureError, match="takes no @k"):
        click_measures(log, ["CTR@3"])
