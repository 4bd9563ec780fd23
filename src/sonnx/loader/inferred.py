"""Loading a model after onnx's shape inference has filled in the intermediate tensors' types.

Seed 002's rewrites assume static intermediate shapes (Flatten and Shape
folding); ``sonnx rewrite --infer-shapes`` asks for them. The inferred model
goes through the ordinary loader, so everything it adds is checked like the
rest of the file, and translation validation still compares the rewritten
model with this one. The inference is native code and runs in a child process
(:mod:`.sandbox`): a crash or a limit there is an :class:`InputError`.
"""

from __future__ import annotations

import os
import tempfile

import onnx

from ..base.errors import InputError
from ..model.graph import Model
from .load import load_model
from .sandbox import Failure, contained


def load_with_inferred_shapes(path: str) -> Model:
    """Load ``path`` after ``onnx.shape_inference`` (strict, with data propagation) has added value_info."""
    fd, tmp = tempfile.mkstemp(suffix=".onnx")
    os.close(fd)
    try:
        outcome = contained(_infer_to, path, tmp)  # native code: a crash or a limit ends the child only
        if isinstance(outcome, Failure):
            raise InputError(f"{path}: ONNX shape inference {outcome.reason}")
        if outcome:
            raise InputError(f"{path}: ONNX shape inference failed: {outcome[:300]}")
        return load_model(tmp)
    finally:
        os.unlink(tmp)


def _infer_to(path: str, out: str) -> str:
    """In the child: write ``path`` after strict shape inference to ``out``; '' on success, else the refusal."""
    try:
        proto = onnx.load(path)
        inferred = onnx.shape_inference.infer_shapes(proto, strict_mode=True, data_prop=True)
        onnx.save(inferred, out)
    except Exception as exc:  # onnx raises several unrelated types here
        return " ".join(str(exc).split()) or type(exc).__name__
    return ""
