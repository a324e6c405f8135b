"""Row sorts for the ranking: one sort of packed integer keys where the memory is the host's.

A stable argsort of each row (descending scores, ties by column) is the costliest step of
:func:`ranklens.tensor.evaluate`. On the CPU, PyTorch's per-row sort of a ``(8000, 40)``
batch takes many times numpy's vectorised sort of the same number of values, and a stable
argsort is slower still. So for numpy arrays, and for PyTorch tensors on the CPU (through
numpy views of their memory, no copy), the order comes from sorting *values* only: each
entry becomes one ``int64`` whose high bits order like the key (the IEEE-754 bits of a
float, made monotone) and whose low ``b`` bits hold the column (``b`` = the bits of
``N - 1``). These keys are distinct, so any sort gives the one stable order, and the low
bits of the sorted keys are the permutation. The arithmetic runs in numpy, in place on one
buffer, single-threaded.

Exactness: integer keys and float32 keys fit beside the column without loss (integers are
range-checked). A float64 key gives up its lowest ``b`` bits when any of them is set, so
two scores closer than about ``2**(b - 52)`` relative could share a key and be ordered by
column instead of by value; the order is then checked (values in order along each row) and,
where it fails, recomputed by the library's stable argsort. Other libraries (CuPy, JAX,
array_api_strict, ...) always use their own stable argsort.
"""

from __future__ import annotations

from typing import Any

Array = Any

_MAX_PAYLOAD_BITS = 20
"""Rows of up to 2**20 documents are packed; longer ones use the library's argsort."""


def _library(xp: Any, x: Array) -> str | None:
    """``"numpy"``, or ``"torch"`` for a CPU tensor: arrays whose memory numpy can sort."""
    import array_api_compat

    if array_api_compat.is_numpy_namespace(xp):
        return "numpy"
    if array_api_compat.is_torch_namespace(xp) and x.device.type == "cpu":
        return "torch"
    return None


def packs_rows(xp: Any, x: Array) -> bool:
    """Whether rows of ``x`` are sorted through numpy here (numpy, or torch on the CPU),
    where a host synchronisation also costs little."""
    return _library(xp, x) is not None


def _host(x: Array) -> Any:
    """``x`` as a numpy array: itself, or a CPU tensor's numpy view (shared memory)."""
    import numpy as np

    return x if isinstance(x, np.ndarray) else x.detach().numpy()


def _back(library: str, x: Any) -> Array:
    """A numpy array as the library's array (a torch tensor sharing its memory)."""
    if library == "numpy":
        return x
    import torch  # the namespace is torch's, so torch is installed

    return torch.from_numpy(x)


def host_min(x: Array) -> Any:
    """The least value of a non-empty numpy array or CPU tensor, as a Python number, by
    numpy's reduction (torch's full reductions are many times slower on the CPU)."""
    return _host(x).min().item()


def host_max(x: Array) -> Any:
    """The greatest value, as :func:`host_min`."""
    return _host(x).max().item()


def any_true(xp: Any, x: Array) -> bool:
    """Whether a boolean array holds a true value (a host synchronisation)."""
    if _library(xp, x) == "torch":
        return bool(_host(x).any())  # torch.any is many times slower on the CPU
    return bool(xp.any(x))


def take_rows(xp: Any, x: Array, index: Array) -> Array:
    """``x[i, index[i, j]]`` for every row ``i`` (``index`` non-negative)."""
    import array_api_compat

    if array_api_compat.is_torch_namespace(xp):
        import torch  # the namespace is torch's, so torch is installed

        return torch.gather(x, 1, index)  # the standard's take_along_axis adds a pass here
    return xp.take_along_axis(x, index, axis=1)


def sort_rows(xp: Any, x: Array) -> Array:
    """Each row of ``x`` sorted ascending (values only)."""
    import numpy as np

    library = _library(xp, x)
    if library is None or int(x.shape[0]) * int(x.shape[1]) == 0:
        return xp.sort(x, axis=1)
    host = _host(x)
    dtype = host.dtype
    small = dtype.kind in "iu" and dtype.itemsize > 2
    if small and host.min() >= -(1 << 15) and host.max() < (1 << 15):
        dtype = np.dtype(np.int16)  # grades sort as int16: a quarter of the memory
    copied = host.astype(dtype)  # a copy
    copied.sort(axis=1)
    return _back(library, copied)


def _monotone_key(x: Any, own: bool) -> tuple[Any, bool] | None:
    """An int64 numpy array ordered like the numpy array ``x`` (equal where ``x`` is
    equal), and whether it is exact once shifted left by a payload (false for float64,
    whose low bits are then dropped); None for a dtype without such a map. Made in one new
    buffer, or with ``own`` in ``x``'s memory where it can be (``x`` is then lost)."""
    import numpy as np

    if x.dtype == np.float64:  # -0.0 + 0.0 is +0.0: the two zeros get one key
        bits = np.add(x, 0.0, out=x if own else None).view(np.int64)
        sign_bit, mantissa, exact = 63, 52, False
    elif x.dtype == np.float32:
        bits = (x + np.float32(0.0)).view(np.int32).astype(np.int64)
        sign_bit, mantissa, exact = 31, 23, True
    elif x.dtype.kind == "i" or (x.dtype.kind in "ub" and x.dtype.itemsize < 8):
        return x.astype(np.int64, copy=not own), True
    else:
        return None
    # IEEE-754 bits order non-negative floats. A negative float's bits, less its sign bit,
    # grow with its magnitude, so those are flipped: bits ^ (all ones but the sign bit).
    # -inf (padding) needs no flip: alone among the negatives it already sorts below every
    # other float, and only another negative value has bits below -inf's.
    if bits.min() < -(1 << mantissa):  # -inf's bits as a signed int
        flip = bits >> sign_bit  # -1 for negative floats, else 0
        flip &= (1 << sign_bit) - 1
        bits ^= flip
    return bits, exact


def _packed_order(x: Any, descending: bool, own: bool) -> tuple[Any, bool] | None:
    """The stable order of each row of the numpy array ``x`` by one sort of packed keys
    (an int64 numpy array), and whether it is known exact (else :func:`in_order` must
    confirm it); None where the keys cannot be packed."""
    import numpy as np

    q, n = x.shape
    payload = max(1, (n - 1).bit_length())
    if q * n == 0 or payload > _MAX_PAYLOAD_BITS:
        return None
    mapped = _monotone_key(x, own)
    if mapped is None:
        return None
    key, exact = mapped
    if descending:
        key ^= -1  # ~key = -key - 1: reverses the order, no overflow
    if exact:
        limit = 1 << (62 - payload)
        if key.min() < -limit or key.max() >= limit:
            return None
        key <<= payload
    else:  # the low bits make room for the column; none set (float32 scores): exact
        exact = not np.bitwise_or.reduce(key, axis=None) & ((1 << payload) - 1)
        key &= -(1 << payload)
    key |= np.arange(n, dtype=np.int64)
    key.sort(axis=1)
    key &= (1 << payload) - 1  # the columns, in sorted order
    return key, bool(exact)


def in_order(xp: Any, x: Array, perm: Array, descending: bool) -> bool:
    """Whether ``perm`` puts each row of ``x`` in (non-strict) order. Checked in two halves
    of columns, one after the other: smaller temporaries keep the call's peak memory low,
    which on some machines spares the cost of fresh pages on every call."""
    half = (int(x.shape[1]) + 1) // 2
    return _in_order(xp, x, perm[:, : half + 1], descending) and _in_order(
        xp, x, perm[:, half:], descending
    )


def _in_order(xp: Any, x: Array, perm: Array, descending: bool) -> bool:
    if int(perm.shape[1]) < 2:
        return True
    ranked = take_rows(xp, x, perm)
    later, earlier = ranked[:, 1:], ranked[:, :-1]
    return not any_true(xp, later > earlier if descending else later < earlier)


def stable_argsort(xp: Any, x: Array, descending: bool) -> Array:
    """The permutation that sorts each row of ``x`` (equal values in column order), as
    ``xp.argsort(x, axis=1, descending=descending, stable=True)`` gives it."""
    library = _library(xp, x)
    if library is not None:
        if library == "torch":
            x = x.detach()  # the order carries no gradient
        packed = _packed_order(_host(x), descending, own=False)
        if packed is not None:
            perm = _back(library, packed[0])
            if packed[1] or in_order(xp, x, perm, descending):
                return perm
    return xp.argsort(x, axis=1, descending=descending, stable=True)


def two_key_order(xp: Any, scores: Array, key: Array, key_descending: bool) -> Array:
    """The permutation ordering each row by score (descending), then ``key``, then column:
    a stable sort by ``key`` followed by a stable sort by score."""
    library = _library(xp, scores)
    if library == "torch":
        scores = scores.detach()
    first = stable_argsort(xp, key, key_descending)
    if library is not None:
        by_key = _host(take_rows(xp, scores, first))  # new memory: the next keys go there
        packed = _packed_order(by_key, True, own=True)
        del by_key
        if packed is not None:
            (second, exact), packed = packed, None
            perm = take_rows(xp, first, _back(library, second))
            del second  # freed before the check: a lower peak of memory
            if exact or in_order(xp, scores, perm, True):
                return perm
    by_key = take_rows(xp, scores, first)
    second = xp.argsort(by_key, axis=1, descending=True, stable=True)
    return take_rows(xp, first, second)
