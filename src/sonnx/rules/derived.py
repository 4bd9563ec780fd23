"""The model file read again with the types onnx's inference derives from enforced facts only (spec 4.2).

GRAPH-IF-BRANCHES needs the element types the branches produce, and
STRICT-BROADCAST the shapes of computed tensors. A declaration of the file is
not such a fact (no runtime holds an intermediate tensor to it), so both read
the model that :func:`sonnx.loader.load_model` gives with ``infer_shapes=True``:
the declarations no runtime enforces removed, then onnx's shape inference,
whose results rest on the main graph's inputs, initial values, constants and
onnx's schemas. Built here once per check for GRAPH-IF-BRANCHES.
"""

from __future__ import annotations

import os

from ..caching import cached
from ..errors import SonnxError
from ..loader import load_model
from ..model.graph import Model
from .base import CheckContext


def derived_model(ctx: CheckContext) -> tuple[Model | None, str]:
    """The model with derived types, or None and why there is none."""

    def build() -> tuple[Model | None, str]:
        path = ctx.model.source
        if not path or not os.path.isfile(path):
            return None, "the model was not read from a file"
        try:
            return load_model(path, read_weights=False, infer_shapes=True), ""
        except SonnxError as exc:
            return None, f"no inferred types: {exc.one_line()}"

    return cached(ctx.cache, ("rules.derived_model",), build)
