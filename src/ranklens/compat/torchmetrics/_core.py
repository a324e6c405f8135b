"""What the classes and the functions share: torchmetrics' checks with its messages, the
errors its users catch, and the value of every query of a flat batch, all queries at once.

A flat batch (``indexes``, ``preds``, ``target``) becomes one row per query, padded
(:func:`padded`); the classic measures come from :func:`ranklens.tensor.evaluate` on that
batch, AUROC and the precision-recall curve from the ranking of each row
(:func:`ranked`), on the tensors' device, with no Python loop over queries.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ranklens.base.errors import InputError, MissingDependencyError, OptionError, RanklensError
from ranklens.base.optional import require
from ranklens.tensor import TENSOR_TIES, TensorTies

ACTIONS = ("error", "skip", "neg", "pos")
AGGREGATIONS = ("mean", "median", "min", "max")
KINDS = (
    "ndcg",
    "map",
    "mrr",
    "precision",
    "recall",
    "hit_rate",
    "r_precision",
    "fall_out",
    "auroc",
    "pr_curve",
)
POSITIVE_ONLY = frozenset({"map", "mrr", "precision", "recall"})
"""The measures where torchmetrics 1.9 counts a relevant document only if its score is
positive."""
AVERAGE_TIES = frozenset({"ndcg", "precision", "recall", "fall_out", "pr_curve"})
"""The measures linear in the gains, for which ``ties="average"`` is defined."""


class RetrievalInputError(InputError, ValueError):
    """Tensors torchmetrics' retrieval metrics refuse (shapes, dtypes, values), or a query
    without the targets ``empty_target_action="error"`` asks for: an
    :class:`~ranklens.base.errors.InputError` that is also the ``ValueError`` torchmetrics
    raises, so ``except ValueError`` keeps working."""


def require_array_api(feature: str = "ranklens.compat.torchmetrics") -> None:
    """Check that ``array_api_compat`` (which :mod:`ranklens.tensor` runs on) is installed;
    else a :class:`MissingDependencyError` (an ``ImportError``) that says what to install."""
    try:
        require("array_api_compat", feature)
    except MissingDependencyError as exc:
        raise MissingDependencyError(
            f"{feature} needs the optional package 'array_api_compat', which is not "
            "installed: pip install 'ranklens[torch]' (or pip install array-api-compat)"
        ) from exc


def require_torch(feature: str = "ranklens.compat.torchmetrics") -> Any:
    """torch, after checking that ``array_api_compat`` is installed too (see
    :func:`require_array_api`)."""
    try:
        torch = require("torch", feature)
    except MissingDependencyError as exc:
        raise MissingDependencyError(f"{exc} (or: pip install 'ranklens[torch]')") from exc
    require_array_api(feature)
    return torch


def check_top_k(top_k: Any, name: str = "top_k") -> int | None:
    """``top_k`` (or ``max_k``) as torchmetrics requires it: None or an integer > 0."""
    if top_k is None:
        return None
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k <= 0:
        raise OptionError(f"`{name}` has to be a positive integer or None, not {top_k!r}")
    return top_k


def check_adaptive_k(adaptive_k: Any) -> bool:
    if not isinstance(adaptive_k, bool):
        raise OptionError(f"`adaptive_k` has to be a boolean, not {adaptive_k!r}")
    return adaptive_k


def check_max_fpr(max_fpr: Any) -> float | None:
    """None, or a number in (0, 1] (the standardised partial AUC's range)."""
    if max_fpr is None:
        return None
    if isinstance(max_fpr, bool) or not isinstance(max_fpr, int | float) or not 0 < max_fpr <= 1:
        raise OptionError(
            f"Arguments `max_fpr` should be a float in range (0, 1], but got: {max_fpr!r}"
        )
    return float(max_fpr)


def check_min_precision(min_precision: Any) -> float:
    if (
        isinstance(min_precision, bool)
        or not isinstance(min_precision, int | float)
        or not 0.0 <= min_precision <= 1.0
    ):
        raise OptionError(
            f"`min_precision` has to be a positive float between 0 and 1, not {min_precision!r}"
        )
    return float(min_precision)


def check_options(
    kind: str, empty_target_action: Any, ignore_index: Any, aggregation: Any, ties: Any
) -> TensorTies | None:
    """The options every class takes, in torchmetrics' order, with its messages."""
    if empty_target_action not in ACTIONS:
        raise OptionError(
            f"Argument `empty_target_action` received a wrong value `{empty_target_action}`. "
            f"Use one of {list(ACTIONS)}"
        )
    if ignore_index is not None and (
        isinstance(ignore_index, bool) or not isinstance(ignore_index, int)
    ):
        raise OptionError(
            f"Argument `ignore_index` must be an integer or None. Got {ignore_index!r}"
        )
    if not (
        (isinstance(aggregation, str) and aggregation in AGGREGATIONS) or callable(aggregation)
    ):
        raise OptionError(
            f"Argument `aggregation` must be one of {list(AGGREGATIONS)} or a custom "
            f"callable function which takes tensor of values, but got {aggregation!r}"
        )
    return check_ties(kind, ties)


def check_ties(kind: str, ties: Any) -> TensorTies | None:
    if ties is None:
        return None
    if ties not in TENSOR_TIES or ties == "trec_eval":
        raise OptionError(
            f"ties must be one of {[t for t in TENSOR_TIES if t != 'trec_eval']}, not {ties!r}"
        )
    if ties == "average" and kind not in AVERAGE_TIES:
        raise OptionError(
            "ties='average' is defined for the measures linear in the gains only "
            "(nDCG, precision, recall, fall-out, the precision-recall curve)"
        )
    chosen: TensorTies = ties
    return chosen


def host_view(torch: Any, x: Any) -> Any:
    """``x`` as a numpy array sharing its memory where that is free (a CPU tensor that
    needs no gradient), else ``x`` itself: the value checks and the one-query path then
    run in numpy, a microsecond an operation instead of torch's few."""
    if x.is_cpu and not x.requires_grad:
        try:
            return x.numpy()
        except (TypeError, RuntimeError):  # a dtype numpy lacks, a sparse layout
            return x
    return x


def _check_values(torch: Any, preds: Any, target: Any, graded: bool) -> tuple[Any, Any]:
    """The dtype and value checks torchmetrics makes (and finite scores, grades), then
    ``preds`` as float32 (torchmetrics' rounding) and ``target`` as float32 or int64,
    both flattened."""
    if target.dtype not in (torch.bool, torch.long, torch.int) and not target.is_floating_point():
        raise RetrievalInputError(
            f"`target` must be a tensor of booleans, integers or floats, not {target.dtype}"
        )
    if not preds.is_floating_point():
        raise RetrievalInputError(f"`preds` must be a tensor of floats, not {preds.dtype}")
    preds = preds.float().flatten()
    target = target.flatten()
    target = target.float() if target.is_floating_point() else target.long()
    scores, labels = host_view(torch, preds), host_view(torch, target)
    if isinstance(scores, np.ndarray) and _valid_on_host(scores, labels, graded):
        return preds, target  # (one reduction or two on the host; the details on failure)
    finite = torch.isfinite if isinstance(scores, torch.Tensor) else np.isfinite
    if not bool(finite(scores).all()):
        raise RetrievalInputError(
            "`preds` holds NaN or infinite scores; ranklens ranks finite scores only (leave "
            "such rows out, or mark them with ignore_index in `target`)"
        )
    fractional = target.is_floating_point()
    if fractional and not bool(finite(labels).all()):
        raise RetrievalInputError("`target` holds NaN or infinite values")
    if graded:
        if bool((labels < 0).any()):
            raise RetrievalInputError(
                "`target` holds negative grades; nDCG takes gains >= 0 (mark rows to leave "
                "out with ignore_index)"
            )
    elif bool((labels > 1).any()) or bool((labels < 0).any()):
        raise RetrievalInputError(
            "`target` must contain `binary` values (0/1 or booleans; rows to leave out can "
            "be marked with ignore_index)"
        )
    elif fractional and not bool(((labels == 0) | (labels == 1)).all()):
        raise RetrievalInputError(
            "`target` must contain `binary` values: fractions between 0 and 1 are not "
            "relevance labels here (torchmetrics would count them as fractions of a "
            "relevant document)"
        )
    return preds, target


def _valid_on_host(scores: np.ndarray, labels: np.ndarray, graded: bool) -> bool:
    """Whether numpy ``scores`` and ``labels`` pass every value check, in as few passes as
    possible (``False``: look for the failure in detail)."""
    if not math.isfinite(np.add.reduce(scores, dtype=np.float64)):  # NaN and inf propagate
        return False
    if labels.dtype == np.bool_ or labels.size == 0:
        return True
    if labels.dtype.kind == "f":
        if not np.isfinite(labels).all():
            return False
        if not graded:
            return bool(((labels == 0) | (labels == 1)).all())
        return bool(labels.min() >= 0)
    if graded:
        return bool(labels.min() >= 0)
    return bool(labels.view(np.uint64).max() <= 1)  # negative integers wrap above 1


def check_inputs(
    torch: Any, preds: Any, target: Any, indexes: Any, graded: bool, ignore_index: int | None
) -> tuple[Any, Any, Any]:
    """A class's ``update`` checks, in torchmetrics' order and with its messages; the
    flattened ``(indexes, preds, target)``, the rows whose target is ``ignore_index`` left
    out."""
    if indexes is None:
        raise RetrievalInputError("Argument `indexes` cannot be None: give the query of each row")
    _check_tensors(torch, preds=preds, target=target, indexes=indexes)
    if not indexes.shape == preds.shape == target.shape:
        raise RetrievalInputError(
            "`indexes`, `preds` and `target` must be of the same shape, not "
            f"{tuple(indexes.shape)}, {tuple(preds.shape)} and {tuple(target.shape)}"
        )
    if indexes.dtype is not torch.long:
        raise RetrievalInputError(
            f"`indexes` must be a tensor of long integers, not {indexes.dtype}"
        )
    if ignore_index is not None:
        keep = target != ignore_index
        indexes, preds, target = indexes[keep], preds[keep], target[keep]
    if indexes.numel() == 0 or indexes.dim() == 0:
        raise RetrievalInputError(
            "`indexes`, `preds` and `target` must be non-empty and non-scalar tensors"
        )
    preds, target = _check_values(torch, preds, target, graded)
    return indexes.flatten(), preds, target


def check_functional_inputs(torch: Any, preds: Any, target: Any, graded: bool) -> tuple[Any, Any]:
    """A function's checks, in torchmetrics' order and with its messages; ``preds`` and
    ``target`` flattened (one query)."""
    _check_tensors(torch, preds=preds, target=target)
    if preds.shape != target.shape:
        raise RetrievalInputError(
            f"`preds` and `target` must be of the same shape, not {tuple(preds.shape)} and "
            f"{tuple(target.shape)}"
        )
    if preds.numel() == 0 or preds.dim() == 0:
        raise RetrievalInputError("`preds` and `target` must be non-empty and non-scalar tensors")
    return _check_values(torch, preds, target, graded)


def _check_tensors(torch: Any, **tensors: Any) -> None:
    for name, value in tensors.items():
        if not isinstance(value, torch.Tensor):
            raise RetrievalInputError(
                f"`{name}` must be a torch tensor, not {type(value).__name__}"
            )


def padded(torch: Any, indexes: Any, preds: Any, target: Any) -> tuple[Any, Any, Any, Any]:
    """One row per query (in increasing ``indexes`` order, the documents of a query in
    their order of arrival): ``(scores, labels, mask, counts)``, padded to the longest
    query; scores in float64."""
    n = indexes.shape[0]
    if n > 1 and bool((indexes[1:] >= indexes[:-1]).all()):  # grouped already: no sort
        grouped, scores_flat, labels_flat = indexes, preds, target
    else:
        order = torch.argsort(indexes, stable=True)
        grouped, scores_flat, labels_flat = indexes[order], preds[order], target[order]
    starts_new = torch.ones(n, dtype=torch.bool, device=indexes.device)
    starts_new[1:] = grouped[1:] != grouped[:-1]
    rows = torch.cumsum(starts_new, 0) - 1
    first = torch.nonzero(starts_new).flatten()
    counts = torch.diff(first, append=torch.tensor([n], device=indexes.device))
    n_queries, width = first.shape[0], int(counts.max())
    scores_flat = scores_flat.double()
    if n == n_queries * width:  # every query the same length: a reshape
        mask = torch.ones((n_queries, width), dtype=torch.bool, device=preds.device)
        return scores_flat.view(n_queries, width), labels_flat.view(n_queries, width), mask, counts
    flat = rows * width + (torch.arange(n, device=indexes.device) - first[rows])
    scores = torch.zeros(n_queries * width, dtype=torch.float64, device=preds.device)
    labels = torch.zeros(n_queries * width, dtype=target.dtype, device=target.device)
    mask = torch.zeros(n_queries * width, dtype=torch.bool, device=preds.device)
    scores[flat] = scores_flat
    labels[flat] = labels_flat
    mask[flat] = True
    shape = (n_queries, width)
    return scores.view(shape), labels.view(shape), mask.view(shape), counts


def ranked(
    torch: Any, scores: Any, relevant: Any, mask: Any, ties: TensorTies
) -> tuple[Any, Any, Any]:
    """Each row in rank order: ``(scores, relevant, valid)`` sorted by decreasing score,
    the padding last, equal scores by ``ties`` (``"input"``: order of arrival;
    ``"pessimistic"``: non-relevant first; ``"optimistic"``: relevant first; ``"average"``:
    order of arrival, and ``relevant`` replaced by its mean over each tie group). Stable
    sorts: never random."""
    minus_inf = torch.tensor(-math.inf, dtype=scores.dtype, device=scores.device)
    key = torch.where(mask, scores, minus_inf)
    rel = relevant.to(torch.float64)
    if ties in ("pessimistic", "optimistic"):
        first = torch.sort(rel, dim=1, descending=ties == "optimistic", stable=True).indices
        second = torch.sort(key.gather(1, first), dim=1, descending=True, stable=True).indices
        order = first.gather(1, second)
    else:
        order = torch.sort(key, dim=1, descending=True, stable=True).indices
    key, rel, valid = key.gather(1, order), rel.gather(1, order), mask.gather(1, order)
    if ties == "average":
        start, end = tie_groups(torch, key, valid)
        total = torch.nn.functional.pad(torch.cumsum(rel, dim=1), (1, 0))
        rel = (total.gather(1, end + 1) - total.gather(1, start)) / (end - start + 1)
    return key, rel, valid


def tie_groups(torch: Any, key: Any, valid: Any) -> tuple[Any, Any]:
    """For each rank of rows sorted by decreasing ``key``: the first and the last rank of
    its group of equal keys (padding ranks form their own groups)."""
    q, w = key.shape
    positions = torch.arange(w, device=key.device).expand(q, w)
    same_as_previous = torch.zeros((q, w), dtype=torch.bool, device=key.device)
    same_as_previous[:, 1:] = (key[:, 1:] == key[:, :-1]) & valid[:, 1:] & valid[:, :-1]
    start = torch.cummax(torch.where(same_as_previous, 0, positions), dim=1).values
    same_as_next = torch.zeros((q, w), dtype=torch.bool, device=key.device)
    same_as_next[:, :-1] = same_as_previous[:, 1:]
    last = torch.where(same_as_next, w - 1, positions)
    end = torch.flip(torch.cummin(torch.flip(last, [1]), dim=1).values, [1])
    return start, end


def _auroc(
    torch: Any,
    scores: Any,
    labels: Any,
    mask: Any,
    counts: Any,
    top_k: int | None,
    max_fpr: float | None,
    ties: TensorTies,
) -> Any:
    """AUROC of each row over its top ``top_k`` documents (tied scores count half, as the
    ROC curve's trapezoids), McClish-standardised over ``[0, max_fpr]``; 0 where the top k
    lack a relevant or a non-relevant document."""
    key, rel, _ = ranked(torch, scores, labels > 0, mask, ties)
    q, w = key.shape
    kept = counts if top_k is None else torch.clamp(counts, max=top_k)
    chosen = torch.arange(w, device=key.device).expand(q, w) < kept[:, None]
    pos = rel * chosen
    neg = (1.0 - rel) * chosen
    n_pos, n_neg = pos.sum(dim=1), neg.sum(dim=1)
    defined = (n_pos > 0) & (n_neg > 0)
    tpr = torch.cumsum(pos, dim=1) / torch.clamp(n_pos, min=1.0)[:, None]
    fpr = torch.cumsum(neg, dim=1) / torch.clamp(n_neg, min=1.0)[:, None]
    start, end = tie_groups(torch, key, chosen)
    at_end = chosen & (end == torch.arange(w, device=key.device))
    before = torch.clamp(start - 1, min=0)
    has_before = start > 0
    x0 = torch.where(has_before, fpr.gather(1, before), 0.0)
    y0 = torch.where(has_before, tpr.gather(1, before), 0.0)
    limit = 1.0 if max_fpr is None else max_fpr
    x1 = torch.clamp(fpr, max=limit)
    width = fpr - x0
    share = torch.where(width > 0, (x1 - x0) / torch.where(width > 0, width, 1.0), 0.0)
    y1 = y0 + (tpr - y0) * share
    area = torch.where(at_end & (x0 < limit), (x1 - x0) * (y0 + y1) / 2.0, 0.0).sum(dim=1)
    if max_fpr is not None and max_fpr != 1.0:
        smallest = 0.5 * max_fpr**2
        area = 0.5 * (1.0 + (area - smallest) / (max_fpr - smallest))
    return torch.where(defined, area, 0.0)


def _pr_curve(
    torch: Any,
    scores: Any,
    labels: Any,
    mask: Any,
    counts: Any,
    max_k: int,
    adaptive_k: bool,
    ties: TensorTies,
) -> tuple[Any, Any]:
    """``(precision, recall)`` at k = 1 .. ``max_k`` of each row: ``(Q, max_k)`` each."""
    _, rel, valid = ranked(torch, scores, labels > 0, mask, ties)
    found = torch.cumsum(rel * valid, dim=1)
    q, w = found.shape
    if max_k <= w:
        found = found[:, :max_k]
    else:  # past the longest query nothing more is found
        found = torch.cat([found, found[:, -1:].expand(q, max_k - w)], dim=1)
    ks = torch.arange(1, max_k + 1, device=found.device, dtype=torch.float64).expand(q, max_k)
    if adaptive_k:
        ks = torch.minimum(ks, counts.to(torch.float64)[:, None])
    n_rel = torch.clamp((labels > 0).sum(dim=1).to(torch.float64), min=1.0)
    return found / ks, found / n_rel[:, None]


def _evaluate(torch: Any, *args: Any, **kwargs: Any) -> Any:
    """:func:`ranklens.tensor.evaluate`, its input errors raised as ``ValueError`` too."""
    from ranklens.tensor import evaluate

    try:
        return evaluate(*args, dtype=torch.float64, **kwargs)
    except InputError as exc:
        if isinstance(exc, ValueError):
            raise
        raise RetrievalInputError(str(exc)) from exc


def retrieval_values(
    kind: str,
    preds: Any,
    target: Any,
    indexes: Any,
    *,
    top_k: int | None = None,
    adaptive_k: bool = False,
    ignore_index: int | None = None,
    positive_only: bool = True,
    ties: TensorTies | None = None,
    max_fpr: float | None = None,
    max_k: int | None = None,
    checked: bool = False,
) -> tuple[Any, Any]:
    """The value of each query as torchmetrics' ``kind`` metric defines it (one of
    :data:`KINDS`), in float64, and whether the query has the targets the metric needs (a
    positive one; a negative one for ``"fall_out"``).

    Returns
    -------
    tuple
        ``(values, defined)``: ``(Q,)`` tensors (``values`` is ``(Q, max_k, 2)`` for
        ``"pr_curve"``: precision and recall at each k), queries in increasing
        ``indexes``.
    """
    torch = require_torch()
    if kind not in KINDS:
        raise OptionError(f"unknown retrieval metric {kind!r}; one of {list(KINDS)}")
    if not checked:
        indexes, preds, target = check_inputs(
            torch, preds, target, indexes, kind == "ndcg", ignore_index
        )
    scores, labels, mask, counts = padded(torch, indexes, preds, target)
    has_positive = labels.sum(dim=1) != 0
    width = scores.shape[1]
    if kind == "ndcg":
        measure = "nDCG" if top_k is None else f"nDCG@{top_k}"
        # fractional gains are torchmetrics' (and scikit-learn's): the labels are read as
        # gains, so the whole-grade check of ranklens.tensor is left to _check_values
        values = _evaluate(
            torch, scores, labels, measure, mask=mask, ties=ties or "average", validate=False
        )[measure]
        return values, has_positive
    if kind == "auroc":
        chosen = ties or "input"
        return _auroc(torch, scores, labels, mask, counts, top_k, max_fpr, chosen), has_positive
    if kind == "pr_curve":
        k = width if max_k is None else max_k
        precision, recall = _pr_curve(
            torch, scores, labels, mask, counts, k, adaptive_k, ties or "input"
        )
        return torch.stack([precision, recall], dim=2), has_positive
    relevant = labels > 0
    chosen_ties: TensorTies = ties or "input"
    if kind == "fall_out":  # the recall of the non-relevant documents
        relevant = (labels == 0) & mask
        swap: dict[str, TensorTies] = {"pessimistic": "optimistic", "optimistic": "pessimistic"}
        chosen_ties = swap.get(chosen_ties, chosen_ties)
    counted = relevant & (scores > 0) if positive_only and kind in POSITIVE_ONLY else relevant
    grades = counted.long()

    def one(measure: str, n_rel: Any = None) -> Any:
        options = {"mask": mask, "n_rel": n_rel, "ties": chosen_ties}
        return _evaluate(torch, scores, grades, measure, **options)[measure]

    k = width if top_k is None else top_k
    if kind == "precision":
        hits = one(f"P@{k}") * k
        if chosen_ties != "average":
            hits = torch.round(hits)
        den = counts.double() if top_k is None else torch.full_like(hits, float(top_k))
        if adaptive_k and top_k is not None:
            den = torch.minimum(den, counts.double())
        return hits / den, has_positive
    if kind == "recall":
        return one(f"R@{k}", relevant.sum(dim=1)), has_positive
    if kind == "fall_out":
        n_negative = relevant.sum(dim=1)
        return one(f"R@{k}", n_negative), n_negative > 0
    if kind == "mrr":
        return one(f"RR@{k}"), has_positive
    if kind == "map":
        return one(f"AP(norm='ret')@{k}"), has_positive
    if kind == "hit_rate":
        return one(f"Success@{k}"), has_positive
    return one("Rprec"), has_positive  # r_precision


def aggregate(
    torch: Any, values: Any, aggregation: str | Callable[..., Any], dim: int | None = None
) -> Any:
    """torchmetrics' aggregation of per-query values (over ``dim``; all when None)."""
    if aggregation == "mean":
        return values.mean() if dim is None else values.mean(dim=dim)
    if aggregation == "median":
        return values.median() if dim is None else values.median(dim=dim).values
    if aggregation == "min":
        return values.min() if dim is None else values.min(dim=dim).values
    if aggregation == "max":
        return values.max() if dim is None else values.max(dim=dim).values
    if not callable(aggregation):
        raise OptionError(f"unknown aggregation {aggregation!r}")
    return aggregation(values, dim=dim)


def no_target_error(kind: str) -> RanklensError:
    """torchmetrics' error for a query without the targets it needs (action ``"error"``)."""
    which = "negative" if kind == "fall_out" else "positive"
    return RetrievalInputError(
        f"`compute` method was provided with a query with no {which} target. "
        "(empty_target_action='error'; pass 'skip', 'neg' or 'pos' to score such queries)"
    )
