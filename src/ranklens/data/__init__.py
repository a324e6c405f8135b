"""Layer 1, the data model and I/O: :class:`Qrels` and :class:`Run` (columnar arrays grouped
by query), the readers and writers of every input (TREC text, dicts, records, DataFrames,
trec_eval's preference and judgement-group files), the bundled example data and the native
core (``ranklens.data._core``) that parses, groups, ranks and joins."""

# ``Qrels(data)`` and ``Run(data)`` (ranx's idiom) are installed by the coercion module, which
# imports both classes (see ranklens.data.idioms): loaded with the package, whichever module
# of it is imported first.
from ranklens.data import coerce as _coerce  # noqa: F401
