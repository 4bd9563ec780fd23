"""LSTM: a one-layer long short-term memory network.

With gates ordered i (input), o (output), f (forget), c (cell), activations f
(default Sigmoid), g and h (default Tanh), peepholes P = [Pi, Po, Pf]::

    i_t = f(X_t Wi^T + H_{t-1} Ri^T + Pi * C_{t-1} + Wbi + Rbi)
    f_t = f(X_t Wf^T + H_{t-1} Rf^T + Pf * C_{t-1} + Wbf + Rbf)
    c_t = g(X_t Wc^T + H_{t-1} Rc^T + Wbc + Rbc)
    C_t = f_t * C_{t-1} + i_t * c_t
    o_t = f(X_t Wo^T + H_{t-1} Ro^T + Po * C_t + Wbo + Rbo)
    H_t = o_t * h(C_t)

``input_forget`` couples the two gates: the forget gate is ``1 - i_t``.
``clip`` bounds the four gate pre-activations. ``direction``,
``sequence_lens`` and the layouts are as for RNN; outputs Y, Y_h and Y_c
(the last cell state).

Versions: LSTM-1 also has ``output_sequence`` (nothing computed depends on
it), LSTM-7 drops it, LSTM-14 adds ``layout``, LSTM-22 admits bfloat16.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._recurrent import Attributes, Inputs, Layer, Step
from .base import Kernel


def lstm(*inputs: Any, input_forget: int = 0, **attrs: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LSTM-14 and -22, with ``layout``: inputs X, W, R, B, sequence_lens, initial_h, initial_c, P (``Inputs``).

    The attributes besides ``input_forget`` are those of ``_recurrent.Attributes``.
    """
    coupled = int(input_forget)
    given = Inputs.of("LSTM", inputs, most=8)
    layer = Layer(given, [(given.initial_h, "initial_h"), (given.initial_c, "initial_c")], gates=4,
                  default_activations=("Sigmoid", "Tanh", "Tanh"), attributes=Attributes.read(attrs))
    nd, hid, work, p = layer.shapes.directions, layer.shapes.hidden, layer.shapes.work, given.p
    if p is None:
        peep = np.zeros((nd, 3 * hid), dtype=work)
    elif p.shape != (nd, 3 * hid):
        raise ValueError(f"P has shape {p.shape}; want [{nd}, {3 * hid}]")
    else:
        peep = p.astype(work, copy=False)

    def direction(d: int) -> tuple[np.ndarray, Step]:
        f, g, h = layer.activations[d]
        rt = layer.shapes.r[d].T
        p_i, p_o, p_f = peep[d][:hid], peep[d][hid : 2 * hid], peep[d][2 * hid :]

        def step(xw_t: np.ndarray, states: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
            h_prev, c_prev = states
            pre = xw_t + np.matmul(h_prev, rt)
            i = f(layer.bounded(pre[:, :hid] + p_i * c_prev))
            if coupled:
                fg = 1 - i
            else:
                fg = f(layer.bounded(pre[:, 2 * hid : 3 * hid] + p_f * c_prev))
            c_new = fg * c_prev + i * g(layer.bounded(pre[:, 3 * hid :]))
            o = f(layer.bounded(pre[:, hid : 2 * hid] + p_o * c_new))
            return o * h(c_new), c_new

        return layer.shapes.project(d, layer.wb) + layer.rb[d], step

    y, y_h, y_c = layer.run(direction)
    return y, y_h, y_c


def lstm_7(*inputs: Any, **attrs: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LSTM-1 and -7: no ``layout`` (time-major shapes only); LSTM-1's ``output_sequence`` changes nothing computed."""
    return lstm(*inputs, **{**attrs, "layout": 0})


KERNELS = (
    Kernel("LSTM", (1, 7), lstm_7),
    Kernel("LSTM", (14, 22), lstm),
)
