"""What the recurrent operators RNN, GRU and LSTM share.

* the activation functions the operators name by string (``Tanh``,
  ``HardSigmoid``...), with ``activation_alpha`` / ``activation_beta``
  handed out in list order to the functions that take such a parameter;
* the shapes: ``layout`` 0 is time-major (X ``[T, B, I]``, Y ``[T, D, B, H]``,
  states ``[D, B, H]``), ``layout`` 1 batch-major (X ``[B, T, I]``, Y
  ``[B, T, D, H]``, states ``[B, D, H]``); ``D`` is 2 for ``bidirectional``;
* the time loop, which respects ``sequence_lens``: batch entry ``b`` runs
  ``len_b`` steps (forwards over ``t = 0..len_b-1``, or backwards from
  ``t = len_b-1``), its final state is the state after its last step, and its
  rows of Y at ``t >= len_b`` are zero;
* the inputs (:class:`Inputs`) and the attributes (:class:`Attributes`)
  every one of them has, and the checked layer with its loop over the
  directions (:class:`Layer`): an operator module only says how one
  direction computes one step.

Arithmetic is carried in the input type, except for the ml_dtypes types
(bfloat16), which NumPy only computes with through float32.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

import numpy as np

Activation = Callable[[np.ndarray], np.ndarray]
Step = Callable[[np.ndarray, tuple[np.ndarray, ...]], tuple[np.ndarray, ...]]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)); exp overflows to inf for very negative x (the result is then 0), which
    :func:`run_direction`, the only caller of the activations, keeps quiet for the whole time loop."""
    return 1 / (1 + np.exp(-x))


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(np.zeros_like(x), x)


# name -> (function of x, alpha, beta; default alpha or None when it takes none; default beta or None)
_TABLE: dict[str, tuple[Callable[[np.ndarray, float, float], np.ndarray], float | None, float | None]] = {
    "relu": (lambda x, a, b: np.maximum(x, 0), None, None),
    "tanh": (lambda x, a, b: np.tanh(x), None, None),
    "sigmoid": (lambda x, a, b: _sigmoid(x), None, None),
    "affine": (lambda x, a, b: a * x + b, 1.0, 0.0),
    "leakyrelu": (lambda x, a, b: np.where(x >= 0, x, a * x), 0.01, None),
    "thresholdedrelu": (lambda x, a, b: np.where(x >= a, x, 0), 1.0, None),
    "scaledtanh": (lambda x, a, b: a * np.tanh(b * x), 1.0, 1.0),
    "hardsigmoid": (lambda x, a, b: np.clip(a * x + b, 0, 1), 0.2, 0.5),
    "elu": (lambda x, a, b: np.where(x >= 0, x, a * np.expm1(np.minimum(x, 0))), 1.0, None),
    "softsign": (lambda x, a, b: x / (1 + np.abs(x)), None, None),
    "softplus": (lambda x, a, b: _softplus(x), None, None),
}


def text(s: str | bytes) -> str:
    """A STRING attribute as ``str`` (the loader may hand over bytes)."""
    return s.decode("utf-8") if isinstance(s, bytes) else str(s)


def activation_functions(
    names: Sequence[str | bytes] | None,
    defaults: Sequence[str],
    num_directions: int,
    alphas: Sequence[float] | None,
    betas: Sequence[float] | None,
) -> list[list[Activation]]:
    """One list of ``len(defaults)`` activations per direction.

    ``names`` lists them for the first direction, then the second; a list of
    exactly one direction's worth serves both directions, and a longer list than
    needed (RNN's default ``[Tanh, Tanh]`` under ``forward``) is cut.
    """
    per = len(defaults)
    chosen = [text(n) for n in names] if names else list(defaults) * num_directions
    if len(chosen) == per and num_directions == 2:
        chosen = chosen * 2
    if len(chosen) < per * num_directions:
        raise ValueError(f"activations lists {len(chosen)} functions, {per * num_directions} are needed")
    alpha_left = list(alphas or [])
    beta_left = list(betas or [])
    made: list[Activation] = []
    for name in chosen[: per * num_directions]:
        key = name.lower()
        if key not in _TABLE:
            raise ValueError(f"unknown activation function {name!r}")
        fn, alpha, beta = _TABLE[key]
        if alpha is not None and alpha_left:
            alpha = float(alpha_left.pop(0))
        if beta is not None and beta_left:
            beta = float(beta_left.pop(0))
        a = 0.0 if alpha is None else alpha
        b = 0.0 if beta is None else beta
        made.append(_bound(fn, a, b))
    return [made[d * per : (d + 1) * per] for d in range(num_directions)]


def _bound(fn: Callable[[np.ndarray, float, float], np.ndarray], alpha: float, beta: float) -> Activation:
    """``fn`` with its parameters fixed, keeping the argument's type."""

    def apply(x: np.ndarray) -> np.ndarray:
        y = fn(x, alpha, beta)
        if type(y) is np.ndarray and y.dtype == x.dtype:  # the usual case: nothing to convert
            return y
        return np.asarray(y).astype(x.dtype, copy=False)

    return apply


def direction_count(direction: str | bytes) -> tuple[int, bool]:
    """(num_directions, whether the single direction runs backwards) for a ``direction`` attribute."""
    d = text(direction)
    if d == "forward":
        return 1, False
    if d == "reverse":
        return 1, True
    if d == "bidirectional":
        return 2, False
    raise ValueError(f"direction must be forward, reverse or bidirectional, not {d!r}")


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """The type the arithmetic runs in: the input type, float32 for ml_dtypes types."""
    if dtype.kind in "fiucb":  # NumPy's own types, none of them bfloat16 (its name is not read: a slow property)
        return np.dtype(dtype)
    return np.dtype(np.float32) if dtype.kind == "V" or dtype.name == "bfloat16" else np.dtype(dtype)


class Shapes:
    """The checked dimensions of one recurrent operation, and its inputs in time-major compute form."""

    def __init__(
        self,
        x: np.ndarray,
        w: np.ndarray,
        r: np.ndarray,
        gates: int,
        num_directions: int,
        hidden_size: int | None,
        layout: int,
    ) -> None:
        if layout not in (0, 1):
            raise ValueError(f"layout must be 0 or 1, not {layout}")
        if x.ndim != 3:
            raise ValueError(f"X must have rank 3, not {x.ndim}")
        self.layout = layout
        self.dtype = x.dtype
        self.work = compute_dtype(x.dtype)
        xt = x if layout == 0 else np.swapaxes(x, 0, 1)
        self.x = xt.astype(self.work, copy=False)
        self.seq, self.batch, self.input_size = xt.shape
        self.directions = num_directions
        if r.ndim != 3 or r.shape[0] != num_directions:
            raise ValueError(f"R has shape {r.shape}; want [{num_directions}, {gates}*hidden_size, hidden_size]")
        hidden = r.shape[2]
        if hidden_size is not None and int(hidden_size) != hidden:
            raise ValueError(f"hidden_size is {hidden_size} but R's last dimension is {hidden}")
        self.hidden = hidden
        if r.shape[1] != gates * hidden:
            raise ValueError(f"R has shape {r.shape}; want [{num_directions}, {gates * hidden}, {hidden}]")
        if w.shape != (num_directions, gates * hidden, self.input_size):
            raise ValueError(f"W has shape {w.shape}; want [{num_directions}, {gates * hidden}, {self.input_size}]")
        self.gates = gates
        self.w = w.astype(self.work, copy=False)
        self.r = r.astype(self.work, copy=False)

    def bias(self, b: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """(Wb, Rb), each ``[D, gates*H]``; zeros when B is omitted."""
        n = self.gates * self.hidden
        if b is None:
            zero = np.zeros((self.directions, n), dtype=self.work)
            return zero, zero
        if b.shape != (self.directions, 2 * n):
            raise ValueError(f"B has shape {b.shape}; want [{self.directions}, {2 * n}]")
        bw = b.astype(self.work, copy=False)
        return bw[:, :n], bw[:, n:]

    def state(self, value: np.ndarray | None, name: str) -> np.ndarray:
        """An initial state as ``[D, B, H]`` (zeros when omitted)."""
        want = (self.directions, self.batch, self.hidden)
        if value is None:
            return np.zeros(want, dtype=self.work)
        v = value if self.layout == 0 else np.swapaxes(value, 0, 1)
        if v.shape != want:
            shown = want if self.layout == 0 else (want[1], want[0], want[2])
            raise ValueError(f"{name} has shape {value.shape}; want {list(shown)}")
        return v.astype(self.work, copy=False)

    def lengths(self, sequence_lens: np.ndarray | None) -> np.ndarray:
        """Every batch entry's sequence length (all ``T`` when omitted)."""
        if sequence_lens is None:
            return np.full(self.batch, self.seq, dtype=np.int64)
        lens = np.asarray(sequence_lens).astype(np.int64).reshape(-1)
        if lens.shape != (self.batch,):
            raise ValueError(f"sequence_lens has {lens.size} values for a batch of {self.batch}")
        if np.any(lens < 0) or np.any(lens > self.seq):
            raise ValueError(f"sequence_lens values must lie in [0, {self.seq}], got {lens.tolist()}")
        return lens

    def project(self, d: int, wb: np.ndarray) -> np.ndarray:
        """``X W^T + Wb`` of direction ``d`` at every time step at once: ``[T, B, gates*H]``."""
        return (np.matmul(self.x, self.w[d].T) + wb[d]).astype(self.work, copy=False)

    def outputs(self, y: np.ndarray, finals: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        """Y ``[T, D, B, H]`` and the final states ``[D, B, H]`` in the requested layout and the input type."""
        if self.layout == 1:
            y = np.transpose(y, (2, 0, 1, 3))
            finals = [np.swapaxes(f, 0, 1) for f in finals]
        return (y.astype(self.dtype), *(np.ascontiguousarray(f).astype(self.dtype) for f in finals))


def run_direction(
    xw: np.ndarray,
    lengths: np.ndarray,
    backwards: bool,
    initial: tuple[np.ndarray, ...],
    step: Step,
) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """Run one direction; return its hidden states ``[T, B, H]`` and its final states.

    ``step(xw_t, states)`` computes the new states (hidden state first) from
    the input projection of the step and the previous states, for the whole
    batch at once. Overflow warnings are off for the loop (an activation such as
    the sigmoid overflows to a value it then uses on purpose): one switch per
    direction rather than one per activation call.
    """
    with np.errstate(over="ignore"):
        if bool(np.all(lengths == xw.shape[0])):
            return _run_full(xw, backwards, initial, step)
        return run_selecting(xw, lengths, backwards, initial, step)


def run_selecting(
    xw: np.ndarray,
    lengths: np.ndarray,
    backwards: bool,
    initial: tuple[np.ndarray, ...],
    step: Step,
) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """The time loop for any ``lengths``: each step keeps the new states of the entries still running.

    The definition :func:`_run_full` must agree with when every entry runs all
    steps (``tests/ops/test_rewritten_small_kernels.py`` holds them to it).
    """
    seq, batch = xw.shape[:2]
    y = np.zeros((seq, batch, initial[0].shape[-1]), dtype=initial[0].dtype)
    rows = np.arange(batch)
    states = initial
    # The recurrence is inherently sequential: step s needs the state step s-1 produced.
    for s in range(seq):
        active = s < lengths
        if not active.any():
            break
        t = np.clip(lengths - 1 - s, 0, seq - 1) if backwards else np.full(batch, s)
        new = step(xw[t, rows], states)
        keep = active[:, None]
        states = tuple(np.where(keep, n, o) for n, o in zip(new, states, strict=True))
        y[t[active], rows[active]] = new[0][active]
    return y, states


def _run_full(
    xw: np.ndarray, backwards: bool, initial: tuple[np.ndarray, ...], step: Step
) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """:func:`run_direction` when every batch entry runs all ``T`` steps: the same steps on the same values.

    Every entry is active at every step and step ``s`` reads time ``s`` (``T - 1 - s`` backwards) for the whole
    batch, so the per-entry selection of the general loop (``np.where`` on an all-true mask, the gathers and
    scatters by batch row) picks exactly the new states, the row ``xw[t]`` and ``y[t]``.
    """
    seq = xw.shape[0]
    y = np.zeros((seq, xw.shape[1], initial[0].shape[-1]), dtype=initial[0].dtype)
    states = initial
    for s in range(seq):
        t = seq - 1 - s if backwards else s
        states = step(xw[t], states)
        y[t] = states[0]
    return y, states


def clipper(clip: float | None) -> Callable[[np.ndarray], np.ndarray]:
    """Bounds a gate pre-activation to ``[-clip, clip]`` (identity when ``clip`` is not set)."""
    if clip is None:
        return lambda v: v
    c = float(clip)
    if c <= 0:
        raise ValueError(f"clip must be positive, not {c}")
    return lambda v: np.clip(v, -c, c)


class Inputs(NamedTuple):
    """The inputs of RNN, GRU and LSTM in their order: X, W, R and the optional ones (LSTM alone has the last two)."""

    x: np.ndarray
    w: np.ndarray
    r: np.ndarray
    b: np.ndarray | None = None
    sequence_lens: np.ndarray | None = None
    initial_h: np.ndarray | None = None
    initial_c: np.ndarray | None = None
    p: np.ndarray | None = None

    @classmethod
    def of(cls, operator: str, inputs: Sequence[Any], most: int = 6) -> Inputs:
        """The inputs a kernel received, at least X, W and R and at most ``most`` (8 for LSTM, else 6)."""
        if not 3 <= len(inputs) <= most:
            raise TypeError(f"{operator} has 3 to {most} inputs, not {len(inputs)}")
        return cls(*inputs)


@dataclass(frozen=True)
class Attributes:
    """The attributes RNN, GRU and LSTM share, with their schema defaults.

    A kernel takes them as keyword arguments and reads them with :meth:`read`;
    it declares only its operator's own attributes (GRU's
    ``linear_before_reset``, LSTM's ``input_forget``) itself.
    """

    activations: Sequence[str | bytes] | None = None
    activation_alpha: Sequence[float] | None = None
    activation_beta: Sequence[float] | None = None
    clip: float | None = None
    direction: str | bytes = "forward"
    hidden_size: int | None = None
    layout: int = 0

    @classmethod
    def read(cls, attrs: Mapping[str, Any]) -> Attributes:
        """The shared attributes among ``attrs`` (any other one, such as version 1's ``output_sequence``, is left)."""
        picked = {f.name: attrs[f.name] for f in fields(cls) if f.name in attrs}
        if "layout" in picked:
            picked["layout"] = int(picked["layout"])
        return cls(**picked)


class Layer:
    """One recurrent operation with its inputs and shared attributes checked, ready to run direction by direction.

    The checks run in a fixed order (direction, shapes, activations, B, the
    initial states in the order given, ``sequence_lens``, ``clip``), so the
    first problem found is the one reported.
    """

    def __init__(
        self,
        inputs: Inputs,
        initial: Sequence[tuple[np.ndarray | None, str]],
        *,
        gates: int,
        default_activations: Sequence[str],
        attributes: Attributes,
    ) -> None:
        directions, self.backwards = direction_count(attributes.direction)
        self.shapes = Shapes(inputs.x, inputs.w, inputs.r, gates, directions, attributes.hidden_size, attributes.layout)
        self.activations = activation_functions(
            attributes.activations, default_activations, directions, attributes.activation_alpha,
            attributes.activation_beta,
        )
        self.wb, self.rb = self.shapes.bias(inputs.b)
        self.initial = tuple(self.shapes.state(value, name) for value, name in initial)
        self.lengths = self.shapes.lengths(inputs.sequence_lens)
        self.bounded = clipper(attributes.clip)

    def run(self, direction: Callable[[int], tuple[np.ndarray, Step]]) -> tuple[np.ndarray, ...]:
        """Y and the final states (one per initial state), in the requested layout and the input type.

        ``direction(d)`` gives direction ``d``'s input projection ``[T, B, gates*H]``
        and its step (see :func:`run_direction`). Direction 1 of a
        bidirectional operation runs backwards.
        """
        ys: list[np.ndarray] = []
        finals: list[tuple[np.ndarray, ...]] = []
        for d in range(self.shapes.directions):
            xw, step = direction(d)
            initial = tuple(state[d] for state in self.initial)
            y, last = run_direction(xw, self.lengths, self.backwards or d == 1, initial, step)
            ys.append(y)
            finals.append(last)
        if len(ys) == 1:  # one direction: its arrays with the direction axis added (views; outputs() copies them)
            return self.shapes.outputs(ys[0][:, None], [final[None] for final in finals[0]])
        per_state = [np.stack(final) for final in zip(*finals, strict=True)]
        return self.shapes.outputs(np.stack(ys, axis=1), per_state)
