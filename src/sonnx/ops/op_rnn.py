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

from typing import Any

import numpy as np

from ._recurrent import Attributes, Inputs, Layer, Step
from .base import Kernel


def rnn(*inputs: Any, **attrs: Any) -> tuple[np.ndarray, np.ndarray]:
    """RNN-14 and -22, with ``layout``: inputs X, W, R, B, sequence_lens, initial_h (``_recurrent.Inputs``).

    The attributes are those of ``_recurrent.Attributes``.
    """
    given = Inputs.of("RNN", inputs)
    layer = Layer(given, [(given.initial_h, "initial_h")], gates=1, default_activations=("Tanh",),
                  attributes=Attributes.read(attrs))

    def direction(d: int) -> tuple[np.ndarray, Step]:
        f = layer.activations[d][0]
        rt = layer.shapes.r[d].T
        rbias = layer.rb[d]

        def step(xw_t: np.ndarray, states: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
            return (f(layer.bounded(xw_t + np.matmul(states[0], rt) + rbias)),)

        return layer.shapes.project(d, layer.wb), step

    y, h = layer.run(direction)
    return y, h


def rnn_7(*inputs: Any, **attrs: Any) -> tuple[np.ndarray, np.ndarray]:
    """RNN-1 and -7: no ``layout`` (time-major shapes only); RNN-1's ``output_sequence`` changes nothing computed."""
    return rnn(*inputs, **{**attrs, "layout": 0})


KERNELS = (
    Kernel("RNN", (1, 7), rnn_7),
    Kernel("RNN", (14, 22), rnn),
)
