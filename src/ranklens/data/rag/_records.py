"""The records of the RAG files: JSON lines (or a JSON array) from a path or a file
object, a list of dicts, or the rows of a DataFrame, each with where it came from, and the
field checks every reader shares (one-line errors naming the file and the line).

>>> rows = read_records([{"qid": "q1"}, {"qid": "q2"}], "gold answers")
>>> [(r.where, r.data["qid"]) for r in rows.records], rows.source is None
([('record 1', 'q1'), ('record 2', 'q2')], True)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ranklens.base.errors import EmptyInputError, InputError, ParseError
from ranklens.data.frames import is_frame


@dataclass(frozen=True)
class Record:
    """One JSON object of an input and where it was: ``line`` (1-based, in ``source``) for
    a file, ``index`` (1-based) for in-memory records."""

    data: Mapping[str, Any]
    line: int | None
    index: int

    @property
    def where(self) -> str:
        """``line N`` or ``record N``, for messages about in-memory data."""
        return f"line {self.line}" if self.line is not None else f"record {self.index}"


@dataclass(frozen=True)
class Records:
    """The records of one input and its display name (``None`` for in-memory data)."""

    records: tuple[Record, ...]
    source: str | None


def is_path(obj: object) -> bool:
    """A path (str or ``os.PathLike``) or a file object."""
    return isinstance(obj, str | os.PathLike) or hasattr(obj, "read")


def read_records(obj: object, what: str) -> Records:
    """The JSON objects of ``obj``: a path or file object (JSON lines, or one JSON array;
    ``.gz``/``.bz2``/``.xz`` recognised), a list or tuple of dicts, or a pandas/polars
    DataFrame or pyarrow Table (one record per row).

    Raises
    ------
    ParseError
        A line is not a JSON object (the file and the line named).
    EmptyInputError
        The input holds no record.
    InputError
        ``obj`` is none of these.
    """
    if isinstance(obj, Records):
        return obj
    if is_path(obj):
        from ranklens.data.source import read_binary

        data, name = read_binary(obj)
        records = _parse(data, name, what)
        if not records:
            raise EmptyInputError(f"holds no {what}: the file is empty", path=name)
        return Records(tuple(records), name)
    if is_frame(obj):
        rows = _frame_rows(obj)
        if not rows:
            raise EmptyInputError(f"the table holds no {what}: it has no rows")
        return Records(tuple(Record(r, None, i) for i, r in enumerate(rows, 1)), None)
    if isinstance(obj, list | tuple):
        if not obj:
            raise EmptyInputError(f"no {what}: the list is empty")
        out = []
        for i, item in enumerate(obj, 1):
            if not isinstance(item, Mapping):
                raise InputError(
                    f"record {i} of the {what} is a {type(item).__name__}, not a dict "
                    "(a JSON object)"
                )
            out.append(Record(item, None, i))
        return Records(tuple(out), None)
    raise InputError(
        f"cannot read {what} from {type(obj).__name__} {obj!r:.60}: give a path, a file "
        "object, a list of dicts (the JSON lines' objects) or a DataFrame"
    )


def _parse(data: bytes, name: str, what: str) -> list[Record]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ParseError("is not UTF-8 text", path=name, line=line) from None
    stripped = text.lstrip()
    if stripped.startswith("["):  # one JSON array of objects
        return _array(text, name, what)
    out: list[Record] = []
    # lines end at "\n" only: str.splitlines would also cut at U+2028, U+0085 ..., which a
    # JSON string may hold as they are (and the line numbers would not be the file's)
    for number, content in enumerate(text.split("\n"), 1):
        if not content.strip():
            continue
        try:
            value = json.loads(content)
        except json.JSONDecodeError as exc:
            raise ParseError(
                f"is not a JSON object ({exc.msg} at column {exc.colno}); each line of the "
                f"{what} must be one JSON object",
                path=name,
                line=number,
            ) from None
        if not isinstance(value, dict):
            raise ParseError(
                f"holds a JSON {type(value).__name__}, not an object; each line of the {what} "
                "must be one JSON object",
                path=name,
                line=number,
            )
        out.append(Record(value, number, len(out) + 1))
    return out


def _array(text: str, name: str, what: str) -> list[Record]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(
            f"is not valid JSON ({exc.msg} at column {exc.colno})", path=name, line=exc.lineno
        ) from None
    out: list[Record] = []
    for i, item in enumerate(value, 1):
        if not isinstance(item, dict):
            raise InputError(
                f"item {i} of the JSON array is a {type(item).__name__}, not an object; the "
                f"{what} are JSON objects",
                path=name,
            )
        out.append(Record(item, None, i))
    return out


def _frame_rows(frame: Any) -> list[dict[str, Any]]:
    module = type(frame).__module__.split(".")[0]
    if module == "pandas":
        rows: list[dict[str, Any]] = frame.to_dict("records")
        return rows
    if module == "polars":
        return list(frame.to_dicts())
    return list(frame.to_pylist())  # pyarrow


def fail(message: str, record: Record, source: str | None) -> InputError:
    """An :class:`InputError` about ``record``: the file and line for a file, ``record N``
    in the message for in-memory data."""
    if source is not None and record.line is not None:
        return InputError(message, path=source, line=record.line)
    where = f"{record.where}: " if record.line is None else ""
    return InputError(where + message, path=source)


def field(record: Record, names: Sequence[str], source: str | None, what: str) -> Any:
    """The value of the first of ``names`` present in ``record`` (a missing one is an
    error naming them all)."""
    for name in names:
        if name in record.data:
            return record.data[name]
    keys = ", ".join(repr(k) for k in list(record.data)[:8])
    wanted = " or ".join(repr(n) for n in names)
    raise fail(
        f"{what} needs the field {wanted}; this record has {keys or 'no field'}", record, source
    )


def optional(record: Record, names: Sequence[str]) -> Any:
    """The value of the first of ``names`` present in ``record``, else ``None``."""
    for name in names:
        if name in record.data:
            return record.data[name]
    return None


def identifier(value: Any, record: Record, source: str | None, what: str) -> str:
    """A topic or run id: a non-empty string, or an integer written in decimal."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise fail(f"{what} must be a string or an integer, not {value!r:.40}", record, source)
    text = str(value)
    if not text.strip():
        raise fail(f"{what} is empty", record, source)
    return text


def text_value(value: Any, record: Record, source: str | None, what: str) -> str:
    """A string (``None`` is an error naming ``what``)."""
    if not isinstance(value, str):
        raise fail(f"{what} must be a string, not {value!r:.40}", record, source)
    return value


def items(value: Any, record: Record, source: str | None, what: str) -> list[Any]:
    """A JSON array (a list or tuple)."""
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise fail(f"{what} must be a list, not {value!r:.40}", record, source)
    return list(value)


def file_stem_of(source: str | None, default: str) -> str:
    """The run name a file gives when its records name none: its stem."""
    if source is None or source.startswith("<"):
        return default
    from ranklens.data.naming import file_stem

    return file_stem(source)
