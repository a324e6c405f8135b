"""The errors ``ranklens.compat.ranx`` raises: ranklens' errors that ranx's users can catch.

ranx signals bad input with ``AssertionError`` (query ids that differ between the qrels and
the run, an unknown file kind, a negative cut-off, fewer than two runs to fuse),
``ValueError`` (an unknown metric, fusion method or normalisation; data numpy cannot
convert) and ``NotImplementedError`` (an unknown statistical test). Each error raised
through this module is a :class:`~ranklens.base.errors.RanklensError` (so ranklens'
handlers catch it) and an instance of the builtin class ranx raises in that place (so a
``try: ... except ValueError:`` written for ranx still catches it)::

    RanklensError
    ├── InputError
    │   ├── RanxInputError            also a ValueError: data ranklens cannot use
    │   │   ├── RanxParseError        (ParseError too)
    │   │   ├── RanxEmptyInputError   (EmptyInputError too)
    │   │   └── RanxDuplicateError    (DuplicateError too)
    │   ├── QueryMismatchError        also an AssertionError: the qrels' and the run's
    │   │                             query ids differ (ranx's ``check_keys``)
    │   └── RanxFileNotFoundError     also a FileNotFoundError: no file at a path
    ├── OptionError (a ValueError)
    │   ├── RanxAssertionError        also an AssertionError: what ranx checks by assert
    │   └── UnsupportedTestError      also a NotImplementedError: an unknown stat_test
    └── MeasureError (a ValueError): an unknown metric

:func:`ranx_errors` turns the ranklens errors raised inside a call into these classes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from ranklens.base.errors import (
    DuplicateError,
    EmptyInputError,
    InputError,
    OptionError,
    ParseError,
)

__all__ = [
    "QueryMismatchError",
    "RanxAssertionError",
    "RanxDuplicateError",
    "RanxEmptyInputError",
    "RanxFileNotFoundError",
    "RanxInputError",
    "RanxParseError",
    "UnsupportedTestError",
    "ranx_errors",
]


class RanxInputError(InputError, ValueError):
    """Input data that ranklens cannot use (also a ``ValueError``, as numpy's and ranx's
    conversion errors are)."""


class RanxParseError(ParseError, RanxInputError):
    """A line of a file does not follow its format (also a ``ValueError``)."""


class RanxEmptyInputError(EmptyInputError, RanxInputError):
    """A file or object holds no data (also a ``ValueError``)."""


class RanxDuplicateError(DuplicateError, RanxInputError):
    """A (query, document) pair occurs twice (also a ``ValueError``)."""


class QueryMismatchError(InputError, AssertionError):
    """The qrels and the run have different query ids (ranx asserts they are equal)."""


class RanxFileNotFoundError(InputError, FileNotFoundError):
    """No file at the path given (ranx: ``FileNotFoundError`` from ``open``)."""


class RanxAssertionError(OptionError, AssertionError):
    """An option ranx checks with ``assert``: a file kind, a cut-off, the runs to fuse."""


class UnsupportedTestError(OptionError, NotImplementedError):
    """A statistical test neither ranx nor this module has (ranx: ``NotImplementedError``)."""


_CONVERTED: tuple[tuple[type[InputError], type[InputError]], ...] = (
    (DuplicateError, RanxDuplicateError),
    (ParseError, RanxParseError),
    (EmptyInputError, RanxEmptyInputError),
    (InputError, RanxInputError),
)


def as_ranx_error(error: InputError) -> InputError:
    """``error`` as the class of this module that is also a ``ValueError`` (the same
    message and attributes); errors that already are one (or an ``AssertionError`` or
    ``OSError``) are returned as they are."""
    if isinstance(error, ValueError | AssertionError | OSError):
        return error
    for source, target in _CONVERTED:
        if isinstance(error, source):
            converted = target.__new__(target, *error.args)
            converted.__dict__.update(error.__dict__)
            return converted.with_traceback(error.__traceback__)
    return error  # pragma: no cover - InputError is the last entry


P = ParamSpec("P")
R = TypeVar("R")


def ranx_errors(function: Callable[P, R]) -> Callable[P, R]:
    """Decorate a public function of the module: the ranklens input errors it raises come
    out as the classes above (each also the builtin class ranx raises)."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return function(*args, **kwargs)
        except InputError as error:
            converted = as_ranx_error(error)
            if converted is error:
                raise
            raise converted from None

    return wrapper


def refuse(message: str) -> RanxAssertionError:
    """The error for an option ranx checks with ``assert``."""
    return RanxAssertionError(message)


def describe(value: Any) -> str:
    """A short ``repr`` for messages."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
