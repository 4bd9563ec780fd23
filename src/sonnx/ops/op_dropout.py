"""Dropout: the identity in inference; in training, a random mask that keeps each element with probability 1 - ratio.

Training computes ``y = x * mask / (1 - ratio)``, where ``mask`` is true
where a uniform draw from sonnx's generator (``_random``: NumPy's legacy
RandomState seeded by the ``seed`` attribute, seed 0 when absent) is at least
``ratio``: ``mask = RandomState(seed).uniform(0, 1, x.shape) >= ratio``. With
``ratio`` = 0 training is exactly the identity. Inference returns ``x``
unchanged and an all-true mask.

The versions differ in how the mode and the ratio are given:

* 1 and 6: attribute ``is_test`` (default 0, i.e. training) and attribute
  ``ratio``; the mask has the input's type (1 for kept, 0 for dropped).
* 7 and 10: attribute ``ratio`` and no mode: the runtime's, and sonnx runs
  inference; the mask has the input's type in 7, is boolean from 10.
* 12, 13 and 22: optional scalar inputs ``ratio`` (default 0.5) and
  ``training_mode`` (default false), attribute ``seed``; boolean mask.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._random import generator
from .base import Kernel


def _ratio(ratio: float) -> float:
    if not 0.0 <= ratio < 1.0:
        raise ValueError(f"Dropout's ratio must be in [0, 1), got {ratio}")
    return ratio


def _scalar(value: np.ndarray, name: str) -> Any:
    if value.size != 1:
        raise ValueError(f"Dropout's {name} must be a scalar, got shape {list(value.shape)}")
    return value.reshape(()).item()


def _drop(x: np.ndarray, ratio: float, training: bool, seed: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The output and boolean mask; the identity and an all-true mask unless training with a positive ratio."""
    if not training or ratio == 0.0:
        return x.copy(), np.ones(x.shape, dtype=np.bool_)
    mask = generator(seed).uniform(0.0, 1.0, x.shape) >= ratio
    work = x if x.dtype.kind == "f" else x.astype(np.float32)  # ml_dtypes floats computed in float32
    y = (work * mask) * work.dtype.type(1.0 / (1.0 - ratio))
    return y.astype(x.dtype), mask


def dropout_is_test(x: np.ndarray, *, is_test: int = 0, ratio: float = 0.5, **_attrs: Any) -> tuple[np.ndarray, ...]:
    """Opsets 1 and 6: ``is_test`` = 0 (the default) trains; the mask has the input's type."""
    y, mask = _drop(x, _ratio(ratio), not is_test, None)
    return y, mask.astype(x.dtype)


def dropout_7(x: np.ndarray, *, ratio: float = 0.5, **_attrs: Any) -> tuple[np.ndarray, ...]:
    """Opset 7: inference; the mask has the input's type."""
    _ratio(ratio)
    return x.copy(), np.ones(x.shape, dtype=x.dtype)


def dropout_10(x: np.ndarray, *, ratio: float = 0.5, **_attrs: Any) -> tuple[np.ndarray, ...]:
    """Opset 10: inference, with a boolean mask."""
    _ratio(ratio)
    return x.copy(), np.ones(x.shape, dtype=np.bool_)


def dropout_12(
    x: np.ndarray,
    ratio: np.ndarray | None = None,
    training_mode: np.ndarray | None = None,
    *,
    seed: int | None = None,
    **_attrs: Any,
) -> tuple[np.ndarray, ...]:
    """Opsets 12, 13 and 22: ratio and training mode are optional scalar inputs; ``seed`` seeds the mask."""
    r = 0.5 if ratio is None else _ratio(float(_scalar(ratio, "ratio")))
    training = False if training_mode is None else bool(_scalar(training_mode, "training_mode"))
    return _drop(x, r, training, seed)


KERNELS = (
    Kernel("Dropout", (1, 6), dropout_is_test),
    Kernel("Dropout", (7,), dropout_7),
    Kernel("Dropout", (10,), dropout_10),
    Kernel("Dropout", (12, 13, 22), dropout_12),
)
