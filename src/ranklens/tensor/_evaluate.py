"""``ranklens.tensor.evaluate``: measures on padded batches of scores and labels."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import Any

from ranklens.base.errors import MeasureError, OptionError
from ranklens.measures import Measure, parse_measures
from ranklens.tensor._batch import TENSOR_TIES, Array, TensorTies, prepare
from ranklens.tensor._kernels import KERNELS, Context
from ranklens.tensor._validate import as_arrays

SUPPORTED: tuple[str, ...] = tuple(KERNELS)
"""The measure families the tensor path computes (by ranklens name)."""


def tensor_measures(measures: Iterable[str | Measure] | str) -> list[Measure]:
    """Parse ``measures`` in ranklens's measure language and check that the tensor path
    computes each of them (raises :class:`~ranklens.base.errors.MeasureError` otherwise).

    >>> [m.name for m in tensor_measures(["nDCG@10", "MAP", "P(rel=2)@5"])]
    ['nDCG@10', 'AP', 'P(rel=2)@5']
    """
    names = [measures] if isinstance(measures, str) else list(measures)
    parsed = parse_measures(names)
    for measure in parsed:
        if measure.spec.name not in KERNELS:
            raise MeasureError(
                f"{measure.name} is not computed on tensors; the tensor path computes "
                f"{', '.join(SUPPORTED)} (ranklens.evaluate computes every measure on qrels "
                "and runs)"
            )
    return parsed


def evaluate(
    scores: Array,
    labels: Array,
    measures: Iterable[str | Measure] | str,
    *,
    mask: Array | None = None,
    doc_ids: Array | None = None,
    n_rel: Array | None = None,
    ideal_labels: Array | None = None,
    ties: TensorTies | None = None,
    dtype: Any = None,
    validate: bool = True,
) -> dict[str, Array]:
    r"""Per-query measures of a padded batch, on the batch's own namespace and device.

    Parameters
    ----------
    scores
        ``(Q, N)`` scores of ``N`` documents (padded) for each of ``Q`` queries: a numpy,
        torch, CuPy or JAX array (any Array API array; a Python list is converted with
        numpy). Higher ranks first; integer scores are ranked exactly (as int64).
    labels
        ``(Q, N)`` relevance grades (integers >= 0; ``1`` is relevant by default, as in
        trec_eval). Without ``mask``, a negative label marks padding. Float labels follow
        the rule of qrels files: whole numbers (``2.0``), never NaN or ``1.5``.
    measures
        Measure names in ranklens's language (``"nDCG@10"``, ``"nDCG(dcg='exp-log2')@10"``,
        ``"AP"``, ``"P(rel=2)@5"``, ``"RBP(p=0.9)"``, ...), or one name. Supported: P, R, F1,
        F, Success, Rprec, RR, AP, DCG, nDCG, CG, ERR, RBP, with their parameters
        (``judged_only`` included, but not nDCG's ``gains`` map).
    mask
        ``(Q, N)`` bool, true for real documents. With a mask a negative label inside it is
        an unjudged document (not relevant, gain 0, dropped by ``judged_only``).
    doc_ids
        ``(Q, N)`` integers; equal scores are ordered by decreasing id, as trec_eval orders
        them by decreasing document number when the ids follow the byte order of the
        document numbers (:func:`doc_id_codes` makes such ids).
    n_rel
        ``(Q,)`` the number of relevant documents (grade >= 1) of each query, in the batch
        or not: the denominator of recall, AP and R-precision. Without it (and without
        ``ideal_labels``) the measures are **in-batch**: only the batch's documents count.
    ideal_labels
        ``(Q, M)`` every judged grade of each query (padded with -1): the ideal ranking of
        nDCG, ``R`` at any threshold, the highest grade of ERR and graded RBP.
    ties
        How equal scores are ordered: ``"trec_eval"`` (by ``doc_ids``, the default when
        they are given), ``"input"`` (column order, the default otherwise),
        ``"pessimistic"`` (lower grades first), ``"optimistic"`` (higher grades first) or
        ``"average"`` (each tie group's gains averaged, as scikit-learn's ``ndcg_score``:
        the expected value over the orders of the tied documents; only for measures linear
        in the gains). Never random.
    dtype
        The floating dtype of the results (default: float64 for float64 scores, else
        float32).
    validate
        Check that real scores are finite, labels whole numbers, ``n_rel`` at least the
        batch's relevant documents and ``ideal_labels`` at least its grades (a few
        reductions and host synchronisations; turn off under ``jax.jit``).

    Returns
    -------
    dict
        ``{measure name: (Q,) array}``, in the order the measures were given.

    Examples
    --------
    The relevant document of the second query is ranked second; the first query ties its
    two documents, ordered by decreasing id as trec_eval does:

    >>> import numpy as np
    >>> scores = np.array([[0.5, 0.5, 0.1], [0.9, 0.8, 0.0]])
    >>> labels = np.array([[1, 0, 0], [0, 2, -1]])  # -1: padding
    >>> ids = np.array([[7, 9, 3], [1, 2, 0]])
    >>> out = evaluate(scores, labels, ["RR", "P@2", "nDCG@2"], doc_ids=ids)
    >>> out["RR"], out["P@2"]
    (array([0.5, 0.5]), array([0.5, 0.5]))
    >>> out["nDCG@2"].round(4)
    array([0.6309, 0.6309])

    With ``ties="average"`` the tied pair of the first query counts as half relevant at
    each of its ranks:

    >>> evaluate(scores, labels, "P@1", ties="average")["P@1"]
    array([0.5, 0. ])
    """
    parsed = tensor_measures(measures)
    scores, labels, mask, doc_ids, n_rel, ideal_labels = as_arrays(
        scores, labels, mask, doc_ids, n_rel, ideal_labels
    )
    on_numpy = _cpu_tensors_as_numpy(scores, labels, mask, doc_ids, n_rel, ideal_labels, dtype)
    if on_numpy is not None:  # CPU torch: the same computation on numpy views, no copies
        np_scores, np_labels, np_mask, np_ids, np_n_rel, np_ideal, np_dtype = on_numpy
        values = evaluate(
            np_scores,
            np_labels,
            parsed,
            mask=np_mask,
            doc_ids=np_ids,
            n_rel=np_n_rel,
            ideal_labels=np_ideal,
            ties=ties,
            dtype=np_dtype,
            validate=validate,
        )
        return {name: _as_tensor(value) for name, value in values.items()}
    if ties is None:
        ties = "trec_eval" if doc_ids is not None else "input"
    if ties not in TENSOR_TIES:
        raise OptionError(f"ties must be one of {list(TENSOR_TIES)}, not {ties!r}")
    batch = prepare(
        scores,
        labels,
        mask=mask,
        doc_ids=doc_ids,
        n_rel=n_rel,
        ideal_labels=ideal_labels,
        dtype=dtype,
        validate=validate,
    )
    _gather_once(batch, parsed, ties)
    out: dict[str, Array] = {}
    for measure in parsed:
        values = dict(measure.items)
        judged_only = bool(values.pop("judged_only", False))
        ctx = Context(batch.view(judged_only, ties), batch, ties)
        out[measure.name] = KERNELS[measure.spec.name](ctx, **values)
    return out


def _gather_once(batch: Any, parsed: Sequence[Measure], ties: TensorTies) -> None:
    """Rank the batch once per view and gather its labels in rank order once, as deep as
    the deepest measure of the call reads (a measure without a cut-off: every rank); the
    measures then slice that one gather (``View.labels``) instead of each gathering its
    own ranks. Nothing is done for a view that only one measure reads."""
    n = batch.shape[1]
    deepest: dict[bool, list[int]] = {}
    for measure in parsed:
        values = dict(measure.items)
        cutoff = values.get("cutoff")
        width = n if cutoff is None or not isinstance(cutoff, int) else min(cutoff, n)
        deepest.setdefault(bool(values.get("judged_only", False)), []).append(width)
    for judged_only, widths in deepest.items():
        if len(widths) > 1 and max(widths) > 0:
            batch.view(judged_only, ties).labels(max(widths))


def _cpu_tensors_as_numpy(*inputs: Any) -> tuple[Any, ...] | None:
    """numpy views of CPU torch tensors (the last input: the torch dtype as numpy's), or
    None where the torch path must run: not torch, another device, a gradient required.

    torch runs each small operation on its intra-op thread pool, whose threads wait on one
    another: on a loaded machine a batch takes ten times as long as on one thread. numpy
    runs the same operations on the calling thread, so the CPU path neither depends on the
    load nor changes torch's global thread settings. The results are the numpy path's, bit
    for bit (torch's own sums add in another order and may differ in the last bit; the
    ranking was already numpy's). No gradient flows
    through a ranking measure (the ranks are piecewise constant in the scores); inputs that
    require one still go through torch, which leaves them alone.
    """
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(inputs[0], torch.Tensor):
        return None
    *arrays, dtype = inputs
    views: list[Any] = []
    for x in arrays:
        if x is None:
            views.append(None)
            continue
        if (
            not isinstance(x, torch.Tensor)
            or x.device.type != "cpu"
            or x.requires_grad
            or x.layout != torch.strided
        ):
            return None
        try:
            views.append(x.numpy())
        except (TypeError, RuntimeError):  # a dtype numpy lacks (bfloat16), a conjugate view
            return None
    if isinstance(dtype, torch.dtype):
        try:
            dtype = torch.empty((), dtype=dtype).numpy().dtype
        except (TypeError, RuntimeError):
            return None
    return (*views, dtype)


def _as_tensor(x: Any) -> Any:
    """A numpy result as a CPU tensor sharing its memory."""
    import numpy as np
    import torch

    return torch.from_numpy(np.ascontiguousarray(x))


def doc_id_codes(docnos: Sequence[str]) -> Any:
    """Integer ids whose order is the byte order of ``docnos`` (UTF-8), for ``doc_ids``.

    >>> doc_id_codes(["d10", "d9", "D1", "d10"]).tolist()
    [1, 2, 0, 1]
    """
    import numpy as np

    encoded = [d.encode("utf-8") for d in docnos]
    order = {doc: i for i, doc in enumerate(sorted(set(encoded)))}
    return np.fromiter((order[d] for d in encoded), dtype=np.int64, count=len(encoded))
