"""Reading ONNX files into :class:`sonnx.model.Model` values.

Public API:

* :func:`load_model` -- the entry point the rest of sonnx needs;
* :func:`load_with_inferred_shapes` -- the same after onnx's shape inference;
* :func:`load_model_and_derived` -- the model, and the types onnx's inference
  derives from enforced facts for the same bytes, read once (the check gives
  them to the rules; :mod:`sonnx.loader.derived` does the same for a model
  held in memory);
* :func:`load_model_bytes` and :mod:`sonnx.loader.memory` -- the same for a model
  that has no file (an ``onnx.ModelProto``, bytes, stdin), read as a file's bytes;
* :class:`AttributeRef` -- the value of a reference to a function's formal
  attribute, found only in the bodies kept in ``Model.functions``
  (attribute type ``"REF"``);
* :mod:`sonnx.loader.wire` -- a minimal protobuf encoder that writes test
  models too deep for ``onnx.helper`` (nested ``If`` bodies).

The loader never recurses on the nesting depth of graphs (see
:mod:`sonnx.loader.proto` for how deep files are decoded) and turns every
failure into a one-line :class:`~sonnx.base.errors.SonnxError`.
"""

from __future__ import annotations

from .attributes import REF, AttributeRef
from .inferred import load_with_inferred_shapes
from .load import Derived, load_model, load_model_and_derived, load_model_bytes
from .memory import ModelBytes

__all__ = [
    "REF",
    "AttributeRef",
    "Derived",
    "ModelBytes",
    "load_model",
    "load_model_and_derived",
    "load_model_bytes",
    "load_with_inferred_shapes",
]
