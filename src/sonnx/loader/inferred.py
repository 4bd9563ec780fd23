"""Loading a model after onnx's shape inference has filled in the intermediate tensors' types.

Seed 002's rewrites assume static intermediate shapes (Flatten and Shape
folding); ``sonnx rewrite --infer-shapes`` asks for them. The inferred model
goes through the ordinary loader, so everything it adds is checked like the
rest of the file, and translation validation still compares the rewritten
model with this one.
"""

from __future__ import annotations

import os
import tempfile

import onnx

from ..errors import InputError
from ..model.graph import Model
from .load import load_model


def load_with_inferred_shapes(path: str) -> Model:
    """Load ``path`` after ``onnx.shape_inference`` (strict, with data propagation) has added value_info."""
    try:
        proto = onnx.load(path)
        inferred = onnx.shape_inference.infer_shapes(proto, strict_mode=True, data_prop=True)
    except Exception as exc:  # onnx raises several unrelated types here
        raise InputError(f"{path}: ONNX shape inference failed: {' '.join(str(exc).split())[:300]}") from None
    fd, tmp = tempfile.mkstemp(suffix=".onnx")
    os.close(fd)
    try:
        onnx.save(inferred, tmp)
        return load_model(tmp)
    finally:
        os.unlink(tmp)
