"""What the normalisation operators share: axes, stash types, and standardisation in a chosen precision.

``standardize`` computes, over the given axes, ``Mean = mean(X)``, ``D = X -
Mean``, ``Var = mean(D * D)``, ``InvStdDev = 1 / sqrt(Var + epsilon)`` and
``Normalized = D * InvStdDev`` (or ``D / sqrt(Var + epsilon)``), each step in
the ``stash`` type: for float32 and float64 directly; for a narrower type
(bfloat16, float16) every step is carried out in float32 and its result
rounded to the stash type, as a graph of those operations on stash-typed
tensors would be.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from ._broadcast import broadcasts_to
from .values import numpy_dtype


def stash_dtype(stash_type: int, allowed: tuple[str, ...] | None = None) -> np.dtype[Any]:
    """The floating-point type a ``stash_type`` attribute names (refused when not a float type, or not allowed)."""
    return _stash_dtype(int(stash_type), allowed)


@lru_cache(maxsize=64)
def _stash_dtype(stash_type: int, allowed: tuple[str, ...] | None) -> np.dtype[Any]:
    """:func:`stash_dtype`, worked out once per attribute value (a refusal raises every time: not cached)."""
    try:
        dtype = numpy_dtype(int(stash_type))
    except Exception:
        raise ValueError(f"stash_type {stash_type} is not an element type") from None
    if allowed is not None and dtype.name not in allowed:
        raise ValueError(f"stash_type {stash_type} ({dtype.name}) must name one of {', '.join(allowed)}")
    if not (dtype.kind == "f" or dtype.name == "bfloat16"):
        raise ValueError(f"stash_type {stash_type} ({dtype.name}) is not a floating-point type")
    return dtype


def trailing_axes(rank: int, axis: int) -> tuple[int, ...]:
    """``[axis, ..., rank - 1]`` for ``axis`` in ``[-rank, rank)``."""
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} outside [-{rank}, {rank}) for an input of rank {rank}")
    start = axis + rank if axis < 0 else axis
    return tuple(range(start, rank))


def check_unidirectional(p: np.ndarray, x: np.ndarray, name: str) -> None:
    """A scale or bias must broadcast to X's shape without changing it."""
    if not broadcasts_to(p.shape, x.shape):
        raise ValueError(f"{name} of shape {p.shape} does not broadcast to X's shape {x.shape}")


@lru_cache(maxsize=16)
def stash_steps(stash: np.dtype[Any]) -> tuple[np.dtype[Any], Callable[[Any], np.ndarray]]:
    """The working type of a computation in the ``stash`` type, and the rounding of each step's result.

    float32 and float64 are their own working type; a narrower stash type is
    worked in float32, every step's result rounded to the stash type (and
    held in float32), as a graph of stash-typed operations would compute.
    """
    wide = stash.itemsize >= 4 and stash.kind == "f"
    work = stash if wide else np.dtype(np.float32)

    def r(v: Any) -> np.ndarray:
        """A step's result as a stash-typed value (held in the working type)."""
        v = np.asarray(v, dtype=work)
        return v if wide else v.astype(stash).astype(work)

    return work, r


def standardize(
    x: np.ndarray, axes: tuple[int, ...], epsilon: float, stash: np.dtype[Any], divide: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(Normalized, Mean, InvStdDev)`` of ``x`` over ``axes`` in the ``stash`` type (see the module text).

    ``Mean`` and ``InvStdDev`` keep the reduced axes (as size 1). With
    ``divide``, ``Normalized = D / sqrt(Var + epsilon)`` instead of ``D * InvStdDev``.
    """
    if stash_steps(stash)[0] == stash:
        return _standardize_wide(x, axes, epsilon, stash, divide)
    return standardize_stepwise(x, axes, epsilon, stash, divide)


def standardize_stepwise(
    x: np.ndarray, axes: tuple[int, ...], epsilon: float, stash: np.dtype[Any], divide: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`standardize` as its definition reads: every step rounded to the ``stash`` type
    (:func:`stash_steps`). Any stash type may use it; float32 and float64 take a faster path with the same bits
    (the tests compare the two)."""
    work, r = stash_steps(stash)
    with np.errstate(divide="ignore", invalid="ignore"):
        xs = r(x.astype(stash).astype(work))
        mean = r(xs.mean(axis=axes, keepdims=True))
        d = r(xs - mean)
        var = r(r(d * d).mean(axis=axes, keepdims=True))
        std = r(np.sqrt(r(var + work.type(epsilon))))
        inv = r(work.type(1) / std)
        normalized = r(d / std) if divide else r(d * inv)
    return normalized.astype(stash), mean.astype(stash), inv.astype(stash)


def mean_kept(a: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """``a.mean(axis=axes, keepdims=True)`` of a float32 or float64 array, by NumPy's own two steps.

    ``ndarray.mean`` sums in the array's type and divides the sum in place by
    the element count as an ``intp`` scalar; these are those two calls,
    without the Python wrapper around them (its checks cost more than the
    arithmetic on small tensors).
    """
    total = np.add.reduce(a, axis=axes, keepdims=True)
    return np.true_divide(total, np.intp(math.prod(a.shape[k] for k in axes)), out=total, casting="unsafe")


def _standardize_wide(
    x: np.ndarray, axes: tuple[int, ...], epsilon: float, work: np.dtype[Any], divide: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`standardize` for a float32 or float64 stash type, its own working type: every rounding step of
    the general path is then the identity, so the same operations are done without those steps and copies.

    X of the stash type is used as it is: the general path's copy keeps X's
    order of axes (``astype`` in order ``K``), and NumPy's sums over X and over
    that copy agree bit for bit whatever the strides or alignment (tested on
    transposed, reversed and unaligned tensors).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        xs = x.astype(work, copy=False)
        mean = mean_kept(xs, axes)
        d = xs - mean
        var = mean_kept(d * d, axes)
        std = np.sqrt(var + work.type(epsilon))
        inv = work.type(1) / std
        normalized = d / std if divide else d * inv
    return normalized, mean, inv
