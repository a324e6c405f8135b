"""Query groups (slices of a collection: question type, language, length ...) read from a
two-column text file, one query a line::

    # query_id  group
    q1  factoid
    q2  list

Columns are separated by whitespace (tabs or spaces) or by one comma; blank lines and
lines starting with ``#`` are skipped, and so is a first line naming the columns
(``query_id``/``qid``/``query``/``topic`` then anything). A group name may hold spaces
when the columns are separated by a tab or a comma. Each query belongs to one group.

>>> import io
>>> groups, lines = read_query_groups(io.StringIO("qid group\\nq1 short\\nq2 long\\n"))
>>> groups, lines["q2"]
({'q1': 'short', 'q2': 'long'}, 3)
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping
from typing import IO, Any

from ranklens.base.errors import InputError, OptionError

__all__ = ["HEADER_NAMES", "as_query_groups", "read_query_groups"]

HEADER_NAMES = ("query_id", "qid", "query", "topic", "topic_id")


def _fields(text: str) -> list[str]:
    for separator in ("\t", ","):
        if separator in text:
            return [f.strip() for f in text.split(separator)]
    return text.split()


def _text_of(source: Any) -> tuple[str, str]:
    """``(display name, text)`` of a path (compressed or not), ``-`` or a file object."""
    if isinstance(source, io.TextIOBase):
        return getattr(source, "name", None) or "<groups>", str(source.read())
    from ranklens.data.source import read_bytes

    raw, name = read_bytes(source)
    try:
        return name, raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("the query groups file is not UTF-8 text", path=name) from None


def read_query_groups(
    source: str | os.PathLike[str] | IO[str],
) -> tuple[dict[str, str], dict[str, int]]:
    """``({query_id: group}, {query_id: line number})`` of a group file (module docstring).

    Raises
    ------
    InputError
        A line without exactly two columns, a query given twice, a file without any query
        (naming the file and the line).
    """
    path, text = _text_of(source)
    groups: dict[str, str] = {}
    lines: dict[str, int] = {}
    first = True
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        fields = _fields(stripped)
        if first and fields and fields[0].lower() in HEADER_NAMES:
            first = False
            continue
        first = False
        if len(fields) != 2 or not fields[0] or not fields[1]:
            raise InputError(
                f"expected two columns, a query id and its group, not {len(fields)} "
                f"({stripped[:60]!r})",
                path=str(path),
                line=number,
            )
        query, group = fields
        if query in groups:
            raise InputError(
                f"query {query!r} is given twice (first on line {lines[query]}); a query "
                "belongs to one group",
                path=str(path),
                line=number,
            )
        groups[query] = group
        lines[query] = number
    if not groups:
        raise InputError(
            "no query groups in the file (two columns: query id, group)", path=str(path)
        )
    return groups, lines


def as_query_groups(groups: Any) -> tuple[dict[str, str], dict[str, int], str | None]:
    """``(groups, line numbers, path)`` of a ``{query_id: group}`` mapping (no lines, no
    path) or a group file."""
    if isinstance(groups, Mapping):
        out = {str(q): str(g) for q, g in groups.items()}
        if not out:
            raise OptionError("groups is empty: give {query_id: group} for some queries")
        return out, {}, None
    if isinstance(groups, str | os.PathLike):
        mapping, lines = read_query_groups(groups)
        return mapping, lines, os.fspath(groups)
    if hasattr(groups, "read"):
        mapping, lines = read_query_groups(groups)
        return mapping, lines, getattr(groups, "name", None)
    raise OptionError(
        f"groups must be a {{query_id: group}} mapping or a two-column file, not "
        f"{type(groups).__name__}"
    )
