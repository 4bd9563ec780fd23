"""GRU: a one-layer gated recurrent unit network.

With gates ordered z (update), r (reset), h (hidden), activations f
(default Sigmoid) and g (default Tanh)::

    z_t = f(X_t Wz^T + H_{t-1} Rz^T + Wbz + Rbz)
    r_t = f(X_t Wr^T + H_{t-1} Rr^T + Wbr + Rbr)
    h_t = g(X_t Wh^T + (r_t * H_{t-1}) Rh^T + Rbh + Wbh)     linear_before_reset = 0
    h_t = g(X_t Wh^T + r_t * (H_{t-1} Rh^T + Rbh) + Wbh)     linear_before_reset != 0
    H_t = (1 - z_t) * h_t + z_t * H_{t-1}

``direction``, ``sequence_lens``, ``clip`` (bounds every gate's
pre-activation) and the outputs Y / Y_h are as for RNN.

Versions: GRU-1 has no ``linear_before_reset`` and its ``direction`` default
is spelled ``foward`` (read as forward); GRU-3 adds ``linear_before_reset``;
GRU-7 drops ``output_sequence``; GRU-14 adds ``layout``; GRU-22 admits bfloat16.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._recurrent import Attributes, Inputs, Layer, Step, text
from .base import Kernel


def gru(*inputs: Any, linear_before_reset: int = 0, **attrs: Any) -> tuple[np.ndarray, np.ndarray]:
    """GRU-14 and -22, with ``layout``: inputs X, W, R, B, sequence_lens, initial_h (``_recurrent.Inputs``).

    The attributes besides ``linear_before_reset`` are those of ``_recurrent.Attributes``.
    """
    before_reset = int(linear_before_reset)
    given = Inputs.of("GRU", inputs)
    layer = Layer(given, [(given.initial_h, "initial_h")], gates=3, default_activations=("Sigmoid", "Tanh"),
                  attributes=Attributes.read(attrs))
    hid = layer.shapes.hidden

    def direction(d: int) -> tuple[np.ndarray, Step]:
        f, g = layer.activations[d]
        r_zr = layer.shapes.r[d][: 2 * hid].T
        r_h = layer.shapes.r[d][2 * hid :].T
        rb_zr = layer.rb[d][: 2 * hid]
        rb_h = layer.rb[d][2 * hid :]

        def step(xw_t: np.ndarray, states: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
            h_prev = states[0]
            zr = f(layer.bounded(xw_t[:, : 2 * hid] + np.matmul(h_prev, r_zr) + rb_zr))
            z, rt = zr[:, :hid], zr[:, hid:]
            if before_reset:
                pre = xw_t[:, 2 * hid :] + rt * (np.matmul(h_prev, r_h) + rb_h)
            else:
                pre = xw_t[:, 2 * hid :] + np.matmul(rt * h_prev, r_h) + rb_h
            h_new = g(layer.bounded(pre))
            return ((1 - z) * h_new + z * h_prev,)

        return layer.shapes.project(d, layer.wb), step

    y, h = layer.run(direction)
    return y, h


def gru_3(*inputs: Any, **attrs: Any) -> tuple[np.ndarray, np.ndarray]:
    """GRU-3 and -7: no ``layout`` (time-major shapes only)."""
    return gru(*inputs, **{**attrs, "layout": 0})


def gru_1(*inputs: Any, direction: str | bytes = "foward", **attrs: Any) -> tuple[np.ndarray, np.ndarray]:
    """GRU-1: as GRU-3 with the reset gate always applied before the linear map (``linear_before_reset`` 0).

    ``foward``, the schema's misspelt default direction, means forward.
    """
    forward = "forward" if text(direction) == "foward" else direction
    return gru_3(*inputs, **{**attrs, "direction": forward, "linear_before_reset": 0})


KERNELS = (
    Kernel("GRU", (1,), gru_1),
    Kernel("GRU", (3, 7), gru_3),
    Kernel("GRU", (14, 22), gru),
)
