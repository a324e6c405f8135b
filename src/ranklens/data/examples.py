"""The example data bundled with ranklens.

The TREC 2019 Deep Learning passage qrels (43 queries, graded 0-3) and generated runs:
``bm25`` and ``rerank`` (100 documents per query, tied scores, unjudged documents), a third
system ``dense`` between them, ``rerank-repro`` (a reproduction of ``rerank``), and
``dl19-llm.qrels.gz``, the same pairs graded by a simulated lenient LLM judge
(``tools/make_example_data.py`` makes them all with fixed seeds).

>>> from ranklens.data.examples import example_paths
>>> qrels, runs = example_paths()
>>> qrels.name, [p.name for p in runs]
('dl19-passage.qrels.gz', ['dl19-bm25.run.gz', 'dl19-rerank.run.gz'])
"""

from __future__ import annotations

import gzip
import io
from importlib import resources
from pathlib import Path

from ranklens.base.errors import OptionError

EXAMPLE_FILE_NAMES = ("qrels.txt", "run.txt", "bm25.run", "rerank.run", "prefs.txt")
"""The names :func:`write_example_files` writes, the names the documentation's examples use:
the qrels, a run (the rerank run), the bm25 and rerank runs, and the qrels as trec_eval's
5-column preference file (``qid jg jsg docno rel_level``, one judgement group per query)."""


EXAMPLE_DESCRIPTION = (
    "the bundled example: TREC DL 2019 passage qrels (43 queries, graded 0-3) and generated "
    "runs with 100 documents per query whose scores tie on purpose"
)
"""What ``--example`` evaluates, in the words the command line prints."""


def _example_root() -> Path:
    return Path(str(resources.files("ranklens.data") / "example_files"))


def example_paths() -> tuple[Path, list[Path]]:
    """The paths of the bundled qrels and its two runs, ``bm25`` and ``rerank``."""
    root = _example_root()
    return root / "dl19-passage.qrels.gz", [root / "dl19-bm25.run.gz", root / "dl19-rerank.run.gz"]


def example_llm_qrels_path() -> Path:
    """The bundled qrels as a simulated LLM judge graded them (the same pairs)."""
    return _example_root() / "dl19-llm.qrels.gz"


def example_run_paths() -> dict[str, Path]:
    """Every bundled run by name: ``bm25``, ``dense``, ``rerank`` and ``rerank-repro``.

    >>> sorted(example_run_paths())
    ['bm25', 'dense', 'rerank', 'rerank-repro']
    """
    root = _example_root()
    return {
        name: root / f"dl19-{name}.run.gz" for name in ("bm25", "dense", "rerank", "rerank-repro")
    }


def write_example_files(directory: str | Path = ".", *, force: bool = False) -> list[Path]:
    """Write the bundled example as plain TREC files named as in the documentation.

    Writes :data:`EXAMPLE_FILE_NAMES` into ``directory``, so that the examples of the README
    and the docs (``ranklens eval qrels.txt run.txt``) run as written; returns the files
    written. A file already there with the same content is left as it is (writing the
    example twice in one folder is not an error); one with other content is replaced only
    with ``force``: without it nothing is written and
    :class:`~ranklens.base.errors.OptionError` names them.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     [p.name for p in write_example_files(tmp)]
    ['qrels.txt', 'run.txt', 'bm25.run', 'rerank.run', 'prefs.txt']
    """
    folder = Path(directory)
    targets = [folder / name for name in EXAMPLE_FILE_NAMES]
    qrels_path, (bm25_path, rerank_path) = example_paths()
    qrels = gzip.decompress(qrels_path.read_bytes())
    rerank = gzip.decompress(rerank_path.read_bytes())
    prefs = b"".join(
        b"%s 0 0 %s %s\n" % (qid, doc, grade)
        for qid, _, doc, grade in (line.split() for line in qrels.splitlines() if line.strip())
    )
    contents = [qrels, rerank, gzip.decompress(bm25_path.read_bytes()), rerank, prefs]
    pending = [
        (target, content)
        for target, content in zip(targets, contents, strict=True)
        if not _holds(target, content)
    ]
    existing = [str(t) for t, _ in pending if t.exists() or t.is_symlink()]
    if existing and not force:
        raise OptionError(
            f"{', '.join(existing)}: already there, with other content; --force replaces them"
        )
    folder.mkdir(parents=True, exist_ok=True)
    for target, content in pending:
        target.write_bytes(content)
    return [target for target, _ in pending]


def _holds(target: Path, content: bytes) -> bool:
    """Whether ``target`` is a regular file holding exactly ``content``."""
    try:
        return (
            target.is_file()
            and target.stat().st_size == len(content)
            and (target.read_bytes() == content)
        )
    except OSError:
        return False


NIST_EXAMPLE_TOOLS = ("ndeval", "gdeval", "sample-eval", "expeval")
"""The NIST tools' reproductions :func:`nist_example` gives the example to."""


def nist_example(tool: str) -> tuple[io.BytesIO, io.BytesIO]:
    """The bundled qrels and bm25 run in the input format of the NIST tool ``tool`` (one of
    :data:`NIST_EXAMPLE_TOOLS`), as named in-memory files.

    ndeval: the queries numbered 1-43 in order (it reads numeric topics up to 1000009),
    each with one subtopic; gdeval: the files as they are (grades 0-3); sample-eval: every
    judgment in one stratum sampled whole (so infAP is AP); expeval: ``qid docno rel`` and
    one sampled ranking (sample 1) per query.

    >>> qrels, run = nist_example("ndeval")
    >>> qrels.name, qrels.read().split(b"\\n")[0]
    ('example-ndeval.qrels', b'1 1 1017759 0')
    """
    if tool not in NIST_EXAMPLE_TOOLS:
        raise OptionError(f"no example for {tool!r}: one of {', '.join(NIST_EXAMPLE_TOOLS)}")
    qrels_path, run_paths = example_paths()
    qrels = [line.split() for line in gzip.decompress(qrels_path.read_bytes()).splitlines()]
    run = [line.split() for line in gzip.decompress(run_paths[0].read_bytes()).splitlines()]
    number = {qid: str(i).encode() for i, qid in enumerate(dict.fromkeys(q[0] for q in qrels), 1)}
    if tool == "ndeval":
        qrels = [[number[q], b"1", d, g] for q, _, d, g in qrels]
        run = [[number[q], *rest] for q, *rest in run if q in number]
    elif tool == "sample-eval":
        qrels = [[q, b"0", d, b"1", g] for q, _, d, g in qrels]
    elif tool == "expeval":
        qrels = [[q, d, g] for q, _, d, g in qrels]
        run = [[q, b"1", *rest] for q, _, *rest in run]

    def named(rows: list[list[bytes]], suffix: str) -> io.BytesIO:
        data = io.BytesIO(b"".join(b" ".join(row) + b"\n" for row in rows))
        data.name = f"example-{tool}.{suffix}"
        return data

    return named(qrels, "qrels"), named(run, "run")
