"""Deterministic generator of synthetic TREC qrels and runs for the ranklens benchmarks.

Writes ``qrels.{shape}.{scale}.txt`` (``qid 0 docid rel``) and ``run.{shape}.{scale}.txt``
(``qid Q0 docid rank score tag``) into ``benchmarks/data/`` (git-ignored).

Scales (queries x retrieved documents per query)::

    small   100 x 100
    medium  1,000 x 1,000
    large   7,000 x 1,000
    huge    70,000 x 1,000   (70M run lines; only on request)

Shapes:

``msmarco``
    About one relevant document per query (1.07 judged per query on average, all with
    relevance 1), like the MS MARCO passage dev qrels.
``dl``
    About 200 judged documents per query with grades 0-3 in TREC DL-like proportions
    (55% 0, 20% 1, 17% 2, 8% 3), every query having at least one grade >= 1.

Both shapes draw integer docids from a space of 8,841,823 (the MS MARCO passage count)
and integer qids from ``[1, 1_200_000)``. Every query has exactly ``depth`` retrieved
documents, no docid twice within a query, and the qrels and the run hold the same
query set. A share of the judged documents is retrieved (relevant ones more often and
higher); the rest of the ranking is filled with unjudged documents. Scores are rounded
to 3 decimals (depth >= 1000) or 2 decimals (smaller depths), which makes roughly 4% of
adjacent documents tie, so tie-breaking conventions are exercised.

Everything is vectorised with numpy and written in chunks of queries, so memory stays
small even for ``huge``; formatting builds the text as a byte matrix (no per-line Python).
Output is byte-identical for a given scale and shape on every run (fixed seeds).

Usage::

    python benchmarks/generate.py [--scale small,medium,large] [--shape msmarco,dl]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

DATA_DIR = Path(__file__).resolve().parent / "data"

SEED = 20240521
DOC_SPACE = 8_841_823  # MS MARCO passage count; also a prime, used as the modulus below
QID_SPACE = 1_200_000
RUN_TAG = b"synthetic"
# Upper bound on judged documents per query; fillers use universe indices >= this.
MAX_JUDGED = 300
# Target size of one chunk in run lines.
CHUNK_LINES = 500_000

SCALES: dict[str, tuple[int, int]] = {
    "small": (100, 100),
    "medium": (1_000, 1_000),
    "large": (7_000, 1_000),
    "huge": (70_000, 1_000),
}
DEFAULT_SCALES = ("small", "medium", "large")
SHAPES: tuple[str, ...] = ("msmarco", "dl")

# TREC DL-like grade proportions for the judged pool (grades 0, 1, 2, 3).
DL_GRADE_P = np.array([0.55, 0.20, 0.17, 0.08])
# Probability that a judged document of each grade is retrieved at depth 1000.
DL_RETRIEVED_AT_1000 = np.array([0.55, 0.70, 0.80, 0.88])
# Rank concentration per grade: a retrieved judged document sits at relative position
# U**gamma in the ranking (0 = top), so a larger gamma pushes it towards the top.
DL_GAMMA = np.array([1.5, 2.0, 3.0, 4.0])
MSMARCO_GAMMA = 4.0
# Scores: top_q - SCORE_SPREAD * position, with top_q ~ U(28, 40).
SCORE_SPREAD = 25.0

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
ByteMatrix = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class Chunk:
    """One block of consecutive queries: their qrels rows and their run rows."""

    qrel_qid: IntArray
    qrel_docid: IntArray
    qrel_rel: IntArray
    run_qid: IntArray
    run_docid: IntArray
    run_rank: IntArray
    run_score: IntArray  # score scaled by 10**decimals, as an exact integer
    ties: int  # adjacent equal scores within a query
    pairs: int  # adjacent pairs within a query


def paths_for(shape: str, scale: str, data_dir: Path = DATA_DIR) -> tuple[Path, Path]:
    """Return ``(qrels_path, run_path)`` for a shape and a scale."""
    return (
        data_dir / f"qrels.{shape}.{scale}.txt",
        data_dir / f"run.{shape}.{scale}.txt",
    )


def score_decimals(depth: int) -> int:
    """Number of score decimals: 3 at depth >= 1000, else 2 (about 4% adjacent ties)."""
    return 3 if depth >= 1_000 else 2


def _affine_docids(a: IntArray, b: IntArray, j: IntArray) -> IntArray:
    """Map universe index ``j`` of a query to a docid, injectively per query.

    ``(a * j + b) mod P`` with prime ``P = DOC_SPACE`` and ``a != 0`` is a bijection on
    ``[0, P)``, so distinct indices of one query give distinct docids.
    """
    return (a * j + b) % DOC_SPACE


def _group_positions(counts: IntArray) -> IntArray:
    """For groups of the given sizes laid end to end, each element's index in its group."""
    total = int(counts.sum())
    starts = np.cumsum(counts) - counts
    return np.arange(total, dtype=np.int64) - np.repeat(starts, counts)


def _retrieved_fraction(depth: int) -> float:
    """Scale factor for the share of judged documents retrieved at a given depth."""
    return float(np.clip(0.4 + 0.6 * np.log10(depth / 100), 0.05, 1.0))


def make_chunk(shape: str, qids: IntArray, depth: int, rng: np.random.Generator) -> Chunk:
    """Generate qrels and run rows for the queries ``qids`` (vectorised, no Python loops)."""
    nq = len(qids)
    a = rng.integers(1, DOC_SPACE, size=nq, dtype=np.int64)
    b = rng.integers(0, DOC_SPACE, size=nq, dtype=np.int64)

    # --- qrels -------------------------------------------------------------------
    if shape == "msmarco":
        n_judged = 1 + np.minimum(rng.poisson(0.07, size=nq), 4).astype(np.int64)
        judged_q = np.repeat(np.arange(nq), n_judged)
        rel = np.ones(len(judged_q), dtype=np.int64)
        p_ret = np.full(len(judged_q), float(np.clip(0.67 + 0.19 * np.log10(depth / 100), 0, 0.95)))
        gamma = np.full(len(judged_q), MSMARCO_GAMMA)
    elif shape == "dl":
        n_judged = rng.integers(150, 251, size=nq, dtype=np.int64)
        judged_q = np.repeat(np.arange(nq), n_judged)
        rel = rng.choice(4, size=len(judged_q), p=DL_GRADE_P).astype(np.int64)
        # Every query gets at least one relevant document.
        starts = np.cumsum(n_judged) - n_judged
        no_rel = np.maximum.reduceat(rel, starts) == 0
        rel[starts[no_rel]] = 2
        p_ret = DL_RETRIEVED_AT_1000[rel] * _retrieved_fraction(depth)
        gamma = DL_GAMMA[rel]
    else:
        raise ValueError(f"unknown shape {shape!r}")
    judged_j = _group_positions(n_judged)
    judged_doc = _affine_docids(a[judged_q], b[judged_q], judged_j)

    # --- run -----------------------------------------------------------------------
    # Start from `depth` unjudged fillers per query (universe indices >= MAX_JUDGED),
    # spread uniformly over the ranking, then put the retrieved judged documents into
    # the first slots of their query with their (top-leaning) positions.
    slot_j = np.broadcast_to(MAX_JUDGED + np.arange(depth, dtype=np.int64), (nq, depth)).copy()
    slot_pos = rng.random((nq, depth))
    retrieved = rng.random(len(judged_q)) < p_ret
    rq = judged_q[retrieved]
    counts = np.bincount(rq, minlength=nq).astype(np.int64)
    slot = _group_positions(counts)
    keep = slot < depth
    rq, slot = rq[keep], slot[keep]
    slot_j[rq, slot] = judged_j[retrieved][keep]
    slot_pos[rq, slot] = rng.random(len(rq)) ** gamma[retrieved][keep]

    decimals = score_decimals(depth)
    top = rng.uniform(28.0, 40.0, size=(nq, 1))
    score = np.rint((top - SCORE_SPREAD * slot_pos) * 10**decimals).astype(np.int64)
    order = np.argsort(-score, axis=1, kind="stable")
    score = np.take_along_axis(score, order, axis=1)
    slot_j = np.take_along_axis(slot_j, order, axis=1)
    docid = _affine_docids(a[:, None], b[:, None], slot_j)

    ties = int(np.count_nonzero(score[:, 1:] == score[:, :-1]))
    # qrels sorted by docid within each query, as usual.
    qorder = np.lexsort((judged_doc, judged_q))
    return Chunk(
        qrel_qid=qids[judged_q[qorder]],
        qrel_docid=judged_doc[qorder],
        qrel_rel=rel[qorder],
        run_qid=np.repeat(qids, depth),
        run_docid=docid.ravel(),
        run_rank=np.tile(np.arange(1, depth + 1, dtype=np.int64), nq),
        run_score=score.ravel(),
        ties=ties,
        pairs=nq * (depth - 1),
    )


def _digits(values: IntArray, width: int, zero_pad: bool = False) -> ByteMatrix:
    """ASCII digits of non-negative integers as an ``(n, width)`` byte matrix.

    Leading zeros become NUL bytes (dropped later) unless ``zero_pad`` is set.
    """
    v = np.asarray(values, dtype=np.int64)
    if len(v) and (v.min() < 0 or v.max() >= 10**width):
        raise ValueError(f"value out of range for {width} digits")
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    out = ((v[:, None] // powers) % 10 + 48).astype(np.uint8)
    if not zero_pad:
        lead = v[:, None] < powers
        lead[:, -1] = False
        out[lead] = 0
    return out


def _const(text: bytes, n: int) -> ByteMatrix:
    """A constant byte string repeated on ``n`` rows."""
    return np.broadcast_to(np.frombuffer(text, dtype=np.uint8), (n, len(text)))


def _width(values: IntArray) -> int:
    """Digits needed for the largest value (at least 1)."""
    return max(1, len(str(int(values.max())))) if len(values) else 1


def format_lines(columns: Sequence[ByteMatrix]) -> bytes:
    """Join byte-matrix columns row-wise and drop the NUL padding: one text blob."""
    matrix = np.concatenate(columns, axis=1)
    blob: bytes = matrix[matrix != 0].tobytes()
    return blob


def format_qrels(chunk: Chunk) -> bytes:
    """Format the qrels rows of a chunk as ``qid 0 docid rel`` lines."""
    n = len(chunk.qrel_qid)
    return format_lines(
        [
            _digits(chunk.qrel_qid, _width(chunk.qrel_qid)),
            _const(b" 0 ", n),
            _digits(chunk.qrel_docid, _width(chunk.qrel_docid)),
            _const(b" ", n),
            _digits(chunk.qrel_rel, 1),
            _const(b"\n", n),
        ]
    )


def format_run(chunk: Chunk, decimals: int) -> bytes:
    """Format the run rows of a chunk as ``qid Q0 docid rank score tag`` lines."""
    n = len(chunk.run_qid)
    scale = 10**decimals
    whole = chunk.run_score // scale
    frac = chunk.run_score % scale
    return format_lines(
        [
            _digits(chunk.run_qid, _width(chunk.run_qid)),
            _const(b" Q0 ", n),
            _digits(chunk.run_docid, _width(chunk.run_docid)),
            _const(b" ", n),
            _digits(chunk.run_rank, _width(chunk.run_rank)),
            _const(b" ", n),
            _digits(whole, _width(whole)),
            _const(b".", n),
            _digits(frac, decimals, zero_pad=True),
            _const(b" " + RUN_TAG + b"\n", n),
        ]
    )


def iter_chunks(shape: str, scale: str) -> Iterator[Chunk]:
    """Yield the chunks of a dataset in query order (deterministic)."""
    n_queries, depth = SCALES[scale]
    shape_id = SHAPES.index(shape)
    qrng = np.random.default_rng([SEED, shape_id, n_queries, depth])
    qids = np.sort(qrng.choice(QID_SPACE - 1, size=n_queries, replace=False) + 1).astype(np.int64)
    per_chunk = max(1, CHUNK_LINES // depth)
    for index, start in enumerate(range(0, n_queries, per_chunk)):
        rng = np.random.default_rng([SEED, shape_id, n_queries, depth, index])
        yield make_chunk(shape, qids[start : start + per_chunk], depth, rng)


@dataclass(frozen=True)
class Summary:
    """What one ``generate`` call wrote."""

    shape: str
    scale: str
    qrels_lines: int
    run_lines: int
    tie_rate: float
    seconds: float
    run_bytes: int


def generate(shape: str, scale: str, data_dir: Path = DATA_DIR) -> Summary:
    """Write the qrels and run files of one shape and scale; return a summary.

    Files are written to temporary names and renamed at the end, so a reader never
    sees a half-written file.
    """
    start = time.perf_counter()
    data_dir.mkdir(parents=True, exist_ok=True)
    qrels_path, run_path = paths_for(shape, scale, data_dir)
    decimals = score_decimals(SCALES[scale][1])
    tmp_q = qrels_path.with_suffix(".tmp")
    tmp_r = run_path.with_suffix(".tmp")
    n_qrels = n_run = ties = pairs = 0
    with tmp_q.open("wb") as fq, tmp_r.open("wb") as fr:
        for chunk in iter_chunks(shape, scale):
            fq.write(format_qrels(chunk))
            fr.write(format_run(chunk, decimals))
            n_qrels += len(chunk.qrel_qid)
            n_run += len(chunk.run_qid)
            ties += chunk.ties
            pairs += chunk.pairs
    os.replace(tmp_q, qrels_path)
    os.replace(tmp_r, run_path)
    return Summary(
        shape=shape,
        scale=scale,
        qrels_lines=n_qrels,
        run_lines=n_run,
        tie_rate=ties / pairs if pairs else 0.0,
        seconds=time.perf_counter() - start,
        run_bytes=run_path.stat().st_size,
    )


def ensure(shape: str, scale: str, data_dir: Path = DATA_DIR) -> tuple[Path, Path]:
    """Return the data paths, generating the files first if either is missing."""
    qrels_path, run_path = paths_for(shape, scale, data_dir)
    if not (qrels_path.exists() and run_path.exists()):
        summary = generate(shape, scale, data_dir)
        print(_describe(summary), file=sys.stderr)
    return qrels_path, run_path


def _describe(s: Summary) -> str:
    return (
        f"generated {s.shape}.{s.scale}: {s.run_lines:,} run lines "
        f"({s.run_bytes / 1e6:.1f} MB), {s.qrels_lines:,} qrels lines, "
        f"adjacent ties {100 * s.tie_rate:.1f}%, {s.seconds:.2f} s"
    )


def _split(value: str, allowed: Sequence[str], what: str) -> list[str]:
    items = [v.strip() for v in value.split(",") if v.strip()]
    bad = [v for v in items if v not in allowed]
    if bad:
        raise SystemExit(f"unknown {what}: {', '.join(bad)} (choose from {', '.join(allowed)})")
    return items


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--scale",
        default=",".join(DEFAULT_SCALES),
        help="comma-separated scales: small, medium, large, huge (default: small,medium,large)",
    )
    parser.add_argument(
        "--shape", default=",".join(SHAPES), help="comma-separated shapes: msmarco, dl"
    )
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR, help="output directory")
    args = parser.parse_args(argv)
    for scale in _split(args.scale, list(SCALES), "scale"):
        for shape in _split(args.shape, SHAPES, "shape"):
            print(_describe(generate(shape, scale, args.data_dir)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
