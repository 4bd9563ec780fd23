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

from typing import Any, Sequence

import numpy as np

from ._recurrent import Shapes, activation_functions, clipper, direction_count, run_direction
from .base import Kernel


def _lstm(
    x: np.ndarray,
    w: np.ndarray,
    r: np.ndarray,
    b: np.ndarray | None,
    sequence_lens: np.ndarray | None,
    initial_h: np.ndarray | None,
    initial_c: np.ndarray | None,
    p: np.ndarray | None,
    *,
    activations: Sequence[str] | None,
    activation_alpha: Sequence[float] | None,
    activation_beta: Sequence[float] | None,
    clip: float | None,
    direction: str,
    hidden_size: int | None,
    input_forget: int,
    layout: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    nd, backwards = direction_count(direction)
    shp = Shapes(x, w, r, 4, nd, hidden_size, layout)
    funcs = activation_functions(activations, ("Sigmoid", "Tanh", "Tanh"), nd, activation_alpha, activation_beta)
    wb, rb = shp.bias(b)
    h0 = shp.state(initial_h, "initial_h")
    c0 = shp.state(initial_c, "initial_c")
    lengths = shp.lengths(sequence_lens)
    bounded = clipper(clip)
    hid = shp.hidden
    if p is None:
        peep = np.zeros((nd, 3 * hid), dtype=shp.work)
    elif p.shape != (nd, 3 * hid):
        raise ValueError(f"P has shape {p.shape}; want [{nd}, {3 * hid}]")
    else:
        peep = p.astype(shp.work, copy=False)
    ys, hs, cs = [], [], []
    for d in range(nd):
        f, g, h = funcs[d]
        rt = shp.r[d].T
        p_i, p_o, p_f = peep[d][:hid], peep[d][hid : 2 * hid], peep[d][2 * hid :]
        xw = shp.project(d, wb) + rb[d]

        def step(xw_t: np.ndarray, states: tuple[np.ndarray, ...], f: Any = f, g: Any = g, h: Any = h,
                 rt: Any = rt, p_i: Any = p_i, p_o: Any = p_o, p_f: Any = p_f) -> tuple[np.ndarray, ...]:
            h_prev, c_prev = states
            pre = xw_t + np.matmul(h_prev, rt)
            i = f(bounded(pre[:, :hid] + p_i * c_prev))
            if input_forget:
                fg = 1 - i
            else:
                fg = f(bounded(pre[:, 2 * hid : 3 * hid] + p_f * c_prev))
            c_new = fg * c_prev + i * g(bounded(pre[:, 3 * hid :]))
            o = f(bounded(pre[:, hid : 2 * hid] + p_o * c_new))
            return o * h(c_new), c_new

        y, (hf, cf) = run_direction(xw, lengths, backwards or d == 1, (h0[d], c0[d]), step)
        ys.append(y)
        hs.append(hf)
        cs.append(cf)
    y_out, h_out, c_out = shp.outputs(np.stack(ys, axis=1), [np.stack(hs), np.stack(cs)])
    return y_out, h_out, c_out


def lstm_7(
    x: np.ndarray,
    w: np.ndarray,
    r: np.ndarray,
    b: np.ndarray | None = None,
    sequence_lens: np.ndarray | None = None,
    initial_h: np.ndarray | None = None,
    initial_c: np.ndarray | None = None,
    p: np.ndarray | None = None,
    *,
    activations: Sequence[str] | None = None,
    activation_alpha: Sequence[float] | None = None,
    activation_beta: Sequence[float] | None = None,
    clip: float | None = None,
    direction: str = "forward",
    hidden_size: int | None = None,
    input_forget: int = 0,
    **_attrs: Any,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LSTM-1 and -7: time-major shapes only."""
    return _lstm(x, w, r, b, sequence_lens, initial_h, initial_c, p, activations=activations,
                 activation_alpha=activation_alpha, activation_beta=activation_beta, clip=clip, direction=direction,
                 hidden_size=hidden_size, input_forget=int(input_forget), layout=0)


def lstm(
    x: np.ndarray,
    w: np.ndarray,
    r: np.ndarray,
    b: np.ndarray | None = None,
    sequence_lens: np.ndarray | None = None,
    initial_h: np.ndarray | None = None,
    initial_c: np.ndarray | None = None,
    p: np.ndarray | None = None,
    *,
    activations: Sequence[str] | None = None,
    activation_alpha: Sequence[float] | None = None,
    activation_beta: Sequence[float] | None = None,
    clip: float | None = None,
    direction: str = "forward",
    hidden_size: int | None = None,
    input_forget: int = 0,
    layout: int = 0,
    **_attrs: Any,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LSTM-14 and -22: with ``layout``."""
    return _lstm(x, w, r, b, sequence_lens, initial_h, initial_c, p, activations=activations,
                 activation_alpha=activation_alpha, activation_beta=activation_beta, clip=clip, direction=direction,
                 hidden_size=hidden_size, input_forget=int(input_forget), layout=int(layout))


KERNELS = (
    Kernel("LSTM", (1, 7), lstm_7),
    Kernel("LSTM", (14, 22), lstm),
)
