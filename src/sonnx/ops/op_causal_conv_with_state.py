"""CausalConvWithState: a causal depthwise 1-D convolution that carries its left context between calls.

With ``k`` the kernel size and ``P = concat(past_state or zeros, X)`` along
the time axis (``k - 1`` carried positions, then the ``L`` new ones)::

    Y[b, c, t] = bias[c] + sum_{j < k} W[c, 0, j] * P[b, c, t + j]       t = 0..L-1

then, with ``activation`` ``silu`` (alias ``swish``), ``Y = Y * sigmoid(Y)``.
``present_state`` is the last ``k - 1`` positions of ``P``. Shapes: X and Y
``[B, C, L]``, W ``[C, 1, k]``, bias ``[C]``, states ``[B, C, k - 1]``.
float16 and bfloat16 are computed through float32 and rounded at the end.
One version.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel

_ACTIVATIONS = ("none", "silu", "swish")


def causal_conv_with_state(
    x: np.ndarray,
    weight: np.ndarray,
    bias: np.ndarray | None = None,
    past_state: np.ndarray | None = None,
    *,
    activation: str = "none",
    **_attrs: Any,
) -> tuple[np.ndarray, np.ndarray]:
    if activation not in _ACTIVATIONS:
        raise ValueError(f"activation must be one of {_ACTIVATIONS}, not {activation!r}")
    if x.ndim != 3:
        raise ValueError(f"the input must be [batch, channels, length], its shape is {list(x.shape)}")
    batch, channels, length = x.shape
    if weight.ndim != 3 or weight.shape[0] != channels or weight.shape[1] != 1 or weight.shape[2] < 1:
        raise ValueError(f"the weight must be [{channels}, 1, k], its shape is {list(weight.shape)}")
    k = weight.shape[2]
    work = np.float64 if x.dtype == np.float64 else np.float32
    if past_state is None:
        carried = np.zeros((batch, channels, k - 1), dtype=work)
    elif past_state.shape != (batch, channels, k - 1):
        raise ValueError(f"past_state has shape {list(past_state.shape)}, want {[batch, channels, k - 1]}")
    else:
        carried = past_state.astype(work)
    padded = np.concatenate((carried, x.astype(work)), axis=2)
    w = weight[:, 0, :].astype(work)
    y = np.zeros((batch, channels, length), dtype=work)
    for j in range(k):  # one term per kernel tap
        y += w[None, :, j, None] * padded[:, :, j : j + length]
    if bias is not None:
        if bias.shape != (channels,):
            raise ValueError(f"bias has shape {list(bias.shape)}, want [{channels}]")
        y += bias.astype(work)[None, :, None]
    if activation in ("silu", "swish"):
        with np.errstate(over="ignore"):
            y = y / (1 + np.exp(-y))
    present = padded[:, :, padded.shape[2] - (k - 1) :]
    return y.astype(x.dtype), np.ascontiguousarray(present).astype(x.dtype)


KERNELS = (Kernel("CausalConvWithState", (27,), causal_conv_with_state),)
