"""Tolerances in quantization steps, read from the operation that writes each graph output.

A quantized model computes its integers from floats, and two runtimes that
round an intermediate float differently (a fused multiply-add against two
roundings, say) land one integer apart: after DequantizeLinear that is one
whole ``scale``, far above any float tolerance. Such a difference is a
property of the number format, not a defect of either runtime, so the
cross-check may be asked (``--quant-steps N``) to accept it, and only where
the model itself says how big a step is:

* an output written by ``DequantizeLinear`` (default domain) whose ``scale``
  is a constant (an initializer or a ``Constant`` operation) may differ by
  ``N * scale``: one figure for a per-tensor scale, and for a per-axis scale
  one figure per channel, broadcast along that axis;
* an output written by ``QuantizeLinear`` (an integer tensor) may differ by
  ``N`` integer units;
* between that writer and the output only value-preserving operations may
  stand (``Identity``, and for a per-tensor scale also ``Reshape``,
  ``Flatten``, ``Squeeze``, ``Unsqueeze``, which move elements but never
  change one: a per-axis scale would lose its axis through them).

Every other output keeps the float tolerance. Blocked quantization (a
``block_size`` attribute) and a scale computed at run time give no step
tolerance: nothing here guesses a step the file does not state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model.graph import Graph, Model, Operation

MAX_QUANT_STEPS = 1000
"""The largest ``--quant-steps``: beyond that a "tolerance" would accept nearly any value of an 8-bit output."""

_SHAPE_ONLY = frozenset({"Reshape", "Flatten", "Squeeze", "Unsqueeze"})
"""Operations that move elements without changing any (a per-tensor step survives them)."""


@dataclass(frozen=True)
class StepTolerance:
    """How far one output may be from the expected value: ``steps`` quantization steps.

    ``scale`` holds one step per channel (one value for a per-tensor scale)
    along ``axis``; for an integer output (``integer``) a step is 1.
    ``writer`` names the quantizing operation the step was read from.
    """

    steps: int
    scale: tuple[float, ...]
    axis: int | None
    integer: bool
    writer: str

    def bound(self, shape: tuple[int, ...]) -> np.ndarray | None:
        """The largest allowed absolute difference of every element of an array of ``shape``.

        None when a per-channel scale does not fit that shape (its axis is
        missing, or its length is not the number of channels).
        """
        scale = np.asarray(self.scale, dtype=np.float64) * self.steps
        if self.axis is None or len(self.scale) == 1:
            return np.broadcast_to(scale.reshape(()) if scale.size == 1 else scale, shape)
        axis = self.axis + len(shape) if self.axis < 0 else self.axis
        if not 0 <= axis < len(shape) or shape[axis] != len(self.scale):
            return None
        view = [1] * len(shape)
        view[axis] = len(self.scale)
        return np.broadcast_to(scale.reshape(view), shape)

    def describe(self) -> str:
        """``1 step of 0.0039 (DequantizeLinear:dq)`` as the reports show it."""
        unit = "integer unit" if self.integer else "step"
        plural = "s" if self.steps != 1 else ""
        if self.integer:
            size = ""
        elif len(self.scale) == 1:
            size = f" of {self.scale[0]:.6g}"
        else:
            size = f" of {min(self.scale):.6g} to {max(self.scale):.6g} along axis {self.axis}"
        return f"{self.steps} {unit}{plural}{size} ({self.writer})"

    def to_json(self) -> dict[str, Any]:
        return {
            "steps": self.steps,
            "scale": list(self.scale),
            "axis": self.axis,
            "integer": self.integer,
            "writer": self.writer,
        }


def _producers(graph: Graph) -> dict[str, Operation]:
    return {o: op for op in graph.operations for o in op.output_mapping if o}


def _constant(graph: Graph, producers: dict[str, Operation], name: str) -> np.ndarray | None:
    """The value of ``name`` when the file states it: an initializer or a Constant's ``value``."""
    t = graph.tensors.get(name)
    if t is not None and t.initial_value is not None and name not in graph.inputs:
        return np.asarray(t.initial_value.read())
    op = producers.get(name)
    if op is None or op.operator != "Constant" or op.domain != "":
        return None
    value = op.attribute("value")
    if value is not None and value.type == "TENSOR":
        return np.asarray(value.value.read())
    single = op.attribute("value_float")
    return None if single is None else np.asarray(single.value, dtype=np.float32)


def _attribute_int(op: Operation, name: str, default: int) -> int:
    a = op.attribute(name)
    return default if a is None else int(a.value)


def _step_of(
    graph: Graph, producers: dict[str, Operation], op: Operation, moved: bool, steps: int
) -> StepTolerance | None:
    """The step ``op`` (a quantizing writer) states, or None; ``moved``: shape-only operations stand between."""
    if op.operator == "QuantizeLinear":
        return StepTolerance(steps, (1.0,), None, True, op.label)
    if _attribute_int(op, "block_size", 0) != 0 or len(op.input_mapping) < 2 or not op.input_mapping[1]:
        return None
    scale = _constant(graph, producers, op.input_mapping[1])
    if scale is None or scale.size == 0 or scale.ndim > 1:
        return None
    values = tuple(float(x) for x in scale.astype(np.float64).ravel())
    if not all(np.isfinite(values)) or min(values) < 0:
        return None
    if len(values) == 1:
        return StepTolerance(steps, values, None, False, op.label)
    if moved:
        return None
    return StepTolerance(steps, values, _attribute_int(op, "axis", 1), False, op.label)


def step_tolerances(model: Model, steps: int) -> dict[str, StepTolerance]:
    """The step tolerance of every graph output that has one (see the module text), keyed by output name."""
    graph = model.graph
    producers = _producers(graph)
    out: dict[str, StepTolerance] = {}
    for name in graph.outputs:
        op, moved, seen = producers.get(name), False, set()
        while op is not None and op.domain == "" and id(op) not in seen:
            seen.add(id(op))
            if op.operator in ("DequantizeLinear", "QuantizeLinear"):
                found = _step_of(graph, producers, op, moved, steps)
                if found is not None:
                    out[name] = found
                break
            if op.operator in _SHAPE_ONLY:
                moved = True
            elif op.operator != "Identity":
                break
            op = producers.get(op.input_mapping[0]) if op.input_mapping else None
    return out
