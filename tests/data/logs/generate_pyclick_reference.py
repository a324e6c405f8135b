"""Make the PyClick reference values that ``tests/test_logs_pyclick.py`` compares with.

PyClick (https://github.com/markovi/PyClick, the click-model library of Chuklin, Markov and
de Rijke's book) is an oracle here, never a dependency and never copied: this script runs it
on a click log it simulates and stores what PyClick estimated, so that the tests run from a
plain clone without PyClick.

Run it from the repository root with PyClick's source on the path, e.g.::

    python tests/data/logs/generate_pyclick_reference.py /tmp/pyclick

It writes ``tests/data/logs/pyclick_log.csv`` (the log: long layout, one row per session and
position) and ``tests/data/logs/pyclick_reference.json`` (per model: PyClick's parameters,
and its log-likelihood and perplexity on the held-out sessions of
``pyclick_heldout.csv``). The log is simulated here with numpy alone (a DBN with
attractiveness, satisfaction and continuation drawn from a seeded generator; two rankings
per query so that documents move between positions, and some sessions shorter than 10).
PyClick assumes 10 positions at most; its EM runs its default 50 iterations.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SEED = 20261127
QUERIES = 8
DOCS = 12
RANKS = 10
TRAIN = 3000
HELDOUT = 600
DBN_SESSIONS = 300


def simulate(rng: np.random.Generator, sessions: int, start: int) -> list[dict[str, object]]:
    """DBN sessions (attractiveness a, satisfaction s, continuation gamma)."""
    params = np.random.default_rng(SEED)  # the same parameters for every call
    attr = params.uniform(0.05, 0.9, size=(QUERIES, DOCS))
    sat = params.uniform(0.1, 0.9, size=(QUERIES, DOCS))
    gamma = 0.85
    rankings = [[params.permutation(DOCS)[:RANKS] for _ in range(2)] for _ in range(QUERIES)]
    rows: list[dict[str, object]] = []
    for i in range(sessions):
        q = int(rng.integers(QUERIES))
        ranking = rankings[q][int(rng.integers(2))]
        length = RANKS if rng.random() < 0.8 else int(rng.integers(3, RANKS))
        examining = True
        for r in range(length):
            d = int(ranking[r])
            click = bool(examining and rng.random() < attr[q, d])
            rows.append(
                {
                    "session_id": f"s{start + i}",
                    "query_id": f"q{q}",
                    "doc_id": f"d{d}",
                    "position": r + 1,
                    "clicked": int(click),
                }
            )
            satisfied_or_left = examining and (
                (click and rng.random() < sat[q, d]) or rng.random() >= gamma
            )
            if satisfied_or_left:
                examining = False
    return rows


def write(rows: list[dict[str, object]], path: Path) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def sessions_of(rows: list[dict[str, object]]) -> list[object]:
    from pyclick.search_session.SearchResult import SearchResult
    from pyclick.search_session.SearchSession import SearchSession

    out: list[object] = []
    current = None
    for row in rows:
        if current is None or current.id != row["session_id"]:
            current = SearchSession(row["query_id"])
            current.id = row["session_id"]
            out.append(current)
        current.web_results.append(SearchResult(row["doc_id"], int(row["clicked"])))
    return out


def main() -> None:
    sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "/tmp/pyclick")
    from pyclick.click_models.CM import CM
    from pyclick.click_models.DBN import DBN
    from pyclick.click_models.DCM import DCM
    from pyclick.click_models.Evaluation import LogLikelihood, Perplexity
    from pyclick.click_models.PBM import PBM
    from pyclick.click_models.SDBN import SDBN
    from pyclick.click_models.UBM import UBM

    rng = np.random.default_rng(SEED + 1)
    train = simulate(rng, TRAIN, 0)
    heldout = simulate(rng, HELDOUT, TRAIN)
    write(train, HERE / "pyclick_log.csv")
    write(heldout, HERE / "pyclick_heldout.csv")
    train_sessions = sessions_of(train)
    test_sessions = [s for s in sessions_of(heldout) if len(s.web_results) == RANKS]
    pairs = sorted({(str(r["query_id"]), str(r["doc_id"])) for r in train})
    reference: dict[str, object] = {}
    for name, model in (
        ("PBM", PBM()),
        ("UBM", UBM()),
        ("Cascade", CM()),
        ("DCM", DCM()),
        ("SDBN", SDBN()),
        ("DBN", DBN()),
    ):
        print(name, file=sys.stderr, flush=True)
        # PyClick's DBN EM takes hours on the whole log: it is fitted to the first
        # DBN_SESSIONS sessions (the test fits ranklens' DBN to the same sessions)
        if name == "DBN":
            model.train(train_sessions[:DBN_SESSIONS])
        elif name == "UBM":
            # PyClick's UBM gives "no click above" its own parameter for each session
            # length (the index M - 1): fitted to the full-length sessions only, where it is
            # one parameter per rank, as in the book and in ranklens
            model.train([s for s in train_sessions if len(s.web_results) == RANKS])
        else:
            model.train(train_sessions)
        names = model.param_names
        attr = model.params[names.attr]
        entry: dict[str, object] = {
            "attractiveness": {f"{q}\t{d}": attr.get(q, d).value() for q, d in pairs}
        }
        if name in ("DBN", "SDBN"):
            sat = model.params[names.sat]
            entry["satisfaction"] = {f"{q}\t{d}": sat.get(q, d).value() for q, d in pairs}
        if name == "PBM":
            entry["examination"] = [model.params[names.exam].get(r).value() for r in range(RANKS)]
        if name == "UBM":
            exam = model.params[names.exam]
            entry["examination"] = [
                [exam.get(r, p).value() for p in range(RANKS)] for r in range(RANKS)
            ]
        if name == "DCM":
            entry["continuation"] = [model.params[names.cont].get(r).value() for r in range(RANKS)]
        if name == "DBN":
            entry["continuation"] = model.params[names.cont].get().value()
        perplexity, per_rank = Perplexity().evaluate(model, test_sessions)
        entry["heldout_log_likelihood"] = LogLikelihood().evaluate(model, test_sessions)
        entry["heldout_perplexity"] = perplexity
        entry["heldout_perplexity_at"] = per_rank
        reference[name] = entry
    meta = {
        "generator": "tests/data/logs/generate_pyclick_reference.py",
        "pyclick": "markovi/PyClick",
        "heldout_sessions": "the held-out sessions with 10 positions (PyClick's ranks)",
        "dbn_sessions": DBN_SESSIONS,
    }
    (HERE / "pyclick_reference.json").write_text(
        json.dumps({"meta": meta, "models": reference}, indent=1, sort_keys=True) + "\n"
    )


if __name__ == "__main__":
    main()
