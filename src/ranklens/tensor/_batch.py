"""Padded batches on any Array API namespace: validation and the ranking of each row.

A batch is ``Q`` queries padded to ``N`` documents: ``scores`` and ``labels`` of shape
``(Q, N)``, and which entries are real (``mask``, or ``labels >= 0`` without one). A
:class:`View` is the batch ranked by a tie policy: every array is in rank order, the real
documents first (padding sorts last, with a score of ``-inf``), so rank ``i`` is column
``i``. All of it runs on the namespace and device of the inputs, with no loop over queries.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from ranklens.base.errors import InputError, MissingDependencyError, OptionError
from ranklens.base.optional import require

Array = Any
"""An array of any Array API namespace (numpy, torch, CuPy, JAX, ...)."""

TensorTies = Literal["trec_eval", "input", "pessimistic", "optimistic", "average"]
TENSOR_TIES: tuple[TensorTies, ...] = ("trec_eval", "input", "pessimistic", "optimistic", "average")
"""The tie policies of the tensor path (see :func:`ranklens.tensor.evaluate`)."""


def _compat() -> Any:
    try:
        return require("array_api_compat", "ranklens.tensor")
    except MissingDependencyError as exc:
        raise MissingDependencyError(
            "ranklens.tensor needs the optional package 'array_api_compat', which is not "
            "installed: pip install 'ranklens[torch]' (or pip install array-api-compat)"
        ) from exc


def namespace(*arrays: Array) -> Any:
    """The Array API namespace of ``arrays`` (through ``array_api_compat``)."""
    return _compat().array_namespace(*[a for a in arrays if a is not None])


def _device(x: Array) -> Any:
    return _compat().device(x)


def _is_torch(xp: Any) -> bool:
    return "torch" in getattr(xp, "__name__", "")


@dataclass(frozen=True, eq=False)
class Batch:
    """Validated inputs, cast to one floating dtype on one device.

    Attributes
    ----------
    xp, device, dtype : the namespace, the device and the floating dtype of the results.
    scores : (Q, N) float; ``-inf`` at padding.
    labels : (Q, N) float; the grade of a judged document, negative for unjudged or padding.
    valid : (Q, N) bool; real documents.
    doc_ids : (Q, N) int or None.
    n_rel : (Q,) float or None; relevant documents per query (grade >= 1), all of them.
    ideal : (Q, M) float or None; every judged grade of each query, padded with negatives.
    """

    xp: Any
    device: Any
    dtype: Any
    scores: Array
    labels: Array
    valid: Array
    doc_ids: Array | None
    n_rel: Array | None
    ideal: Array | None
    _views: dict[tuple[bool, str], View] = field(default_factory=dict, repr=False)
    memo: dict[tuple[str, int], Array] = field(default_factory=dict, repr=False)
    """Values shared by the measures of one call (the relevant documents per threshold)."""

    @property
    def shape(self) -> tuple[int, int]:
        """``(Q, N)``."""
        q, n = self.scores.shape
        return int(q), int(n)

    def view(self, judged_only: bool, ties: TensorTies) -> View:
        """The batch ranked by ``ties`` (unjudged documents dropped with ``judged_only``),
        computed once per setting."""
        key = (judged_only, ties)
        if key not in self._views:
            self._views[key] = _rank(self, judged_only, ties)
        return self._views[key]

    def top_values(self, x: Array, k: int) -> Array:
        """The ``k`` largest values of each row of ``x``, in decreasing order."""
        xp = self.xp
        k = min(k, int(x.shape[1]))
        if _is_torch(xp) and k < int(x.shape[1]):
            import torch  # the namespace is torch's, so torch is installed

            return torch.topk(x, k, dim=1, sorted=True).values
        return xp.sort(x, axis=1, descending=True)[:, :k]


def prepare(
    scores: Array,
    labels: Array,
    *,
    mask: Array | None,
    doc_ids: Array | None,
    n_rel: Array | None,
    ideal_labels: Array | None,
    dtype: Any,
    validate: bool,
) -> Batch:
    """Check the shapes (and, with ``validate``, that real scores are finite) and cast."""
    xp = namespace(scores, labels, mask, doc_ids, n_rel, ideal_labels)
    if len(scores.shape) != 2:
        raise InputError(f"scores must have shape (queries, documents), got {tuple(scores.shape)}")
    shape = tuple(scores.shape)
    for name, arr in (("labels", labels), ("mask", mask), ("doc_ids", doc_ids)):
        if arr is not None and tuple(arr.shape) != shape:
            raise InputError(
                f"{name} has shape {tuple(arr.shape)}, scores {shape}: they must match"
            )
    if n_rel is not None and tuple(n_rel.shape) != shape[:1]:
        raise InputError(f"n_rel must have shape ({shape[0]},), got {tuple(n_rel.shape)}")
    if ideal_labels is not None and (
        len(ideal_labels.shape) != 2 or int(ideal_labels.shape[0]) != shape[0]
    ):
        raise InputError(
            f"ideal_labels must have shape ({shape[0]}, M), got {tuple(ideal_labels.shape)}"
        )
    if doc_ids is not None and not xp.isdtype(doc_ids.dtype, "integral"):
        raise InputError(f"doc_ids must be integers, got {doc_ids.dtype}")
    if dtype is None:
        dtype = xp.float64 if scores.dtype == xp.float64 else xp.float32
    elif not xp.isdtype(dtype, "real floating"):
        raise OptionError(f"dtype must be a real floating dtype, got {dtype}")
    valid = labels >= 0 if mask is None else (mask if mask.dtype == xp.bool else mask != 0)
    s = xp.astype(scores, dtype)
    lab = xp.astype(labels, dtype)
    if validate:
        bad = xp.any(xp.logical_and(valid, xp.logical_not(xp.isfinite(s))))
        if bool(bad):
            raise InputError(
                "a real (unmasked) score is NaN or infinite; ranklens needs finite scores "
                "(mask the entry out instead)"
            )
    minus_inf = xp.asarray(-math.inf, dtype=dtype, device=_device(s))
    s = xp.where(valid, s, minus_inf)
    if mask is not None:  # without a mask, padding already has a negative label
        lab = xp.where(valid, lab, xp.asarray(-1.0, dtype=dtype, device=_device(s)))
    ideal = None
    if ideal_labels is not None:
        ideal = xp.astype(ideal_labels, dtype)
    return Batch(
        xp=xp,
        device=_device(s),
        dtype=dtype,
        scores=s,
        labels=lab,
        valid=valid,
        doc_ids=doc_ids,
        n_rel=None if n_rel is None else xp.astype(n_rel, dtype),
        ideal=ideal,
    )


@dataclass(frozen=True, eq=False)
class View:
    """A ranked batch: column ``i`` holds rank ``i + 1`` of every query.

    Attributes
    ----------
    labels : (Q, N) float; the label at each rank (< 0: unjudged or past the ranking).
    valid : (Q, N) bool; the documents ranked (in input order: only counted).
    num_ret : (Q,) float; the documents ranked per query.
    bounds : ``(start, end)`` of the tie group of each rank (policy ``"average"``), or None.
    """

    batch: Batch
    labels: Array
    valid: Array
    bounds: tuple[Array, Array] | None
    _memo: dict[tuple[str, int], Array] = field(default_factory=dict, repr=False)

    @property
    def num_ret(self) -> Array:
        """The documents ranked in each query."""
        if ("num_ret", 0) not in self._memo:
            xp = self.batch.xp
            self._memo["num_ret", 0] = xp.sum(xp.astype(self.valid, self.batch.dtype), axis=1)
        return self._memo["num_ret", 0]

    def averaged(self, x: Array) -> Array:
        """``x`` with each value replaced by the mean over its tie group (policy
        ``"average"``; the expectation over all orders of the tied documents), else ``x``."""
        if self.bounds is None:
            return x
        xp = self.batch.xp
        start, end = self.bounds
        q = int(x.shape[0])
        zero = xp.zeros((q, 1), dtype=x.dtype, device=self.batch.device)
        total = xp.concat([zero, xp.cumulative_sum(x, axis=1)], axis=1)
        sums = xp.take_along_axis(total, end, axis=1) - xp.take_along_axis(total, start, axis=1)
        return sums / xp.astype(end - start, x.dtype)

    def relevant(self, rel: int, width: int | None = None) -> Array:
        """1.0 where the document at a rank is relevant (judged, grade >= ``rel``), else 0;
        the first ``width`` ranks (all when None)."""
        xp, dtype = self.batch.xp, self.batch.dtype
        key = ("relevant", rel)
        if key in self._memo:
            return self._memo[key][:, :width]
        if self.bounds is None and width is not None and width < self.batch.shape[1]:
            return xp.astype(self.labels[:, :width] >= max(rel, 0), dtype)
        self._memo[key] = self.averaged(xp.astype(self.labels >= max(rel, 0), dtype))
        return self._memo[key][:, :width]

    def grades(self, width: int | None = None) -> Array:
        """The grade at each of the first ``width`` ranks as a gain: the label if positive,
        else 0 (not averaged over ties)."""
        xp = self.batch.xp
        zero = xp.asarray(0.0, dtype=self.batch.dtype, device=self.batch.device)
        top = self.labels[:, :width]
        return xp.where(top > 0, top, zero)


def _rank(batch: Batch, judged_only: bool, ties: TensorTies) -> View:
    xp = batch.xp
    scores, labels = batch.scores, batch.labels
    valid = batch.valid
    if judged_only:
        valid = xp.logical_and(valid, labels >= 0)
        minus_inf = xp.asarray(-math.inf, dtype=batch.dtype, device=batch.device)
        scores = xp.where(valid, scores, minus_inf)
    q, n = batch.shape
    if ties == "trec_eval":
        if batch.doc_ids is None:
            raise OptionError("ties='trec_eval' orders equal scores by document id: pass doc_ids")
        perm = _two_key_order(xp, scores, batch.doc_ids, True)
    elif ties == "pessimistic":
        perm = _two_key_order(xp, scores, labels, False)
    elif ties == "optimistic":
        perm = _two_key_order(xp, scores, labels, True)
    elif ties in ("input", "average"):
        perm = xp.argsort(scores, axis=1, descending=True, stable=True)
    else:
        raise OptionError(f"ties must be one of {list(TENSOR_TIES)}, not {ties!r}")
    ranked_labels = xp.take_along_axis(labels, perm, axis=1)
    bounds = None
    if ties == "average":
        bounds = _tie_groups(xp, xp.take_along_axis(scores, perm, axis=1), q, n, batch.device)
    return View(batch, ranked_labels, valid, bounds)


def _two_key_order(xp: Any, scores: Array, key: Array, key_descending: bool) -> Array:
    """The permutation ordering each row by score (descending), then ``key``, then column:
    a stable sort by ``key`` followed by a stable sort by score."""
    first = xp.argsort(key, axis=1, descending=key_descending, stable=True)
    second = xp.argsort(
        xp.take_along_axis(scores, first, axis=1), axis=1, descending=True, stable=True
    )
    return xp.take_along_axis(first, second, axis=1)


def _tie_groups(xp: Any, ranked: Array, q: int, n: int, device: Any) -> tuple[Array, Array]:
    """For every rank, the first rank of its tie group and the rank after the group's last
    (0-based), from the scores in rank order."""
    first = xp.ones((q, 1), dtype=xp.bool, device=device)
    starts = xp.concat([first, ranked[:, 1:] != ranked[:, :-1]], axis=1) if n else first[:, :0]
    group = xp.cumulative_sum(xp.astype(starts, xp.int64), axis=1) - 1
    # The ranks where groups start, in order, then n for the missing ones.
    where_start = xp.argsort(xp.astype(xp.logical_not(starts), xp.int32), axis=1, stable=True)
    where_start = xp.astype(where_start, xp.int64)
    count = xp.sum(xp.astype(starts, xp.int64), axis=1, keepdims=True)
    column = xp.arange(n, dtype=xp.int64, device=device)
    size = xp.full((q, 1), n, dtype=xp.int64, device=device)
    where_start = xp.concat([xp.where(column < count, where_start, size), size], axis=1)
    start = xp.take_along_axis(where_start, group, axis=1)
    end = xp.take_along_axis(where_start, group + 1, axis=1)
    return start, end
