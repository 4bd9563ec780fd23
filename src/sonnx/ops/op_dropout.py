"""Dropout, with the inference semantics only.

In inference Dropout is the identity, and its optional mask output is all
ones (True from opset 10, ones of the input's type before). Training mode
drops elements at random; sonnx executes inference only and refuses it:
Dropout-1/6 with ``is_test`` = 0 (the default), and Dropout-12 on with
``training_mode`` true. (Training with ratio 0 would be deterministic, but it
is still a training-mode graph, and refused likewise.)
"""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from .base import Kernel

_INFERENCE_ONLY = "sonnx executes inference only; Dropout in training mode is not supported"


def _check_ratio(ratio: float) -> None:
    if not 0.0 <= ratio < 1.0:
        raise ValueError(f"Dropout's ratio must be in [0, 1), got {ratio}")


def dropout_is_test(x: np.ndarray, is_test: int = 0, ratio: float = 0.5, **_attrs: Any) -> Tuple[np.ndarray, ...]:
    """Opsets 1 and 6: ``is_test`` selects inference; the mask has the input's type."""
    if not is_test:
        raise ValueError(f"{_INFERENCE_ONLY} (is_test = 0)")
    _check_ratio(ratio)
    return x.copy(), np.ones(x.shape, dtype=x.dtype)


def dropout_7(x: np.ndarray, ratio: float = 0.5, **_attrs: Any) -> Tuple[np.ndarray, ...]:
    """Opset 7: the mode is the runtime's; in inference the mask has the input's type."""
    _check_ratio(ratio)
    return x.copy(), np.ones(x.shape, dtype=x.dtype)


def dropout_10(x: np.ndarray, ratio: float = 0.5, **_attrs: Any) -> Tuple[np.ndarray, ...]:
    """Opset 10: as 7, with a boolean mask."""
    _check_ratio(ratio)
    return x.copy(), np.ones(x.shape, dtype=np.bool_)


def dropout_12(
    x: np.ndarray,
    ratio: np.ndarray | None = None,
    training_mode: np.ndarray | None = None,
    **_attrs: Any,
) -> Tuple[np.ndarray, ...]:
    """Opset 12 on: ``ratio`` and ``training_mode`` are optional scalar inputs (``seed`` is irrelevant)."""
    if ratio is not None:
        if ratio.size != 1:
            raise ValueError(f"Dropout's ratio must be a scalar, got shape {ratio.shape}")
        _check_ratio(float(ratio.reshape(())))
    if training_mode is not None:
        if training_mode.size != 1:
            raise ValueError(f"Dropout's training_mode must be a scalar, got shape {training_mode.shape}")
        if bool(training_mode.reshape(())):
            raise ValueError(f"{_INFERENCE_ONLY} (training_mode = true)")
    return x.copy(), np.ones(x.shape, dtype=np.bool_)


KERNELS = (
    Kernel("Dropout", (1, 6), dropout_is_test),
    Kernel("Dropout", (7,), dropout_7),
    Kernel("Dropout", (10,), dropout_10),
    Kernel("Dropout", (12, 13, 22), dropout_12),
)
