"""Streaming: a run file larger than memory, evaluated in chunks cut at query boundaries.

The reading lives in :mod:`ranklens.data.chunks` and the evaluation of the chunks in
:mod:`ranklens.evaluation.streaming`, below :class:`~ranklens.Evaluator` (whose
``evaluate`` switches to it for a large file, and may not import upwards); this module is
their public home beside the other backends.

>>> from ranklens.scale.streaming import evaluate_stream, query_chunks, should_stream
"""

from ranklens.data.chunks import (
    DEFAULT_CHUNK_BYTES,
    SORT_HINT,
    STREAM_THRESHOLD,
    query_chunks,
    query_cut,
    should_stream,
)
from ranklens.evaluation.streaming import evaluate_stream

__all__ = [
    "DEFAULT_CHUNK_BYTES",
    "SORT_HINT",
    "STREAM_THRESHOLD",
    "evaluate_stream",
    "query_chunks",
    "query_cut",
    "should_stream",
]
