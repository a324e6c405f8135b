"""Write generated.assignments.jsonl: nugget assignments of 4 runs x 40 topics with the
labels real LLM judges produce besides the defined ones (``failed``, ``""``, ``null``,
``Vital``, ``Support``, ``ming_dynasty_support``, ...), topics without nuggets and topics
without vital nuggets.

    python generate_assignments.py 7 > generated.assignments.jsonl

generated.metrics.jsonl holds the reference scorer's output on it (one line per run and
topic, and a ``qid: "all"`` line per run): castorini/nuggetizer's
``nuggetizer.core.metrics.calculate_nugget_scores`` / ``calculate_global_metrics`` (the four
vital and all scores) and NamaWho/pyterrier-nuggetizer's ``open_nuggetizer.metrics`` (the
same four and the two weighted scores; the two agree on the four), run on each run's
records. Neither tool is needed to run the tests.
"""

import json
import random
import sys

random.seed(int(sys.argv[1]))
IMPORTANCE = ["vital"] * 6 + ["okay"] * 5 + ["failed", "", "questionable", "Vital", None,
                                             "not_relevant"]
ASSIGNMENT = (
    ["support"] * 5
    + ["partial_support"] * 3
    + ["not_support"] * 5
    + ["failed", "", "questionable", "Support", None, "ming_dynasty_support", "partial support"]
)
out = []
for run in range(4):
    for t in range(40):
        n = random.choice([0, 1, 2, 3, 5, 8, 13, 20])
        nuggets = [
            {
                "text": f"nugget {t} {i}",
                "importance": random.choice(IMPORTANCE),
                "assignment": random.choice(ASSIGNMENT),
            }
            for i in range(n)
        ]
        if random.random() < 0.1:
            for x in nuggets:
                x["importance"] = "okay"
        out.append(
            {
                "qid": f"t{t:03d}",
                "run_id": f"gen{run}",
                "query": "q",
                "answer_text": f"answer {t}",
                "nuggets": nuggets,
            }
        )
for r in out:
    print(json.dumps(r))
