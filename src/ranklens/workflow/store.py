"""The results store: results files (JSON, written by ``ranklens run``) in a folder.

A results file holds everything needed to tell where its numbers came from and nothing
that changes between two runs of the same manifest (no time, no absolute path), so the
same manifest over the same files writes the same bytes. Its top-level keys:

============  ===========================================================================
format        ``"ranklens.results/1"``
name          the experiment's name
ranklens      the version of ranklens that computed it
manifest      ``{path, sha256}``: the manifest, its path relative to the results file
inputs        ``{role: {path, sha256}}`` per input file (``qrels``, ``run:NAME``,
              ``group:NAME``), paths as the manifest wrote them
options       the measures, conventions, comparison and groups, defaults filled in
runs          ``{name: {aggregate, per_query, query_counts, metadata}}``
comparison    the comparison (``ranklens compare -f json``'s object), or ``null``
groups        ``{group: {queries, runs: {name: {measure: mean}}}}``
============  ===========================================================================

The time and the machine of a run go beside it, in ``<results>.meta.json``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from typing import Any

from ranklens.base.errors import InputError
from ranklens.presentation.tables import json_ready

FORMAT = "ranklens.results/1"
META_SUFFIX = ".meta.json"


def sha256_of(path: str) -> str:
    """The SHA-256 of the file at ``path``, in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def dumps(document: dict[str, Any]) -> str:
    """The results document as its file's text: keys in the document's order, floats as
    the shortest text that reads back as them, one trailing newline."""
    return json.dumps(json_ready(document), indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def load_results(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The results document of the file at ``path``.

    Raises
    ------
    InputError
        The file cannot be read, is not JSON, or is not a ranklens results file.
    """
    where = os.fspath(path)
    try:
        with open(where, encoding="utf-8") as handle:
            document = json.load(handle)
    except FileNotFoundError:
        raise InputError("no such results file; check the path", path=where) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the results file: {exc}", path=where) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"is not JSON ({exc.msg})", path=where, line=exc.lineno) from None
    if not is_results(document):
        raise InputError(
            f'is not a ranklens results file (no "format": "{FORMAT}"; they are written by '
            "'ranklens run MANIFEST')",
            path=where,
        )
    return dict(document)


def is_results(document: Any) -> bool:
    """Whether ``document`` (parsed JSON) is a results document."""
    return isinstance(document, dict) and document.get("format") == FORMAT


def find_results(folder: str | os.PathLike[str]) -> Iterator[str]:
    """The results files under ``folder`` (recursively, in path order): the ``.json``
    files whose ``format`` is a results file's (sidecars and other JSON left out)."""
    root = os.fspath(folder)
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.endswith(".json") or name.endswith(META_SUFFIX):
                continue
            path = os.path.join(here, name)
            try:
                with open(path, encoding="utf-8") as handle:
                    head = handle.read(200)
            except (OSError, UnicodeDecodeError):
                continue
            if f'"format": "{FORMAT}"' in head:
                yield path


def stored_results(document: dict[str, Any]) -> list[Any]:
    """The :class:`~ranklens.Results` of each run of a results ``document``, rebuilt from
    its per-query values (the measures computed per query; run-level measures, which
    have none, are left out)."""
    import numpy as np

    from ranklens.data.ir_metadata import IrMetadata
    from ranklens.evaluation.results import Results
    from ranklens.measures.language import parse_measure

    out = []
    for name, entry in document["runs"].items():
        queries = tuple(entry["per_query"])
        names = [
            n
            for n in document["options"]["measures"]
            if not queries or n in entry["per_query"][queries[0]]
        ]
        values = np.array(
            [
                [
                    np.nan if entry["per_query"][q][n] is None else entry["per_query"][q][n]
                    for n in names
                ]
                for q in queries
            ],
            dtype=np.float64,
        ).reshape(len(queries), len(names))
        metadata = IrMetadata(entry["metadata"]) if entry.get("metadata") else None
        out.append(
            Results(
                name,
                tuple(parse_measure(n) for n in names),
                queries,
                values,
                entry.get("query_counts", {}),
                metadata=metadata,
            )
        )
    return out
