"""Type stubs for the native core (C sources in ``data/native/``)."""

from collections.abc import Sequence
from typing import Literal, overload

import numpy as np
import numpy.typing as npt

_I64 = npt.NDArray[np.int64]
_U8 = npt.NDArray[np.uint8]
_F64 = npt.NDArray[np.float64]

@overload
def parse_trec(
    buf: object,
    kind: int,
    comments: int,
    threads: int = 0,
    ranks: Literal[0, False] = 0,
    lone_cr: bool = False,
) -> tuple[list[str], _I64, _U8, _I64, _F64 | _I64, _I64, str | None]: ...
@overload
def parse_trec(
    buf: object,
    kind: int,
    comments: int,
    threads: int = 0,
    *,
    ranks: Literal[1, 2, True],
    lone_cr: bool = False,
) -> tuple[list[str], _I64, _U8, _I64, _F64 | _I64, _I64, str | None, _I64]: ...
def encode_strings(seq: Sequence[str]) -> tuple[_U8, _I64]: ...
def encode_objects(
    values: npt.NDArray[np.object_], runs: bool = False
) -> tuple[_U8, _I64, _I64 | None, int]: ...
def decimal_strings(values: _I64) -> tuple[_U8, _I64]: ...
def decimal_values(data: _U8, offsets: _I64) -> _I64: ...
def ranges(starts: _I64, counts: _I64, step: int = 1) -> _I64: ...
@overload
def empty(n: int, dtype: Literal["int64"]) -> _I64: ...
@overload
def empty(n: int, dtype: Literal["float64"]) -> _F64: ...
@overload
def empty(n: int, dtype: Literal["uint8"]) -> _U8: ...
def intern_strings(data: _U8, offsets: _I64) -> tuple[_I64, _I64]: ...
def dict_columns(
    mapping: object, integer: bool, keys: list[object] | None = None
) -> tuple[list[str], _I64, _U8, _I64, _F64 | _I64] | None: ...
def group_by_query(q_codes: _I64, n_queries: int) -> tuple[_I64, _I64]: ...
def take_strings(data: _U8, offsets: _I64, idx: _I64) -> tuple[_U8, _I64]: ...
def rank(
    q_offsets: _I64, doc_data: _U8, doc_offsets: _I64, scores: _F64, policy: int, threads: int = 0
) -> _I64: ...
def find_duplicates(
    q_offsets: _I64,
    doc_data: _U8,
    doc_offsets: _I64,
    order: _I64 | None,
    limit: int,
    threads: int = 0,
) -> tuple[_I64, _I64]: ...
@overload
def align(
    run_q_offsets: _I64,
    run_doc_data: _U8,
    run_doc_offsets: _I64,
    perm: _I64,
    run_to_qrels: _I64,
    qrels_q_offsets: _I64,
    qrels_doc_data: _U8,
    qrels_doc_offsets: _I64,
    qrels_rel: _I64,
    threads: int = 0,
    *,
    scores: None = None,
    depth: int = -1,
) -> _I64: ...
@overload
def align(
    run_q_offsets: _I64,
    run_doc_data: _U8,
    run_doc_offsets: _I64,
    perm: _I64,
    run_to_qrels: _I64,
    qrels_q_offsets: _I64,
    qrels_doc_data: _U8,
    qrels_doc_offsets: _I64,
    qrels_rel: _I64,
    threads: int = 0,
    *,
    scores: _F64,
    depth: int = -1,
) -> tuple[_I64, _I64]: ...
def pool_runs(
    runs: Sequence[tuple[_I64, _I64, _U8, _I64, _I64]], n_union: int, threads: int = 0
) -> tuple[_I64, _U8, _I64, _I64, tuple[tuple[_I64, _I64], ...]]: ...
def affine_sum(
    n_total: int,
    runs: Sequence[tuple[_I64, _I64, _F64, _I64, _F64, _F64, npt.NDArray[np.generic], float]],
    clip: bool = False,
    threads: int = 0,
) -> _F64: ...
def format_run(
    qid_data: _U8,
    qid_offsets: _I64,
    q_offsets: _I64,
    doc_data: _U8,
    doc_offsets: _I64,
    scores: _F64,
    order: _I64,
    tag: bytes,
    q_lo: int,
    q_hi: int,
    threads: int = 0,
) -> bytes: ...
