"""BatchNormalization.

Inference (test mode): ``Y = scale * (X - mean) / sqrt(var + epsilon) + B`` with
the parameters broadcast along the channel axis (axis 1).

Which mode runs, per version:

* 1 and 6: the ``is_test`` attribute. sonnx executes test mode only:
  ``is_test = 0`` is refused (ValueError), since the training outputs of these
  versions (``saved_mean``/``saved_var``) are not specified precisely enough to
  compute. ``spatial = 0`` means per-activation parameters of shape
  ``C x D1 x ... x Dn``.
* 7 and 9: the number of outputs (training when more than ``Y`` is asked
  for; ``call_kernel`` passes the count as ``output_count``). sonnx executes
  test mode only: an operation naming more outputs is refused (ValueError).
  Version 7 keeps ``spatial``; 9 drops it (always per channel).
* 14 and 15: the ``training_mode`` attribute. With ``training_mode = 1`` the
  kernel computes the training outputs as the operator text specifies:
  ``Y`` normalised with the batch mean and population variance over every
  axis except 1, and ``running_mean = input_mean * momentum + current_mean *
  (1 - momentum)`` (likewise ``running_var``), statistics in at least float32.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._windows import accumulation_dtype
from .base import Kernel

Result = np.ndarray | tuple[np.ndarray, np.ndarray, np.ndarray]


def _as_parameter(p: np.ndarray, x: np.ndarray, per_activation: bool, name: str) -> np.ndarray:
    """``p`` shaped to broadcast against ``x`` along the channel axis (or the per-activation axes)."""
    if x.ndim < 2:
        raise ValueError(f"X must have shape N x C x ..., not rank {x.ndim}")
    want = tuple(x.shape[1:]) if per_activation else (x.shape[1],)
    if tuple(p.shape) != want:
        raise ValueError(f"{name} has shape {tuple(p.shape)}, want {want}")
    return p.reshape((1,) + want + (1,) * (x.ndim - 1 - len(want)))


def _infer(
    x: np.ndarray,
    scale: np.ndarray,
    b: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    epsilon: float,
    per_activation: bool,
) -> np.ndarray:
    acc = np.promote_types(accumulation_dtype(x.dtype), np.float32)
    parts = [
        _as_parameter(p, x, per_activation, n).astype(acc, copy=False)
        for p, n in ((scale, "scale"), (b, "B"), (mean, "mean"), (var, "var"))
    ]
    s, bias, mu, sigma2 = parts
    factor = s / np.sqrt(sigma2 + acc.type(epsilon))
    shift = bias - mu * factor
    y = x.astype(acc, copy=False) * factor
    y += shift
    return y.astype(x.dtype, copy=False)


def _batch_normalization(
    x: np.ndarray,
    scale: np.ndarray,
    b: np.ndarray,
    input_mean: np.ndarray,
    input_var: np.ndarray,
    *,
    epsilon: float = 1e-5,
    momentum: float = 0.9,
    spatial: int = 1,
    training_mode: int = 0,
    **_attrs: object,
) -> Result:
    """Every version: inference, or the training outputs when ``training_mode`` is 1.

    A version passes the attribute it lacks with the value that reproduces it:
    ``spatial`` (before 9) is 1 from 9 on (per channel), ``training_mode`` (14
    on) is 0 before.
    """
    if not training_mode:
        return _infer(x, scale, b, input_mean, input_var, epsilon, not spatial)
    if x.ndim < 2:
        raise ValueError(f"X must have shape N x C x ..., not rank {x.ndim}")
    acc = np.promote_types(accumulation_dtype(x.dtype), np.float32)
    axes = (0, *range(2, x.ndim))
    xa = x.astype(acc, copy=False)
    current_mean = xa.mean(axis=axes)
    centred = xa - current_mean.reshape((1, -1) + (1,) * (x.ndim - 2))
    current_var = (centred * centred).mean(axis=axes)
    s = _as_parameter(scale, x, False, "scale").astype(acc, copy=False)
    bias = _as_parameter(b, x, False, "B").astype(acc, copy=False)
    inv = 1 / np.sqrt(current_var + acc.type(epsilon))
    y = centred * inv.reshape((1, -1) + (1,) * (x.ndim - 2)) * s + bias
    mom = acc.type(momentum)
    _as_parameter(input_mean, x, False, "input_mean")
    _as_parameter(input_var, x, False, "input_var")
    running_mean = input_mean.astype(acc) * mom + current_mean * (1 - mom)
    running_var = input_var.astype(acc) * mom + current_var * (1 - mom)
    return (
        y.astype(x.dtype, copy=False),
        running_mean.astype(input_mean.dtype, copy=False),
        running_var.astype(input_var.dtype, copy=False),
    )


_TEST_MODE = {"training_mode": 0}
_PER_CHANNEL = {"spatial": 1}


def batch_normalization_v1(*inputs: Any, is_test: int = 0, **attrs: Any) -> Result:
    """BatchNormalization-1 and -6: test mode only (``is_test`` must be set)."""
    if not is_test:
        raise ValueError("BatchNormalization with is_test=0 is training mode; sonnx executes test mode only")
    return _batch_normalization(*inputs, **{**attrs, **_TEST_MODE})


def batch_normalization_v7(*inputs: Any, output_count: int = 1, **attrs: Any) -> Result:
    """BatchNormalization-7 and -9: test mode, output ``Y`` only."""
    if output_count > 1:
        raise ValueError(
            f"BatchNormalization naming {output_count} outputs is training mode; sonnx executes test mode only"
        )
    return _batch_normalization(*inputs, **{**attrs, **_TEST_MODE})


def batch_normalization(*inputs: Any, **attrs: Any) -> Result:
    """BatchNormalization-14 and -15: ``training_mode``, parameters per channel."""
    return _batch_normalization(*inputs, **{**attrs, **_PER_CHANNEL})


KERNELS = (
    Kernel("BatchNormalization", (1, 6), batch_normalization_v1),
    Kernel("BatchNormalization", (7, 9), batch_normalization_v7, output_count_as="output_count"),
    Kernel("BatchNormalization", (14, 15), batch_normalization),
)
