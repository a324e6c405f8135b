"""Recommender-shaped input: ``user_id``/``item_id`` (and ``user``/``item``) columns are the
query and document ids in every table reader (pandas, polars, pyarrow, Parquet, JSON
lines), with the dict path's numbers on the generated awkward cases."""

from __future__ import annotations

import json

import pytest

import ranklens
from strategies import random_cases

MEASURES = ["nDCG@10", "AP", "P@5", "RR", "R@10"]


def _rows(table, value):
    return [(q, d, v) for q, docs in table.items() for d, v in docs.items()]


@pytest.mark.parametrize("names", [("user_id", "item_id"), ("user", "item")])
@pytest.mark.parametrize("layout", ["pandas", "polars", "pyarrow", "parquet", "jsonl"])
def test_user_and_item_columns_give_the_dict_numbers(tmp_path, names, layout):
    pd = pytest.importorskip("pandas")
    user, item = names
    for i, case in enumerate(random_cases(2026, 6)):
        expected = ranklens.evaluate(case.qrels, case.run, MEASURES, queries="both")
        qrels = pd.DataFrame(_rows(case.qrels, "relevance"), columns=[user, item, "relevance"])
        run = pd.DataFrame(_rows(case.run, "score"), columns=[user, item, "score"])
        if layout == "polars":
            pl = pytest.importorskip("polars")
            qrels, run = pl.from_pandas(qrels), pl.from_pandas(run)
        elif layout == "pyarrow":
            pa = pytest.importorskip("pyarrow")
            qrels, run = pa.Table.from_pandas(qrels), pa.Table.from_pandas(run)
        elif layout == "parquet":
            pytest.importorskip("pyarrow")
            qrels.to_parquet(tmp_path / f"q{i}.parquet")
            run.to_parquet(tmp_path / f"r{i}.parquet")
            qrels, run = tmp_path / f"q{i}.parquet", tmp_path / f"r{i}.parquet"
        elif layout == "jsonl":
            for frame, name in ((qrels, f"q{i}.jsonl"), (run, f"r{i}.jsonl")):
                lines = [json.dumps(dict(zip(frame.columns, map(_plain, row), strict=True))) for row in frame.itertuples(index=False)]
                (tmp_path / name).write_text("\n".join(lines) + "\n")
            qrels, run = tmp_path / f"q{i}.jsonl", tmp_path / f"r{i}.jsonl"
        got = ranklens.evaluate(qrels, run, MEASURES, queries="both")
        assert got.per_query == expected.per_query
        assert got.aggregate == expected.aggregate


def _plain(value):
    return value.item() if hasattr(value, "item") else value
