"""The bundled example as an experiment: a manifest over the bundled TREC DL 2019 files,
for the ``--example`` of ``ranklens run``, ``diff`` and ``serve``."""

from __future__ import annotations

import os

EXAMPLE_MEASURES = ("nDCG@10", "AP")


def write_example_manifest(
    folder: str, name: str = "example", runs: tuple[str, ...] = ("bm25", "rerank")
) -> str:
    """Write ``<folder>/<name>.yaml``: the bundled qrels and ``runs`` (of
    :func:`ranklens.data.examples.example_run_paths`), nDCG@10 and AP, the runs compared
    with the first, the results in ``<folder>/<name>.json``; returns its path."""
    from ranklens.data.examples import example_paths, example_run_paths

    paths = example_run_paths()
    qrels = example_paths()[0]
    lines = [
        f"qrels: {_quoted(str(qrels))}",
        "runs:",
        *(f"  {run}: {_quoted(str(paths[run]))}" for run in runs),
        f"measures: [{', '.join(EXAMPLE_MEASURES)}]",
        f"compare: {{baseline: {runs[0]}, test: t}}",
        f"output: {name}.json",
    ]
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{name}.yaml")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    return path


def _quoted(text: str) -> str:
    """``text`` as a YAML double-quoted string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
