"""Whitespace-separated text columns split with numpy, no Python loop over lines: for the
formats the native core does not read (subtopic qrels, and NIST ndeval's runs where the
native parser does not read them as ndeval does).

>>> cols = split_columns(b"151 Q0 d1 1 -2.5 run\\n151 Q0 d2 2 -3 run\\n", 6, "run")
>>> cols[2].tolist(), parse_ints(cols[3], "run", "rank").tolist()
([b'd1', b'd2'], [1, 2])
"""

from __future__ import annotations

import numpy as np

from ranklens.base.errors import ParseError
from ranklens.base.types import Int64Array

_SPACE = np.zeros(256, dtype=bool)
_SPACE[[9, 10, 11, 12, 13, 32]] = True


def split_columns(
    data: bytes, count: int, name: str, wanted: tuple[int, ...] | None = None
) -> list[np.ndarray]:
    """The ``count`` columns of every non-blank line as byte-string arrays (``S`` dtype);
    only those in ``wanted`` (the others are empty arrays) if given.

    Raises
    ------
    ParseError
        A line has another number of fields (the message names the line).
    """
    raw = np.frombuffer(data, dtype=np.uint8)
    token = np.concatenate(([False], ~_SPACE[raw], [False]))
    change = np.flatnonzero(np.diff(token.view(np.int8)))  # token starts and ends alternate
    starts = change[0::2]
    newlines = np.flatnonzero(raw == 10)
    # tokens on each line: those before its newline minus those before the previous one
    before = np.searchsorted(starts, np.append(newlines, len(raw)))
    per_line = np.diff(np.concatenate(([0], before)))
    wrong = np.flatnonzero((per_line != 0) & (per_line != count))
    if len(wrong):
        line = int(wrong[0]) + 1
        raise ParseError(
            f"a line needs {count} fields, got {int(per_line[wrong[0]])}", path=name, line=line
        )
    tokens = data.split()
    out = []
    for column in range(count):
        if wanted is not None and column not in wanted:
            out.append(np.zeros(0, dtype="S1"))
            continue
        out.append(np.array(tokens[column::count], dtype=bytes))
    return out


def parse_ints(column: np.ndarray, name: str, what: str, signed: bool = False) -> Int64Array:
    """A byte-string column of decimal integers (a leading ``-`` if ``signed``).

    Raises
    ------
    ParseError
        A value is not an integer (the message gives the row).
    """
    width = column.dtype.itemsize
    matrix = column.view(np.uint8).reshape(-1, width).astype(np.int16)
    length = np.count_nonzero(matrix, axis=1)
    negative = matrix[:, 0] == 45 if signed else np.zeros(len(column), dtype=bool)
    j = np.arange(width)
    body = (j[None, :] < length[:, None]) & ~((j[None, :] == 0) & negative[:, None])
    digit = matrix - 48
    ok = ((digit >= 0) & (digit <= 9)) | ~body
    ok_rows = ok.all(axis=1) & (length > negative)
    if not ok_rows.all():
        row = int(np.flatnonzero(~ok_rows)[0])
        value = column[row].decode(errors="replace")
        raise ParseError(f"{what} {value!r} is not an integer", path=name, line=row + 1)
    digits = length - negative
    long_rows = np.flatnonzero(digits >= 19)  # may not fit int64: checked exactly below
    for row in long_rows.tolist():
        if not -(2**63) <= int(column[row]) < 2**63:
            value = column[row].decode(errors="replace")
            raise ParseError(
                f"{what} {value!r} does not fit a 64-bit integer", path=name, line=row + 1
            )
    power = np.where(body, length[:, None] - 1 - j[None, :], 0)
    scale = 10 ** np.minimum(power, 18).astype(np.int64)
    if long_rows.shape[0]:  # 19 digits: summed as uint64, then negated (exact in range)
        magnitude = np.where(body, digit, 0).astype(np.uint64) * scale.astype(np.uint64)
        total = magnitude.sum(axis=1, dtype=np.uint64)
        signed_total = np.where(negative, (~total + np.uint64(1)), total)
        fitted: Int64Array = signed_total.view(np.int64)
        return fitted
    values = np.where(body, digit * scale, 0).sum(axis=1)
    result: Int64Array = np.where(negative, -values, values).astype(np.int64)
    return result
