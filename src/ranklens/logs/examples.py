"""Example click logs made from the bundled example data (``--example`` of the log
commands, and ``docs/logs.md``).

Users of the TREC DL 2019 example queries browse as a DBN whose parameters follow the
qrels' grades (an unjudged document counts as grade 0): attractiveness 0.05, 0.25, 0.55,
0.8 and satisfaction 0.05, 0.2, 0.5, 0.75 for grades 0 to 3, continuation 0.85. The
documents shown are the top 10 of the bundled ``bm25`` and ``rerank`` runs:

- ``"clicks"``: each impression shows one ranker's list (half and half, column
  ``ranker``), 60 impressions per query;
- ``"interleaving"``: each impression shows a team-draft interleaving of the two lists
  (column ``team``), 60 impressions per query.

Seeded: the same log every time for the same seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ranklens.base.errors import OptionError

ATTRACTIVENESS = (0.05, 0.25, 0.55, 0.8)
SATISFACTION = (0.05, 0.2, 0.5, 0.75)
CONTINUATION = 0.85
DEPTH = 10
IMPRESSIONS_PER_QUERY = 60


def example_log(kind: str = "clicks", *, seed: int = 42) -> dict[str, list[Any]]:
    """Long-layout columns of an example click log (see the module's documentation), for
    :func:`~ranklens.logs.read_log`.

    >>> from ranklens.logs import read_log
    >>> log = read_log(example_log("interleaving"))
    >>> log.num_impressions, log.teams
    (2580, ('bm25', 'rerank'))
    """
    from ranklens.data.examples import example_paths
    from ranklens.data.qrels import Qrels
    from ranklens.data.run import Run
    from ranklens.logs.interleaving import interleave

    if kind not in ("clicks", "interleaving"):
        raise OptionError(f"kind must be 'clicks' or 'interleaving', not {kind!r}")
    qrels_path, run_paths = example_paths()
    grades = Qrels.from_file(qrels_path).to_dict()
    lists: dict[str, dict[str, list[str]]] = {}
    for path in run_paths:
        run = Run.from_file(path)
        for query, scores in run.to_dict().items():
            ranked = sorted(scores, key=lambda d: (-scores[d], d))[:DEPTH]
            lists.setdefault(query, {})[run.name] = ranked
    rng = np.random.default_rng(seed)
    cols: dict[str, list[Any]] = {
        "session_id": [],
        "query_id": [],
        "doc_id": [],
        "position": [],
        "clicked": [],
        "ranker" if kind == "clicks" else "team": [],
    }
    session = 0
    for query in sorted(q for q in lists if q in grades and len(lists[q]) == 2):
        judged = grades[query]
        for i in range(IMPRESSIONS_PER_QUERY):
            if kind == "clicks":
                name = ("bm25", "rerank")[i % 2]
                docs, labels = lists[query][name], [name] * DEPTH
            else:
                shown = interleave(lists[query], "team_draft", length=DEPTH, seed=rng)
                docs, labels = list(shown.docs), list(shown.teams)
            examining = True
            session += 1
            for k, (doc, label) in enumerate(zip(docs, labels, strict=True)):
                grade = min(max(judged.get(doc, 0), 0), 3)
                click = examining and rng.random() < ATTRACTIVENESS[grade]
                if examining:
                    satisfied = click and rng.random() < SATISFACTION[grade]
                    examining = not satisfied and rng.random() < CONTINUATION
                cols["session_id"].append(f"s{session}")
                cols["query_id"].append(query)
                cols["doc_id"].append(doc)
                cols["position"].append(k + 1)
                cols["clicked"].append(bool(click))
                cols["ranker" if kind == "clicks" else "team"].append(label)
    return cols
