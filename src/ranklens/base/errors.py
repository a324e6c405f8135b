"""The exceptions ranklens raises.

Every error that ranklens raises on purpose derives from :class:`RanklensError`::

    RanklensError
    ├── InputError              bad input data; carries ``path`` and ``line``
    │   ├── ParseError          a line of a file is not what its format requires
    │   ├── DuplicateError      a (query, document) pair occurs twice; ``lines`` has both
    │   └── EmptyInputError     a file or object holds no data at all
    ├── MeasureError            an unknown measure name or an invalid parameter
    │   └── UserMeasureError    a user measure (``define_measure``) failed or returned a
    │                           value a measure may not; names the measure and the query
    ├── OptionError             an invalid option value (tie policy, query set, ...)
    ├── MissingDependencyError  an optional dependency is not installed (also an ImportError)
    └── ResourceError           out of memory reading or evaluating (also a MemoryError)

and one warning, :class:`InputWarning` (a ``UserWarning``): most qrels queries are missing
from the run.

The command line prints ``ranklens: error: <message>`` for any of them and exits with 2.
"""

from __future__ import annotations

__all__ = [
    "DuplicateError",
    "EmptyInputError",
    "InputError",
    "InputWarning",
    "MeasureError",
    "MissingDependencyError",
    "OptionError",
    "ParseError",
    "RanklensError",
    "ResourceError",
    "UserMeasureError",
]


class RanklensError(Exception):
    """Base class of every error ranklens raises on purpose."""


class InputError(RanklensError):
    """Input data that ranklens cannot use.

    Parameters
    ----------
    message
        What is wrong and what to do about it.
    path
        The file the data came from, or ``None`` for in-memory data.
    line
        The 1-based physical line number in ``path``, or ``None``.
    """

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None) -> None:
        self.message = message
        self.path = path
        self.line = line
        super().__init__(self._format())

    def _format(self) -> str:
        where = self.path if self.path is not None else ""
        if self.line is not None:
            where = f"{where}:{self.line}" if where else f"line {self.line}"
        return f"{where}: {self.message}" if where else self.message


class ParseError(InputError):
    """A line of a TREC file does not follow its format."""


class EmptyInputError(InputError):
    """A file or object holds no data."""


class DuplicateError(InputError):
    """The same (query, document) pair occurs twice.

    ``lines`` holds the line numbers of both occurrences (``None`` for in-memory data),
    ``query`` and ``document`` the repeated ids.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        lines: tuple[int, int] | None = None,
        query: str = "",
        document: str = "",
    ) -> None:
        self.lines = lines
        self.query = query
        self.document = document
        super().__init__(message, path=path, line=None if lines is None else lines[1])


class MeasureError(RanklensError, ValueError):
    """An unknown measure, a malformed measure name or an invalid parameter value."""


class UserMeasureError(MeasureError):
    """A measure of the user's (:func:`ranklens.define_measure`) raised an exception, or
    returned what a measure may not return (not a real number, NaN, an infinity, a value
    outside its declared bounds, a batch of the wrong shape): the user's code, not
    ranklens, named with the measure and, where one is known, the query.

    Parameters
    ----------
    message
        What happened, in one line.
    measure
        The user measure's name.
    query
        The query it failed on, or ``None`` (a batch function's exception concerns every
        query at once).
    """

    def __init__(self, message: str, *, measure: str = "", query: str | None = None) -> None:
        self.measure = measure
        self.query = query
        super().__init__(message)


class OptionError(RanklensError, ValueError):
    """An option has a value outside the ones it accepts."""


class MissingDependencyError(RanklensError, ImportError):
    """An optional dependency needed for this feature is not installed."""


class ResourceError(RanklensError, MemoryError):
    """The machine ran out of memory reading or evaluating the input."""


class InputWarning(UserWarning):
    """The input is valid but probably not what was meant (most qrels queries missing from
    the run, so they score 0)."""
