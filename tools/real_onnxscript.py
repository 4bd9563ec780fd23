"""An onnxscript model that calls a model-local function (a member of the real-export corpus).

onnxscript reads the type annotations from the module's globals, so its
imports sit at module level here; ``tools/real_misc.py`` imports this module
only when it writes the model.
"""

from __future__ import annotations

import onnx
from onnxscript import FLOAT, script
from onnxscript import opset18 as op
from onnxscript.values import Opset

LOCAL = Opset("sonnx.local", 1)
"""The domain of the model-local function."""


@script(LOCAL, default_opset=op)
def soft_clip(x: FLOAT, bound: FLOAT) -> FLOAT:
    """Squashes ``x`` smoothly into (-bound, bound)."""
    return op.Mul(op.Tanh(op.Div(x, bound)), bound)


@script(default_opset=op)
def clipped_affine(x: FLOAT[2, 8], w: FLOAT[8, 3]) -> FLOAT[2, 3]:
    """A product of two inputs passed through the local function."""
    return soft_clip(op.MatMul(x, w), op.Constant(value_float=2.0))


def model() -> onnx.ModelProto:
    """The model, with ``soft_clip`` among its functions."""
    return clipped_affine.to_model_proto()
