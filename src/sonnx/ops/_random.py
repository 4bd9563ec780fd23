"""sonnx's random generator, shared by every operator that draws random values.

ONNX specifies the distributions of RandomNormal, RandomUniform, their
``*Like`` forms, Bernoulli, Multinomial and Dropout in training mode, but no
generator: each runtime draws its own values. sonnx's documented choice:

* the generator is NumPy's legacy ``numpy.random.RandomState`` (Mersenne
  Twister MT19937), whose stream NumPy keeps unchanged across releases;
* every execution of an operation starts a fresh generator, seeded with the
  operation's ``seed`` attribute truncated towards zero to an integer and
  taken modulo 2**32, or with :data:`DEFAULT_SEED` when the attribute is absent.

An operation is therefore a function of its inputs and attributes: a model
run on the same inputs gives the same values every time (and a loop body
draws the same values at every iteration).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .values import numpy_dtype

Distribution = Callable[[np.random.RandomState, float, float, tuple[int, ...]], np.ndarray]
"""``RandomState.normal`` or ``RandomState.uniform``: (generator, two parameters, shape) -> float64 values."""

DEFAULT_SEED = 0
"""The seed of an operation that has no ``seed`` attribute."""


def generator(seed: float | int | None) -> np.random.RandomState:
    """A fresh generator for one execution of an operation with this ``seed`` attribute (None: absent)."""
    if seed is None:
        return np.random.RandomState(DEFAULT_SEED)
    if not math.isfinite(seed):
        raise ValueError(f"the seed must be finite, got {seed}")
    return np.random.RandomState(int(seed) % 2**32)


def is_float(dtype: np.dtype[Any]) -> bool:
    """Whether ``dtype`` is a floating type (NumPy's, or bfloat16 and the other ml_dtypes floats)."""
    return dtype.kind == "f" or (dtype.kind == "V" and dtype.names is None and "float" in dtype.name)


def float_dtype(dtype: int | None, like: np.ndarray | None = None) -> np.dtype[Any]:
    """The floating output type: the ``dtype`` attribute (an ONNX element type), else ``like``'s type."""
    if dtype is not None:
        dt = numpy_dtype(dtype)
    elif like is not None:
        dt = like.dtype
    else:
        raise ValueError("no dtype attribute and no input to take the type from")
    if not is_float(dt):
        raise ValueError(f"random values are drawn as a floating type, not {dt}")
    return dt


def draw(
    distribution: Distribution, a: float, b: float, shape: Sequence[int], *, dtype: int = 1,
    seed: float | None = None, **_attrs: Any,
) -> np.ndarray:
    """RandomNormal, RandomUniform: ``distribution(a, b)`` values of the attribute ``shape``, rounded to ``dtype``.

    ``dtype`` and ``seed`` are the operators' attributes, with their schema
    defaults (FLOAT; no seed); a negative dimension is refused before anything is drawn.
    """
    if any(d < 0 for d in shape):
        raise ValueError(f"shape {list(shape)} has a negative dimension")
    return distribution(generator(seed), a, b, tuple(shape)).astype(float_dtype(dtype))


def draw_like(
    x: np.ndarray, distribution: Distribution, a: float, b: float, *, dtype: int | None = None,
    seed: float | None = None, **_attrs: Any,
) -> np.ndarray:
    """RandomNormalLike, RandomUniformLike: ``distribution(a, b)`` values of x's shape, of type ``dtype`` or x's."""
    return distribution(generator(seed), a, b, x.shape).astype(float_dtype(dtype, x))
