"""The example data bundled with ranklens.

The TREC 2019 Deep Learning passage qrels (43 queries, graded 0-3) and two generated runs,
``bm25`` and ``rerank`` (100 documents per query, tied scores, unjudged documents).

>>> from ranklens.data.examples import example_paths
>>> qrels, runs = example_paths()
>>> qrels.name, [p.name for p in runs]
('dl19-passage.qrels.gz', ['dl19-bm25.run.gz', 'dl19-rerank.run.gz'])
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def example_paths() -> tuple[Path, list[Path]]:
    """The paths of the bundled qrels and runs."""
    root = Path(str(resources.files("ranklens.data") / "example_files"))
    return root / "dl19-passage.qrels.gz", [root / "dl19-bm25.run.gz", root / "dl19-rerank.run.gz"]
