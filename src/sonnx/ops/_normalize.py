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

from collections.abc import Callable
from typing import Any

import numpy as np

from ._broadcast import broadcasts_to
from .values import numpy_dtype


def stash_dtype(stash_type: int, allowed: tuple[str, ...] | None = None) -> np.dtype[Any]:
    """The floating-point type a ``stash_type`` attribute names (refused when not a float type, or not allowed)."""
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
