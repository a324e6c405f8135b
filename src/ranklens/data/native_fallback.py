"""The native core's functions in numpy and Python, for installs without a C compiler.

Every function here has the signature, the return values (dtypes included) and the
exceptions (types and messages) of the function of the same name in the C module
``ranklens.data._core`` (sources in ``src/ranklens/``; see ``_core.pyi``); the
differential test ``tests/test_native_fallback.py`` checks that on generated inputs,
error cases and every thread count. ``ranklens.data.native`` picks this module when the
C module cannot be imported, or when ``RANKLENS_NATIVE=0``.

The ``threads`` arguments are accepted and ignored (the C results do not depend on them
either). Grouping, ranking, duplicate detection and the join are vectorised with numpy
(byte strings are ranked once with a sort of the unique ids); ``parse_trec`` splits lines
and fields with the ``bytes`` methods and loops over lines in Python, so it is the part
that is most slower than the C parser (about 1 to 2 microseconds per line).
"""

from __future__ import annotations

import itertools
import math
import operator
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ranklens.data.source import LONE_CR_MESSAGE

_I64 = npt.NDArray[np.int64]
_U8 = npt.NDArray[np.uint8]
_F64 = npt.NDArray[np.float64]

__all__ = [
    "affine_sum",
    "align",
    "decimal_strings",
    "decimal_values",
    "dict_columns",
    "empty",
    "encode_objects",
    "encode_strings",
    "find_duplicates",
    "format_run",
    "group_by_query",
    "intern_strings",
    "parse_trec",
    "pool_runs",
    "ranges",
    "rank",
    "take_strings",
]

# ---------------------------------------------------------------------------
# argument checks, as in the C module
# ---------------------------------------------------------------------------


def _as_array(obj: object, dtype: type[np.generic], name: str) -> Any:
    """A contiguous 1-D array of ``dtype`` (numpy's safe casting for arrays), with the
    errors of ``PyArray_FromAny``."""
    if obj is None:
        raise TypeError(f"{name} must be an array, not None")
    if isinstance(obj, np.ndarray):
        if obj.dtype != dtype and not np.can_cast(obj.dtype, dtype, "safe"):
            raise TypeError(
                f"Cannot cast array data from {obj.dtype!r} to {np.dtype(dtype)!r} "
                "according to the rule 'safe'"
            )
        arr = np.ascontiguousarray(obj, dtype=dtype)
    else:
        try:
            arr = np.ascontiguousarray(np.asarray(obj, dtype=dtype))
        except (TypeError, ValueError):
            _check_depth(np.asarray(obj).ndim)  # numpy checks the depth first
            raise
    _check_depth(arr.ndim)
    return arr


def _check_depth(ndim: int) -> None:
    if ndim < 1:
        raise ValueError("object of too small depth for desired array")
    if ndim > 1:
        raise ValueError("object too deep for desired array")


def _check_column(data: _U8, offsets: _I64, name: str) -> int:
    if len(offsets) < 1:
        raise ValueError(f"{name} offsets must hold at least one element")
    if offsets[0] < 0 or offsets[-1] > len(data):
        raise ValueError(f"{name} offsets point outside the data")
    if len(offsets) > 1 and bool(np.any(offsets[1:] < offsets[:-1])):
        raise ValueError(f"{name} offsets must be non-decreasing")
    return len(offsets) - 1


def _check_qoffsets(q: _I64, n: int, name: str) -> int:
    if len(q) < 1:
        raise ValueError(f"{name} must hold at least one element")
    if q[0] != 0 or q[-1] != n:
        raise ValueError(f"{name} must start at 0 and end at the number of entries ({n})")
    if len(q) > 1 and bool(np.any(q[1:] < q[:-1])):
        raise ValueError(f"{name} must be non-decreasing")
    return len(q) - 1


def _int_arg(value: object) -> int:
    """An ``int`` argument as ``PyArg_ParseTuple``'s ``i``/``n``/``L`` take it."""
    return operator.index(value)  # type: ignore[arg-type]


def _tp_name(obj: object) -> str:
    """``Py_TYPE(obj)->tp_name``: the bare name for classes defined in Python, module and
    name for built-in (static) types outside ``builtins``."""
    cls = type(obj)
    if cls.__flags__ & (1 << 9) or cls.__module__ == "builtins":  # Py_TPFLAGS_HEAPTYPE
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


# ---------------------------------------------------------------------------
# string columns
# ---------------------------------------------------------------------------


def _gather(data: _U8, offsets: _I64, idx: _I64) -> tuple[_U8, _I64]:
    """Strings ``idx`` of the column (bounds already checked), as a new column."""
    starts = offsets[idx]
    lengths = offsets[idx + 1] - starts
    off2 = np.zeros(len(idx) + 1, dtype=np.int64)
    np.cumsum(lengths, out=off2[1:])
    total = int(off2[-1])
    if total == 0:
        return np.zeros(0, dtype=np.uint8), off2
    # position k of the output reads data[starts[i] + (k - off2[i])] for its string i
    shift = np.repeat(starts - off2[:-1], lengths)
    pos = np.arange(total, dtype=np.int64) + shift
    return np.ascontiguousarray(data[pos], dtype=np.uint8), off2


def _strings(data: _U8, offsets: _I64) -> list[bytes]:
    raw = data.tobytes()
    bounds = offsets.tolist()
    return [raw[a:b] for a, b in itertools.pairwise(bounds)]


_MATRIX_BYTES = 1 << 28  # the widest fixed-width copy _column_codes makes


def _column_codes(data: _U8, offsets: _I64) -> tuple[_I64, int]:
    """:func:`_codes` of a string column, vectorised: the strings padded to one width
    (numpy's ``S`` dtype compares bytes unsigned, the shorter first) and ``np.unique``.
    Padding is with NUL bytes, so a column holding a NUL byte (or too wide to pad) takes
    the Python path."""
    n = len(offsets) - 1
    lengths = np.diff(offsets)
    width = int(lengths.max()) if n else 0
    flat = data[offsets[0] : offsets[-1]] if n else data[:0]
    if width == 0 or n * width > _MATRIX_BYTES or bool(np.any(flat == 0)):
        if width == 0:
            return np.zeros(n, dtype=np.int64), 1 if n else 0
        return _codes(_strings(data, offsets))
    matrix = np.zeros((n, width), dtype=np.uint8)
    rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
    cols = np.arange(len(flat), dtype=np.int64) - np.repeat(offsets[:-1] - offsets[0], lengths)
    matrix[rows, cols] = flat
    uniq, inverse = np.unique(matrix.view(f"S{width}").ravel(), return_inverse=True)
    return inverse.reshape(-1).astype(np.int64, copy=False), len(uniq)


def _codes(strings: list[bytes]) -> tuple[_I64, int]:
    """Ordinal of each byte string among the distinct ones in byte order (bytes compare
    as memcmp, then the shorter first, like the C module's ``cmp_bytes``)."""
    uniq = sorted(set(strings))
    index = {s: i for i, s in enumerate(uniq)}
    codes = np.fromiter((index[s] for s in strings), dtype=np.int64, count=len(strings))
    return codes, len(uniq)


def intern_strings(data: _U8, offsets: _I64) -> tuple[_I64, _I64]:
    """Codes of the strings of a column in order of first appearance, and the row where
    each code first appears (as the C module)."""
    data = _as_array(data, np.uint8, "data")
    offsets = _as_array(offsets, np.int64, "offsets")
    _check_column(data, offsets, "string column")
    seen: dict[bytes, int] = {}
    first: list[int] = []
    strings = _strings(data, offsets)
    codes = np.empty(len(strings), dtype=np.int64)
    for row, text in enumerate(strings):
        code = seen.get(text)
        if code is None:
            code = seen[text] = len(first)
            first.append(row)
        codes[row] = code
    return codes, np.asarray(first, dtype=np.int64)


def dict_columns(mapping: object, integer: bool, keys: object = None) -> None:
    """The C module reads a dict of dicts in one walk; this fallback always declines, so
    the caller takes its checked Python path, which builds the same columns."""
    del mapping, integer, keys


def encode_strings(seq: Sequence[str]) -> tuple[_U8, _I64]:
    """UTF-8 string column of a sequence of ``str``."""
    if isinstance(seq, (str, bytes)):
        raise TypeError(f"encode_strings expects a sequence of str, not {_tp_name(seq)}")
    try:
        items = seq if isinstance(seq, (list, tuple)) else list(seq)
    except TypeError:
        raise TypeError("encode_strings expects a sequence of str") from None
    encoded = []
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(f"expected str, got {_tp_name(item)} (at index {i})")
        encoded.append(item.encode("utf-8"))
    return _bytes_column(encoded)


def _bytes_column(encoded: list[bytes]) -> tuple[_U8, _I64]:
    """The string column of byte strings: their bytes back to back, and the offsets."""
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    if encoded:
        np.cumsum(np.fromiter(map(len, encoded), np.int64, len(encoded)), out=offsets[1:])
    data = np.frombuffer(b"".join(encoded), dtype=np.uint8).copy()
    return data, offsets


def encode_objects(values: Any, runs: bool = False) -> tuple[_U8, _I64, _I64 | None, int]:
    """UTF-8 string column of a 1-D numpy object array of ``str``; with ``runs`` only the
    first row of each run of equal values, and those rows. ``bad``: the first row that is
    not a ``str`` (the columns stop before it), or -1."""
    if not isinstance(values, np.ndarray) or values.dtype != object or values.ndim != 1:
        raise TypeError("encode_objects expects a 1-D numpy array of objects")
    encoded: list[bytes] = []
    heads: list[int] = []
    bad = -1
    previous: object = None
    for i, item in enumerate(values.tolist()):
        if runs and i and item is previous:
            continue
        if not isinstance(item, str):
            bad = i
            break
        text = str.encode(item, "utf-8")
        previous = item
        if runs and encoded and text == encoded[-1]:
            continue
        encoded.append(text)
        heads.append(i)
    data, offsets = _bytes_column(encoded)
    rows = np.asarray(heads, dtype=np.int64) if runs else None
    return data, offsets, rows, bad


def decimal_strings(values: _I64) -> tuple[_U8, _I64]:
    """The decimal text of int64 values as a string column."""
    ints = _as_array(values, np.int64, "values")
    return _bytes_column([str(v).encode("ascii") for v in ints.tolist()])


_DECIMAL_DIGITS = 18  # as RL_DECIMAL_DIGITS: decimal integers that fit int64


def decimal_values(data: _U8, offsets: _I64) -> _I64:
    """The integer each string of a column writes plainly in decimal (``str(v)`` for
    ``0 <= v < 10**18``: digits only, no leading zero but for ``"0"``), -1 for any other;
    vectorised: the strings padded to one width, then read a column of digits at a time."""
    data = _as_array(data, np.uint8, "data")
    offsets = _as_array(offsets, np.int64, "offsets")
    n = _check_column(data, offsets, "string column")
    out = np.full(n, -1, dtype=np.int64)
    sizes = np.diff(offsets)
    fits = np.flatnonzero((sizes >= 1) & (sizes <= _DECIMAL_DIGITS))
    if fits.shape[0] == 0:
        return out
    width = int(sizes[fits].max())
    length = sizes[fits]
    inside = np.arange(width)[None, :] < length[:, None]
    where = np.where(inside, offsets[fits][:, None] + np.arange(width)[None, :], 0)
    digits = np.where(inside, data[where].astype(np.int64) - ord("0"), 0)  # data not empty
    plain = np.all(~inside | ((digits >= 0) & (digits <= 9)), axis=1)
    plain &= (digits[:, 0] != 0) | (length == 1)
    value = np.zeros(fits.shape[0], dtype=np.int64)
    for column in range(width):  # at most 18 columns, each over every string at once
        value = np.where(inside[:, column], value * 10 + digits[:, column], value)
    out[fits[plain]] = value[plain]
    return out


def empty(n: int, dtype: str) -> Any:
    """An uninitialized 1-D array of ``n`` int64, float64 or uint8 values."""
    if not isinstance(dtype, str):
        raise TypeError(f"empty() argument 2 must be str, not {_tp_name(dtype)}")
    if dtype not in ("int64", "float64", "uint8"):
        raise ValueError(f"dtype must be 'int64', 'float64' or 'uint8', not '{dtype}'")
    size = _int_arg(n)
    if size < 0:
        raise ValueError("n must be >= 0")
    return np.empty(size, dtype=dtype)


def ranges(starts: _I64, counts: _I64, step: int = 1) -> _I64:
    """``starts[j], starts[j] + step, ...`` (``counts[j]`` values) for each ``j``."""
    first = _as_array(starts, np.int64, "starts")
    sizes = _as_array(counts, np.int64, "counts")
    step = _int_arg(step)
    if len(sizes) != len(first):
        raise ValueError("starts and counts must have the same length")
    total = 0
    for j, c in enumerate(sizes.tolist()):
        if c < 0 or c > 2**63 - 1 - total:
            raise ValueError(f"counts[{j}] = {c} is negative or too large")
        total += c
    run_starts = np.cumsum(sizes) - sizes
    within = np.arange(total, dtype=np.int64) - np.repeat(run_starts, sizes)
    out: _I64 = np.repeat(first, sizes) + within * np.int64(step)
    return out


def group_by_query(q_codes: _I64, n_queries: int) -> tuple[_I64, _I64]:
    """Stable counting sort of entries by query code: ``(order, q_offsets)``."""
    nq = _int_arg(n_queries)
    if nq < 0:
        raise ValueError("n_queries must be >= 0")
    codes = _as_array(q_codes, np.int64, "q_codes")
    bad = np.flatnonzero((codes < 0) | (codes >= nq))
    if len(bad):
        k = int(bad[0])
        raise ValueError(f"q_codes[{k}] = {int(codes[k])} is outside [0, {nq})")
    order = np.argsort(codes, kind="stable").astype(np.int64, copy=False)
    q_offsets = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=nq), out=q_offsets[1:])
    return order, q_offsets


def take_strings(data: _U8, offsets: _I64, idx: _I64) -> tuple[_U8, _I64]:
    """Gather a string column by index: ``(data2, offsets2)``."""
    d = _as_array(data, np.uint8, "data")
    o = _as_array(offsets, np.int64, "offsets")
    ix = _as_array(idx, np.int64, "idx")
    n = _check_column(d, o, "string column")
    bad = np.flatnonzero((ix < 0) | (ix >= n))
    if len(bad):
        raise IndexError(f"index {int(ix[bad[0]])} is out of bounds for a column of {n} strings")
    return _gather(d, o, ix)


# ---------------------------------------------------------------------------
# rank, find_duplicates, align
# ---------------------------------------------------------------------------


def rank(
    q_offsets: _I64,
    doc_data: _U8,
    doc_offsets: _I64,
    scores: _F64,
    policy: int,
    threads: int = 0,
) -> _I64:
    """Rank each query by score, descending; ties: 0 = docid descending (trec_eval),
    1 = input order, 2 = docid ascending. Returns the permutation of the entries."""
    policy = _int_arg(policy)
    _int_arg(threads)
    if policy < 0 or policy > 2:
        raise ValueError("policy must be 0 (trec_eval), 1 (input) or 2 (docid_asc)")
    qo = _as_array(q_offsets, np.int64, "q_offsets")
    dd = _as_array(doc_data, np.uint8, "doc_data")
    dof = _as_array(doc_offsets, np.int64, "doc_offsets")
    sc = _as_array(scores, np.float64, "scores")
    n = _check_column(dd, dof, "doc")
    if len(sc) != n:
        raise ValueError(f"scores has {len(sc)} elements for {n} documents")
    nq = _check_qoffsets(qo, n, "q_offsets")
    seg = np.repeat(np.arange(nq, dtype=np.int64), np.diff(qo))
    neg = -(sc + 0.0)  # -0.0 and 0.0 rank alike; lexsort is stable (input order last)
    if policy == 1:
        perm = np.lexsort((neg, seg))
    else:
        codes, _ = _column_codes(dd, dof)
        tie = -codes if policy == 0 else codes
        perm = np.lexsort((tie, neg, seg))
    return perm.astype(np.int64, copy=False)


def find_duplicates(
    q_offsets: _I64,
    doc_data: _U8,
    doc_offsets: _I64,
    order: _I64 | None,
    limit: int,
    threads: int = 0,
) -> tuple[_I64, _I64]:
    """Repeated docids within each query, among the first ``limit`` entries of ``order``
    (-1: all; ``None``: file order): ``(dup, first)``, in window order."""
    limit = _int_arg(limit)
    _int_arg(threads)
    if limit < -1:
        raise ValueError("limit must be -1 (no limit) or >= 0")
    qo = _as_array(q_offsets, np.int64, "q_offsets")
    dd = _as_array(doc_data, np.uint8, "doc_data")
    dof = _as_array(doc_offsets, np.int64, "doc_offsets")
    ord_ = None if order is None else _as_array(order, np.int64, "order")
    n = _check_column(dd, dof, "doc")
    nq = _check_qoffsets(qo, n, "q_offsets")
    if ord_ is not None and len(ord_) != n:
        raise ValueError(f"order has {len(ord_)} elements for {n} documents")
    if ord_ is not None:
        bad = np.flatnonzero((ord_ < 0) | (ord_ >= n))
        if len(bad):
            j = int(bad[0])
            raise IndexError(f"order[{j}] = {int(ord_[j])} is out of bounds for {n} documents")
    empty = np.zeros(0, dtype=np.int64)
    seg = np.repeat(np.arange(nq, dtype=np.int64), np.diff(qo))
    pos = np.arange(n, dtype=np.int64)
    in_window = pos - qo[seg] < limit if limit >= 0 else np.ones(n, dtype=bool)
    window = pos[in_window]  # positions in the windows, in window order
    if len(window) == 0:
        return empty, empty.copy()
    entries = window if ord_ is None else ord_[window]
    codes, _ = _column_codes(dd, dof)
    wseg, wcode = seg[window], codes[entries]
    by_key = np.lexsort((window, wcode, wseg))  # stable: first occurrence first
    ks, kc = wseg[by_key], wcode[by_key]
    new_key = np.ones(len(by_key), dtype=bool)
    new_key[1:] = (ks[1:] != ks[:-1]) | (kc[1:] != kc[:-1])
    group_first = np.maximum.accumulate(np.where(new_key, np.arange(len(by_key)), 0))
    is_dup = ~new_key
    dup_rows = by_key[is_dup]
    first_rows = by_key[group_first[is_dup]]
    back = np.argsort(dup_rows, kind="stable")  # window order
    dup = entries[dup_rows[back]].astype(np.int64, copy=False)
    first = entries[first_rows[back]].astype(np.int64, copy=False)
    return dup, first


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
    scores: _F64 | None = None,
    depth: int = -1,
) -> Any:
    """Judgments of the ranked run entries: the relevance, -2 if negative, -1 if
    unjudged (the first judgment of a docid counts). With ``scores`` (float64 per run
    entry), ``(rel, ties)``: ``ties[j]`` is the 0-based rank where run query ``j``'s first
    group of equal scores holding documents of different gains (``max(rel, 0)``) begins,
    among the groups that begin before rank ``depth`` (-1: all; a group the depth cuts
    counts whole), or -1 if none."""
    _int_arg(threads)
    depth = _int_arg(depth)
    if depth < -1:
        raise ValueError("depth must be -1 (no limit) or >= 0")
    names = (
        "run_q_offsets",
        "run_doc_data",
        "run_doc_offsets",
        "perm",
        "run_to_qrels",
        "qrels_q_offsets",
        "qrels_doc_data",
        "qrels_doc_offsets",
        "qrels_rel",
    )
    types: tuple[type[np.generic], ...] = (
        np.int64, np.uint8, np.int64, np.int64, np.int64, np.int64, np.uint8, np.int64, np.int64
    )  # fmt: skip
    objs = (
        run_q_offsets,
        run_doc_data,
        run_doc_offsets,
        perm,
        run_to_qrels,
        qrels_q_offsets,
        qrels_doc_data,
        qrels_doc_offsets,
        qrels_rel,
    )
    rq, rd, ro, pm, r2q, qq, qd, qof, qrel = (
        _as_array(o, t, name) for o, t, name in zip(objs, types, names, strict=True)
    )
    n_run = _check_column(rd, ro, "run doc")
    nq_run = _check_qoffsets(rq, n_run, "run_q_offsets")
    if len(pm) != n_run:
        raise ValueError(f"perm has {len(pm)} elements for {n_run} run documents")
    if len(r2q) != nq_run:
        raise ValueError(f"run_to_qrels has {len(r2q)} elements for {nq_run} run queries")
    sc = None if scores is None else _as_array(scores, np.float64, "scores")
    if sc is not None and len(sc) != n_run:
        raise ValueError(f"scores has {len(sc)} elements for {n_run} run documents")
    n_qrels = _check_column(qd, qof, "qrels doc")
    nq_qrels = _check_qoffsets(qq, n_qrels, "qrels_q_offsets")
    if len(qrel) != n_qrels:
        raise ValueError(f"qrels_rel has {len(qrel)} elements for {n_qrels} qrels documents")
    bad = np.flatnonzero((r2q < -1) | (r2q >= nq_qrels))
    if len(bad):
        j = int(bad[0])
        raise ValueError(f"run_to_qrels[{j}] = {int(r2q[j])} is outside [-1, {nq_qrels})")
    bad = np.flatnonzero((pm < 0) | (pm >= n_run))
    if len(bad):
        i = int(bad[0])
        raise IndexError(f"perm[{i}] = {int(pm[i])} is out of bounds for {n_run} run documents")
    out = _judgments(rd, ro, pm, rq, r2q, qd, qof, qq, qrel)
    if sc is None:
        return out
    return out, _first_mixed_ties(rq, pm, sc, out, depth)


def _judgments(
    rd: _U8, ro: _I64, pm: _I64, rq: _I64, r2q: _I64, qd: _U8, qof: _I64, qq: _I64, qrel: _I64
) -> _I64:
    """:func:`align`'s judgments (arguments checked)."""
    n_run, nq_run, n_qrels, nq_qrels = len(ro) - 1, len(rq) - 1, len(qof) - 1, len(qq) - 1
    out = np.full(n_run, -1, dtype=np.int64)
    if n_run == 0 or n_qrels == 0:
        return out
    both = np.concatenate([rd[ro[0] : ro[-1]], qd[qof[0] : qof[-1]]])
    both_offsets = np.concatenate([ro - ro[0], qof[1:] - qof[0] + (ro[-1] - ro[0])])
    codes, n_codes = _column_codes(both, both_offsets)
    run_codes, qrels_codes = codes[:n_run], codes[n_run:]
    # qrels keys (query, doc): the first judgment of each
    qseg = np.repeat(np.arange(nq_qrels, dtype=np.int64), np.diff(qq))
    qkey = qseg * n_codes + qrels_codes
    uniq_keys, first_idx = np.unique(qkey, return_index=True)
    rel_of_key = qrel[first_idx]
    rseg = np.repeat(np.arange(nq_run, dtype=np.int64), np.diff(rq))
    kq = r2q[rseg]
    judged = kq >= 0
    rkey = np.where(judged, kq, 0) * n_codes + run_codes[pm]
    at = np.searchsorted(uniq_keys, rkey)
    at_c = np.minimum(at, len(uniq_keys) - 1)
    found = judged & (at < len(uniq_keys)) & (uniq_keys[at_c] == rkey)
    rel = rel_of_key[at_c]
    out[found] = np.where(rel[found] >= 0, rel[found], -2)
    return out


def _first_mixed_ties(rq: _I64, pm: _I64, scores: _F64, rel: _I64, depth: int) -> _I64:
    """Per run query, the 0-based rank where the first group of equal scores (in ranked
    order) holding different gains ``max(rel, 0)`` begins, among the groups that begin
    before rank ``depth`` (-1: all), or -1 (:func:`align`'s ``ties``)."""
    nq = len(rq) - 1
    ties = np.full(nq, -1, dtype=np.int64)
    n = len(pm)
    if n < 2:
        return ties
    seg = np.repeat(np.arange(nq, dtype=np.int64), np.diff(rq))
    pos = np.arange(n, dtype=np.int64) - rq[seg]
    ranked = scores[pm]
    tied = (seg[1:] == seg[:-1]) & (ranked[1:] == ranked[:-1])  # pairs (i, i + 1)
    gain = np.maximum(rel, 0)
    mixed = np.flatnonzero(tied & (gain[1:] != gain[:-1]))
    if len(mixed) == 0:
        return ties
    index = np.arange(n, dtype=np.int64)
    group_start = np.maximum.accumulate(np.where(np.append(True, ~tied), index, 0))
    starts = np.unique(group_start[mixed])  # increasing: a query's first is its earliest
    if depth >= 0:
        starts = starts[pos[starts] < depth]
        if len(starts) == 0:
            return ties
    queries = seg[starts]
    first = np.append(True, queries[1:] != queries[:-1])
    ties[queries[first]] = pos[starts[first]]
    return ties


# ---------------------------------------------------------------------------
# parse_trec
# ---------------------------------------------------------------------------

_FLOAT_RE = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_SPECIAL_RE = re.compile(rb"[+-]?(?:inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)", re.IGNORECASE)
_INT_RE = re.compile(rb"[+-]?[0-9]+")
_NUMBUF = 64  # numbers are at most 63 characters, as in the C parser

_NUL_MSG = "contains a NUL byte: this looks like a binary file, not TREC text"
_LONE_CR = re.compile(rb"\r(?!\n)")
_UTF8_MSG = "is not valid UTF-8 text"


def _shown(field: bytes) -> str:
    """A field in an error message: its first 160 bytes decoded, at most 40 characters."""
    return field[:160].decode("utf-8", "replace")[:40]


def valid_utf8(field: bytes) -> bool:
    """Whether a field is UTF-8 text (the parser's rule; the run checker,
    :mod:`ranklens.workflow.check_run`, judges fields by it too)."""
    if field.isascii():
        return True
    try:
        field.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def parse_score(field: bytes) -> float | str:
    """The score of a run line, or the error message (the parser's rule; the run
    checker, :mod:`ranklens.workflow.check_run`, judges scores by it too)."""
    if _FLOAT_RE.fullmatch(field):  # any length, as the C core's heap fallback
        value = float(field)
        if math.isfinite(value):
            return value
        return f"score '{_shown(field)}' is not finite (NaN or infinity)"
    if len(field) < _NUMBUF and _SPECIAL_RE.fullmatch(field):
        return f"score '{_shown(field)}' is not finite (NaN or infinity)"
    return f"score '{_shown(field)}' is not a number"


def _relevance(field: bytes) -> int | str:
    """The relevance of a qrels line, or the error message."""
    if _INT_RE.fullmatch(field):
        sign = field[:1] if field[:1] in (b"+", b"-") else b""
        digits = field[len(sign) :].lstrip(b"0") or b"0"
        if len(digits) <= 19:  # int64 needs at most 19 digits (Python's int limit never hit)
            value = int(sign + digits)
            if -(2**63) <= value < 2**63:
                return value
    if _FLOAT_RE.fullmatch(field):
        number = float(field)
        if math.isfinite(number) and number == math.trunc(number) and abs(number) < 2**53:
            return int(number)
    return f"relevance '{_shown(field)}' is not an integer"


def _buffer(buf: object) -> bytes:
    """The bytes of a buffer-protocol object (``PyBUF_SIMPLE``)."""
    if isinstance(buf, bytes):
        return buf
    try:
        view = memoryview(buf)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"a bytes-like object is required, not '{type(buf).__name__}'") from None
    with view:
        return view.tobytes()


def _rank(field: bytes) -> int:
    """The rank field of a run line: an integer (a relevance's syntax), else ``INT64_MIN``."""
    value = _relevance(field)
    return _NO_RANK if isinstance(value, str) else value


def _strict_rank(field: bytes, fields: int) -> int:
    """NIST ndeval's rank: 1 to 18 ASCII digits on a line of 6 fields, else ``INT64_MIN``."""
    if fields == 6 and 0 < len(field) <= 18 and field.isdigit() and field.isascii():
        return int(field)
    return _NO_RANK


_NO_RANK = -(2**63)


def parse_trec(
    buf: object, kind: int, comments: int, threads: int = 0, ranks: int = 0, lone_cr: int = 0
) -> tuple[Any, ...]:
    """Parse TREC text (kind 0 = run ``qid Q0 docid rank score tag``, 1 = qrels
    ``qid iter docid rel``); entries grouped by query (query ids in byte order, file order
    within a query). Raises ``ValueError(line, message)`` on the first problem.
    ``ranks`` (runs only) adds the rank column (``INT64_MIN`` where it is not an
    integer) as an 8th item; ``ranks=2`` in NIST ndeval's syntax (``INT64_MIN`` unless 1
    to 18 digits on a line of exactly 6 fields). A NUL byte is an error; with
    ``lone_cr``, so is a carriage return that does not end a line, checked first."""
    kind = _int_arg(kind)
    skip_comments = bool(comments)
    _int_arg(threads)
    rank_mode = _int_arg(ranks)
    check_cr = bool(lone_cr)
    want_ranks = rank_mode != 0
    if kind not in (0, 1):
        raise ValueError("kind must be 0 (run) or 1 (qrels)")
    if rank_mode not in (0, 1, 2):
        raise ValueError("ranks must be 0, 1 or 2 (strict)")
    if want_ranks and kind != 0:
        raise ValueError("ranks are read from runs (kind 0) only")
    text = _buffer(buf)
    if check_cr:
        lone = _LONE_CR.search(text)
        if lone is not None:
            raise ValueError(text.count(b"\n", 0, lone.start()) + 1, LONE_CR_MESSAGE)
    nul = text.find(b"\0")
    if nul >= 0:
        raise ValueError(text.count(b"\n", 0, nul) + 1, _NUL_MSG)
    run = kind == 0
    want = 6 if run else 4
    cols_msg = (
        "expected 6 columns (qid Q0 docid rank score tag), found {}"
        if run
        else "expected 4 columns (qid iter docid relevance), found {}"
    )
    qids: list[bytes] = []
    docs: list[bytes] = []
    values: list[float] = []  # ints for qrels (exact: they stay Python ints)
    lines: list[int] = []
    rank_list: list[int] = []
    last_tag: bytes | None = None
    checked_ok: set[bytes] = set()  # ids known to be valid UTF-8
    for line_no, line in enumerate(text.split(b"\n"), 1):
        fields = line.split()
        if not fields:
            continue
        qid = fields[0]
        if skip_comments and qid[:1] == b"#":
            continue
        nf = len(fields)
        if nf < want or (not run and nf > want):
            raise ValueError(line_no, cols_msg.format(nf))
        doc = fields[2]
        if qid not in checked_ok:
            if not valid_utf8(qid):
                raise ValueError(line_no, _UTF8_MSG)
            checked_ok.add(qid)
        if not doc.isascii() and not valid_utf8(doc):
            raise ValueError(line_no, _UTF8_MSG)
        if run:
            score = parse_score(fields[4])
            if isinstance(score, str):
                raise ValueError(line_no, score)
            tag_field = fields[5]
            if not tag_field.isascii() and not valid_utf8(tag_field):
                raise ValueError(line_no, _UTF8_MSG)
            values.append(score)
            last_tag = tag_field
            if rank_mode == 2:
                rank_list.append(_strict_rank(fields[3], nf))
            elif want_ranks:
                rank_list.append(_rank(fields[3]))
        else:
            rel = _relevance(fields[3])
            if isinstance(rel, str):
                raise ValueError(line_no, rel)
            values.append(rel)
        qids.append(qid)
        docs.append(doc)
        lines.append(line_no)
    n = len(qids)
    codes, n_queries = _codes(qids)
    order, q_offsets = group_by_query(codes, n_queries)
    uniq = sorted(set(qids))
    order_list = order.tolist()
    doc_data, doc_offsets = _bytes_column([docs[i] for i in order_list])
    dtype = np.float64 if run else np.int64
    vals: Any = np.array(values, dtype=dtype)[order] if n else np.zeros(0, dtype=dtype)
    line_arr = np.array(lines, dtype=np.int64)[order] if n else np.zeros(0, dtype=np.int64)
    tag = last_tag.decode("utf-8") if run and last_tag is not None else None
    parsed: tuple[Any, ...] = (
        [q.decode("utf-8") for q in uniq],
        q_offsets,
        doc_data,
        doc_offsets,
        vals,
        line_arr,
        tag,
    )
    if want_ranks:
        rank_arr = np.array(rank_list, dtype=np.int64)[order] if n else np.zeros(0, np.int64)
        parsed += (rank_arr,)
    return parsed


def pool_runs(
    runs: Sequence[tuple[_I64, _I64, _U8, _I64, _I64]], n_union: int, threads: int = 0
) -> tuple[_I64, _U8, _I64, _I64, tuple[tuple[_I64, _I64], ...]]:
    """The runs' documents pooled per union query (rank fusion's join), as the C module:
    for each union query, the runs in order and each run's entries in ranked order
    (``perm``), a fused document per distinct document id in order of first appearance.
    Returns the fused query offsets, the fused documents' ids (a string column), how many
    runs retrieved each, and per run the fused document and 1-based rank of each ranked
    entry."""
    del threads
    prepared: list[tuple[list[int], list[int], list[bytes], list[int]]] = []
    for q_offsets, qmap, data, offsets, perm in runs:
        bounds = _as_array(q_offsets, np.int64, "q_offsets")
        where = _as_array(qmap, np.int64, "qmap")
        strings = _strings(
            _as_array(data, np.uint8, "doc_data"), _as_array(offsets, np.int64, "doc_offsets")
        )
        ranked = _as_array(perm, np.int64, "perm")
        slot = np.full(n_union, -1, dtype=np.int64)
        slot[where] = np.arange(where.shape[0], dtype=np.int64)
        prepared.append((bounds.tolist(), slot.tolist(), strings, ranked.tolist()))
    fused: list[bytes] = []
    hits: list[int] = []
    counts = np.zeros(n_union, dtype=np.int64)
    per_run = [
        (np.zeros(len(ranking), dtype=np.int64), np.zeros(len(ranking), dtype=np.int64))
        for _, _, _, ranking in prepared
    ]
    for u in range(n_union):
        local: dict[bytes, int] = {}
        start = len(fused)
        for (starts, slots, texts, ranking), (fid, ranks) in zip(
            prepared, per_run, strict=True
        ):
            j = slots[u]
            if j < 0:
                continue
            for p in range(starts[j], starts[j + 1]):
                text = texts[ranking[p]]
                k = local.get(text)
                if k is None:
                    k = local[text] = len(local)
                    fused.append(text)
                    hits.append(0)
                fid[p] = start + k
                ranks[p] = p - starts[j] + 1
                hits[start + k] += 1
        counts[u] = len(local)
    q_offsets_out = np.zeros(n_union + 1, dtype=np.int64)
    np.cumsum(counts, out=q_offsets_out[1:])
    lengths = np.fromiter((len(t) for t in fused), dtype=np.int64, count=len(fused))
    doc_offsets = np.zeros(len(fused) + 1, dtype=np.int64)
    np.cumsum(lengths, out=doc_offsets[1:])
    doc_data = np.frombuffer(b"".join(fused), dtype=np.uint8).copy()
    return (
        q_offsets_out,
        doc_data,
        doc_offsets,
        np.asarray(hits, dtype=np.int64),
        tuple((fid, rank) for fid, rank in per_run),
    )


def affine_sum(
    n_total: int,
    runs: Sequence[tuple[_I64, _I64, _F64, _I64, _F64, _F64, Any, float]],
    clip: object = False,
    threads: int = 0,
) -> _F64:
    """Per fused document, the sum over runs (in order, from 0) of the normalised scores
    ``(scores[perm] - shift) / scale`` of each run's queries (1 where ``flat``; at least 0
    with ``clip``), weighted, as the C module (rank fusion's Comb* methods)."""
    del threads
    size = _int_arg(n_total)
    if size < 0:
        raise ValueError("n_total must be >= 0")
    try:
        items = list(runs)
    except TypeError:
        raise TypeError("runs must be a sequence of tuples") from None
    clipped = bool(clip)
    total = np.zeros(size, dtype=np.float64)
    names = ("q_offsets", "perm", "scores", "fid", "shift", "scale", "flat")
    types: tuple[type[np.generic], ...] = (
        np.int64,
        np.int64,
        np.float64,
        np.int64,
        np.float64,
        np.float64,
        np.uint8,
    )
    for item in items:
        if not isinstance(item, tuple) or len(item) != 8:
            raise TypeError("each run must be a tuple of 7 arrays and a weight")
        q_offsets, perm, scores, fid, shift, scale, flat = (
            _as_array(obj, dtype, name)
            for obj, dtype, name in zip(item[:7], types, names, strict=True)
        )
        if isinstance(item[7], str | bytes):
            raise TypeError(f"must be real number, not {_tp_name(item[7])}")
        weight = float(item[7])
        n = len(perm)
        nq = _check_qoffsets(q_offsets, n, "q_offsets")
        if len(scores) != n or len(fid) != n or not len(shift) == len(scale) == len(flat) == nq:
            raise ValueError("scores and fid must match perm; shift, scale and flat the queries")
        if n and (perm.min() < 0 or perm.max() >= n or fid.min() < 0 or fid.max() >= size):
            raise IndexError("perm or fid is out of bounds")
        lengths = np.diff(q_offsets)
        values = np.subtract(scores[perm], np.repeat(shift, lengths))
        np.divide(values, np.repeat(scale, lengths), out=values)
        values[np.repeat(flat != 0, lengths)] = 1.0
        if clipped:
            np.maximum(values, 0.0, out=values)
        np.add.at(total, fid, values if weight == 1.0 else weight * values)
    return total


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
) -> bytes:
    """TREC run text ``qid Q0 docid rank score tag`` of queries ``[q_lo, q_hi)``, as the C
    module: query ``j``'s lines are the entries ``order[q_offsets[j]:q_offsets[j+1]]``
    ranked from 1, each score as ``repr(float)`` writes it."""
    del threads
    if not isinstance(tag, bytes):  # the arguments are parsed before the arrays are read
        raise TypeError(f"a bytes-like object is required, not '{type(tag).__name__}'")
    lo, hi = _int_arg(q_lo), _int_arg(q_hi)
    arrays = [
        _as_array(obj, dtype, name)
        for obj, dtype, name in (
            (qid_data, np.uint8, "qid_data"),
            (qid_offsets, np.int64, "qid_offsets"),
            (q_offsets, np.int64, "q_offsets"),
            (doc_data, np.uint8, "doc_data"),
            (doc_offsets, np.int64, "doc_offsets"),
            (scores, np.float64, "scores"),
            (order, np.int64, "order"),
        )
    ]
    qdata, qoffs, bounds, ddata, doffs, values, ranked = arrays
    _check_column(qdata, qoffs, "qid")
    n = _check_column(ddata, doffs, "doc")
    nq = _check_qoffsets(bounds, n, "q_offsets")
    if len(qoffs) != nq + 1 or len(values) != n or len(ranked) != n:
        raise ValueError("qids, scores and order must match the run")
    if lo < 0 or lo > hi or hi > nq:
        raise ValueError("need 0 <= q_lo <= q_hi <= the number of queries")
    start, stop = int(bounds[lo]), int(bounds[hi])
    if stop > start and (ranked[start:stop].min() < 0 or ranked[start:stop].max() >= n):
        raise IndexError("order is out of bounds")
    qids = _strings(qdata, qoffs)
    docs = _strings(ddata, doffs)
    floats = values.tolist()
    suffix = b" " + bytes(tag) + b"\n"
    out = []
    for j in range(lo, hi):
        first = int(bounds[j])
        head = qids[j] + b" Q0 "
        for p in range(first, int(bounds[j + 1])):
            e = int(ranked[p])
            score = repr(floats[e]).encode("ascii")
            out.append(b"%s%s %d %s%s" % (head, docs[e], p - first + 1, score, suffix))
    return b"".join(out)
