"""RNN: a one-layer simple recurrent network, ``H_t = f(X_t W^T + H_{t-1} R^T + Wb + Rb)``.

``f`` defaults to Tanh (one activation per direction). ``direction`` is
forward, reverse or bidirectional (the backward direction has its own W, R, B
and initial state); ``sequence_lens`` gives each batch entry its own length;
``clip`` bounds the pre-activation. Outputs: Y, every hidden state
``[T, D, B, H]``, and Y_h, the last one ``[D, B, H]``.

Versions: RNN-1 also has ``output_sequence`` (whether Y is wanted; Y is an
optional output anyway), RNN-7 drops it, RNN-14 adds ``layout`` (batch-major
shapes when 1), RNN-22 admits bfloat16.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ._recurrent import Shapes, activation_functions, clipper, direction_count, run_direction
from .base import Kernel


def _rnn(
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
    layout: int,
) -> tuple[np.ndarray, np.ndarray]:
    nd, backwards = direction_count(direction)
    shp = Shapes(x, w, r, 1, nd, hidden_size, layout)
    funcs = activation_functions(activations, ("Tanh",), nd, activation_alpha, activation_beta)
    wb, rb = shp.bias(b)
    h0 = shp.state(initial_h, "initial_h")
    lengths = shp.lengths(sequence_lens)
    bounded = clipper(clip)
    ys, hs = [], []
    for d in range(nd):
        f = funcs[d][0]
        rt = shp.r[d].T
        rbias = rb[d]

        def step(xw_t: np.ndarray, states: tuple[np.ndarray, ...], f: Any = f, rt: Any = rt, rbias: Any = rbias
                 ) -> tuple[np.ndarray, ...]:
            return (f(bounded(xw_t + np.matmul(states[0], rt) + rbias)),)

        y, (h,) = run_direction(shp.project(d, wb), lengths, backwards or d == 1, (h0[d],), step)
        ys.append(y)
        hs.append(h)
    y_out, h_out = shp.outputs(np.stack(ys, axis=1), [np.stack(hs)])
    return y_out, h_out


def rnn_7(
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
    **_attrs: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """RNN-1 and -7: time-major shapes only (RNN-1's ``output_sequence`` changes nothing computed)."""
    return _rnn(x, w, r, b, sequence_lens, initial_h, activations=activations, activation_alpha=activation_alpha,
                activation_beta=activation_beta, clip=clip, direction=direction, hidden_size=hidden_size, layout=0)


def rnn(
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
    layout: int = 0,
    **_attrs: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """RNN-14 and -22: with ``layout``."""
    return _rnn(x, w, r, b, sequence_lens, initial_h, activations=activations, activation_alpha=activation_alpha,
                activation_beta=activation_beta, clip=clip, direction=direction, hidden_size=hidden_size,
                layout=int(layout))


KERNELS = (
    Kernel("RNN", (1, 7), rnn_7),
    Kernel("RNN", (14, 22), rnn),
)
