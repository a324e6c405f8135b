r"""Click logs simulated from a click model with known parameters (seeded).

For checking estimators (simulate, fit, compare with the truth), for planning experiments
and for the examples of ``docs/logs.md``. The users of each model behave as the model
says (see :mod:`ranklens.logs.click_models`):

- PBM: click at :math:`r` with :math:`\gamma_r \alpha_{qd}`, independently;
- UBM: click with :math:`\gamma_{rr'}\alpha_{qd}`, :math:`r'` the last click above (0: none);
- Cascade: down the list until the first click, then stop;
- DCM: after a click at :math:`r` go on with :math:`\lambda_r`, after a skip always;
- DBN / SDBN: after a click satisfied with :math:`\sigma_{qd}` (then stop), otherwise (or
  after a skip) go on with :math:`\gamma` (SDBN: 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ranklens.base.errors import OptionError
from ranklens.logs.click_models import _model_name


def simulate_log(
    model: str,
    rankings: Mapping[str, Sequence[str] | Sequence[Sequence[str]]],
    attractiveness: Mapping[str, Mapping[str, float]],
    *,
    impressions: int,
    examination: Mapping[Any, float] | None = None,
    satisfaction: Mapping[str, Mapping[str, float]] | None = None,
    continuation: Mapping[int, float] | float | None = None,
    seed: int = 42,
    query_weights: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """Simulate ``impressions`` sessions; returns long-layout columns for
    :func:`~ranklens.logs.read_log`.

    Parameters
    ----------
    model
        ``"PBM"``, ``"Cascade"``, ``"DCM"``, ``"UBM"``, ``"DBN"`` or ``"SDBN"``.
    rankings
        ``{query: [doc, ...]}`` (shown every time) or ``{query: [[doc, ...], ...]}``
        (one of the rankings drawn uniformly for each impression).
    attractiveness
        ``{query: {doc: P(A = 1)}}`` for every shown document.
    impressions
        How many sessions; each draws a query (uniformly, or by ``query_weights``).
    examination
        PBM: ``{position: P(E = 1)}``; UBM: ``{(position, previous click position): P}``.
    satisfaction
        DBN, SDBN: ``{query: {doc: P(S = 1 | C = 1)}}``.
    continuation
        DCM: ``{position: P(go on after a click)}``; DBN: the probability :math:`\\gamma`.
    seed
        The seed of the random draws.

    Examples
    --------
    >>> from ranklens.logs import simulate_log, read_log
    >>> columns = simulate_log("PBM", {"q": ["a", "b"]}, {"q": {"a": 0.9, "b": 0.2}},
    ...                        examination={1: 1.0, 2: 0.5}, impressions=3, seed=1)
    >>> sorted(columns), read_log(columns).num_impressions
    (['clicked', 'doc_id', 'position', 'query_id', 'session_id'], 3)
    """
    name = _model_name(model)
    if not isinstance(impressions, int) or impressions < 1:
        raise OptionError(f"impressions must be a positive integer, not {impressions!r}")
    rng = np.random.default_rng(seed)
    queries = list(rankings)
    if not queries:
        raise OptionError("rankings is empty: give at least one query and its documents")
    lists: list[list[list[str]]] = []
    for q in queries:
        value = rankings[q]
        if value and isinstance(value[0], str):
            lists.append([list(value)])  # type: ignore[arg-type]
        else:
            lists.append([list(r) for r in value])
    if query_weights is not None:
        weights = np.asarray([float(query_weights.get(q, 0.0)) for q in queries])
        weights = weights / weights.sum()
    else:
        weights = np.full(len(queries), 1.0 / len(queries))
    drawn = rng.choice(len(queries), size=impressions, p=weights)
    shown: list[list[str]] = []
    qids: list[str] = []
    for qi in drawn.tolist():
        options = lists[qi]
        pick = options[int(rng.integers(len(options)))] if len(options) > 1 else options[0]
        shown.append(pick)
        qids.append(queries[qi])
    width = max(len(s) for s in shown)
    a = np.zeros((impressions, width))
    s = np.zeros((impressions, width))
    valid = np.zeros((impressions, width), dtype=bool)
    for i, (q, docs) in enumerate(zip(qids, shown, strict=True)):
        for r, d in enumerate(docs):
            try:
                a[i, r] = attractiveness[q][d]
            except KeyError:
                raise OptionError(f"no attractiveness for query {q!r}, document {d!r}") from None
            if satisfaction is not None:
                s[i, r] = satisfaction.get(q, {}).get(d, 0.0)
            valid[i, r] = True
    clicks = _draw(name, a, s, valid, examination, continuation, satisfaction, rng)
    out: dict[str, list[Any]] = {
        "session_id": [],
        "query_id": [],
        "doc_id": [],
        "position": [],
        "clicked": [],
    }
    for i, (q, docs) in enumerate(zip(qids, shown, strict=True)):
        for r, d in enumerate(docs):
            out["session_id"].append(f"s{i + 1}")
            out["query_id"].append(q)
            out["doc_id"].append(d)
            out["position"].append(r + 1)
            out["clicked"].append(bool(clicks[i, r]))
    return out


def _draw(
    name: str,
    a: np.ndarray,
    s: np.ndarray,
    valid: np.ndarray,
    examination: Mapping[Any, float] | None,
    continuation: Mapping[int, float] | float | None,
    satisfaction: Mapping[str, Mapping[str, float]] | None,
    rng: np.random.Generator,
) -> np.ndarray:
    n, width = a.shape
    u_attr = rng.random((n, width))
    u_exam = rng.random((n, width))
    u_sat = rng.random((n, width))
    attracted = u_attr < a
    clicks = np.zeros((n, width), dtype=bool)
    if name == "PBM":
        if examination is None:
            raise OptionError("PBM needs examination={position: probability}")
        theta = np.asarray([float(examination.get(r + 1, 0.0)) for r in range(width)])
        drawn: np.ndarray = attracted & (u_exam < theta[None, :]) & valid
        return drawn
    if name == "UBM":
        if examination is None:
            raise OptionError("UBM needs examination={(position, previous click): probability}")
        prev = np.zeros(n, dtype=np.int64)
        table = np.zeros((width, width + 1))
        for (r, p), value in examination.items():
            if 1 <= r <= width and 0 <= p < r:
                table[r - 1, p] = value
        for r in range(width):
            examined = u_exam[:, r] < table[r, prev]
            clicks[:, r] = examined & attracted[:, r] & valid[:, r]
            prev = np.where(clicks[:, r], r + 1, prev)
        return clicks
    if name == "DCM":
        if not isinstance(continuation, Mapping):
            raise OptionError("DCM needs continuation={position: probability}")
        lam = np.asarray([float(continuation.get(r + 1, 0.0)) for r in range(width)])
        sat = np.broadcast_to(1.0 - lam[None, :], a.shape)
        go_on = 1.0
    elif name == "Cascade":
        sat = np.ones_like(a)
        go_on = 1.0
    else:
        if satisfaction is None:
            raise OptionError(f"{name} needs satisfaction={{query: {{doc: probability}}}}")
        sat = s
        if name == "SDBN":
            go_on = 1.0
        else:
            if isinstance(continuation, Mapping) or continuation is None:
                raise OptionError("DBN needs continuation=gamma (a probability)")
            go_on = float(continuation)
    examining = np.ones(n, dtype=bool)
    for r in range(width):
        clicks[:, r] = examining & attracted[:, r] & valid[:, r]
        satisfied = clicks[:, r] & (u_sat[:, r] < sat[:, r])
        persist = u_exam[:, r] < go_on
        examining = examining & valid[:, r] & ~satisfied & persist
    return clicks
