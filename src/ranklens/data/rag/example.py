"""A small, made-up example of generated answers, for ``ranklens rag --example`` and the
documentation: 12 topics, three runs (``baseline``, ``better``, ``terse``) in TREC RAG
2024's layout, and their judgments of every kind (gold answers, nuggets, nugget
assignments, support judgments). The numbers come from a seeded generator, so they are the
same on every machine; ``better`` is built to beat ``baseline`` on most topics.

>>> files = example_records()
>>> sorted(files), len(files["runs"]["baseline"])
(['assignments', 'gold', 'nuggets', 'runs', 'support'], 12)
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

TOPICS = tuple(f"q{i:02d}" for i in range(1, 13))
RUNS = ("baseline", "better", "terse")
_SKILL = {"baseline": 0.5, "better": 0.7, "terse": 0.35}
_WORDS = [
    "river",
    "city",
    "bridge",
    "castle",
    "harbour",
    "tower",
    "market",
    "museum",
    "garden",
    "palace",
    "station",
    "cathedral",
    "square",
    "library",
    "theatre",
    "forest",
    "island",
    "valley",
]


def example_records() -> dict[str, Any]:
    """The example as records: ``runs`` ``{name: [record, ...]}`` (TREC RAG 2024 lines),
    ``gold``, ``nuggets``, ``assignments`` and ``support`` (lists of records)."""
    rng = random.Random(2024)
    gold: list[dict[str, Any]] = []
    nuggets: list[dict[str, Any]] = []
    topics: dict[str, list[dict[str, str]]] = {}
    for topic in TOPICS:
        answer = " ".join(rng.sample(_WORDS, 2))
        gold.append({"qid": topic, "answers": [answer, f"the {answer}"]})
        listed = [
            {"text": f"{topic} fact {k + 1}", "importance": "vital" if k < 3 else "okay"}
            for k in range(rng.choice((4, 5, 6)))
        ]
        topics[topic] = listed
        nuggets.append({"qid": topic, "nuggets": listed})
    runs: dict[str, list[dict[str, Any]]] = {}
    assignments: list[dict[str, Any]] = []
    support: list[dict[str, Any]] = []
    for run in RUNS:
        skill = _SKILL[run]
        lines = []
        for topic, record in zip(TOPICS, gold, strict=True):
            references = [f"seg-{topic}-{k}" for k in range(5)]
            sentences: list[dict[str, Any]] = []
            count = 1 if run == "terse" else rng.choice((2, 3))
            for s in range(count):
                cited = sorted(rng.sample(range(5), rng.choice((0, 1, 2))))
                if run == "baseline" and rng.random() < 0.3:
                    cited.append(7)  # a dangling citation
                if s == 0 and rng.random() < skill:  # the gold answer itself
                    text = f"{record['answers'][0].capitalize()}."
                else:
                    text = f"It is the {' '.join(rng.sample(_WORDS, 3))}."
                sentences.append({"text": text, "citations": cited})
                for c in cited:
                    if c < len(references):
                        draw = rng.random()
                        label = "FS" if draw < skill else "PS" if draw < skill + 0.2 else "NS"
                        support.append(
                            {
                                "run_id": run,
                                "topic_id": topic,
                                "sentence": s,
                                "segment": references[c],
                                "support": label,
                            }
                        )
            text = " ".join(x["text"] for x in sentences)
            lines.append(
                {
                    "run_id": run,
                    "topic_id": topic,
                    "topic": f"question {topic}",
                    "references": references,
                    "response_length": len(text.split()),
                    "answer": sentences,
                }
            )
            assigned = []
            for n in topics[topic]:
                draw = rng.random()
                label = (
                    "support"
                    if draw < skill
                    else "partial_support"
                    if draw < skill + 0.2
                    else "not_support"
                )
                assigned.append({**n, "assignment": label})
            assignments.append(
                {"qid": topic, "run_id": run, "answer_text": text, "nuggets": assigned}
            )
        runs[run] = lines
    return {
        "runs": runs,
        "gold": gold,
        "nuggets": nuggets,
        "assignments": assignments,
        "support": support,
    }


def write_example(folder: str | os.PathLike[str]) -> dict[str, Path]:
    """Write the example's files into ``folder``: ``baseline.jsonl``, ``better.jsonl``,
    ``terse.jsonl`` (the runs), ``gold.jsonl``, ``nuggets.jsonl``, ``assignments.jsonl``
    (all three runs') and ``support.jsonl``; returns ``{name: path}``."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    records = example_records()
    written: dict[str, Path] = {}
    parts: dict[str, list[dict[str, Any]]] = {**records["runs"]}
    for kind in ("gold", "nuggets", "assignments", "support"):
        parts[kind] = records[kind]
    for name, rows in parts.items():
        path = out / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        written[name] = path
    return written
