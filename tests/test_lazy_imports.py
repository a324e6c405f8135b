"""Evaluating a TREC text file imports only what that needs: not the readers of other
inputs (DataFrames, Parquet, JSON lines, CSV), the codecs of compressed files, pathlib,
the kernels of measures not asked for, nor pandas or pyarrow. Each of these once cost every
evaluation a few milliseconds of imports (issue 41). Checked in a fresh interpreter, so
that what other tests imported does not count; a count of modules, not a timing."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"
NOT_NEEDED = (
    "ranklens.data.frames",
    "ranklens.data.parquet_stream",
    "ranklens.data.table_files",
    "ranklens.kernels.recommender",
    "ranklens.kernels.rag_nuggets",
    "ranklens.kernels.exposure",
    "json",
    "gzip",
    "bz2",
    "lzma",
    "pathlib",
    "pandas",
    "pyarrow",
)
SCRIPT = """
import sys
before = set(sys.modules)
import ranklens
{call}
print(repr(sorted(set(sys.modules) - before)))
"""
CALLS = {
    "evaluate": "ranklens.evaluate({q!r}, {r!r}, ['AP', 'nDCG@10', 'P@10']).aggregate",
    "evaluator": "ranklens.Evaluator({q!r}, ['AP', 'RR']).evaluate(ranklens.Run.from_file({r!r}))",
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_evaluating_a_trec_file_imports_no_reader_it_does_not_use(call: str) -> None:
    code = CALLS[call].format(q=str(DATA / "qrels.test"), r=str(DATA / "results.test"))
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(call=code)],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = set(ast.literal_eval(out.stdout.strip().splitlines()[-1]))
    assert "ranklens.data.trec_text" in imported  # the call did read the files
    assert sorted(imported & set(NOT_NEEDED)) == []


def test_a_compressed_file_still_reads(tmp_path: Path) -> None:
    import gzip

    import ranklens

    run = tmp_path / "run.gz"
    run.write_bytes(gzip.compress((DATA / "results.test").read_bytes()))
    plain = ranklens.evaluate(DATA / "qrels.test", DATA / "results.test", ["AP"]).aggregate
    packed = ranklens.evaluate(DATA / "qrels.test", run, ["AP"]).aggregate
    assert packed == plain
