"""Write the stochastic runs and qrels of tests/data/expeval and, given the path of a
checkout of github.com/diazf/expeval, its outputs for each option set of OPTION_SETS.

    python tests/data/expeval/generate.py /tmp/expeval_oracle

The inputs are random but seeded (the same files each time); see README.md.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent

# the option sets each output file out.SEED.NAME.txt was made with (read by the tests too)
OPTION_SETS: dict[str, list[str]] = json.loads((HERE / "options.json").read_text())


def make_case(seed: int) -> tuple[str, str]:
    """(qrels text, run text) of one generated case."""
    rng = random.Random(seed)
    qrels_lines: list[str] = []
    run_lines: list[str] = []
    queries = [f"{100 + i}" for i in range(12)]
    for qi, qid in enumerate(queries):
        docs = [f"d{qi}-{j}" for j in range(rng.randint(3, 14))]
        judged = rng.sample(docs, rng.randint(1, len(docs)))
        kind = qi % 4
        for doc in judged:
            if kind == 0:  # graded, negative junk grades too
                grade = rng.choice([-1, 0, 0, 1, 1, 2, 3])
            elif kind == 1:  # binary
                grade = rng.choice([0, 1])
            elif kind == 2:  # one grade for every judged document
                grade = 2
            else:
                grade = rng.choice([0, 1, 2])
            groups = "|".join(str(g) for g in sorted(rng.sample(range(4), rng.randint(1, 2))))
            if rng.random() < 0.15:
                qrels_lines.append(f"{qid} {doc} {grade}")  # no group column: group -1
            else:
                qrels_lines.append(f"{qid} {groups} {doc} {grade}")
        if qi == 5:  # a document judged twice: the later kept grade, both groups
            qrels_lines.append(f"{qid} 3 {judged[0]} 1")
        if qi == 9:  # a query missing from the run
            continue
        pool = docs + [f"u{qi}-{j}" for j in range(rng.randint(0, 5))]  # unjudged too
        samples = rng.randint(1, 15)
        for s in range(samples):
            depth = rng.randint(1, len(pool))
            ranking = rng.sample(pool, depth)
            for rank, doc in enumerate(ranking, 1):
                run_lines.append(f"{qid}\t{s}\t{doc}\t{rank}\t{1.0 / rank:.4f}\tsys")
    for s in range(3):  # a query without judgments is ignored
        run_lines.append(f"999 {s} x 1 1.0 sys")
    return "\n".join(qrels_lines) + "\n", "\n".join(run_lines) + "\n"


# hand-made: a rank below 1 and a repeated rank (reported, the line dropped), a sample of
# invalid ranks only (it counts as a sample), a query whose only sample is empty
QUIRKS_QRELS = "1 0|1 a 2\n1 1 b 1\n1 c 0\n2 0 a 1\n2 1 b 1\n3 0 z 1\n3 1 y 2\n"
QUIRKS_RUN = (
    "1 s1 a 1 0.9 t\n1 s1 b 2 0.8 t\n1 s1 c 0 0.7 t\n1 s2 b 1 0.9 t\n1 s2 c 1 0.9 t\n"
    "1 s2 a 2 0.5 t\n2 s1 b 1 1 t\n2 s1 a 2 1 t\n2 s2 x -3 1 t\n3 s1 z 0 1 t\n"
)


def main(oracle: str | None) -> None:
    (HERE / "qrels.4.txt").write_text(QUIRKS_QRELS)
    (HERE / "run.4.txt").write_text(QUIRKS_RUN)
    for seed in (1, 2, 3, 4):
        qrels, run = make_case(seed) if seed < 4 else (QUIRKS_QRELS, QUIRKS_RUN)
        (HERE / f"qrels.{seed}.txt").write_text(qrels)
        (HERE / f"run.{seed}.txt").write_text(run)
        if oracle is None:
            continue
        for name, options in OPTION_SETS.items():
            out = subprocess.run(
                [
                    sys.executable,
                    f"{oracle}/expeval.py",
                    *options,
                    f"qrels.{seed}.txt",
                    f"run.{seed}.txt",
                ],
                cwd=HERE,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            (HERE / f"out.{seed}.{name}.txt").write_text(out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
