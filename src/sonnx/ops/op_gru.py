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

from typing import Any, Sequence

import numpy as np

from ._recurrent import Shapes, activation_functions, clipper, direction_count, run_direction
from .base import Kernel


def _gru(
    x: np.ndarray,
    w: np.ndarray,
    r: np.ndarray,
    b: np.ndarray | None,
    sequence_lens: np.ndarray | None,
    initial_h: np.ndarray | None,
    *,
    activations: Sequence[str] | None,
    activation_alpha: Sequence[float] | None,
    activation_beta: Sequence[float] | None,
    clip: float | None,
    direction: str,
    hidden_size: int | None,
    linear_before_reset: int,
    layout: int,
    direction_aliases: Sequence[str] = (),
) -> tuple[np.ndarray, np.ndarray]:
    nd, backwards = direction_count(direction, direction_aliases)
    shp = Shapes(x, w, r, 3, nd, hidden_size, layout)
    funcs = activation_functions(activations, ("Sigmoid", "Tanh"), nd, activation_alpha, activation_beta)
    wb, rb = shp.bias(b)
    h0 = shp.state(initial_h, "initial_h")
    lengths = shp.lengths(sequence_lens)
    bounded = clipper(clip)
    hid = shp.hidden
    ys, hs = [], []
    for d in range(nd):
        f, g = funcs[d]
        r_zr = shp.r[d][: 2 * hid].T
        r_h = shp.r[d][2 * hid :].T
        rb_zr = rb[d][: 2 * hid]
        rb_h = rb[d][2 * hid :]

        def step(xw_t: np.ndarray, states: tuple[np.ndarray, ...], f: Any = f, g: Any = g, r_zr: Any = r_zr,
                 r_h: Any = r_h, rb_zr: Any = rb_zr, rb_h: Any = rb_h) -> tuple[np.ndarray, ...]:
            h_prev = states[0]
            zr = f(bounded(xw_t[:, : 2 * hid] + np.matmul(h_prev, r_zr) + rb_zr))
            z, rt = zr[:, :hid], zr[:, hid:]
            if linear_before_reset:
                pre = xw_t[:, 2 * hid :] + rt * (np.matmul(h_prev, r_h) + rb_h)
            else:
                pre = xw_t[:, 2 * hid :] + np.matmul(rt * h_prev, r_h) + rb_h
            h_new = g(bounded(pre))
            return ((1 - z) * h_new + z * h_prev,)

        y, (h,) = run_direction(shp.project(d, wb), lengths, backwards or d == 1, (h0[d],), step)
        ys.append(y)
        hs.append(h)
    y_out, h_out = shp.outputs(np.stack(ys, axis=1), [np.stack(hs)])
    return y_out, h_out


def gru_1(
    x: np.ndarray,
    w: np.ndarray,
    r: np.ndarray,
    b: np.ndarray | None = None,
    sequence_lens: np.ndarray | None = None,
    initial_h: np.ndarray | None = None,
    *,
    activations: Sequence[str] | None = None,
    activation_alpha: Sequence[float] | None = None,
    activation_beta: Sequence[float] | None = None,
    clip: float | None = None,
    direction: str = "foward",
    hidden_size: int | None = None,
    **_attrs: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """GRU-1: the reset gate always applies before the linear map; ``foward`` (the schema's default) means forward."""
    return _gru(x, w, r, b, sequence_lens, initial_h, activations=activations, activation_alpha=activation_alpha,
                activation_beta=activation_beta, clip=clip, direction=direction, hidden_size=hidden_size,
                linear_before_reset=0, layout=0, direction_aliases=("foward",))


def gru_3(
    x: np.ndarray,
    w: np.ndarray,
    r: np.ndarray,
    b: np.ndarray | None = None,
    sequence_lens: np.ndarray | None = None,
    initial_h: np.ndarray | None = None,
    *,
    activations: Sequence[str] | None = None,
    activation_alpha: Sequence[float] | None = None,
    activation_beta: Sequence[float] | None = None,
    clip: float | None = None,
    direction: str = "forward",
    hidden_size: int | None = None,
    linear_before_reset: int = 0,
    **_attrs: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """GRU-3 and -7: with ``linear_before_reset``, time-major shapes only."""
    return _gru(x, w, r, b, sequence_lens, initial_h, activations=activations, activation_alpha=activation_alpha,
                activation_beta=activation_beta, clip=clip, direction=direction, hidden_size=hidden_size,
                linear_before_reset=int(linear_before_reset), layout=0)


def gru(
    x: np.ndarray,
    w: np.ndarray,
    r: np.ndarray,
    b: np.ndarray | None = None,
    sequence_lens: np.ndarray | None = None,
    initial_h: np.ndarray | None = None,
    *,
    activations: Sequence[str] | None = None,
    activation_alpha: Sequence[float] | None = None,
    activation_beta: Sequence[float] | None = None,
    clip: float | None = None,
    direction: str = "forward",
    hidden_size: int | None = None,
    linear_before_reset: int = 0,
    layout: int = 0,
    **_attrs: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """GRU-14 and -22: with ``layout``."""
    return _gru(x, w, r, b, sequence_lens, initial_h, activations=activations, activation_alpha=activation_alpha,
                activation_beta=activation_beta, clip=clip, direction=direction, hidden_size=hidden_size,
                linear_before_reset=int(linear_before_reset), layout=int(layout))


KERNELS = (
    Kernel("GRU", (1,), gru_1),
    Kernel("GRU", (3, 7), gru_3),
    Kernel("GRU", (14, 22), gru),
)
