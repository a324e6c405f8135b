"""Default names of several runs evaluated together.

A run read from a file is named by its tag column (the last line's, as trec_eval's
``runid``). When several runs are evaluated or compared in one call and some share a tag,
or a file has no tag, those runs are named by their file name's stem instead
(``runs/bm25.run.gz`` is ``bm25``), so that ``compare(qrels, ["bm25.run", "new.run"], ...)``
gives runs ``bm25`` and ``new`` even when both files carry the tag ``Anserini``. A name
given explicitly is never changed.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence

from ranklens.data.run import Run

_COMPRESSED = (".gz", ".bz2", ".xz")


def file_stem(path: str) -> str:
    """The file name without folders, a compression suffix and one extension.

    >>> file_stem("runs/dl19-bm25.run.gz"), file_stem("new.run"), file_stem("bm25")
    ('dl19-bm25', 'new', 'bm25')
    """
    base = os.path.basename(path)
    for suffix in _COMPRESSED:
        if base.endswith(suffix) and len(base) > len(suffix):
            base = base[: -len(suffix)]
            break
    stem, ext = os.path.splitext(base)
    return stem if stem and ext else base


def _from_file(run: Run) -> bool:
    return bool(run.source) and not str(run.source).startswith("<")


def distinct_names(runs: Sequence[Run], given: Sequence[str | None]) -> list[str]:
    """The name of each run evaluated together: ``given[i]`` when not ``None``, else the
    run's own name (its tag), else (tag shared with another run, or no tag) its file stem;
    in-memory runs (dicts, DataFrames) that share a name get their 1-based position
    appended (``run1``, ``run2``).

    Where stems coincide too (the same file twice), the runs keep their tags; names that
    still coincide are left as they are (the caller refuses them).

    >>> a = Run.from_dict({"q": {"d": 1.0}}, name="Anserini")
    >>> a = Run(**{**a.__dict__, "source": "bm25.run"})
    >>> b = Run(**{**a.__dict__, "source": "runs/new.run.gz"})
    >>> distinct_names([a, b], [None, None]), distinct_names([a, b], ["x", None])
    (['bm25', 'new'], ['x', 'Anserini'])
    >>> d = Run.from_dict({"q": {"d": 1.0}})
    >>> distinct_names([d, d, d.renamed("other")], [None, None, None])
    ['run1', 'run2', 'other']
    """
    own = [g if g is not None else r.name for r, g in zip(runs, given, strict=True)]
    counts = Counter(own)
    out: list[str] = []
    for i, (run, name, explicit) in enumerate(zip(runs, own, given, strict=True)):
        untagged = _from_file(run) and run.name == os.path.basename(str(run.source))
        if explicit is None and _from_file(run) and (counts[name] > 1 or untagged):
            out.append(file_stem(str(run.source)))
        elif explicit is None and not _from_file(run) and counts[name] > 1:
            out.append(f"{name}{i + 1}")  # in-memory runs of one name: by position
        else:
            out.append(name)
    # stems that coincide too (the same file twice) help nobody: keep the tags there
    final = Counter(out)
    return [o if final[o] == 1 or o == n else n for o, n in zip(out, own, strict=True)]
