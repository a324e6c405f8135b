"""The names users of other tools type: ranx's metric names and lower-case spellings.

``ndcg@10``, ``map@100``, ``mrr@10``, ``recall@100``, ``precision@10``, ``hits@10``,
``hit_rate@10``, ``f1@10``, ``r-precision``, ``bpref``, ``dcg@10``, ``ndcg_burges@10``,
``rbp.8``, with ranx's ``-lN`` relevance level (``ndcg@10-l2`` is not supported: ranx's
``-l`` drops lower grades from the gains, which ranklens spells with ``gains=``).

Each name maps to the ranklens measure whose value equals the peer's on the same data
(checked against ranx by a differential test). Where a name means different things in
different tools, the peer's meaning wins: ranx's ``hits@k`` counts the relevant documents
in the top k (``Hits@k``), and its ``hit_rate@k`` is ``Success@k``.

>>> from ranklens.measures.peer_names import translate
>>> translate("ndcg@10"), translate("hit_rate@5"), translate("rbp.95"), translate("map@100-l2")
('nDCG@10', 'Success@5', "RBP(p=0.95,gain='raw')", 'AP(rel=2)@100')
>>> translate("P(rel=2)@10") is None  # not a peer's name
True
"""

from __future__ import annotations

import re
from types import MappingProxyType

from ranklens.base.errors import MeasureError

PEER_NAMES: MappingProxyType[str, tuple[str, bool, str]] = MappingProxyType(
    {
        # name: (ranklens measure, has a rel parameter, what the peer calls it)
        "hits": ("Hits", True, "ranx hits@k: relevant documents in the top k"),
        "hit_rate": ("Success", True, "ranx hit_rate@k"),
        "success": ("Success", True, "success@k"),
        "precision": ("P", True, "ranx precision@k"),
        "recall": ("R", True, "ranx recall@k"),
        "f1": ("F1", True, "ranx f1@k"),
        "r-precision": ("Rprec", True, "ranx r-precision"),
        "r_precision": ("Rprec", True, "r_precision"),
        "rprec": ("Rprec", True, "rprec"),
        "mrr": ("RR", True, "ranx mrr@k"),
        "rr": ("RR", True, "rr@k"),
        "map": ("AP", True, "ranx map@k"),
        "ap": ("AP", True, "ap@k"),
        "dcg": ("DCG", False, "ranx dcg@k (linear gain)"),
        "dcg_burges": ("DCG(dcg='exp-log2')", False, "ranx dcg_burges@k (2^rel - 1)"),
        "ndcg": ("nDCG", False, "ranx ndcg@k (linear gain)"),
        "ndcg_burges": ("nDCG(dcg='exp-log2')", False, "ranx ndcg_burges@k (2^rel - 1)"),
        "bpref": ("Bpref", True, "ranx bpref"),
        "p": ("P", True, "p@k"),
        "r": ("R", True, "r@k"),
    }
)
"""Lower-case peer names and the ranklens measure each stands for."""

_PEER = re.compile(r"(?P<name>[a-z_\-0-9]+?)(?:@(?P<at>\d+))?(?:-l(?P<rel>-?\d+))?")
_RBP = re.compile(r"rbp[.@](?P<p>\d+)(?:-l(?P<rel>-?\d+))?")


def translate(text: str) -> str | None:
    """The ranklens spelling of a peer's measure name, or ``None`` if ``text`` is not one.

    Raises
    ------
    MeasureError
        A peer name with an option ranklens spells otherwise (``-l`` on a DCG measure).
    """
    lowered = text.strip().lower()
    rbp = _RBP.fullmatch(lowered)
    if rbp is not None:
        rel = rbp.group("rel")
        extra = f",rel={int(rel)}" if rel is not None else ""
        return f"RBP(p=0.{rbp.group('p')},gain='raw'{extra})"
    match = _PEER.fullmatch(lowered)
    if match is None or match.group("name") not in PEER_NAMES:
        return None
    measure, has_rel, _ = PEER_NAMES[match.group("name")]
    rel = match.group("rel")
    if rel is not None:
        if not has_rel:
            raise MeasureError(
                f"'{text}': ranx's -l drops lower grades from the gains; in ranklens give the "
                f"gains instead, e.g. {measure}(gains={{1:0,2:2,3:3}})"
            )
        measure = f"{measure}(rel={int(rel)})"
    at = match.group("at")
    if at is not None and int(at) > 0:
        measure = f"{measure}@{int(at)}"
    return measure


def note(text: str) -> str | None:
    """What the peer calls the measure ``text`` translates from (for ``ranklens measures``)."""
    match = _PEER.fullmatch(text.strip().lower())
    if match is None or match.group("name") not in PEER_NAMES:
        return "ranx rbp.p: RBP with the grade as gain" if _RBP.fullmatch(text.lower()) else None
    return PEER_NAMES[match.group("name")][2]


_IRM_SET = re.compile(r"Set(?P<kind>[PR])(?:\((?P<params>[^()]*)\))?")


def ir_measures_set(text: str) -> str | None:
    """ir_measures' ``SetP`` and ``SetR`` (precision and recall of the whole retrieved
    set, trec_eval's ``set_P`` and ``set_recall``) in ranklens' spelling: ``P`` and ``R``
    without a cut-off, ``SetP(relative=True)`` is ``SetRelP``; ``None`` for other names.

    >>> ir_measures_set("SetP"), ir_measures_set("SetR(rel=2)")
    ('P', 'R(rel=2)')
    >>> ir_measures_set("SetP(relative=True)"), ir_measures_set("nDCG") is None
    ('SetRelP', True)
    """
    match = _IRM_SET.fullmatch(text)
    if match is None:
        return None
    params = [p.strip() for p in (match.group("params") or "").split(",") if p.strip()]
    relative = [p for p in params if p.replace(" ", "").startswith("relative=")]
    rest = [p for p in params if p not in relative]
    name = match.group("kind")
    if relative and relative[-1].replace(" ", "") == "relative=True":
        if name != "P":
            return None
        name = "SetRelP"
    return f"{name}({','.join(rest)})" if rest else name
