"""``ranklens.check``: every defect of a run file or a RAG answer file, at its line.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
>>> with open(path, "w") as f:
...     _ = f.write("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 x bm25\\nq1 Q0 d1 3 1.0 bm25\\n")
>>> found = check(path)
>>> found.ok, [(f.line, f.severity) for f in found]
(False, [(2, 'defect'), (3, 'defect')])
>>> print(found.defects[0])  # doctest: +ELLIPSIS
/...run.txt:2: score 'x' is not a number
"""

from __future__ import annotations

import os
from typing import Any

from ranklens.workflow.check_answers import MAX_WORDS, check_answers
from ranklens.workflow.check_run import check_run
from ranklens.workflow.findings import Findings


def check(
    path: str | os.PathLike[str],
    *,
    qrels: Any = None,
    depth: int | None = None,
    rag: bool = False,
    max_words: int = MAX_WORDS,
) -> Findings:
    """Check a TREC run file, or (``rag=True``) a TREC RAG answer file, and return every
    defect and warning (:class:`~ranklens.workflow.findings.Findings`; each finding prints
    as ``FILE:LINE: message``).

    Parameters
    ----------
    path
        The file (plain, or gzip/bzip2/xz compressed; ``-`` for stdin).
    qrels
        Judgments to hold a run against (a path or anything :class:`~ranklens.Qrels`
        reads): queries they lack and documents never judged are warnings.
    depth
        The most documents a query may have (a defect beyond it); default: no limit.
    rag
        ``path`` is a TREC RAG answer file (JSON lines) rather than a run.
    max_words
        The answer length limit of a RAG answer file, in words (400).

    Returns
    -------
    Findings
        ``.defects``, ``.warnings``, ``.ok`` (no defect), iterable over the findings.

    Raises
    ------
    InputError
        The file cannot be read at all (missing, unreadable, corrupt compressed data,
        binary data); a file that can be read never raises, whatever its lines hold.
    OptionError
        ``qrels`` or ``depth`` given with ``rag``, or an invalid number.
    """
    if rag:
        if qrels is not None or depth is not None:
            from ranklens.base.errors import OptionError

            raise OptionError("qrels and depth check runs, not RAG answer files (rag=True)")
        return check_answers(path, max_words=max_words)
    return check_run(path, qrels=qrels, depth=depth)
