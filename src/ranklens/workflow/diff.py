"""Two results files told apart: which numbers changed, and why (the inputs, by their
hashes; the options; the version of ranklens).

>>> a = {"ranklens": "1.0", "inputs": {"qrels": {"path": "q", "sha256": "aa"}},
...      "options": {"measures": ["AP"]}, "runs": {"x": {"aggregate": {"AP": 0.5},
...      "per_query": {"q1": {"AP": 0.5}}}}, "comparison": None, "groups": {}}
>>> b = {**a, "inputs": {"qrels": {"path": "q", "sha256": "bb"}},
...      "runs": {"x": {"aggregate": {"AP": 0.25}, "per_query": {"q1": {"AP": 0.25}}}}}
>>> for line in diff_results(a, b).lines():
...     print(line)
input qrels changed: q (sha256 aa → bb)
x AP: 0.5 → 0.25 (-0.25), 1 of 1 queries changed
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ResultsDiff:
    """What differs between two results documents.

    Attributes
    ----------
    causes : why the numbers may differ, one sentence each (inputs changed, by hash;
        options changed; ranklens version changed).
    numbers : the numbers that changed: ``{"what", "run", "measure", "a", "b",
        "queries_changed", "queries"}`` per aggregate, comparison statistic or group
        mean.
    """

    causes: tuple[str, ...] = ()
    numbers: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    @property
    def same(self) -> bool:
        """Nothing differs."""
        return not self.causes and not self.numbers

    def lines(self) -> list[str]:
        """The differences as text, causes first, one per line."""
        out = list(self.causes)
        for n in self.numbers:
            change = _change(n["a"], n["b"])
            where = f"{n['run']} {n['measure']}" if n["what"] == "aggregate" else n["label"]
            extra = (
                f", {n['queries_changed']} of {n['queries']} queries changed"
                if n.get("queries")
                else ""
            )
            out.append(f"{where}: {change}{extra}")
        return out

    def to_dict(self) -> dict[str, Any]:
        """``{"same", "causes", "numbers"}``."""
        return {"same": self.same, "causes": list(self.causes), "numbers": list(self.numbers)}


def _change(a: Any, b: Any) -> str:
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        return f"{a!r} → {b!r} ({b - a:+.4g})"
    return f"{_shown(a)} → {_shown(b)}"


def _shown(value: Any) -> str:
    return "absent" if value is None else repr(value)


def diff_results(a: dict[str, Any], b: dict[str, Any]) -> ResultsDiff:
    """What differs between the results documents ``a`` and ``b``
    (:func:`ranklens.workflow.store.load_results`)."""
    causes: list[str] = []
    if a.get("ranklens") != b.get("ranklens"):
        causes.append(f"ranklens version changed: {a.get('ranklens')} → {b.get('ranklens')}")
    manifest_a, manifest_b = a.get("manifest") or {}, b.get("manifest") or {}
    if manifest_a.get("sha256") != manifest_b.get("sha256"):
        causes.append(
            f"manifest changed: {manifest_b.get('path')} (sha256 "
            f"{str(manifest_a.get('sha256'))[:12]} → {str(manifest_b.get('sha256'))[:12]})"
        )
    inputs_a, inputs_b = a.get("inputs", {}), b.get("inputs", {})
    for role in dict.fromkeys([*inputs_a, *inputs_b]):
        ia, ib = inputs_a.get(role), inputs_b.get(role)
        if ia is None or ib is None:
            present = ia or ib
            state = "added" if ia is None else "removed"
            causes.append(f"input {role} {state}: {present['path']}")
        elif ia["sha256"] != ib["sha256"]:
            path = ia["path"] if ia["path"] == ib["path"] else f"{ia['path']} → {ib['path']}"
            causes.append(
                f"input {role} changed: {path} (sha256 {ia['sha256'][:12]} → {ib['sha256'][:12]})"
            )
    for key, va, vb in _leaves(a.get("options", {}), b.get("options", {}), "options"):
        causes.append(f"option {key} changed: {_shown(va)} → {_shown(vb)}")
    numbers = [*_aggregates(a, b), *_comparison(a, b), *_groups(a, b)]
    return ResultsDiff(tuple(causes), tuple(numbers))


def _leaves(a: Any, b: Any, prefix: str) -> list[tuple[str, Any, Any]]:
    """The paths (``options.compare.test``) whose values differ between ``a`` and ``b``."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in dict.fromkeys([*a, *b]):
            out.extend(_leaves(a.get(key), b.get(key), f"{prefix}.{key}"))
        return out
    return [] if a == b else [(prefix.split(".", 1)[-1], a, b)]


def _aggregates(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    runs_a, runs_b = a.get("runs", {}), b.get("runs", {})
    for run in dict.fromkeys([*runs_a, *runs_b]):
        ra, rb = runs_a.get(run, {}), runs_b.get(run, {})
        agg_a, agg_b = ra.get("aggregate", {}), rb.get("aggregate", {})
        pq_a, pq_b = ra.get("per_query", {}), rb.get("per_query", {})
        for measure in dict.fromkeys([*agg_a, *agg_b]):
            queries = list(dict.fromkeys([*pq_a, *pq_b]))
            changed = sum(
                1 for q in queries if pq_a.get(q, {}).get(measure) != pq_b.get(q, {}).get(measure)
            )
            if agg_a.get(measure) != agg_b.get(measure) or changed:
                out.append(
                    {
                        "what": "aggregate",
                        "run": run,
                        "measure": measure,
                        "a": agg_a.get(measure),
                        "b": agg_b.get(measure),
                        "queries_changed": changed,
                        "queries": len(queries),
                    }
                )
    return out


def _comparison(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """Each statistic against the baseline that changed (significance first)."""
    out = []
    ca, cb = a.get("comparison") or {}, b.get("comparison") or {}
    stats_a = {r["name"]: r.get("vs_baseline", {}) for r in ca.get("runs", [])}
    stats_b = {r["name"]: r.get("vs_baseline", {}) for r in cb.get("runs", [])}
    for run in dict.fromkeys([*stats_a, *stats_b]):
        sa, sb = stats_a.get(run, {}), stats_b.get(run, {})
        for measure in dict.fromkeys([*sa, *sb]):
            ma, mb = sa.get(measure, {}), sb.get(measure, {})
            for key in ("p_value_corrected", "delta", "p_value", "ci_low", "ci_high"):
                if ma.get(key) != mb.get(key):
                    out.append(
                        {
                            "what": "comparison",
                            "run": run,
                            "measure": measure,
                            "label": f"{run} vs {ca.get('baseline') or cb.get('baseline')} "
                            f"{measure} {key}",
                            "a": ma.get(key),
                            "b": mb.get(key),
                        }
                    )
    return out


def _groups(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    ga, gb = a.get("groups", {}), b.get("groups", {})
    for group in dict.fromkeys([*ga, *gb]):
        ra, rb = ga.get(group, {}).get("runs", {}), gb.get(group, {}).get("runs", {})
        for run in dict.fromkeys([*ra, *rb]):
            for measure in dict.fromkeys([*ra.get(run, {}), *rb.get(run, {})]):
                va, vb = ra.get(run, {}).get(measure), rb.get(run, {}).get(measure)
                if va != vb:
                    out.append(
                        {
                            "what": "group",
                            "run": run,
                            "measure": measure,
                            "label": f"group {group}: {run} {measure}",
                            "a": va,
                            "b": vb,
                        }
                    )
    return out
